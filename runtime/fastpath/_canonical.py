"""phi-core's canonical form (what ``--strict`` asks of a document: exactly what phi-core writes)
as a regular expression: the exact expression of ``loads`` (``_pattern`` with ``exact_values``),
narrowed to the one text ``dumps`` writes for each value it matches.

What ``dumps`` (pydantic-core's writer with the models' serde rules) writes, and the expression
therefore asks:

- every field that is always written present, in declaration order (sorted inside an
  ``LlmMessage``); a field written only when not empty/None/false (``skip_serializing_if``)
  absent, or present with another value; no unknown key;
- strings with serde_json's escapes only (``\\"``, ``\\\\``, ``\\b``...; ``\\u00XX`` in lower case
  for the other control characters), everything else raw;
- integers as they are read; floats with a fraction and no exponent, at most 15 digits and no
  trailing zero, so the text is the float's shortest form (an ``f32``: at most 6 digits, which
  it keeps); timestamps in chrono's form; no ``-0.0``;
- a union's value matched by a variant that the variants before it surely reject (serde and
  pydantic take the first variant that reads it, which then writes it);
- a ``serde_json::Value``'s objects with their keys sorted: no regular expression can check
  that, so the expression only matches such values, and names the keys of the fields holding
  them (``value_keys``) for the caller to look at (``CanonicalPath``).

A function the models call while reading makes its type ineligible unless its effect on the
values matched is known here (the JSON-value check and serde's null/leniency wrappers change
none; ``F32`` keeps what it matches; timestamps are matched in their canonical form).
"""

from __future__ import annotations

import functools
import json
import operator
import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

from phi_wire.formats import find
from phi_wire.primitives import CANONICAL_TIMESTAMP, TRANSPARENT, adapter, fast_path_role_of

from ._numbers import at_most
from ._objects import _Member, _optional
from ._pattern import (
    _BORROWED_STRING,
    _EXACT_TIMESTAMP,
    Unsupported,
    _borrowed,
    _Compiler,
    _integer,
)
from ._tokens import Seq, _alt, _group, _lit, _opaque

__all__ = ["CANONICAL_FLOAT", "CANONICAL_STRING", "build_canonical"]

_RAW_RUN = rb"[ !#-\[\]-\xff]*+"
CANONICAL_STRING = (
    rb'"' + _RAW_RUN + rb'(?:\\(?:["\\bfnrt]|u00(?:0[0-7bef]|1[0-9a-f]))' + _RAW_RUN + rb')*+"'
)
"""A string as serde_json writes it (bytes >= 0x80 raw; their UTF-8 is checked apart)."""
_FRACTION = rb"(?:0|[0-9]*[1-9])"
CANONICAL_FLOAT = (
    rb"(?!-0\.0(?![0-9]))-?(?=[0-9.]{3,16}(?![0-9.]))"
    rb"(?:0\.(?:0|0{0,3}[1-9](?:[0-9]*[1-9])?)|[1-9][0-9]*+\." + _FRACTION + rb")"
)
"""A float's shortest text (at most 15 digits: no other text of as few digits reads as the same
float), in the decimal form pydantic-core writes from 0.0001 to below 10**15."""
_CANONICAL_F32 = (
    rb"-?(?=[0-9.]{3,7}(?![0-9.]))(?:0\.(?:0|0{0,3}[1-9](?:[0-9]*[1-9])?)|[1-9][0-9]*+\."
    + _FRACTION
    + rb")"
)
"""An ``F32``'s: at most 6 digits, which an f32 keeps exactly (``_to_f32`` returns them)."""
_VALUE_INTEGER = rb"(?:0|" + at_most(2**64 - 1) + rb"|-" + at_most(2**63) + rb")"
"""Integers a ``serde_json::Value`` holds and writes as they are."""
_VALUE_DEPTH = 3

