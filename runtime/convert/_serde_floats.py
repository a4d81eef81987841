"""Serde fact (phi-core-wire.md ``Numbers.imprecise_float_parse``; clark-agent's README,
"Numbers": no ``float_roundtrip``): serde_json reads some decimals of 16 digits or more 1 ULP off
(``1801439850948199.0`` as ``1801439850948199.2``), where Python's ``json`` (Operator-Use's
reader, and the dict paths' ``parsed``) reads them correctly rounded. So a number of a phi-core
or clark-agent text may mean another float than ``parsed`` gives (``numbers_read_alike``), and a
float written for phi-core or clark-agent may be read back as another (``serde_misreads``,
``misread_floats``: a ``changed`` loss, ``MISREAD_BY_SERDE``).
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


def _marks() -> bytes:
    table = bytearray(b" " * 256)
    for byte in b"0123456789.+-":
        table[byte] = ord("D")
    table[ord("e")] = table[ord("E")] = ord("E")
    for byte in b":,[ \t\r\n":
        table[byte] = ord("V")
    return bytes(table)


_MARKS = _marks()
"""A number's characters as ``D``, an exponent's ``e`` as ``E``, what may precede a value
(``:``, ``,``, ``[``, blanks) as ``V``, every other byte a blank: a number value is ``V`` then
``D`` and ``E``."""
_CANDIDATE = re.compile(rb"(?:^|V)(?:D{16}|D+E)")
"""A number value that serde may read otherwise than Python: 16 characters or more (more than
``EXACT_DIGITS``' 15 digits), or an exponent form (serde's power of ten past 1e22 is not exact:
``1e-307`` is read as ``1.0000000000000001e-307``). A string's text may match too: the line is
then looked at closely, never let through."""
_NUMBER = re.compile(rb"-?[0-9][0-9.eE+-]*+")


def long_digits(text: bytes | bytearray) -> bool:
    """A first look for a number value serde may read otherwise than Python (``_CANDIDATE``):
    one ``translate`` and one search in C, 1-3 ms per MB."""
    return _CANDIDATE.search(text.translate(_MARKS)) is not None


def numbers_read_alike(text: bytes | bytearray) -> bool:
    """Whether serde_json reads every number of a JSON text (of phi-core or clark-agent: read by
    serde_json) as Python's ``json`` (``parsed``) does: a text whose numbers it reads otherwise
    (``1801439850948199.0`` as ``1801439850948199.2``, ``1e-307``) takes the model path, which
    reads them as serde does. Only the candidates (``_CANDIDATE``) are looked at. The integer
    ``-0`` is ``negative_zero``'s."""
    for candidate in _CANDIDATE.finditer(text.translate(_MARKS)):
        start = candidate.start() + (candidate.group()[:1] == b"V")
        found = _NUMBER.match(text, start)
        if found is not None and _misread_text(found.group()):
            return False
    return True


def _misread_text(number: bytes) -> bool:
    from phi_wire.serde import needs_rewrite  # only then: the engine is big

    try:
        return needs_rewrite(number.decode())
    except ValueError:  # no JSON number (a corrupt line): the model path judges and reports it
        return True


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
