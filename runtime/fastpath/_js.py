"""What pi's reader adds to the fast path's expression (``_pattern``): pi reads with JavaScript's
``JSON.parse`` (every number a double), then validates the result in Python with its models, and
refuses ``null`` for an optional key whose type has none (absent is not null).

So, of what the models accept, the expression takes: integers of at most 15 digits (below 2^53,
read exactly), floats in any form that stays finite (``6e-7``: a two-digit exponent), and, for a
key that pi's schema gives no ``null``, no ``null`` even where the model's field is ``X | None``
(``phi_wire.formats.pi.base.wire_keys`` says which keys allow it).
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

__all__ = [
    "ISO_TIMESTAMP_PATTERN",
    "JS_FORMATS",
    "JS_INTEGER_DIGITS",
    "JS_STRING",
    "JS_VALUE_DEPTH",
    "NOT_NULL",
    "SURELY_NOT_NULL",
    "TAG_KEY",
    "constrained_string",
    "nullable_keys",
    "post_init_cannot_fail",
]

PI_BASE = "phi_wire.formats.pi.base"
"""The module of pi's models' base (``JsModel``, ``wire_keys``)."""

TAG_KEY = "type"
"""pi objects' tag, which pi always writes: the expression takes it as required, whatever its
model's default (so that what names a document's type is always there: ``phi_wire.validate``),
but where that default is None: a key pi's type has as optional (``type?: "chat"``, 1.5's RPC
``Model``), not a tag."""

JS_FORMATS = frozenset({"pi"})
"""Formats read by ``JSON.parse`` and validated in Python (pi): a repeated key is no error there
(the last value wins), so ``dict`` fields are expressed as any keys, each of the values' schema."""

JS_INTEGER_DIGITS = 15
"""The longest integer the expression takes where pi's models want one: below 10^15 < 2^53,
``JSON.parse`` reads it exactly, so the model sees the integer written."""

JS_VALUE_DEPTH = 5
"""Deepest JSON-valued field (tool parameters' JSON Schema, arguments, details) the expression
takes: ``JSON.parse`` (Python's ``json`` here) nests hundreds of levels deep."""

_PLAIN_RUN = rb"[ !#-\[\]-\xff]*+"
JS_STRING = rb'"' + _PLAIN_RUN + rb'(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})' + _PLAIN_RUN + rb')*+"'
"""A JSON string, any escape included: ``JSON.parse`` reads a lone surrogate (``\\ud800``) as
a one-character string, which pi's models take (bytes >= 0x80 are checked to be UTF-8 apart)."""

NOT_NULL = rb"(?!null)"
"""Put before a value that must not be ``null`` when its schema alone may be (no JSON value but
``null`` starts with these four letters)."""

SURELY_NOT_NULL = frozenset(
    {"str", "int", "float", "bool", "model", "list", "dict", "enum", "tagged-union"}
)
"""Schema kinds whose expression never matches ``null`` (a literal or a union may)."""


def _pi_base(cls: Any) -> ModuleType | None:
    """``phi_wire.formats.pi.base`` when ``cls`` is one of its ``JsModel``s, else None. Found
    from the class, not imported: that module imports the serde codec, which imports this
    package (an import would be a cycle)."""
    for base in getattr(cls, "__mro__", ()):
        if base.__name__ == "JsModel" and base.__module__ == PI_BASE:
            return sys.modules.get(PI_BASE)
    return None


def nullable_keys(cls: Any) -> dict[str, bool]:
    """For a pi model class: each wire key and whether pi's type allows ``null`` there (an
    unknown class: none, so nothing is taken as ``null``-able)."""
    base = _pi_base(cls)
    if base is None:
        return {}
    return {key.wire: key.nullable for key in base.wire_keys(cls)}


def post_init_cannot_fail(cls: Any) -> bool:
    """Whether a model's ``post_init`` is pydantic's own setting of its private attributes'
    defaults (a ``JsModel``'s remembered key order), which takes any valid object; known by its
    name, so that another one leaves the type ineligible, never wrongly vouched for."""
    if _pi_base(cls) is None:
        return False
    function = getattr(cls, "model_post_init", None)
    return (
        getattr(function, "__module__", "") == "pydantic._internal._model_construction"
        and getattr(function, "__qualname__", "") == "init_private_attributes"
    )


ISO_TIMESTAMP_PATTERN = (
    r"^([0-9]{4}-(0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|[0-9]{4}-(0[469]|11)-(0[1-9]|[12][0-9]"
    r"|30)|[0-9]{4}-02-(0[1-9]|1[0-9]|2[0-8])|([0-9]{2}(0[48]|[2468][048]|[13579][26])|([02468]"
    r"[048]|[13579][26])00)-02-29)T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{3}Z"
)
"""pi's ``ISOTimestamp`` (``Date.prototype.toISOString()``), as its models check it: this
pattern, 24 characters exactly. Its every match is 24 ASCII characters, so the string written
raw between quotes is exactly a string the model takes."""
ISO_TIMESTAMP_LENGTH = 24


def constrained_string(schema: dict[str, Any]) -> bytes | None:
    """The expression of a string schema with a pattern that pi's models use (its
    ``ISOTimestamp``), written raw; None for any other constraint."""
    if set(schema) - {"type", "min_length", "max_length", "pattern", "metadata", "ref", "strict"}:
        return None
    length = ISO_TIMESTAMP_LENGTH
    if schema.get("pattern") != ISO_TIMESTAMP_PATTERN or not (
        schema.get("min_length") == length == schema.get("max_length")
    ):
        return None
    body = ISO_TIMESTAMP_PATTERN[1:].replace("(", "(?:")  # no capturing groups in the expression
    return b'"(?:' + body.encode() + b')"'