# Functions the models run while reading, whose effect on the values the expression matches is
# nil: the JSON-value check (JSON input as it is), serde's null-as-default and lenient wrappers
# (a value the inner schema takes is kept).
_UNCHANGING = frozenset(
    {
        ("phi_wire.serde._wire", "_validate_json_value"),
        ("phi_wire.serde._wire", "_lenient.<locals>.validate"),
        ("phi_wire.serde._wire", "_null_as_default.<locals>.validate"),
    }
)
_F32 = ("phi_wire.serde._wire", "_to_f32")
_SORTED_SERIALIZER = ("phi_wire.serde._wire", "LlmMessageBase._serialize_sorted")
_FIELD_KEYS = frozenset(
    {"type", "schema", "validation_alias", "serialization_alias", "metadata"}
    | {"serialization_exclude_if"}
)


def _name(function: Any) -> tuple[str, str]:
    return getattr(function, "__module__", ""), getattr(function, "__qualname__", "")


SPACE = rb"[ \n]*+"
"""The blanks allowed between two tokens: the expression is matched on the pretty text itself,
whose blanks ``_pretty`` checks (they would cost a compacting pass: the expression skips them)."""


def _array(item: bytes) -> bytes:
    """A JSON array of ``item``s, blanks allowed between its tokens (each item is followed by a
    comma and another item, or by the closing bracket)."""
    more = rb"(?:,(?=" + SPACE + rb"[^\] \n])|(?=" + SPACE + rb"\]))"
    return rb"\[(?:" + SPACE + item + more + rb")*+" + SPACE + rb"\]"


@functools.cache
def _value(depth: int) -> bytes:
    """A ``serde_json::Value`` nested at most ``depth`` deep, in serde_json's forms (its keys'
    order is left to ``CanonicalPath``)."""
    scalar = rb"(?:" + CANONICAL_STRING + rb"|" + CANONICAL_FLOAT + rb"|" + _VALUE_INTEGER
    scalar += rb"|true|false|null)"
    if depth == 0:
        return scalar
    inner = _value(depth - 1)
    member = SPACE + CANONICAL_STRING + rb":" + SPACE + inner
    more = rb"(?:,(?=" + SPACE + rb"[^} \n])|(?=" + SPACE + rb"\}))"
    obj = rb"\{(?:" + member + more + rb")*+" + SPACE + rb"\}"
    return rb"(?:" + scalar + rb"|" + _array(inner) + rb"|" + obj + rb")"


def _member(member: _Member, comma: bool) -> Seq:
    key = json.dumps(member.key).encode() + b":"
    return _lit(b"," * comma) + _opaque(SPACE) + _lit(key) + _opaque(SPACE) + member.value


def _object(members: list[_Member]) -> Seq:
    """An object with ``members`` in this order, optional ones maybe absent, blanks allowed
    between its tokens."""
    end = _opaque(SPACE) + _lit(b"}")
    first = next((index for index, member in enumerate(members) if member.required), None)
    if first is None:  # all optional: one alternative per member that may come first
        alternatives = [
            _member(members[start], False)
            + tuple(
                token
                for member in members[start + 1 :]
                for token in _optional(_member(member, True))
            )
            for start in range(len(members))
        ]
        return _lit(b"{") + _alt([*alternatives, ()]) + end
    seq: Seq = _lit(b"{")
    for member in members[:first]:
        seq += _optional(_member(member, False) + _lit(b","))
    seq += _member(members[first], False)
    for member in members[first + 1 :]:
        seq += _member(member, True) if member.required else _optional(_member(member, True))
    return seq + end


VALUE = _value(_VALUE_DEPTH)
"""The expression of one ``serde_json::Value`` as the canonical expression matches it."""


