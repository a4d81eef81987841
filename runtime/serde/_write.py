"""The serializer ``dumps`` writes a model with: phi-core's sorted ``LlmMessage`` written by
pydantic-core alone, without a Python call per message.

Serde fact: phi-core serializes an ``LlmMessage`` through ``serde_json::Value``, a ``BTreeMap``,
so every key of its subtree is written in byte order, the content blocks' ``type`` tag included
(``{"text":"hi","type":"text"}``), while the same blocks elsewhere are written in declaration
order. The models say so with a Python serializer (``LlmMessageBase``: the message dumped to
Python objects, sorted, and written again), which pydantic's own ``model_dump_json`` keeps.

For ``dumps``, each model class gets a second pydantic-core serializer, built once from a copy
of its core schema in which that subtree writes itself sorted: pydantic-core writes a model's
fields in the order of the instance's ``__dict__`` (declaration order), but its computed fields
in the order the schema lists them, each read with ``getattr``. So every model of the subtree
lists its fields as computed fields sorted by wire name (the fields themselves excluded), with
their schemas, aliases and skip predicates. ``JsonValue`` keeps its one Python function, which
sorts only a value not already in order (``_sorted_value.sorted_json``), everywhere but on a
null, which pydantic-core writes itself (a call less, the same ``null``). The copy is built with
``_use_prebuilt=False``, else pydantic-core would reuse each nested class's own serializer, and
with each definition written in place of its references (but recursive ones): pydantic-core
guards every reference against recursion, a cost per value written.

Each union of phi-wire models outside that subtree is written by its member's own serializer
(``_dispatch``: pydantic-core writes a union's value twice over). So a phi-wire class's serializer
is installed as the class's own: JSON written by the copy, Python objects by pydantic's schema
(a ``json-or-python`` schema), pydantic's own serializer kept for ``model_dump_json`` with options
(``_interrupts.OWN_SERIALIZER``). A user's class keeps its own; it gets a serializer for ``dumps``
alone, as every class did before.

A schema this copy does not know how to sort (a ``dict`` field, another custom serializer)
leaves the class without a second serializer: ``dumps`` then takes pydantic's
``model_dump_json``, as before (same bytes, slower).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel
from pydantic_core import SchemaError, SchemaSerializer, core_schema

from ..primitives import parsed_as_value
from ._definitions import collect_definitions
from ._dispatch import UNIONS, dispatched, own_model, union_members
from ._interrupts import OWN_SERIALIZER
from ._sorted_value import SORTED_VALUE_WRITER

__all__ = ["writer"]

_SORTED_REF = "|phi-wire:sorted"
"""Appended to a ref for the sorted copy of its schema (refs are unique in one schema)."""

_WRITTEN_REF = "|phi-wire:written"
"""Appended to a ref for the plain copy of its schema: an installed serializer holds pydantic's
schema too (``_installed``), under the original refs."""


_AS_WRITTEN = frozenset({"str", "int", "bool", "float", "literal", "enum", "none"})
"""Schemas that write a scalar, the same in a sorted subtree."""

_INNER = frozenset({"nullable", "default", "function-after", "function-before", "function-wrap"})
"""Schemas written by their inner ``schema`` (a validator function's result is its value)."""


class _Unsorted(Exception):
    """A schema in a sorted subtree whose keys this module cannot order in pydantic-core."""


class _Writers(dict[type, "SchemaSerializer | None"]):
    """Each class's writer, built on its first look-up (``__missing__``): after that a look-up
    is the dict's own, in C, not a Python call on every ``dumps``."""

    def __missing__(self, cls: type) -> SchemaSerializer | None:
        built, members = _built(cls)
        self[cls] = built
        for member in members:  # each written through its own class's serializer: the fast one
            self[member]
        return built


_WRITERS = _Writers()

writer: Callable[[type], SchemaSerializer | None] = _WRITERS.__getitem__
"""The serializer ``dumps`` writes an instance of a class with (built on first use), or None:
the class is no model, or its schema holds something ``_Copy.sorted`` cannot order."""


def _built(cls: type) -> tuple[SchemaSerializer | None, frozenset[type]]:
    """``cls``'s serializer for ``dumps`` (None if it has none), and the model classes its unions
    write through their own serializers (``_dispatch``). A phi-wire class gets it as its own
    (``_installed``)."""
    if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
        return None, frozenset()
    try:
        schema, members = _write_schema(cls.__pydantic_core_schema__)
        if own_model(cls):
            return _installed(cls, schema), members
        # else each nested model class's own serializer is reused, which writes it unsorted
        # (pydantic passes the same flag when it rebuilds a model)
        return SchemaSerializer(schema, _use_prebuilt=False), members
    except (_Unsorted, SchemaError):  # pydantic's own serializer writes it (slower)
        return None, frozenset()


def _installed(cls: type[BaseModel], written: Any) -> SchemaSerializer:
    """A serializer that writes JSON with ``written`` and Python objects as pydantic's own does,
    made ``cls``'s own: what a union of ``dumps``'s serializers reaches a member through
    (``_dispatch``), and ``model_dump_json`` too. pydantic's own is kept for ``model_dump_json``
    with options (``OWN_SERIALIZER``): ``written`` writes the sorted subtree's fields as computed
    fields, which options such as ``exclude_unset`` treat otherwise."""
    pydantic_schema = cls.__pydantic_core_schema__
    both = SchemaSerializer(
        core_schema.json_or_python_schema(json_schema=written, python_schema=pydantic_schema),
        _use_prebuilt=False,
    )
    setattr(cls, OWN_SERIALIZER, SchemaSerializer(pydantic_schema, _use_prebuilt=False))
    cls.__pydantic_serializer__ = both
    return both


def _write_schema(schema: Any) -> tuple[Any, frozenset[type]]:
    """A copy of ``schema`` whose phi-core ``LlmMessage`` models write their subtree sorted, each
    definition written in place of its references but for recursive ones (pydantic-core guards
    every reference against recursion, a cost per value written), and each union of models
    outside that subtree written by its members' own serializers (``_dispatch``); with those
    members."""
    definitions: dict[str, Any] = {}
    collect_definitions(schema, definitions)
    copy = _Copy(definitions)
    result = copy.plain(schema)
    members = frozenset(copy.members)
    if not copy.kept:
        return result, members
    return core_schema.definitions_schema(result, list(copy.kept.values())), members


def _is_union(kind: Any) -> bool:
    return isinstance(kind, str) and kind in UNIONS


def _is_json_value(node: Mapping[str, Any]) -> bool:
    serialization = node.get("serialization")
    return serialization is not None and serialization.get("function") is SORTED_VALUE_WRITER


def _json_value(node: Mapping[str, Any]) -> Any:
    """A ``JsonValue``'s schema, its null written by pydantic-core itself: ``sorted_json`` returns
    ``None`` as it is, so calling it there is a Python call per null for the same ``null``."""
    copy = {key: value for key, value in node.items() if key != "ref"}
    copy["serialization"] = {**node["serialization"], "when_used": "unless-none"}
    return copy


class _Copy:
    """One schema's copy: ``plain`` copies a node as it is but for the sorted subtrees it holds,
    ``sorted`` copies a node of such a subtree. A reference is replaced by a copy of what it names,
    but inside that copy (recursion): that reference stays, its copy kept in ``kept`` by its new
    name (a sorted copy's name ends with ``_SORTED_REF``)."""

    def __init__(self, definitions: Mapping[str, Any]) -> None:
        self.definitions = definitions
        self.kept: dict[str, Any] = {}
        self.inlining: list[str] = []
        self.members: set[type] = set()

    def plain(self, node: Any) -> Any:
        if isinstance(node, Mapping):
            kind = node.get("type")
            if kind == "definitions":
                return self.plain(node["schema"])
            if kind == "definition-ref":
                return self._resolved(node, node["schema_ref"], _WRITTEN_REF, self.plain)
            if kind == "model" and parsed_as_value(node.get("cls")):
                return self.sorted(node)
            if _is_json_value(node):
                return _json_value(node)
            copy = {key: self.plain(value) for key, value in node.items() if key != "ref"}
            # (a model's fields are a mapping too, whose "type" may be a field's schema)
            members = union_members(node, self.definitions) if _is_union(kind) else None
            if members is None:
                return copy
            self.members.update(members)
            return dispatched(members, copy)
        if isinstance(node, list):
            return [self.plain(item) for item in node]
        if isinstance(node, tuple):
            return tuple(self.plain(item) for item in node)
        return node

    def _resolved(
        self, node: Mapping[str, Any], ref: str, suffix: str, copied: Callable[[Any], Any]
    ) -> Any:
        """What the reference ``node`` becomes: a copy (``copied``) of the schema it names, or,
        inside that copy, the reference to the kept copy."""
        if ref not in self.definitions:
            raise _Unsorted(f"a reference to {ref}, not defined")
        name = ref + suffix
        if name in self.inlining:  # recursive: a reference stays
            if name not in self.kept:
                self.kept[name] = {}  # taken: the references inside end here
                self.kept[name] = {**copied(self.definitions[ref]), "ref": name}
            return {**node, "schema_ref": name}
        self.inlining.append(name)
        try:
            return copied(self.definitions[ref])
        finally:
            self.inlining.pop()

    def sorted(self, node: Mapping[str, Any]) -> Any:
        kind = node["type"]
        serialization = node.get("serialization")
        if serialization is not None:
            if _is_json_value(node):
                return _json_value(node)
            if not (kind == "model" and parsed_as_value(node["cls"])):
                # to-string (a timestamp) writes a string; anything else is unknown here
                if serialization.get("type") != "to-string":
                    raise _Unsorted(f"a {kind} schema with its own serializer")
                return {key: value for key, value in node.items() if key != "ref"}
        if kind == "definition-ref":
            return self._resolved(node, node["schema_ref"], _SORTED_REF, self.sorted)
        copy = {key: value for key, value in node.items() if key not in ("serialization", "ref")}
        if kind in _AS_WRITTEN:
            return copy
        if kind in _INNER:
            copy["schema"] = self.sorted(node["schema"])
        elif kind == "model":
            if node.get("config", {}).get("extra_fields_behavior") == "allow":
                raise _Unsorted("a model that writes extra keys")  # after its computed fields
            copy["schema"] = self._sorted_fields(node["schema"])
        elif kind == "list":
            if "items_schema" in node:
                copy["items_schema"] = self.sorted(node["items_schema"])
        elif kind == "tagged-union":
            copy["choices"] = {tag: self.sorted(choice) for tag, choice in node["choices"].items()}
        elif kind == "union":
            copy["choices"] = [self._sorted_choice(choice) for choice in node["choices"]]
        else:
            raise _Unsorted(f"a {kind} schema")
        return copy

    def _sorted_choice(self, choice: Any) -> Any:
        if isinstance(choice, tuple):  # (schema, label)
            return (self.sorted(choice[0]), *choice[1:])
        return self.sorted(choice)

    def _sorted_fields(self, fields_schema: Mapping[str, Any]) -> Any:
        """A model's fields, written as computed fields in byte order of their wire names."""
        if fields_schema.get("type") != "model-fields" or fields_schema.get("computed_fields"):
            raise _Unsorted("a model with computed fields or a custom fields schema")
        if fields_schema.get("extras_schema") is not None or (
            fields_schema.get("extra_behavior") == "allow"
        ):
            raise _Unsorted("a model that writes extra keys")
        written: list[tuple[str, core_schema.ComputedField]] = []
        fields: dict[str, Any] = {}
        for name, field in fields_schema["fields"].items():
            fields[name] = {**field, "serialization_exclude": True}
            if field.get("serialization_exclude"):
                continue
            key = field.get("serialization_alias") or name
            exclude_if: Callable[[Any], bool] | None = field.get("serialization_exclude_if")
            written.append(
                (
                    key,
                    core_schema.computed_field(
                        name,
                        self.sorted(field["schema"]),
                        alias=key,
                        serialization_exclude_if=exclude_if,
                    ),
                )
            )
        written.sort(key=lambda pair: pair[0])  # str order is UTF-8 byte order
        return {
            **fields_schema,
            "fields": fields,
            "computed_fields": [computed for _, computed in written],
        }
