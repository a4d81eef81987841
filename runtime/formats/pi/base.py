"""The public seam pi's generated models import: pi writes every document with JavaScript's
``JSON.stringify`` and validates nothing it reads, so its models keep what JSON Schema cannot say
and a pydantic model forgets.

* ``JsModel``: an object remembers the order its keys were read in (``JSON.stringify`` writes
  creation order, which differs between pi's producers); one built in Python is written in the
  order of its schema's ``properties`` (the order pi's own constructors use); a key set later is
  written after the others, as a JavaScript assignment appends it. Absent and null stay apart:
  a key is written when it was read or set, a required one always, and ``None`` is written as
  ``null`` only where pi's type allows null (caller data such as ``details``, a root entry's
  ``parentId``), else the key is left out, as ``JSON.stringify`` leaves out ``undefined``.
* ``JsEnum``: pi's string unions, given as their strings.

Models built in Python are validated as ``loads`` validates (no coercion; pydantic's errors as a
``WireError`` with JSON pointers); ``model_validate_json`` is ``loads``.

This module must never import the generated code: the generated code imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple, Self, cast

from pydantic import BaseModel, ConfigDict, GetCoreSchemaHandler, PrivateAttr, ValidationError
from pydantic.config import ExtraValues
from pydantic_core import CoreSchema

from phi_wire.formats import version_of
from phi_wire.serde import InterruptibleModel, from_python_validation_error, load_schema_files

__all__ = ["JsEnum", "JsModel", "WireKey", "js_key_order", "read_json_with", "wire_keys"]


class JsEnum(StrEnum):
    """One of pi's string unions (``StopReason``...), written as its string; a model built in
    Python takes the member or its string."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        lax = dict(handler(source))
        lax["strict"] = False  # the string form, as loads gives it (strict mode wants the member)
        return cast(CoreSchema, lax)


def _is_index(key: str) -> bool:
    """An array index (a canonical decimal below 2^32 - 1): JavaScript orders such keys first."""
    return (
        key.isascii()
        and key.isdigit()
        and (key == "0" or key[0] != "0")
        and len(key) <= 10
        and int(key) < 2**32 - 1
    )


def js_key_order(keys: Iterable[str]) -> list[str]:
    """Keys in the order a JavaScript object holds them: array indexes first, ascending, then
    the others in creation order (so ``JSON.parse`` moves ``"2"`` before ``"b"``)."""
    keys = list(keys)
    indexes = [key for key in keys if _is_index(key)]
    if not indexes:
        return keys
    return sorted(indexes, key=int) + [key for key in keys if not _is_index(key)]


class WireKey(NamedTuple):
    """One key of a pi object type, as its schema states it."""

    wire: str
    """The key as pi writes it (``stopReason``)."""
    attribute: str
    """The model's attribute (``stop_reason``)."""
    required: bool
    """pi's type requires it: written whatever was set."""
    nullable: bool
    """null is a value here (written for ``None``); elsewhere ``None`` means absent."""


_ANNOTATIONS = frozenset({"description", "title", "examples", "default"})


def _allows_null(schema: Any, definitions: Mapping[str, Any], seen: frozenset[str]) -> bool:
    """Whether a property schema accepts null (any JSON does: ``{}``)."""
    if not isinstance(schema, dict):
        return schema is True
    if all(key in _ANNOTATIONS or key.startswith("x-") for key in schema):
        return True
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if schema.get("const", 0) is None:
        return True
    for key in ("anyOf", "oneOf"):
        if any(_allows_null(branch, definitions, seen) for branch in schema.get(key, ())):
            return True
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref.rpartition("/")[2]
        if name not in seen and name in definitions:
            return _allows_null(definitions[name], definitions, seen | {name})
    return False


@cache
def _definitions(folder: str) -> dict[str, Any]:
    return {
        name: definition
        for document in load_schema_files(folder).values()
        for name, definition in document["$defs"].items()
    }


