"""One pass of the standard library's C JSON scanner over a document, for what pydantic hides.

pydantic's parser silently keeps the last of repeated keys and reads numbers as Python does. Two
serde facts need the raw document instead: repeated fields (an error in derived structs, see
``_duplicates``) and numbers serde reads differently (``-0``, integers past u64/i64, some long
decimals, out-of-range exponents, see ``_numbers``; ``NaN``/``Infinity`` are not JSON at all).
``json.loads`` with hooks finds both at C speed, so ``loads`` pays for one scan, not two.
serde_json also refuses to nest deeper than 127 levels (pydantic's parser goes deeper):
``too_deep`` checks that, before the scan, so that the scan's own recursion never runs out. (Inside
an unknown key's value, which serde skips without counting levels, nesting is free: ``loads`` then
asks ``_ignored``.)

For a small document the scan also keeps what it parsed (numbers as placeholders): when pydantic
rejects the document, ``_error_translation`` locates the errors in it instead of parsing it again
(an invalid event costs a third less). A large one is not kept: the scan then holds no more than
the path it is on, as before.

The scan never gives up silently: its hooks accept any number lexeme (``_numbers`` reads every
length in linear time), and ``scan`` returns None only for text that Python's parser rejects as
JSON, which ``loads`` then rejects too (pydantic's message when it has one, else Python's).
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from ._numbers import needs_rewrite

__all__ = ["KEEP_BYTES", "SERDE_MAX_DEPTH", "Scan", "scan", "syntax_error", "too_deep"]

SERDE_MAX_DEPTH = 127
"""Deepest nesting of arrays/objects serde_json reads: its remaining_depth starts at 128 and the
parser fails when entering a level brings it to 0."""

_NOT_STRUCTURE = bytes(set(range(256)) - set(b'"[]{}'))
_STRING = re.compile(rb'"[^"]*"')
_DEPTH_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def too_deep(raw: bytes) -> bool:
    """True when arrays/objects nest deeper than serde_json allows (checked only if possible)."""
    if raw.count(b"[") + raw.count(b"{") <= SERDE_MAX_DEPTH:
        return False
    # Blank out escaped backslashes and quotes so every remaining quote delimits a string, keep
    # only quotes and brackets, drop the strings, then take the deepest running total. A quote
    # left unpaired opens a string that never ends (the parser fails there): nothing after it
    # nests.
    plain = raw.replace(b"\\\\", b"  ").replace(b'\\"', b"  ")
    brackets = _STRING.sub(b"", plain.translate(None, _NOT_STRUCTURE)).partition(b'"')[0]
    return max(accumulate(_DEPTH_STEP[byte] for byte in brackets), default=0) > SERDE_MAX_DEPTH


KEEP_BYTES = 1 << 16
"""Documents up to this size are kept as parsed (a few hundred kB of objects at most)."""


@dataclass
class Scan:
    repeated_keys: bool = False
    """Some object repeats a key."""
    numbers_differ: bool = False
    """Some number lexeme is read differently by serde (or is NaN/Infinity)."""
    document: Any = None
    """The document as ``json.loads`` reads it, its numbers 0 or 0.0 (its keys and indices are
    the document's); None unless ``kept``."""
    kept: bool = False


# One decoder for every scan: building a JSONDecoder per call (what json.loads does when given
# hooks) costs as much as a small document. Its hooks report into this thread's current Scan.
_current = threading.local()


def _pairs(items: list[tuple[str, Any]]) -> None:
    if len(dict(items)) != len(items):  # dict() runs in C; a set comprehension would not
        _current.found.repeated_keys = True


def _kept_pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
    kept = dict(items)  # the last of repeated keys wins, as in json.loads
    if len(kept) != len(items):
        _current.found.repeated_keys = True
    return kept


def _integer(lexeme: str) -> int:
    # Short integers other than -0 fit u64/i64 and read alike; only the rest needs a closer look.
    if (len(lexeme) > 15 or lexeme == "-0") and needs_rewrite(lexeme):
        _current.found.numbers_differ = True
    return 0


def _decimal(lexeme: str) -> float:
    if needs_rewrite(lexeme):
        _current.found.numbers_differ = True
    return 0.0


def _constant(name: str) -> float:
    _current.found.numbers_differ = True  # the exact pass reports NaN/Infinity with line and column
    return 0.0


_DECODER = json.JSONDecoder(
    object_pairs_hook=_pairs, parse_int=_integer, parse_float=_decimal, parse_constant=_constant
)
_KEEPING_DECODER = json.JSONDecoder(
    object_pairs_hook=_kept_pairs,
    parse_int=_integer,
    parse_float=_decimal,
    parse_constant=_constant,
)


def scan(raw: bytes) -> Scan | None:
    """What the document holds; None when Python's parser rejects it as JSON (``loads`` then
    rejects it too, see ``syntax_error``).

    Call it only on a document that is not ``too_deep``: then a ``RecursionError`` can only mean
    that the caller's own stack is nearly exhausted, and it propagates.
    """
    found = _current.found = Scan()
    keep = len(raw) <= KEEP_BYTES
    try:
        document = (_KEEPING_DECODER if keep else _DECODER).decode(raw.decode("utf-8"))
    except ValueError:  # not UTF-8, or not JSON; the number hooks never raise
        return None
    if keep:
        found.document, found.kept = document, True
    return found


def syntax_error(raw: bytes) -> tuple[str, int, int]:
    """Python's reason for rejecting ``raw`` as JSON (message, line, column), for a document that
    ``scan`` returned None for (if Python's parser takes it after all, a reason saying so)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        return f"invalid UTF-8 ({error.reason})", line, column
    try:
        json.loads(text, parse_int=str, parse_float=str, parse_constant=str)
    except json.JSONDecodeError as error:
        return error.msg, error.lineno, error.colno
    return "the document could not be scanned for serde's checks", 1, 1
