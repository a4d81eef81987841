"""Base classes and scalar types that the generated models import.

Each piece exists for one serde fact that JSON Schema (and so datamodel-code-generator) cannot say:

* ``WireModel``: serde ignores unknown keys, and per field either writes ``null`` or omits a
  None, a false or an empty value (``skip_serializing_if``), fills a default for a missing key
  (the current time for clark-agent's timestamps, see ``_clock``), or (``LoopRecord``) reads
  null as the default. The schema marks these with ``x-`` keywords; this class turns them into
  pydantic field settings once per class.
* ``WireEnum``: serde reads a unit variant in map form too (``{"stop": null}``) and honours
  ``#[serde(alias)]`` (``TurnTrigger`` reads ``"FollowUp"``) and ``#[serde(other)]`` (clark-agent's
  ``ReasoningFormat`` reads any unknown name as ``"unknown"``).
* ``LlmMessageBase``: ``LlmMessage`` serializes through ``serde_json::Value``, so its whole
  subtree is written with keys sorted; its metadata keys are parsed one by one with ``.ok()``, so
  a malformed value is dropped instead of failing.
* ``JsonValue``: ``serde_json::Value`` writes object keys sorted (BTreeMap) and holds integers
  only in [i64::MIN, u64::MAX].
* ``Timestamp``: chrono's ``DateTime<Utc>`` keeps nanoseconds and prints 0/3/6/9 fraction digits.
* ``F32``: two fields are Rust ``f32``.

This module must never import the generated code: the generated code imports it.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from enum import StrEnum
from functools import partial
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    PlainSerializer,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_serializer,
)
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from ._clock import DEFAULT_FACTORIES
from ._marks import TRANSPARENT, fast_path_role
from ._numbers import I64_MIN, U64_MAX
from ._timestamp import Timestamp

__all__ = [
    "F32",
    "JsonValue",
    "LlmMessageBase",
    "Timestamp",
    "WireEnum",
    "WireModel",
    "sort_json",
]


# --- serde_json::Value -------------------------------------------------------------------------


def sort_json(value: Any) -> Any:
    """Return ``value`` with every object's keys in byte order, as serde_json's BTreeMap does.

    UTF-8 byte order equals code point order, which is how Python compares ``str``.
    """
    if isinstance(value, dict):
        return {key: sort_json(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [sort_json(item) for item in value]
    return value


def to_value_number(value: Any) -> Any:
    """Integers outside [i64::MIN, u64::MAX] are f64 in a ``serde_json::Value``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if I64_MIN <= value <= U64_MAX:
            return value
        try:
            return float(value)
        except OverflowError:
            raise ValueError("number out of range for an f64") from None
    if isinstance(value, dict):
        return {key: to_value_number(item) for key, item in value.items()}
    if isinstance(value, list):
        return [to_value_number(item) for item in value]
    return value


@fast_path_role(TRANSPARENT)  # JSON input comes back unchanged
def _validate_json_value(value: Any, info: ValidationInfo) -> Any:
    # JSON input has already been through the serde number pass of ``loads``; only values built
    # in Python can still hold integers that a Value cannot.
    if info.mode == "json":
        return value
    return to_value_number(value)


JsonValue = Annotated[
    Any,
    AfterValidator(_validate_json_value),
    PlainSerializer(sort_json),
]
"""serde_json::Value: any JSON; keys written sorted at every depth."""


# --- f32 ----------------------------------------------------------------------------------------


@fast_path_role(TRANSPARENT)  # rounds, never raises
def _to_f32(value: float) -> float:
    """Round to the nearest f32 and keep the shortest decimal that reads back as that f32.

    Rust writes an f32 with the fewest digits that round-trip *as an f32* (0.12345679, not
    0.12345679104328156), so the Python float stored is the one nearest to those digits.
    """
    if math.isnan(value) or math.isinf(value):
        return value
    nearest = _nearest_f32(value)
    if math.isinf(nearest):
        return nearest
    for digits in range(1, 10):
        text = f"{nearest:.{digits}g}"
        if _nearest_f32(float(text)) == nearest:
            return float(text)
    return nearest


_F32_MAX = 3.4028234663852886e38
_F32_OVERFLOW = 2.0**128 - 2.0**103
"""Halfway between f32::MAX and 2^128: from here on (ties to even) a value rounds to infinity."""


def _nearest_f32(value: float) -> float:
    """The f32 nearest to ``value`` (round half to even), as a float; infinity past the range.

    ``struct.pack`` refuses anything above f32::MAX, even 3.4028235e38, which rounds down to it.
    """
    try:
        (single,) = struct.unpack("<f", struct.pack("<f", value))
    except OverflowError:
        limit = _F32_MAX if abs(value) < _F32_OVERFLOW else math.inf
        return math.copysign(limit, value)
    return float(single)


