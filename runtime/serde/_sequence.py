"""serde's sequence form: a derived struct also reads a JSON array of its fields, in order.

Serde fact: ``#[derive(Deserialize)]`` gives every struct and struct variant a ``visit_seq``, so
``[1, 2]`` reads as ``Usage {input: 1, output: 2}`` (fields in declaration order; missing trailing
fields only where ``#[serde(default)]`` fills them (for an ``Option`` the schema says so with
``x-serde-default``); extra elements are an error); an internally
tagged enum reads ``[tag, field1, ...]``; ``LlmMessage`` passes a non-object to ``Message``'s
sequence form; the untagged ``AgentMessage`` tries the LLM lane first. phi-core never writes these
forms. ``loads`` turns them into objects (only after the fast path has failed) and validates again.

The walk stops at the first value that nothing can read there, whatever sequence forms it holds
(an array that no struct, and nothing else, reads; an object whose tag names no variant): a
document of 32,000 such values costs one of them, not a Python walk of all (each type's shape is
worked out once, not per value).
"""

from __future__ import annotations

import enum
import json
import types
import typing
from typing import Any, NamedTuple

from pydantic import BaseModel
from pydantic.fields import FieldInfo

__all__ = ["SequenceMismatch", "objects_from_sequences", "positional_fields"]


class SequenceMismatch(ValueError):
    """The value cannot be read as the expected type, whatever sequence forms it holds: an array
    that fits no struct there (wrong length or tag), or an object whose tag names no variant."""


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
    """The fields serde reads by position: for an LlmMessage variant, those of its Message (for
    ``LlmMeta`` alone, which has none, its own)."""
    from ._wire import LlmMessageBase, WireModel

    if issubclass(model, LlmMessageBase):  # the message model it extends: the first with fields
        bases = model.__mro__[1:]
        model = next(
            (
                base
                for base in bases
                if issubclass(base, WireModel)
                and not issubclass(base, LlmMessageBase)
                and base.model_fields
            ),
            model,
        )
    return list(model.model_fields.items())


def _serde_default(info: FieldInfo) -> bool:
    """An Option field with ``#[serde(default)]`` (schema: ``x-serde-default``): a missing element
    reads as None. Without it, serde fills None only for a missing *key*, never in an array."""
    extra = info.json_schema_extra
    return isinstance(extra, dict) and bool(extra.get("x-serde-default"))


class _Position(NamedTuple):
    """One element of a struct's sequence form."""

    wire: str
    needed: bool
    """An array that ends before it is no such struct (no ``#[serde(default)]`` fills it)."""


def _positions(model: type[BaseModel], skip: str | None) -> tuple[_Position, ...]:
    return tuple(
        _Position(
            _wire(name, info),
            info.is_required() or (info.default is None and not _serde_default(info)),
        )
        for name, info in positional_fields(model)
        if name != skip
    )


class _Lane(NamedTuple):
    """A member of an untagged union, as the walk tries it."""

    member: Any
    is_model: bool
    wire_names: frozenset[str]
    """A model's keys: an object with none of them is not tried as that model."""
    holds_struct: bool
    """A struct, a union or a list: a sequence form may stand there (scalars and enums hold
    none)."""
    rejects_arrays: bool
    """Not a struct, and no array is ever read as it (a scalar, an enum, a literal). For a lane
    that holds a struct, the walk itself proves that an array cannot be read as it."""


class _Shape(NamedTuple):
    """What a type is, for the walk: worked out once per type object."""

    kind: str
    """``tagged``, ``untagged``, ``list``, ``model`` or ``other`` (nothing to turn into objects)."""
    item: Any = None
    """A list's item type; a model."""
    tag_field: str = ""
    wire_tag: str = ""
    variants: tuple[tuple[Any, type[BaseModel]], ...] = ()
    """A tagged union's (tag, model) pairs, in order."""
    lanes: tuple[_Lane, ...] = ()


_SCALARS = (str, int, float, bool, bytes, enum.Enum, type(None))


def _rejects_arrays(shape: Any) -> bool:
    """Whether pydantic reads no array as a value of this (unwrapped, non-struct) type."""
    if typing.get_origin(shape) is typing.Literal:
        return True
    return isinstance(shape, type) and issubclass(shape, _SCALARS)


def _lane(member: Any) -> _Lane:
    shape, _ = _unwrap(member)
    is_model = isinstance(shape, type) and issubclass(shape, BaseModel)
    holds_struct = is_model or typing.get_origin(shape) in (typing.Union, types.UnionType, list)
    names = (
        frozenset(_wire(name, info) for name, info in shape.model_fields.items())
        if is_model
        else frozenset()
    )
    return _Lane(member, is_model, names, holds_struct, not holds_struct and _rejects_arrays(shape))


