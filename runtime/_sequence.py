"""serde's sequence form: a derived struct also reads a JSON array of its fields, in order.

Serde fact: ``#[derive(Deserialize)]`` gives every struct and struct variant a ``visit_seq``, so
``[1, 2]`` reads as ``Usage {input: 1, output: 2}`` (fields in declaration order; missing trailing
fields only where ``#[serde(default)]`` fills them (for an ``Option`` the schema says so with
``x-serde-default``); extra elements are an error); an internally
tagged enum reads ``[tag, field1, ...]``; ``LlmMessage`` passes a non-object to ``Message``'s
sequence form; the untagged ``AgentMessage`` tries the LLM lane first. phi-core never writes these
forms. ``loads`` turns them into objects (only after the fast path has failed) and validates again.
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

__all__ = ["SequenceMismatch", "objects_from_sequences", "positional_fields"]


class SequenceMismatch(ValueError):
    """The array does not fit the expected struct (wrong length or tag)."""


def _unwrap(tp: Any) -> tuple[Any, list[Any]]:
    metadata: list[Any] = []
    while True:
        if hasattr(tp, "__value__") and not isinstance(tp, type):  # a TypeAliasType
            tp = tp.__value__
        elif typing.get_origin(tp) is typing.Annotated:
            tp, *extra = typing.get_args(tp)
            metadata += extra
        else:
            return tp, metadata


def _discriminator(metadata: list[Any]) -> str | None:
    for item in metadata:
        if isinstance(item, FieldInfo) and isinstance(item.discriminator, str):
            return item.discriminator
    return None


def _wire(name: str, info: FieldInfo) -> str:
    return info.alias or name


def _tag_of(model: type[BaseModel], field: str) -> Any:
    (value,) = typing.get_args(_unwrap(model.model_fields[field].annotation)[0]) or (None,)
    return value


def positional_fields(model: type[BaseModel]) -> list[tuple[str, FieldInfo]]:
    """The fields serde reads by position: for an LlmMessage variant, those of its Message."""
    from ._helpers import MessageHelpers
    from ._wire import LlmMessageBase

    if issubclass(model, LlmMessageBase):
        model = next(base for base in model.__mro__[1:] if issubclass(base, MessageHelpers))
    return list(model.model_fields.items())


def _serde_default(info: FieldInfo) -> bool:
    """An Option field with ``#[serde(default)]`` (schema: ``x-serde-default``): a missing element
    reads as None. Without it, serde fills None only for a missing *key*, never in an array."""
    extra = info.json_schema_extra
    return isinstance(extra, dict) and bool(extra.get("x-serde-default"))


def _struct(model: type[BaseModel], items: list[Any], skip: str | None = None) -> dict[str, Any]:
    fields = [(name, info) for name, info in positional_fields(model) if name != skip]
    if len(items) > len(fields):
        raise SequenceMismatch(f"{model.__name__} has {len(fields)} fields, the array {len(items)}")
    result: dict[str, Any] = {}
    for index, (name, info) in enumerate(fields):
        if index < len(items):
            result[_wire(name, info)] = items[index]
        elif info.is_required() or (info.default is None and not _serde_default(info)):
            raise SequenceMismatch(
                f"{model.__name__} needs {_wire(name, info)!r} at position {index}"
            )
    return result


# A model's fields by wire name, built once per model (an invalid document may hold a million).
_WIRE_FIELDS: dict[type[BaseModel], dict[str, FieldInfo]] = {}


def _model_value(model: type[BaseModel], value: Any) -> Any:
    if isinstance(value, list):
        value = _struct(model, value)
    if not isinstance(value, dict):
        return value
    fields = _WIRE_FIELDS.get(model)
    if fields is None:
        fields = _WIRE_FIELDS[model] = {
            _wire(name, info): info for name, info in model.model_fields.items()
        }
    return {
        key: objects_from_sequences(fields[key].annotation, item) if key in fields else item
        for key, item in value.items()
    }


def _tagged(members: list[Any], tag_field: str, value: Any) -> Any:
    models = [
        member for member in members if isinstance(member, type) and issubclass(member, BaseModel)
    ]
    if not models:
        return value
    wire_tag = _wire(tag_field, models[0].model_fields[tag_field])
    if isinstance(value, list):
        if not value or not isinstance(value[0], str):
            raise SequenceMismatch("the first element of the array must be the variant tag")
        for model in models:
            if _tag_of(model, tag_field) == value[0]:
                return _model_value(
                    model, {wire_tag: value[0], **_struct(model, value[1:], skip=tag_field)}
                )
        raise SequenceMismatch(f"unknown variant {value[0]!r}")
    if isinstance(value, dict):
        for model in models:
            if _tag_of(model, tag_field) == value.get(wire_tag):
                return _model_value(model, value)
    return value


def _fits(member: Any, candidate: Any) -> bool:
    """Whether ``candidate`` validates as ``member`` (untagged enums try their lanes in order)."""
    from pydantic import ValidationError

    from ._codec import adapter

    try:
        adapter(member).validate_json(
            json.dumps(candidate), strict=True, by_alias=True, by_name=False
        )
    except (ValidationError, ValueError):
        return False
    return True


def _untagged(members: list[Any], value: Any) -> Any:
    """Untagged unions and optional values: the first member the value fits."""
    if value is None:
        return None
    for member in members:
        shape, _ = _unwrap(member)
        is_model = isinstance(shape, type) and issubclass(shape, BaseModel)
        if not is_model and typing.get_origin(shape) not in (typing.Union, types.UnionType, list):
            continue  # scalars and enums hold no struct
        if isinstance(value, dict) and is_model:
            wire_names = {_wire(name, info) for name, info in shape.model_fields.items()}
            if not wire_names.intersection(value):
                continue
        try:
            candidate = objects_from_sequences(member, value)
        except SequenceMismatch:
            continue
        if isinstance(value, list) and len(members) > 1 and not _fits(member, candidate):
            continue
        return candidate
    return value


def objects_from_sequences(tp: Any, value: Any) -> Any:
    """``value`` (parsed JSON) with every serde sequence form under ``tp`` turned into an object.

    Raises ``SequenceMismatch`` when an array stands where a struct is expected but cannot be one.
    """
    tp, metadata = _unwrap(tp)
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        members = [member for member in typing.get_args(tp) if member is not type(None)]
        tag_field = _discriminator(metadata)
        if tag_field is not None:
            return _tagged(members, tag_field, value)
        return _untagged(members, value)
    if origin is list:
        (item_type,) = typing.get_args(tp)
        if not isinstance(value, list) or not any(isinstance(item, list | dict) for item in value):
            return value  # a scalar is never a sequence form, nor holds one
        return [objects_from_sequences(item_type, item) for item in value]
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return _model_value(tp, value)
    return value
