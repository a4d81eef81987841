"""serde_json's terse words, said plainly in a report: its verdict and its words stand (they are
what phi-core says), with the real problem named before them.

* A lone UTF-16 surrogate escape (``"\\ud800"`` with no low half after it; pi writes them, from
  JavaScript strings): serde_json says "unexpected end of hex escape" (a high half not followed
  by ``\\u``) or "lone leading surrogate in hex escape" (a low half alone, or a high half followed
  by another escape), at the byte after the escape. Said: ``lone surrogate \\ud800 at line 1
  column 139: a UTF-16 surrogate escape must be one of a pair (serde_json: unexpected end of hex
  escape at line 1 column 145)``.
* "invalid unicode code point" for bytes that are not UTF-8 (its words cover a bad escape too):
  said as such when the text is not UTF-8.
* A UTF-8 byte order mark before the document: serde_json says "expected value at line 1 column
  1"; said as a byte order mark (``byte_order_mark``), by validate and convert alike.
"""

from __future__ import annotations

import re

__all__ = ["BOM", "byte_order_mark", "explained", "lone_surrogates"]

BOM = b"\xef\xbb\xbf"
"""A UTF-8 byte order mark, which serde_json rejects before a document."""

_NOT_UTF8 = "invalid unicode code point"
"""serde_json's words for a string that is not UTF-8 (where it reads the string in full)."""
_SURROGATE_WORDS = re.compile(
    r"(unexpected end of hex escape|lone leading surrogate in hex escape) "
    r"at line (\d+) column (\d+)"
)
_ESCAPE = re.compile(rb"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)
"""A backslash escape of a JSON string (``\\\\`` is one: what follows it is no escape)."""


def byte_order_mark(raw: bytes, format: str, serde: bool = True) -> str | None:
    """The words for a document ``raw`` that a byte order mark precedes, which ``format``
    rejects (``serde``: it reads with serde_json; Operator-Use's pydantic reader says its own
    words, which stand); None when there is none."""
    if not serde or not raw.startswith(BOM):
        return None
    return f"a UTF-8 byte order mark precedes the document; {format} (serde_json) rejects it"


def lone_surrogates(raw: bytes) -> list[tuple[int, str]]:
    """(byte offset, escape as written) of each surrogate escape of ``raw`` that is not one half
    of a pair: a high half (``\\ud800``-``\\udbff``) not followed at once by a low half
    (``\\udc00``-``\\udfff``), or a low half on its own."""
    found: list[tuple[int, str]] = []
    high: tuple[int, str] | None = None
    high_end = -1
    for match in _ESCAPE.finditer(raw):
        code = int(match[1], 16) if match[1] else None
        low = code is not None and 0xDC00 <= code <= 0xDFFF
        if high is not None:
            if low and match.start() == high_end:
                high = None
                continue
            found.append(high)
            high = None
        if code is None:
            continue
        if 0xD800 <= code <= 0xDBFF:
            high, high_end = (match.start(), match[0].decode("ascii")), match.end()
        elif low:
            found.append((match.start(), match[0].decode("ascii")))
    if high is not None:
        found.append(high)
    return found


def _offset(raw: bytes, line: int, column: int) -> int:
    """The byte offset of a 1-based line and byte column (as serde_json counts them)."""
    start = 0
    for _ in range(line - 1):
        start = raw.find(b"\n", start) + 1
        if start == 0:
            return len(raw)
    return start + column - 1


def _where(raw: bytes, offset: int) -> tuple[int, int]:
    line = raw.count(b"\n", 0, offset) + 1
    return line, offset - (raw.rfind(b"\n", 0, offset) + 1) + 1


def _surrogate_said(message: str, raw: bytes) -> str:
    words = _SURROGATE_WORDS.search(message)
    if words is None:
        return message
    error = _offset(raw, int(words[2]), int(words[3]))
    lone = [found for found in lone_surrogates(raw) if found[0] < error]
    if not lone:
        return message
    offset, escape = lone[-1]  # the last one before where serde_json stopped
    line, column = _where(raw, offset)
    plain = (
        f"lone surrogate {escape} at line {line} column {column}: a UTF-16 surrogate escape must "
        f"be one of a pair (serde_json: {words[0]})"
    )
    return message[: words.start()] + plain + message[words.end() :]


def explained(message: str, raw: bytes, serde: bool = True) -> str:
    """A reader's ``message`` about ``raw`` (the document), with the real problem named when
    its words hide it: bytes that are not UTF-8, and (``serde``: a serde codec's message, whose
    lines and columns count bytes of ``raw``) a lone surrogate escape."""
    if serde:
        message = _surrogate_said(message, raw)
    if _NOT_UTF8 not in message:
        return message
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return f"{message} (the text is not UTF-8 there)"
    return message