def _shape_of(tp: Any) -> _Shape:
    tp, metadata = _unwrap(tp)
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        members = [member for member in typing.get_args(tp) if member is not type(None)]
        tag_field = _discriminator(metadata)
        if tag_field is None:
            return _Shape("untagged", lanes=tuple(_lane(member) for member in members))
        models = [m for m in members if isinstance(m, type) and issubclass(m, BaseModel)]
        if not models:
            return _Shape("other")
        return _Shape(
            "tagged",
            tag_field=tag_field,
            wire_tag=_wire(tag_field, models[0].model_fields[tag_field]),
            variants=tuple((_tag_of(model, tag_field), model) for model in models),
        )
    if origin is list:
        (item_type,) = typing.get_args(tp)
        return _Shape("list", item=item_type)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return _Shape("model", item=tp)
    return _Shape("other")


# By identity, the type object held (as ``_codec.adapter`` keeps its TypeAdapters): comparing
# type aliases by their __eq__ on every value would cost more than the walk.
_SHAPES: dict[int, tuple[Any, _Shape]] = {}
_POSITIONS: dict[tuple[type[BaseModel], str | None], tuple[_Position, ...]] = {}
# A model's fields by wire name, built once per model (an invalid document may hold a million).
_WIRE_FIELDS: dict[type[BaseModel], dict[str, FieldInfo]] = {}


def _shape(tp: Any) -> _Shape:
    entry = _SHAPES.get(id(tp))
    if entry is None or entry[0] is not tp:
        entry = _SHAPES[id(tp)] = (tp, _shape_of(tp))
    return entry[1]


def _struct(model: type[BaseModel], items: list[Any], skip: str | None = None) -> dict[str, Any]:
    positions = _POSITIONS.get((model, skip))
    if positions is None:
        positions = _POSITIONS[(model, skip)] = _positions(model, skip)
    if len(items) > len(positions):
        raise SequenceMismatch(
            f"{model.__name__} has {len(positions)} fields, the array {len(items)}"
        )
    for index in range(len(items), len(positions)):
        if positions[index].needed:
            raise SequenceMismatch(
                f"{model.__name__} needs {positions[index].wire!r} at position {index}"
            )
    return {position.wire: item for position, item in zip(positions, items, strict=False)}


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


def _tagged(shape: _Shape, value: Any) -> Any:
    if isinstance(value, list):
        if not value or not isinstance(value[0], str):
            raise SequenceMismatch("the first element of the array must be the variant tag")
        for tag, model in shape.variants:
            if tag == value[0]:
                fields = _struct(model, value[1:], skip=shape.tag_field)
                return _model_value(model, {shape.wire_tag: value[0], **fields})
        raise SequenceMismatch(f"unknown variant {value[0]!r}")
    if isinstance(value, dict):
        for tag, model in shape.variants:
            if tag == value.get(shape.wire_tag):
                return _model_value(model, value)
        raise SequenceMismatch(f"no variant has the tag {value.get(shape.wire_tag)!r}")
    return value


def _fits(member: Any, candidate: Any) -> bool:
    """Whether ``candidate`` validates as ``member`` (untagged enums try their lanes in order)."""
    from pydantic import ValidationError

    from ..primitives import adapter

    try:
        adapter(member).validate_json(
            json.dumps(candidate), strict=True, by_alias=True, by_name=False
        )
    except (ValidationError, ValueError):
        return False
    return True


def _untagged(lanes: tuple[_Lane, ...], value: Any) -> Any:
    """Untagged unions and optional values: the first member the value fits."""
    if value is None:
        return None
    is_array = isinstance(value, list)
    unreadable = is_array  # so far, no lane could read this array
    for lane in lanes:
        if not lane.holds_struct:
            unreadable = unreadable and lane.rejects_arrays
            continue
        if isinstance(value, dict) and lane.is_model and not lane.wire_names.intersection(value):
            continue
        try:
            candidate = objects_from_sequences(lane.member, value)
        except SequenceMismatch:
            continue  # this lane cannot read the array: proven, the others may
        if is_array and len(lanes) > 1 and not _fits(lane.member, candidate):
            unreadable = False  # not proven: the array may still be read as it is
            continue
        return candidate
    if unreadable:
        raise SequenceMismatch("no variant of the untagged union reads this array")
    return value


def objects_from_sequences(tp: Any, value: Any) -> Any:
    """``value`` (parsed JSON) with every serde sequence form under ``tp`` turned into an object.

    Raises ``SequenceMismatch`` when an array stands where a struct is expected but cannot be one.
    """
    shape = _shape(tp)
    kind = shape.kind
    if kind == "tagged":
        return _tagged(shape, value)
    if kind == "untagged":
        return _untagged(shape.lanes, value)
    if kind == "list":
        if not isinstance(value, list) or not any(isinstance(item, list | dict) for item in value):
            return value  # a scalar is never a sequence form, nor holds one
        return [objects_from_sequences(shape.item, item) for item in value]
    if kind == "model":
        return _model_value(shape.item, value)
    return value