F32 = Annotated[float, AfterValidator(_to_f32)]
"""Rust f32: rounded to the nearest f32 on input; overflow becomes infinity, written as null."""


# --- enums --------------------------------------------------------------------------------------


class WireEnum(StrEnum):
    """A serde unit-variant enum, written as a bare string.

    On input serde also reads the map form ``{"Variant": null}`` and any ``#[serde(alias)]``,
    which a generated enum lists as ``__serde_aliases__`` (from the schema's ``x-serde-aliases``);
    with ``#[serde(other)]`` (``__serde_other__``, from ``x-serde-other``) every unknown name reads
    as that variant.
    """

    @classmethod
    def _missing_(cls, value: object) -> WireEnum | None:
        if isinstance(value, dict) and len(value) == 1:
            ((name, body),) = value.items()
            if body is None:
                value = name
        if isinstance(value, str):
            aliases: dict[str, str] = cls.__dict__.get("__serde_aliases__", {})
            name = aliases.get(value, value)
            for member in cls:
                if member.value == name:
                    return member
            other: str | None = cls.__dict__.get("__serde_other__")
            if other is not None:  # #[serde(other)]: every unknown name is this variant
                return cls(other)
        return None


# --- models -------------------------------------------------------------------------------------


def _is_none(value: object) -> bool:
    return value is None


def _is_empty(value: object) -> bool:
    return not value


def _is_false(value: object) -> bool:
    return value is False


_SKIP_PREDICATES: dict[str, Callable[[object], bool]] = {
    "is_none": _is_none,
    "is_empty": _is_empty,
    "is_false": _is_false,
}


class _SerdeFieldValidator(WrapValidator):
    """A validator added from a schema marker (its type tells an inherited field it is done)."""


def _lenient(default: Callable[[], Any]) -> _SerdeFieldValidator:
    """LlmMessage metadata: serde parses each key with ``.ok()``: a malformed value is dropped."""

    @fast_path_role(TRANSPARENT)  # a default instead of an error: the inner schema is stricter
    def validate(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if value is None:
            return default()
        try:
            return handler(value)
        except ValidationError:
            return default()

    return _SerdeFieldValidator(validate)


def _null_as_default(default: Any) -> _SerdeFieldValidator:
    """``deserialize_null_default``: an explicit null reads as the field's default."""

    @fast_path_role(TRANSPARENT)  # null read as the default: the inner schema is stricter
    def validate(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        return handler(default if value is None else value)

    return _SerdeFieldValidator(validate)


def _apply_serde_markers(field: FieldInfo) -> None:
    """Turn the schema's x- markers (carried in ``json_schema_extra``) into pydantic settings."""
    extra = field.json_schema_extra
    if not isinstance(extra, dict):
        return
    skip = extra.get("x-skip-serializing-if")
    if isinstance(skip, str):
        field.exclude_if = _SKIP_PREDICATES[skip]
    if any(isinstance(item, _SerdeFieldValidator) for item in field.metadata):
        return  # inherited from a parent class that was already processed
    if field.default == [] and type(field.default) is list:
        # A fresh list per model: pydantic would deep-copy a list default (a Python call per
        # document), and validating an empty list changes nothing.
        field.default, field.default_factory, field.validate_default = PydanticUndefined, list, None
    if extra.get("x-serde-lenient"):  # a fresh default each time, from the factory if any
        field.metadata.append(_lenient(partial(field.get_default, call_default_factory=True)))
    default = extra.get("x-serde-default")
    if isinstance(default, str):  # a default computed per read, e.g. the current time
        # (x-serde-default: true only tells _sequence that the field has #[serde(default)])
        field.default, field.default_factory = PydanticUndefined, DEFAULT_FACTORIES[default]
    if extra.get("x-serde-null-as-default"):
        field.metadata.append(_null_as_default(field.get_default(call_default_factory=True)))


class WireModel(BaseModel):
    """Base of every generated model.

    Unknown keys are ignored (no ``deny_unknown_fields`` in phi-core); attributes are snake_case and
    written under their wire names. The schema is built on first use, after the x- markers of every
    field have been applied.
    """

    model_config = ConfigDict(
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="ignore",
        defer_build=True,
    )

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        for field in cls.model_fields.values():
            _apply_serde_markers(field)


class LlmMessageBase(WireModel):
    """Base of LlmMessage's metadata part: the whole message is written with sorted keys."""

    @model_serializer(mode="wrap")
    def _serialize_sorted(self, handler: SerializerFunctionWrapHandler) -> Any:
        return sort_json(handler(self))