def _skipped_texts(predicate: Any) -> tuple[bytes, ...]:
    """The canonical texts of the values ``skip_serializing_if``'s ``predicate`` omits: known for
    ``operator.not_`` (every falsy value; an object as ``{}`` too, to be safe) and
    ``partial(operator.is_, X)`` (X's text); any other predicate: ``Unsupported``."""
    if predicate is operator.not_:
        return (b"null", b"false", b"0", b"0.0", b'""', b"[]", b"{}")
    if (
        isinstance(predicate, functools.partial)
        and predicate.func is operator.is_
        and len(predicate.args) == 1
        and not predicate.keywords
    ):
        texts: dict[Any, bytes] = {None: b"null", False: b"false", True: b"true"}
        for value, text in texts.items():
            if predicate.args[0] is value:
                return (text,)
    raise Unsupported(f"skip_serializing_if {predicate!r}")


def _default_of(schema: dict[str, Any]) -> Any:
    if "default" in schema:
        return schema["default"]
    factory = schema.get("default_factory")
    if factory is None or schema.get("default_factory_takes_data"):
        raise Unsupported("a default computed from the data")
    return factory()


_OBJECT, _STRING_KIND, _NUMBER, _BOOL, _NULL, _ARRAY = (
    "object",
    "string",
    "number",
    "bool",
    "null",
    "array",
)
_ALL_KINDS = frozenset({_OBJECT, _STRING_KIND, _NUMBER, _BOOL, _NULL, _ARRAY})


