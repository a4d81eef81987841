"""The keys a format's reader drops: serde (phi-core, clark-agent) and pydantic (Operator-Use)
skip an object's unknown keys without a word, so a model read from a document no longer holds
them and no converter can carry them. Every conversion of a file says so: each key of the source
document that its model does not hold is a ``dropped`` loss at its pointer, whichever format read
it (a same-format conversion too: ``--from phi-core --to phi-core`` of a pi-ai message names
the pi keys phi-core drops, as ``validate --strict`` does).

The walk goes along the document and the model read from it together: an object read as a model
has the keys of its fields (their wire names) and, for a model that keeps unknown keys
(``extra="allow"``), those too; a free-form value (``serde_json::Value``, a dict) keeps all of
its keys. Pointers are written only for the keys found. The same walk finds the keys a reader
*added*: a missing key the schema marks ``x-serde-default: now-unix-ms`` (clark-agent's reader
stamps it with the time) or ``x-default-factory`` (Operator-Use's random ids and clock times):
``_filled`` replaces them.
"""

from __future__ import annotations

import functools
import typing
from typing import Any, NamedTuple, TypeAlias

from phi_wire.pointer import escape

if typing.TYPE_CHECKING:
    from pydantic import BaseModel, RootModel

__all__ = [
    "NOW_UNIX_MS",
    "NULL_READ_AS_ABSENT",
    "READER_DROPS",
    "Filled",
    "Unread",
    "unread",
    "unread_keys",
]

READER_DROPS = "{format}'s reader does not know this key and drops it"
"""The reason of a key the source's reader dropped (``{format}``: the source format)."""
NULL_READ_AS_ABSENT = "{format}'s reader reads this null as absent, which is not written"
"""The reason of a ``null`` its reader takes for a missing value (serde's ``Option`` with
``skip_serializing_if = "Option::is_none"`` around a ``Value``: ``Some(Null)`` is written
``null`` and read back as ``None``), so no writer carries the key."""
NOW_UNIX_MS = "now-unix-ms"
"""The factory of a key serde stamps with the time of reading (clark-agent's ``default_timestamp``:
the schema's ``x-serde-default: "now-unix-ms"``), as ``Filled.factory`` names it."""


class Filled(NamedTuple):
    """A missing key a reader filled by its default factory: its pointer, the model holding the
    value, the field's name and the factory (the schema's ``x-default-factory``)."""

    pointer: str
    model: Any
    field: str
    factory: str


class Unread(NamedTuple):
    """What a reader did not keep of a document, as pointers: keys it dropped, nulls it read as
    absent; and the missing keys it filled (with the time of reading, or by a default
    factory)."""

    unknown: list[str]
    nulls: list[str]
    filled: list[Filled]


@functools.cache
def _added_keys(model: type[BaseModel]) -> tuple[tuple[str, str, str], ...]:
    """A model's (wire key, field name, default factory) of the fields whose missing value its
    reader makes: stamped with the time of reading (``x-serde-default: now-unix-ms``; factory
    ``NOW_UNIX_MS``) or made by a default factory (``x-default-factory``). Most models have
    none."""
    added: list[tuple[str, str, str]] = []
    for name, field in model.model_fields.items():
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        factory = extra.get("x-default-factory")
        if extra.get("x-serde-default") == NOW_UNIX_MS:
            added.append((field.alias or name, name, NOW_UNIX_MS))
        elif isinstance(factory, str):
            added.append((field.alias or name, name, factory))
    return tuple(added)


@functools.cache
def _fields(model: type[BaseModel]) -> dict[str, tuple[str, bool, bool]]:
    """A model's wire key -> its field name, whether its value may hold a model (a field of
    plain JSON, a string or a number, is not walked), and whether a None in it is not written
    (the schema's ``x-skip-serializing-if: is_none``)."""
    fields: dict[str, tuple[str, bool, bool]] = {}
    for name, field in model.model_fields.items():
        alias = field.validation_alias if isinstance(field.validation_alias, str) else None
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        skips_none = extra.get("x-skip-serializing-if") == "is_none"
        fields[alias or field.alias or name] = (
            name,
            _holds_models(field.annotation, set()),
            skips_none,
        )
    return fields


