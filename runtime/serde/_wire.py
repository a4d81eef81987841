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

Models built in Python are held to the same rules as ``loads`` (``WireModel``): construction,
``model_validate`` and assignment are validated strictly and raise ``WireError``;
``model_validate_json`` is ``loads``. ``model_copy(update=...)`` stays pydantic's (unvalidated):
``MessageAccumulator`` copies a message per streamed delta.

This module must never import the generated code: the generated code imports it.
"""

from __future__ import annotations

import math
import operator
import struct
from collections.abc import Callable, Mapping
from enum import StrEnum
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Self, cast

from pydantic import (
    AfterValidator,
    ConfigDict,
    GetCoreSchemaHandler,
    PlainSerializer,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_serializer,
)
from pydantic.config import ExtraValues
from pydantic.fields import FieldInfo
from pydantic_core import CoreSchema, PydanticUndefined, core_schema

from ..pointer import escape
from ..primitives import TRANSPARENT, fast_path_role, vouched_form
from ._clock import DEFAULT_FACTORIES
from ._error_translation import from_python_validation_error
from ._interrupts import InterruptibleModel, keeps
from ._numbers import I64_MIN, U64_MAX
from ._sorted_value import SORTED_VALUE_WRITER, sort_json
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


def to_value(value: Any, pointer: str = "") -> Any:
    """A Python value as a ``serde_json::Value`` holds it: integers outside [i64::MIN, u64::MAX]
    become f64; NaN, infinity, non-string keys and non-JSON types are errors (a Value cannot hold
    them: serde_json would write ``null`` for a NaN, and nothing for a set)."""
    if value is None or isinstance(value, str | bool):
        return value
    if isinstance(value, int):
        if I64_MIN <= value <= U64_MAX:
            return value
        try:
            return float(value)
        except OverflowError:
            raise ValueError(f"number out of range for an f64 at {pointer or '/'}") from None
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(
                f"a JSON value holds no NaN or infinity: {value!r} at {pointer or '/'}"
            )
        return value
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise ValueError(f"JSON object keys are strings: {key!r} at {pointer or '/'}")
        return {key: to_value(item, f"{pointer}/{escape(key)}") for key, item in value.items()}
    if isinstance(value, list):
        return [to_value(item, f"{pointer}/{index}") for index, item in enumerate(value)]
    raise ValueError(
        "expected a JSON value (None, bool, int, float, str, list, or dict with str keys): "
        f"{type(value).__name__} at {pointer or '/'}"
    )


def _as_is(inner: CoreSchema, definitions: Mapping[str, CoreSchema]) -> CoreSchema:
    return inner


@fast_path_role(TRANSPARENT)  # JSON input comes back unchanged
@vouched_form(_as_is)
def _validate_json_value(value: Any, info: ValidationInfo) -> Any:
    # JSON input has already been through the serde number pass of ``loads``; only values built
    # in Python can still hold what a Value cannot.
    if info.mode == "json":
        return value
    return to_value(value)


JSON_VALUE_CHECK = AfterValidator(_validate_json_value)
"""What a ``serde_json::Value`` field checks, whichever way it writes its keys."""

JsonValue = Annotated[Any, JSON_VALUE_CHECK, PlainSerializer(SORTED_VALUE_WRITER)]
"""serde_json::Value: any JSON; keys written sorted at every depth."""


# --- f32 ----------------------------------------------------------------------------------------


_F32_MAX = float.fromhex("0x1.fffffep+127")
_F32_TO_INFINITY = 2.0**128 - 2.0**103
"""Halfway between f32::MAX and 2^128: from here on an f64 rounds to infinity (ties to even)."""


def _round_f32(value: float) -> float:
    """Rust's ``value as f32``: the nearest f32, ties to even; past f32::MAX by half an ULP or
    more, infinity (``struct`` would raise there)."""
    magnitude = abs(value)
    if magnitude >= _F32_TO_INFINITY:
        return math.copysign(math.inf, value)
    if magnitude > _F32_MAX:
        return math.copysign(_F32_MAX, value)
    single: float = struct.unpack("<f", struct.pack("<f", value))[0]
    return single


@fast_path_role(TRANSPARENT)  # rounds, never raises
def _to_f32(value: float) -> float:
    """Round to the nearest f32 and keep the shortest decimal that reads back as that f32.

    Rust writes an f32 with the fewest digits that round-trip *as an f32* (0.12345679, not
    0.12345679104328156), so the Python float stored is the one nearest to those digits.
    """
    if math.isnan(value) or math.isinf(value):
        return value
    nearest = _round_f32(value)
    if math.isinf(nearest):
        return nearest
    for digits in range(1, 10):
        text = f"{nearest:.{digits}g}"
        if _round_f32(float(text)) == nearest:
            return float(text)
    return nearest


F32 = Annotated[float, AfterValidator(_to_f32)]
"""Rust f32: rounded to the nearest f32 on input; overflow becomes infinity, written as null."""


# --- enums --------------------------------------------------------------------------------------


class WireEnum(StrEnum):
    """A serde unit-variant enum, written as a bare string.

    On input serde also reads the map form ``{"Variant": null}`` and any ``#[serde(alias)]``,
    which a generated enum lists as ``__serde_aliases__`` (from the schema's ``x-serde-aliases``);
    with ``#[serde(other)]`` (``__serde_other__``, from ``x-serde-other``) every unknown name reads
    as that variant. A model built in Python takes the member or any of those wire forms (its
    strict mode would take only the member).
    """

    if not TYPE_CHECKING:
        # What pydantic-core writes for a member (it reads ``.value``): enum's own ``value`` is a
        # Python descriptor, two Python calls per member written; this one runs in C.
        value = property(operator.attrgetter("_value_"))

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        lax = dict(handler(source))
        lax["strict"] = False  # JSON is read by loads with strict=True, which overrides this
        return cast(CoreSchema, lax)

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


# C callables, not Python functions: pydantic calls these for every such field it writes, and the
# first instruction of a Python function it calls inside a union is where a Ctrl-C can be lost
# (``_interrupts``)
_is_none: Callable[[object], bool] = partial(operator.is_, None)
_is_empty: Callable[[object], bool] = operator.not_
_is_false: Callable[[object], bool] = partial(operator.is_, False)


_SKIP_PREDICATES: dict[str, Callable[[object], bool]] = {
    "is_none": _is_none,
    "is_empty": _is_empty,
    "is_false": _is_false,
}


class _SerdeFieldValidator(WrapValidator):
    """A validator added from a schema marker (its type tells an inherited field it is done)."""


_REJECTING_NULL = frozenset({"model", "list", "str", "int", "float", "bool", "tagged-union"})
"""Core schemas that never take null."""


def _lenient(default: Callable[[], Any]) -> _SerdeFieldValidator:
    """LlmMessage metadata: serde parses each key with ``.ok()``: a malformed value is dropped.

    Only when reading JSON: a value given in Python is validated like any other (Rust's types
    would not let a malformed one be built), so it is an error, never silently dropped.
    """

    def natively(inner: CoreSchema, definitions: Mapping[str, CoreSchema]) -> CoreSchema | None:
        """The same in pydantic-core: null, or any value the inner schema rejects, is the
        default. The inner schema must reject null: a nullable one is taken without its null;
        one that may take null some other way keeps this function."""
        strict = inner["schema"] if inner["type"] == "nullable" else inner
        target = strict
        while target["type"] == "definition-ref" and target["schema_ref"] in definitions:
            target = definitions[target["schema_ref"]]
        if target["type"] not in _REJECTING_NULL:
            return None
        return core_schema.with_default_schema(strict, default_factory=default, on_error="default")

    @fast_path_role(TRANSPARENT)  # a default instead of an error: the inner schema is stricter
    @vouched_form(natively)  # JSON documents: the same leniency, run by pydantic-core
    def validate(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        if value is None:
            return default()
        if info.mode != "json":
            return handler(value)
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


_STRICT_PYTHON_INPUT = ConfigDict(strict=True)
"""No coercion of Python input. Given to ``model_config`` with ``**`` so that the pydantic mypy
plugin keeps typing the constructors' arguments loosely, as before: at run time an enum field also
takes its wire string and a timestamp a ``datetime``, which exact field types would refuse."""


JsonReader = Callable[[Any, str | bytes | bytearray], Any]
_json_reader: JsonReader | None = None


def read_json_with(reader: JsonReader) -> None:
    """Install the models' JSON reader (``_codec.loads``, once, on its import): the pipeline that
    reads JSON exactly sits above the models' base, which must not import it."""
    global _json_reader
    _json_reader = reader


class WireModel(InterruptibleModel):
    """Base of every generated model.

    Unknown keys are ignored (no ``deny_unknown_fields`` in phi-core); attributes are snake_case and
    written under their wire names. The schema is built on first use, after the x- markers of every
    field have been applied.

    Built in Python, a model is as strict as ``loads``: no coercion (``"5"``, ``5.0`` or ``True``
    for an integer, a tuple for a list), assignment validated, every error a ``WireError`` whose
    pointer follows the keys given. ``model_validate_json`` is ``loads``. ``model_construct``
    and ``model_copy`` stay pydantic's, unvalidated.
    """

    model_config = ConfigDict(
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="ignore",
        defer_build=True,
        validate_assignment=True,
        **_STRICT_PYTHON_INPUT,
    )

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        for field in cls.model_fields.values():
            _apply_serde_markers(field)

    def __init__(self, /, **data: Any) -> None:
        """Validate ``data`` as ``BaseModel.__init__`` does; raise ``WireError``."""
        try:
            self.__pydantic_validator__.validate_python(data, self_instance=self)
        except ValidationError as error:
            raise from_python_validation_error(type(self).__name__, error, data) from None

    # pydantic's mark of its own __init__: without it pydantic-core would call this one on every
    # parse (slower loads, and a schema the validate fast path refuses). Should pydantic stop
    # honouring it, models stay correct but slower; tests/test_models.py fails loudly.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @classmethod
    def model_validate(
        cls,
        obj: Any,
        *,
        strict: bool | None = None,
        extra: ExtraValues | None = None,
        from_attributes: bool | None = None,
        context: Any | None = None,
        by_alias: bool | None = None,
        by_name: bool | None = None,
    ) -> Self:
        """pydantic's ``model_validate`` in strict mode (``strict=False`` asks for its lax mode);
        raises ``WireError``."""
        try:
            return super().model_validate(
                obj,
                strict=strict,
                extra=extra,
                from_attributes=from_attributes,
                context=context,
                by_alias=by_alias,
                by_name=by_name,
            )
        except ValidationError as error:
            raise from_python_validation_error(cls.__name__, error, obj) from None

    @classmethod
    def model_validate_json(
        cls,
        json_data: str | bytes | bytearray,
        *,
        strict: bool | None = None,
        extra: ExtraValues | None = None,
        context: Any | None = None,
        by_alias: bool | None = None,
        by_name: bool | None = None,
    ) -> Self:
        """``loads(cls, json_data)``: the JSON exactly as phi-core reads it. pydantic's options
        would change that, so none is taken."""
        if any(option is not None for option in (strict, extra, context, by_alias, by_name)):
            raise TypeError(
                f"{cls.__name__}.model_validate_json is phi_wire.loads: it reads JSON as "
                "phi-core does and takes no pydantic options"
            )
        if _json_reader is None:  # ._codec installs it on import, before any model exists
            raise RuntimeError("phi_wire.serde's reader is not installed")
        return cast(Self, _json_reader(cls, json_data))

    @classmethod
    def model_validate_strings(
        cls,
        obj: Any,
        *,
        strict: bool | None = None,
        extra: ExtraValues | None = None,
        context: Any | None = None,
        by_alias: bool | None = None,
        by_name: bool | None = None,
    ) -> Self:
        """pydantic's string mode (``"5"`` reads as 5: not phi-core's rules); raises
        ``WireError``."""
        try:
            return super().model_validate_strings(
                obj, strict=strict, extra=extra, context=context, by_alias=by_alias, by_name=by_name
            )
        except ValidationError as error:
            raise from_python_validation_error(cls.__name__, error, obj) from None

    if not TYPE_CHECKING:  # keeps the type checker's view of attribute assignment

        def __setattr__(self, name: str, value: Any) -> None:
            try:
                super().__setattr__(name, value)
            except ValidationError as error:
                raise from_python_validation_error(
                    type(self).__name__, error, {name: value}
                ) from None


class LlmMessageBase(WireModel):
    """Base of LlmMessage's metadata part: the whole message is written with sorted keys."""

    __phi_wire_parsed_as_value__: ClassVar[bool] = True  # primitives.PARSED_AS_VALUE

    @model_serializer(mode="wrap")
    @keeps  # pydantic calls it inside unions, which drop what it raises (``_interrupts``)
    def _serialize_sorted(self, handler: SerializerFunctionWrapHandler) -> Any:
        return sort_json(handler(self))
