"""Hypothesis strategies that generate JSON documents from a bundled phi-wire schema.

hypothesis-jsonschema 0.23.1 no longer works with current Hypothesis (it fails inside Hypothesis's
internals), and phi-wire's schemas use a small subset of JSON Schema, so this module covers exactly
that subset: $ref into $defs, const, enum, oneOf/anyOf, allOf of objects, object with properties /
required / additionalProperties, array items, string (DateTime: chrono's timestamps), integer with
bounds, number, boolean, null, and {} (any JSON).
"""

from __future__ import annotations

import string
from typing import Any

from hypothesis import strategies as st

_KEY = st.text(alphabet=string.ascii_letters + "_", min_size=1, max_size=8)

# Floats whose decimal text serde_json reads back exactly (<= 12 digits, 1e-10 <= |x| < 1e15, so
# the power of ten it scales by stays within 1e22): serde's own reading of other decimals can be
# 1 ULP off, which tests/test_numbers.py covers on its own.
_FLOATS = st.floats(min_value=-1e15, max_value=1e15, allow_nan=False).map(
    lambda x: float(f"{x:.12g}") if abs(x) >= 1e-10 else 0.0
)

ANY_JSON: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | _FLOATS
    | st.text(max_size=12),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_KEY, children, max_size=3),
    max_leaves=8,
)


@st.composite
def _timestamps(draw: st.DrawFn) -> str:
    """RFC 3339 date-times in the forms chrono writes and in other forms it reads."""
    year = draw(st.integers(1970, 2200))
    month = draw(st.integers(1, 12))
    day = draw(st.integers(1, 28))
    hms = draw(st.tuples(st.integers(0, 23), st.integers(0, 59), st.integers(0, 59)))
    fraction = draw(st.sampled_from(["", ".5", ".123", ".123456", ".123456789", ".000"]))
    zone = draw(st.sampled_from(["Z", "+02:00", "-10:30", "+00:00"]))
    return (
        f"{year:04d}-{month:02d}-{day:02d}T{hms[0]:02d}:{hms[1]:02d}:{hms[2]:02d}{fraction}{zone}"
    )


def _merge_all_of(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    merged: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
    for part in schema["allOf"]:
        part = _resolve(part, defs)
        if "allOf" in part:
            part = _merge_all_of(part, defs)
        merged["properties"].update(part.get("properties", {}))
        merged["required"] += [
            key for key in part.get("required", []) if key not in merged["required"]
        ]
    return merged


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = defs[schema["$ref"].removeprefix("#/$defs/")]
    return schema


def from_schema(
    schema: dict[str, Any], defs: dict[str, Any] | None = None
) -> st.SearchStrategy[Any]:
    """A strategy for documents valid under ``schema`` (a bundle from ``phi_wire.schema``)."""
    defs = schema.get("$defs", {}) if defs is None else defs
    schema = _resolve(schema, defs)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return st.one_of([from_schema(branch, defs) for branch in schema[key]])
    if "allOf" in schema:
        return from_schema(_merge_all_of(schema, defs), defs)
    kind = schema.get("type")
    if kind == "object":
        properties = {
            name: from_schema(sub, defs) for name, sub in schema.get("properties", {}).items()
        }
        required = set(schema.get("required", []))
        return st.fixed_dictionaries(
            {name: value for name, value in properties.items() if name in required},
            optional={name: value for name, value in properties.items() if name not in required},
        )
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {}), defs), max_size=3)
    if kind == "string":
        if str(schema.get("x-rust-type", "")).startswith("chrono::DateTime"):
            return _timestamps()  # its pattern is chrono's whole grammar: draw the common forms
        return st.text(max_size=12)
    if kind == "integer":
        return st.integers(schema.get("minimum"), schema.get("maximum"))
    if kind == "number":
        return st.floats(allow_nan=False, allow_infinity=False, width=32) | st.integers(-1000, 1000)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if not kind:
        return ANY_JSON
    raise NotImplementedError(f"schema construct not covered: {schema}")