class _CanonicalCompiler(_Compiler):
    """``_Compiler`` with exact values, narrowed to the canonical form (see above)."""

    def __init__(self) -> None:
        super().__init__(exact_values=True)
        self.number = CANONICAL_FLOAT
        self.owners: list[str] = []
        """The keys of the fields being compiled, innermost last."""
        self.value_keys: set[str] = set()
        """The keys of the fields whose value holds a ``serde_json::Value``."""
        self.frames: list[tuple[tuple[str, bool, str | None], int]] = []
        """The definitions being compiled, with how many fields deep each began."""
        self.holding: set[tuple[str, bool, str | None]] = set()
        """Definitions that hold a ``serde_json::Value`` outside any field of theirs: where one
        is used again (memoized), the field it is used in holds one too."""

    def _saw_value(self) -> None:
        if not self.owners:
            raise Unsupported("a JSON value outside a field")
        self.value_keys.add(self.owners[-1])
        for key, depth in self.frames:
            if depth == len(self.owners):
                self.holding.add(key)

    def object_of(self, members: list[_Member]) -> Seq:
        return _object(members)  # spaced: this module's ``_object``

    def definition(self, ref: str, sorted_keys: bool, tag: str | None) -> Seq:
        """``_Compiler.definition``, finding the fields holding a ``serde_json::Value`` through
        memoized definitions too."""
        key = (ref, sorted_keys, tag)
        if key in self.memo:
            if key in self.holding:
                self._saw_value()
            return self.memo[key]
        self.frames.append((key, len(self.owners)))
        try:
            return super().definition(ref, sorted_keys, tag)
        finally:
            self.frames.pop()

    def compile_value(self, schema: dict[str, Any], kind: str, sorted_keys: bool) -> Seq:
        plain = not set(schema) - {"type", "strict", "ref", "metadata", "serialization"}
        if kind == "str" and plain:
            return _opaque(CANONICAL_STRING)
        if kind == "float" and plain:
            return _opaque(rb"(?:" + CANONICAL_FLOAT + rb")")
        if kind == "int":
            return _opaque(_integer(schema))
        if kind == "any":
            self._saw_value()
            return _opaque(VALUE)
        if kind == "list" and not set(schema) - {"type", "items_schema", "strict", "ref"} - {
            "metadata",
            "serialization",
        }:
            return _opaque(_array(_group(self.compile(schema["items_schema"], sorted_keys))))
        if kind == "union":
            choices = [c if isinstance(c, dict) else c[0] for c in schema["choices"]]
            self._check_union(choices, schema.get("mode", "smart"))
        if kind.startswith("function-"):
            function = _function_of(schema)
            role = fast_path_role_of(function)
            if role == CANONICAL_TIMESTAMP and kind == "function-after":
                return _opaque(_EXACT_TIMESTAMP)
            if _name(function) == _F32 and kind == "function-after":
                if self.resolve(schema["schema"])["type"] != "float":
                    raise Unsupported("f32 of a non-float")
                return _opaque(rb"(?:" + _CANONICAL_F32 + rb")")
            if role != TRANSPARENT or _name(function) not in _UNCHANGING:
                raise Unsupported(f"validator {_name(function)}")
            return self.compile(schema["schema"], sorted_keys)
        return super().compile_value(schema, kind, sorted_keys)

    def fields(self, schema: dict[str, Any], sorted_keys: bool) -> list[_Member]:
        if schema.get("custom_init") or schema.get("root_model") or schema.get("post_init"):
            raise Unsupported(f"model {schema.get('cls')} with custom construction")
        serializer = schema.get("serialization")
        if serializer is not None and not (
            sorted_keys and _name(serializer.get("function")) == _SORTED_SERIALIZER
        ):
            raise Unsupported(f"model {schema.get('cls')} with its own serializer")
        inner = schema["schema"]
        if inner["type"] != "model-fields" or set(inner.get("computed_fields") or ()):
            raise Unsupported(f"model around {inner['type']}")
        members = []
        for name, field in inner["fields"].items():
            members.append(self._member(name, field, sorted_keys))
        if sorted_keys:
            members.sort(key=lambda member: member.key.encode())
        return members

    def _member(self, name: str, field: dict[str, Any], sorted_keys: bool) -> _Member:
        if set(field) - _FIELD_KEYS or field.get("serialization_exclude"):
            raise Unsupported(f"field {name} {sorted(field)}")
        alias = field.get("validation_alias")
        if alias is not None and not isinstance(alias, str):
            raise Unsupported("alias path")
        key = alias or name
        if (field.get("serialization_alias") or name) != key:
            raise Unsupported(f"field {name} read and written under other names")
        value = field["schema"]
        default = value if value["type"] == "default" else None
        if default is not None:
            value = value["schema"]
        if _borrowed(field):
            if self.resolve(value)["type"] != "str":
                raise Unsupported(f"borrowed field {name} that is not a plain string")
            seq: Seq = _opaque(_BORROWED_STRING)
        else:
            self.owners.append(key)
            try:
                seq = self.compile(value, sorted_keys)
            finally:
                self.owners.pop()
        skip = field.get("serialization_exclude_if")
        if skip is None:
            return _Member(key, seq, True)  # always written
        texts = _skipped_texts(skip)
        omitted = rb"(?!(?:" + rb"|".join(re.escape(text) for text in texts) + rb")[,} \n])"
        # absent is canonical when the default read for it is omitted again
        required = default is None or not skip(_default_of(default))
        return _Member(key, _opaque(omitted) + seq, required)

    def _kinds(self, schema: dict[str, Any]) -> frozenset[str]:
        """The JSON kinds of the values ``schema`` reads."""
        schema = self.resolve(schema)
        kind = schema["type"]
        simple = {
            "model": _OBJECT,
            "tagged-union": _OBJECT,
            "dict": _OBJECT,
            "str": _STRING_KIND,
            "int": _NUMBER,
            "float": _NUMBER,
            "bool": _BOOL,
            "none": _NULL,
            "list": _ARRAY,
        }
        if kind in simple:
            return frozenset({simple[kind]})
        if kind == "enum" and schema.get("sub_type") == "str":
            return frozenset({_STRING_KIND})
        if kind == "nullable":
            return self._kinds(schema["schema"]) | {_NULL}
        if kind == "default" or kind.startswith("function-"):
            return self._kinds(schema["schema"]) if "schema" in schema else _ALL_KINDS
        if kind == "union":
            found: frozenset[str] = frozenset()
            for choice in schema["choices"]:
                found |= self._kinds(choice if isinstance(choice, dict) else choice[0])
            return found
        return _ALL_KINDS

    def _read_variants(
        self, schema: dict[str, Any]
    ) -> list[tuple[frozenset[str], frozenset[str], bool]] | None:
        """For an object type: per variant, the keys reading requires, all its keys, and
        whether it refuses others; None when not known."""
        schema = self.resolve(schema)
        if schema["type"] == "tagged-union":
            variants = []
            for choice in schema["choices"].values():
                found = self._read_variants(choice)
                if found is None:
                    return None
                variants += found
            return variants
        if schema["type"] != "model" or schema["schema"]["type"] != "model-fields":
            return None
        fields = schema["schema"]["fields"]
        keys = {name: field.get("validation_alias") or name for name, field in fields.items()}
        if not all(isinstance(key, str) for key in keys.values()):
            return None
        required = {keys[n] for n, f in fields.items() if f["schema"]["type"] != "default"}
        forbid = schema.get("config", {}).get("extra_fields_behavior") == "forbid"
        return [(frozenset(required), frozenset(keys.values()), forbid)]

    def _check_union(self, choices: list[dict[str, Any]], mode: str) -> None:
        """A union's values are read by the first variant that takes them (left to right) or
        by the best one (smart): the canonical text of a variant must be one no other variant
        (before it, or any) reads, else it may be read, and written, as another."""
        kinds = [self._kinds(choice) for choice in choices]
        for later, choice in enumerate(choices):
            for earlier in range(later) if mode == "left_to_right" else range(len(choices)):
                if earlier == later or not kinds[earlier] & kinds[later]:
                    continue
                if not self._rejects(choices[earlier], choice):
                    raise Unsupported("a union whose variants may read each other's values")

    def _rejects(self, reader: dict[str, Any], written: dict[str, Any]) -> bool:
        """Whether ``reader`` surely rejects every canonical text of ``written`` (objects: a key
        it requires that ``written`` never has, or one ``written`` always has that it
        refuses)."""
        readers = self._read_variants(reader)
        if readers is None or self._kinds(reader) | self._kinds(written) != {_OBJECT}:
            return False
        for always, sometimes in self._written_keys(written):
            for required, known, forbid in readers:
                if required <= always | sometimes and not (forbid and always - known):
                    return False
        return True

    def _written_keys(self, schema: dict[str, Any]) -> list[tuple[frozenset[str], frozenset[str]]]:
        found = []
        for keys in self.key_sets(schema):
            if keys is None:
                raise Unsupported("a union variant that may not be an object")
            found.append(keys)
        return found


def _function_of(schema: dict[str, Any]) -> Any:
    function = schema.get("function")
    if isinstance(function, dict):
        function = function.get("function")
    return function


def build_canonical(
    version: str,
    types: Sequence[str],
    detect: Callable[[Collection[str], Collection[str]], str | None] | None,
) -> tuple[bytes, frozenset[str]]:
    """The canonical expression of phi-core ``version``'s ``types`` (b"" when none can be
    expressed; with ``detect``, only the types it gives every document of), matching one compact
    document and nothing after it, and the keys of the fields holding a ``serde_json::Value``."""
    wire = find(version).load()
    seqs = []
    value_keys: set[str] = set()
    for name in types:
        compiler = _CanonicalCompiler()
        schema: dict[str, Any] = dict(adapter(getattr(wire, name)).core_schema)
        try:
            seq = compiler.compile(schema, sorted_keys=False)
            key_sets = compiler.key_sets(schema)
        except Unsupported:
            continue
        if detect is not None and any(keys is None or detect(*keys) != name for keys in key_sets):
            continue
        seqs.append(seq)
        value_keys |= compiler.value_keys
    if not seqs:
        return b"", frozenset()
    return _group(_alt(seqs)), frozenset(value_keys)
