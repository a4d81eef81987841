"""What the dict-to-dict converters of Operator-Use <-> phi-core share: pydantic's lax reader
fills defaults and coerces values that ``json.loads`` leaves as written, so a dict converter only
takes the values both read alike, and gives up (``FastUnsupported``) on anything else, which then
takes the model path (``_to_phi``, ``_from_phi``) with its exact losses and errors.

The rules here: a model's object may hold only its fields' keys (an unknown key is a reader's
loss the model path names), no null where a model's field is (pydantic may read it as absent), and
each value of the one Python type ``json.loads`` and the model agree on (no ``"15"`` for 15, no
``1e3`` for an int, no ``"yes"`` for true). Numbers in a free-form value (tool arguments) are kept
only where Python's ``json`` writes them as phi-core's writer does.
"""

from __future__ import annotations

import math
from typing import Any

from phi_wire.convert import (
    FastUnsupported,  # the seam's: its input takes the model path
    checked_number,
)

from ._wire_shapes import Shape

__all__ = [
    "FastUnsupported",
    "free_value",
    "integer",
    "known",
    "number",
    "text",
    "truth",
    "without_nulls",
]

I64_MIN = -(2**63)
U64_END = 2**64
PLAIN_FLOATS = (1e-4, 1e16)
"""The magnitudes whose floats Python's ``repr`` and phi-core's writer both print as plain
decimals, the same shortest digits (``0.00001``, ``1e+16``: outside, they differ)."""


def known(document: Any, shape: Shape) -> dict[str, Any]:
    """``document`` if it is an object whose keys are all ``shape``'s and none of whose values is
    null, else ``FastUnsupported``."""
    if type(document) is not dict or not shape.keys.issuperset(document):
        raise FastUnsupported(shape.name)
    if None in document.values():
        raise FastUnsupported(f"{shape.name}: a null")
    return document


def without_nulls(document: dict[str, Any], shape: Shape) -> list[str]:
    """Takes the nulls out of an object of ``shape`` (its reader reads them as absent: pydantic
    holds None, the writer writes nothing) and gives the keys of those its reader drops without
    a word (``Shape.nullable``: its writer skips a None; ``NULL_READ_AS_ABSENT``), in the
    document's order."""
    nullable = shape.nullable
    dropped = []
    for key in [key for key, value in document.items() if value is None]:
        if key not in nullable:
            raise FastUnsupported(f"{shape.name}: a null {key}")
        del document[key]
        if nullable[key]:
            dropped.append(key)
    return dropped


def text(document: dict[str, Any], key: str, default: str | None = None) -> str:
    """A string field (``default`` when absent; no default: required)."""
    value = document.get(key, default)
    if type(value) is not str:
        raise FastUnsupported(key)
    return value


def truth(document: dict[str, Any], key: str, default: bool) -> bool:
    value = document.get(key, default)
    if type(value) is not bool:
        raise FastUnsupported(key)
    return value


def integer(document: dict[str, Any], key: str, default: int) -> int:
    value = document.get(key, default)
    if type(value) is not int:
        raise FastUnsupported(key)
    return value


def number(document: dict[str, Any], key: str, default: float | None = None) -> float:
    """A float field as pydantic reads it: an int becomes its float (exactly, below 2**53)."""
    value = document.get(key, default)
    if type(value) is float and math.isfinite(value):  # pydantic writes NaN and inf as null
        return value
    if type(value) is int and -(2**53) <= value <= 2**53:
        return float(value)
    raise FastUnsupported(key)


def free_value(value: Any) -> Any:
    """A free-form JSON value (a dict field of Operator-Use, a ``Value`` of phi-core), checked:
    every number one that Python's ``json`` writes as phi-core's writer does (an int of i64 or
    u64, a float of plain decimal digits) and phi-core reads back as the same (``checked_number``:
    its long floats); the value itself, unchanged."""
    kind = type(value)
    if kind is dict:
        for item in value.values():
            free_value(item)
    elif kind is list:
        for item in value:
            free_value(item)
    elif kind is int:
        if not I64_MIN <= value < U64_END:
            raise FastUnsupported("an integer beyond 64 bits")
    elif kind is float:
        magnitude = abs(value)
        if magnitude != 0.0 and not PLAIN_FLOATS[0] <= magnitude < PLAIN_FLOATS[1]:
            raise FastUnsupported("a float written in exponent form")
        if len(repr(value)) > 16:  # digits serde_json may read as another float: phi-core's
            checked_number(value)
    return value