@cache
def wire_keys(cls: type[BaseModel]) -> tuple[WireKey, ...]:
    """The keys of a pi model class in the order pi's constructor writes them (its schema's
    ``properties``), with what the schema says of each."""
    entry = version_of(cls)
    definitions = _definitions(entry.folder) if entry is not None else {}
    definition = definitions.get(cls.__name__, {})
    properties: dict[str, Any] = dict(definition.get("properties", {}))
    required = set(definition.get("required", ()))
    by_wire = {field.alias or name: name for name, field in cls.model_fields.items()}
    keys = [
        WireKey(
            wire, by_wire[wire], wire in required, _allows_null(schema, definitions, frozenset())
        )
        for wire, schema in properties.items()
        if wire in by_wire
    ]
    for wire, attribute in by_wire.items():  # a field the schema does not list (none should)
        if wire not in properties:
            field = cls.model_fields[attribute]
            keys.append(WireKey(wire, attribute, field.is_required(), False))
    return tuple(keys)


JsonReader = Callable[[Any, str | bytes | bytearray], Any]
_json_reader: list[JsonReader] = []


def read_json_with(reader: JsonReader) -> None:
    """Install the models' JSON reader (the codec's ``loads``, once, on its import): the reader
    sits above the models' base, which must not import it."""
    _json_reader[:] = [reader]


class JsModel(InterruptibleModel):
    """Base of every generated pi model: a JavaScript object of pi's (see the module docstring).

    Unknown keys are kept where pi's type is open (``extra="allow"``; the generated closed
    types say ``forbid``); attributes are snake_case, written under pi's names. Equality is by
    value: two objects with the same keys and values are equal whatever their key order.
    """

    model_config = ConfigDict(
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="allow",
        defer_build=True,
        validate_assignment=True,
        strict=True,
    )

    _js_order: tuple[str, ...] | None = PrivateAttr(default=None)
    """The keys in the order they were read (None: built in Python)."""

    def __init__(self, /, **data: Any) -> None:
        """Validate ``data`` as ``BaseModel.__init__`` does; raise ``WireError``."""
        try:
            self.__pydantic_validator__.validate_python(data, self_instance=self)
        except ValidationError as error:
            raise from_python_validation_error(type(self).__name__, error, data) from None

    # pydantic's mark of its own __init__ (WireModel says why it matters)
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    def key_order(self) -> tuple[str, ...]:
        """The keys ``JSON.stringify`` writes, in its order: the order read (a key set since at
        the end), else the order of pi's constructor."""
        present = dict(self._present())
        extra = self.__pydantic_extra__ or {}
        order = self._js_order or ()
        keys = [key for key in order if key in present or key in extra]
        keys += [key for key in (*present, *extra) if key not in keys]
        return tuple(js_key_order(keys))

    def _present(self) -> Iterator[tuple[str, Any]]:
        """(wire key, value) of each key that is written, in the constructor's order."""
        given = self.model_fields_set
        for key in wire_keys(type(self)):
            if not key.required and key.attribute not in given:
                continue
            value = getattr(self, key.attribute)
            if value is None and not key.nullable:
                continue  # JSON.stringify leaves an undefined key out
            yield key.wire, value

    def wire_items(self) -> list[tuple[str, Any]]:
        """(key, value) pairs as ``JSON.stringify`` writes them (keys in ``key_order``)."""
        values = dict(self._present())
        values.update(self.__pydantic_extra__ or {})
        return [(key, values[key]) for key in self.key_order()]

    def remember_order(self, keys: tuple[str, ...]) -> None:
        """Write this object's keys in the order ``keys`` (as a document read gave them)."""
        self._js_order = keys

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BaseModel):
            return NotImplemented
        return (
            type(self) is type(other)
            and self.__dict__ == other.__dict__
            and self.__pydantic_extra__ == other.__pydantic_extra__
        )

    __hash__ = None  # type: ignore[assignment]

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
        """pydantic's ``model_validate`` in strict mode; raises ``WireError``."""
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
        """``loads(cls, json_data)``: the JSON as pi reads it (key order kept, lone surrogates
        too). pydantic's options would change that, so none is taken."""
        if any(option is not None for option in (strict, extra, context, by_alias, by_name)):
            raise TypeError(
                f"{cls.__name__}.model_validate_json is pi's loads: it takes no pydantic options"
            )
        if not _json_reader:  # the codec installs it on import, before any model is read
            raise RuntimeError("pi's codec is not imported")
        return cast(Self, _json_reader[0](cls, json_data))

    if not TYPE_CHECKING:  # keeps the type checker's view of attribute assignment

        def __setattr__(self, name: str, value: Any) -> None:
            try:
                super().__setattr__(name, value)
            except ValidationError as error:
                raise from_python_validation_error(
                    type(self).__name__, error, {name: value}
                ) from None
