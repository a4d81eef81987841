"""Whole documents for the fast path: a pretty JSON document without its blanks.

phi-core's sessions are pretty JSON (``save_session``). The fast path's expression matches the
compact form, so a pretty document is matched once compacted. Whitespace between two tokens never
changes a JSON text's meaning, so a pretty document is valid exactly when its compact form is,
provided the compact form has the same tokens: removing a blank must never join two of them.
"""

from __future__ import annotations

import re

__all__ = ["PIECE_BYTES", "compact"]

# Removing a blank must never join two tokens (`1 2` into `12`). Blanks that touch a structural
# character (`{}[],:`) are token boundaries; a blank between a string and a number or literal is
# one too, and the compact pattern rejects the result anyway (`"a"1` is not JSON). Strings are
# kept byte for byte, so blanks inside them stay.

_STRINGS = re.compile(rb'("[^"\\]*+(?:\\[\s\S][^"\\]*+)*+")')
_BLANKS = b" \t\n\r"
_STRUCTURAL = b"{}[],:"
# Between strings, keep only the words (numbers, literals): structural characters and the NUL
# standing for a string become spaces; blanks too, or are deleted.
_WORDS_APART = bytes.maketrans(_STRUCTURAL + b"\0\t\n\r", b" " * 10)
_WORDS_JOINED = bytes.maketrans(_STRUCTURAL + b"\0", b" " * 7)
# A document is compacted a piece at a time, each piece ending at a newline: splitting makes an
# object per string, some ten times the bytes, so a 100 MB session in one piece peaked over 1 GB.
PIECE_BYTES = 1 << 20
_NOT_WORD = frozenset(_STRUCTURAL + b'"')


def compact(document: bytes) -> bytearray | None:
    """``document`` without the blanks between its tokens; None when removing one would join two
    tokens, when a string is cut by a raw newline (not JSON), or when a NUL byte is present (no
    JSON text holds one: it stands for strings below)."""
    if b"\0" in document:
        return None
    compacted = bytearray()
    start, size = 0, len(document)
    while start < size:
        newline = document.find(b"\n", start + PIECE_BYTES)
        end = size if newline == -1 else newline + 1
        piece = _compact_piece(document[start:end])
        if piece is None:
            return None
        if compacted and piece and compacted[-1] not in _NOT_WORD and piece[0] not in _NOT_WORD:
            return None  # the newline that ends a piece separated two words
        compacted += piece
        start = end
    return compacted


def _compact_piece(piece: bytes) -> bytes | None:
    parts = _STRINGS.split(piece)  # text between strings at even indexes, strings at odd
    between = b"\0".join(parts[0::2])  # a few C-speed passes over all of it, not one per part
    if b'"' in between:
        return None  # a string left open: the piece ends inside it, or the text is not JSON
    words = between.translate(_WORDS_APART).split()
    if len(words) != len(between.translate(_WORDS_JOINED, _BLANKS).split()):
        return None  # a blank separated two words
    parts[0::2] = between.translate(None, _BLANKS).split(b"\0")
    return b"".join(parts)