def _holds_models(annotation: Any, seen: set[int]) -> bool:
    """Whether a type (a union, a list, an alias...) has a model anywhere in it."""
    from pydantic import BaseModel  # imported with the models: a fast conversion needs neither

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    if id(annotation) in seen:
        return False
    seen.add(id(annotation))
    inner = getattr(annotation, "__value__", None)  # a TypeAliasType
    if inner is not None and _holds_models(inner, seen):
        return True
    return any(_holds_models(argument, seen) for argument in typing.get_args(annotation))


Path: TypeAlias = "tuple[Path, str | int] | None"
"""The way to a value: its parent's path and its key (None: the document itself); its pointer
is written only when a key is found."""


def _pointer(prefix: str, path: Path) -> str:
    keys: list[str | int] = []
    while path is not None:
        path, key = path
        keys.append(key)
    return prefix + "".join("/" + escape(key) for key in reversed(keys))


def unread(document: Any, value: Any, pointer: str = "") -> Unread:
    """The pointers of the keys of ``document`` (parsed JSON) that ``value`` (what a format's
    ``loads`` read from it: a model, a list of them, ...) does not hold, of the nulls in it
    read as absent (``NULL_READ_AS_ABSENT``), and the keys it lacks that the reader filled
    (stamped with the time of reading, or by a default factory: with the model holding each)."""
    from pydantic import BaseModel, RootModel  # as _holds_models

    found: list[Path] = []
    nulls: list[Path] = []
    filled: list[tuple[Path, Any, str, str]] = []
    _walk(document, value, None, (found, nulls, filled), (BaseModel, RootModel))
    return Unread(
        [_pointer(pointer, path) for path in found],
        [_pointer(pointer, path) for path in nulls],
        [
            Filled(_pointer(pointer, path), model, field, factory)
            for path, model, field, factory in filled
        ],
    )


def unread_keys(document: Any, value: Any, pointer: str = "") -> list[str]:
    """The pointers of ``unread``'s both kinds, in one list."""
    unknown, nulls, _ = unread(document, value, pointer)
    return unknown + nulls


def _walk(
    document: Any,
    value: Any,
    path: Path,
    out: tuple[list[Path], list[Path], list[tuple[Path, Any, str, str]]],
    models: tuple[type[BaseModel], type[RootModel[Any]]],
) -> None:
    found, nulls, filled = out
    model, root_model = models
    if isinstance(value, model):
        if isinstance(value, root_model):
            _walk(document, value.root, path, out, models)
            return
        if type(document) is not dict:
            return
        fields = _fields(type(value))
        for key, item in document.items():
            field = fields.get(key)
            if field is None:
                if key not in (value.model_extra or ()):
                    found.append((path, key))
            elif item is None and field[2] and getattr(value, field[0]) is None:
                nulls.append((path, key))
            elif field[1]:
                _walk(item, getattr(value, field[0]), (path, key), out, models)
        for key, name, factory in _added_keys(type(value)):  # most models have none
            if key not in document:
                filled.append(((path, key), value, name, factory))
    elif isinstance(value, list | tuple):
        if type(document) is list and len(document) == len(value):
            for index, (item, held) in enumerate(zip(document, value, strict=True)):
                if isinstance(held, model | list | tuple | dict):
                    _walk(item, held, (path, index), out, models)
    elif isinstance(value, dict) and type(document) is dict:
        for key, item in document.items():
            held = value.get(key)  # a free-form value keeps its keys; a dict of models is walked
            if isinstance(held, model | list | tuple | dict):
                _walk(item, held, (path, key), out, models)
