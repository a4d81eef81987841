"""Serde fact (phi-core-wire.md ``Numbers.imprecise_float_parse``; clark-agent's README,
"Numbers": no ``float_roundtrip``): serde_json reads some decimals of 16 digits or more 1 ULP off
(``1801439850948199.0`` as ``1801439850948199.2``), where Python's ``json`` (Operator-Use's
reader, and the dict paths' ``parsed``) reads them correctly rounded. So a number of a phi-core
or clark-agent text may mean another float than ``parsed`` gives (``numbers_read_alike``), and a
float written for phi-core or clark-agent may be read back as another (``serde_misreads``,
``misread_floats``: a ``changed`` loss, ``MISREAD_BY_SERDE``).

Only free-form values need the closer look: the typed floats of phi-core and clark-agent (the F32
temperatures of a request: ``TurnRequest``, ``LoopConfigSnapshot``, ``provider_request_prepared``)
are carried by no converter (dropped with what holds them: both paths alike), and a number in
exponent form in a typed integer field (a timestamp, a usage count) is refused by both alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from phi_wire.pointer import escape

__all__ = [
    "EXACT_DIGITS",
    "MISREAD_BY_SERDE",
    "SERDE_READ",
    "long_digits",
    "misread_floats",
    "numbers_read_alike",
    "serde_misreads",
]

SERDE_READ = frozenset({"phi-core", "clark-agent"})
"""The formats whose implementation reads JSON with serde_json's default number parsing (no
``float_roundtrip``: clark-agent's README, phi-core's ``Numbers``); Operator-Use's reads with
Python's ``json``, as ``parsed`` does."""

EXACT_DIGITS = 16
"""Serde fact: a decimal of at most 15 digits (``repr``: at most 16 characters with its point,
17 with a sign: still at most 15 digits when longer only by the sign) is read exactly by
serde_json's one multiplication or division (significand and power of ten exact in an f64); a
longer one may be read 1 ULP off (``Numbers.imprecise_float_parse``)."""


def serde_misreads(number: float) -> bool:
    """Whether serde_json (default features: no ``float_roundtrip``) reads ``repr(number)`` as
    another float: ``1801439850948199.0`` as ``1801439850948199.2``. The model path reads what
    it writes for phi-core and clark-agent so (``phi_wire.serde``); a dict converter hands such a
    number back, its conversion the model path's."""
    from phi_wire.serde import serde_number  # only for long floats: most inputs have none

    return serde_number(repr(number)) != number


_AS_DIGITS = bytes(ord("D") if 48 <= byte <= 57 or byte == 46 else ord(" ") for byte in range(256))
"""Digits and points as ``D``, every other byte a blank: a number's text is a run of ``D``."""
_SIXTEEN = b"D" * 16
_NUMBER = re.compile(rb"-?[0-9][0-9.eE+-]*+")
_BEFORE_A_VALUE = frozenset(b":,[")
_INTEGER = re.compile(rb"-?(?:0|[1-9][0-9]*+)")


def long_digits(text: bytes | bytearray) -> bool:
    """A first look for a number of 16 digits or more, which serde may read otherwise than
    Python (``EXACT_DIGITS``): 16 digits or points in a row (also in a string: the text is then
    looked at closely). Two passes in C, 1-2 ms per MB (a regular expression took 30)."""
    return text.translate(_AS_DIGITS).find(_SIXTEEN) != -1


def numbers_read_alike(text: bytes | bytearray) -> bool:
    """Whether serde_json reads every number of a compact JSON text (of phi-core or clark-agent:
    read by serde_json) as Python's ``json`` (``parsed``) does: a text whose numbers it reads
    otherwise (``1801439850948199.0`` as ``1801439850948199.2``) takes the model path, which
    reads them as serde does. Only the runs of 16 digits or more are looked at (as a value: after
    ``:``, ``,`` or ``[``; the same text in a string may send a line to the model path, never
    let one through). The integer ``-0`` is ``negative_zero``'s."""
    marked = text.translate(_AS_DIGITS)
    at = marked.find(_SIXTEEN)
    while at != -1:
        start = at
        while start > 0 and marked[start - 1] == 68:  # the run's start (68: "D")
            start -= 1
        if start > 0 and text[start - 1] == 45:  # a minus sign
            start -= 1
        found = _NUMBER.match(text, start)
        end = marked.find(b" ", at)  # the run's end: the next search starts past it
        if end == -1:
            return _alike(found, text, start)
        if not _alike(found, text, start):
            return False
        at = marked.find(_SIXTEEN, max(end, found.end()) if found is not None else end)
    return True


def _alike(found: re.Match[bytes] | None, text: bytes | bytearray, start: int) -> bool:
    """Whether the run at ``start`` is no number value that serde reads otherwise."""
    if found is None or (start > 0 and text[start - 1] not in _BEFORE_A_VALUE):
        return True  # no number value there (a string's digits, points...)
    if _INTEGER.fullmatch(found.group()) and -(2**63) <= int(found.group()) < 2**64:
        return True  # serde reads an i64 or u64 exactly (the corpora's edge values: no engine)
    from phi_wire.serde import needs_rewrite  # only then: the engine is big

    try:
        return not needs_rewrite(found.group().decode())
    except ValueError:  # no JSON number (a corrupt line): the model path judges and reports it
        return False


MISREAD_BY_SERDE = (
    "phi-core's reader (serde_json, not correctly rounded) reads this float as a neighbouring one"
)
"""The reason of the ``changed`` loss at a float that the target reads as another."""


def misread_floats(value: Any, pointer: str) -> Iterator[str]:
    """The pointers (``pointer``: the value's) of the floats of a free-form value that serde_json
    reads back as another float (``serde_misreads``) when written as Python writes them."""
    kind = type(value)
    if kind is float:
        text = repr(value)  # an exponent form too: serde's power of ten past 1e22 is inexact
        if (len(text) > EXACT_DIGITS or "e" in text) and serde_misreads(value):
            yield pointer
    elif kind is dict:
        for key, item in value.items():
            yield from misread_floats(item, f"{pointer}/{escape(key)}")
    elif kind is list:
        for index, item in enumerate(value):
            yield from misread_floats(item, f"{pointer}/{index}")
