"""UTF-8 validity for the fast path, checked once per block at C speed.

The fast path's expression takes any run of bytes >= 0x80 inside a JSON string as it is: matching
UTF-8's forms byte by byte made non-ASCII text slower than ``json.loads``. The bytes are checked
here instead, by Python's strict UTF-8 decoder, which refuses what serde_json and ``loads`` refuse:
overlong forms, encoded surrogates (U+D800-U+DFFF), code points past U+10FFFF, bytes 0xF5-0xFF,
stray continuation bytes and truncated sequences. A line that fails goes to ``loads`` alone.
"""

from __future__ import annotations

import codecs

__all__ = ["PIECE_BYTES", "is_utf8", "lines_not_utf8"]

PIECE_BYTES = 1 << 16
"""Bytes decoded at a time. The text decoded is thrown away at once; a small piece keeps it in the
CPU's cache (one emoji makes a whole piece's text 4 bytes a character: in 1 MB pieces the check
made a mostly-ASCII stream some 10% slower than the per-character table it replaces, in 64 kB
pieces it is faster), and a 100 MB document is never decoded whole."""

_decode = codecs.utf_8_decode


def lines_not_utf8(data: bytes | bytearray) -> list[int]:
    """Start offsets of the lines of ``data`` (cut at ``\\n``) that hold bytes that are not UTF-8,
    in order; none for ASCII, which is checked at memory speed."""
    if data.isascii():
        return []
    view = memoryview(data)
    size = len(data)
    bad: list[int] = []
    position = 0
    while position < size:
        # a piece may cut a sequence: the decoder leaves its start for the next piece (a piece of
        # at least 4 bytes, the longest sequence, always decodes a character or fails)
        end = min(size, position + max(PIECE_BYTES, 4))
        try:
            _, decoded = _decode(view[position:end], "strict", end == size)
        except UnicodeDecodeError as error:
            # a newline is never part of a sequence: the error lies in the line around it, and
            # the next line starts a fresh sequence
            where = position + error.start
            bad.append(data.rfind(b"\n", 0, where) + 1)
            newline = data.find(b"\n", where)
            if newline == -1:
                break
            position = newline + 1
            continue
        position += decoded
    return bad


def is_utf8(data: bytes) -> bool:
    """Whether all of ``data`` (one document) is UTF-8."""
    try:
        _decode(data, "strict", True)
    except UnicodeDecodeError:
        return False
    return True
