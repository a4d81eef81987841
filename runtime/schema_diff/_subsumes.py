"""Whether one schema accepts every document another accepts, in the cases a union's fallback
branch makes that plain: an open object that asks for less (OpenTelemetry GenAI's
``GenericPart``: any object with a string ``type``) takes every typed part; ``{"type": "string"}``
beside a reference to a string enum (``anyOf: [Modality, string]``) takes every value of the
enum, whatever the enum gains or loses. ``phi_wire.schema_diff`` asks it before calling a union's
new or removed variant a break, and to know which references a union absorbs.

Conservative: ``False`` whenever the answer is not plain (only ``True`` is relied on).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["absorbed", "subsumes"]

_ANNOTATIONS = {"title", "description", "$comment", "examples", "default", "deprecated"}
_OBJECT_KEYS = {"type", "properties", "required", "additionalProperties"}


def _resolved(definitions: Mapping[str, Any], node: Any, depth: int = 0) -> Any:
    while isinstance(node, dict) and "$ref" in node and depth < 32:
        node = definitions.get(str(node["$ref"]).rpartition("/$defs/")[2], {})
        depth += 1
    if isinstance(node, dict):
        return {
            key: value
            for key, value in node.items()
            if key not in _ANNOTATIONS and not key.startswith("x-")
        }
    return node


def subsumes(
    wide_definitions: Mapping[str, Any],
    wide: Any,
    narrow_definitions: Mapping[str, Any],
    narrow: Any,
) -> bool:
    """Whether ``wide`` (of ``wide_definitions``) plainly accepts all that ``narrow`` does."""
    wide = _resolved(wide_definitions, wide)
    narrow = _resolved(narrow_definitions, narrow)
    if not isinstance(wide, dict) or not isinstance(narrow, dict):
        return wide is True or wide == narrow
    if wide == {} or wide == narrow:
        return True
    for key in ("anyOf", "oneOf"):
        if key in narrow and set(narrow) <= {key, "type"}:
            return all(
                subsumes(wide_definitions, wide, narrow_definitions, branch)
                for branch in narrow[key]
            )
    if "anyOf" in wide and set(wide) <= {"anyOf", "type"}:
        return any(
            subsumes(wide_definitions, branch, narrow_definitions, narrow)
            for branch in wide["anyOf"]
        )
    if wide.get("type") == "object":
        return _object(wide_definitions, wide, narrow_definitions, narrow)
    return _scalar(wide, narrow)


def _object(
    wide_definitions: Mapping[str, Any],
    wide: dict[str, Any],
    narrow_definitions: Mapping[str, Any],
    narrow: dict[str, Any],
) -> bool:
    if set(wide) - _OBJECT_KEYS or wide.get("additionalProperties", True) is not True:
        return False
    if narrow.get("type") != "object":
        return False
    if not set(wide.get("required", [])) <= set(narrow.get("required", [])):
        return False
    narrow_properties = narrow.get("properties", {})
    closed = narrow.get("additionalProperties", True) is False
    for name, schema in wide.get("properties", {}).items():
        if name in narrow_properties:
            if not subsumes(wide_definitions, schema, narrow_definitions, narrow_properties[name]):
                return False
        elif not closed and _resolved(wide_definitions, schema) != {}:
            return False  # the narrow object takes any value there
    return True


def _scalar(wide: dict[str, Any], narrow: dict[str, Any]) -> bool:
    if set(wide) - {"type", "not"} or not isinstance(wide.get("type"), str):
        return False
    values: list[Any] | None = None
    if "const" in narrow:
        values = [narrow["const"]]
    elif "enum" in narrow:
        values = list(narrow["enum"])
    kind = wide["type"]
    if values is not None:
        if not all(_is(kind, value) for value in values):
            return False
    elif narrow.get("type") != kind or "not" in wide:
        return False
    refused = wide.get("not")
    if refused is None:
        return True
    if not isinstance(refused, dict) or set(refused) != {"const"} or values is None:
        return False
    return refused["const"] not in values


def _is(kind: str, value: Any) -> bool:
    checks = {
        "string": lambda v: isinstance(v, str),
        "boolean": lambda v: isinstance(v, bool),
        "null": lambda v: v is None,
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    }
    check = checks.get(kind)
    return check is not None and bool(check(value))


def absorbed(definitions: Mapping[str, Any], union: list[Any]) -> set[int]:
    """The indexes of the reference branches of an ``anyOf`` that an inline branch beside them
    plainly takes in (``[Modality, {"type": "string"}]``: the first), so that what changes in the
    referenced definition changes nothing the union accepts."""
    inline = [branch for branch in union if isinstance(branch, dict) and "$ref" not in branch]
    return {
        index
        for index, branch in enumerate(union)
        if isinstance(branch, dict)
        and "$ref" in branch
        and any(subsumes(definitions, other, definitions, branch) for other in inline)
    }
