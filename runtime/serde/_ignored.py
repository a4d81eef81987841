"""Unknown keys of a struct read directly: serde_json skips their values, checking only the grammar.

Serde fact (serde_derive 1.0.228, serde_json 1.0.150, as read in their sources):

* A derived struct reads a map with ``visit_map``; the value of a key it does not know goes to
  ``MapAccess::next_value::<IgnoredAny>`` (serde_derive ``src/de/struct_.rs``), whose
  ``deserialize`` calls ``deserialize_ignored_any``, which serde_json's ``Deserializer``
  implements with ``ignore_value`` (``src/de.rs``). That walk checks the JSON grammar only:

  - numbers go through ``ignore_integer``/``ignore_decimal``/``ignore_exponent``: digits are
    checked, the value never is, so ``1e400`` or a 5,000-digit integer is skipped where
    ``parse_any_number`` says "number out of range";
  - ``ignore_value`` keeps its open brackets on its own stack (``self.scratch``) and never goes
    through ``check_recursion!``, so ``remaining_depth`` (128) does not count inside the value;
  - strings go through ``Read::ignore_str`` and ``ignore_escape`` (``src/read.rs``): ``\\u`` must
    be followed by four hex digits (``decode_hex_escape``) but surrogates are never paired, so a
    lone ``\\ud800`` is skipped (``parse_unicode_escape`` rejects it); raw control characters and
    unknown escapes are still errors; ``SliceRead::ignore_str`` (``from_slice``) and
    ``IoRead::ignore_str`` (``from_reader``, what phi-core's ``load_session`` reads a file with)
    skip bytes that are not UTF-8 (``StrRead``, ``from_str``, only takes valid UTF-8 anyway).

  The key itself is read with ``parse_str`` (``MapKey::deserialize_any``): checked in full.

* Everything serde reads is checked in full: a known field's value, and a whole subtree that serde
  buffers before it knows what to do with it: an internally tagged enum
  (``TaggedContentVisitor``: each value through ``ContentVisitor``, i.e. ``deserialize_any``), an
  untagged enum (``ContentVisitor`` again, serde_derive ``src/de/enum_untagged.rs``), anything
  parsed into ``serde_json::Value`` (``LlmMessage``). Unknown keys inside such a subtree were
  parsed before they were dropped.

* An externally tagged enum is read directly (``deserialize_enum``; its
  ``VariantAccess::struct_variant`` calls ``deserialize_struct``): an unknown key in a struct
  variant's body is skipped like any struct's. serde's sequence form of a struct (``visit_seq``)
  reads elements as fields by position: there is no unknown element (an extra one is an error).

``loads`` calls ``blank_ignored`` only once its own checks found something serde's full reading
rejects (nesting too deep, a number out of range, a surrogate or UTF-8 error). It walks the
document along the type: the shape of each position comes from the models (fields, wire names,
``extra``, discriminated unions, ``LlmMessageBase``) and the schema's ``x-serde-tagging`` and
``x-serde-duplicate-keys`` markers. Each ignored value's grammar is checked as ``ignore_value``
checks it, then the value is blanked (``0`` and spaces, line breaks kept, so every line and
column after it stays put): pydantic drops the key as serde does, and the rest is judged as before.
"""

from __future__ import annotations

import functools
import json
import re
import types
import typing
from dataclasses import dataclass
from typing import Any

from pydantic.fields import FieldInfo

from ..formats import VERSIONS
from ._scan import SERDE_MAX_DEPTH
from ._schema import load_schema_files
from ._sequence import positional_fields
from ._wire import LlmMessageBase, WireModel

__all__ = ["blank_ignored", "skip_ignored_value"]


class _Unreadable(Exception):
    """serde rejects the document whatever its ignored values hold (or the walk cannot tell)."""


# --- shapes: how serde reads the value at a position ---------------------------------------------


class _Parsed:
    """A value serde parses in full: a scalar, a known ``Value``, a buffered enum's subtree."""


_PARSED = _Parsed()


class _Ignored:
    """The value of a key the struct does not know: skipped by ``ignore_value``."""


_IGNORED = _Ignored()


@dataclass(frozen=True, eq=False)
class _Struct:
    """A derived struct read directly: a map of fields, or their sequence form."""

    model: type[WireModel]

    def child(self, key: str) -> _Shape:
        info = _wire_fields(self.model).get(key)
        if info is not None:
            return _field_shape(info)
        # extra="forbid" marks an externally tagged variant's wrapper: its one key is the variant
        return _IGNORED if self.model.model_config.get("extra") == "ignore" else _PARSED

    def element(self, index: int) -> _Shape:
        fields = positional_fields(self.model)
        return _field_shape(fields[index][1]) if index < len(fields) else _PARSED


@dataclass(frozen=True, eq=False)
class _Sequence:
    """A ``Vec<T>`` read directly: every element is a ``T`` read directly."""

    item: Any

    def element(self, index: int) -> _Shape:
        return _shape(self.item)


@dataclass(frozen=True, eq=False)
class _Map:
    """A ``HashMap<String, T>`` read directly: every value is a ``T`` read directly."""

    value: Any

    def child(self, key: str) -> _Shape:
        return _shape(self.value)


@dataclass(frozen=True, eq=False)
class _External:
    """An externally tagged enum: ``{"Variant": body}``, the body read directly."""

    bodies: dict[str, FieldInfo]
    """Variant key -> the field that holds its body."""

    def child(self, key: str) -> _Shape:
        body = self.bodies.get(key)
        return _PARSED if body is None else _field_shape(body)


_Shape = _Parsed | _Ignored | _Struct | _Sequence | _Map | _External


def _folder_of(tp: Any) -> str | None:
    """The schema folder of the version whose generated module defines ``tp``."""
    module = str(getattr(tp, "__module__", ""))
    for entry in VERSIONS:
        if module == entry.module or module.startswith(entry.module + "."):
            return entry.folder
    return None


@functools.cache
def _definitions(folder: str) -> dict[str, dict[str, Any]]:
    return {
        name: definition
        for document in load_schema_files(folder).values()
        for name, definition in document.get("$defs", {}).items()
    }


@functools.cache
def _internally_tagged_variants(folder: str) -> frozenset[str]:
    """The definitions that are variants of an internally tagged enum (they carry the tag)."""
    names: set[str] = set()
    for definition in _definitions(folder).values():
        if definition.get("x-serde-tagging") == "internal":
            for branch in definition.get("oneOf", definition.get("anyOf", [])):
                names.add(str(branch.get("$ref", "")).rpartition("/")[2])
    return frozenset(names)


def _marks(tp: Any) -> dict[str, Any]:
    """The schema definition named like ``tp`` in its version's folder ({} if none)."""
    folder = _folder_of(tp)
    return {} if folder is None else _definitions(folder).get(str(tp.__name__), {})


def _buffered(marks: dict[str, Any]) -> bool:
    """serde reads the whole value before deciding: internally tagged or untagged enum, or
    parsed through ``serde_json::Value`` (repeated keys: last wins)."""
    return (
        marks.get("x-serde-tagging") in ("internal", "untagged")
        or marks.get("x-serde-duplicate-keys") == "last-wins"
    )


def _is_internal_variant(model: type[WireModel]) -> bool:
    folder = _folder_of(model)
    return folder is not None and model.__name__ in _internally_tagged_variants(folder)


@functools.cache
def _wire_fields(model: type[WireModel]) -> dict[str, FieldInfo]:
    return {info.alias or name: info for name, info in model.model_fields.items()}


def _field_shape(info: FieldInfo) -> _Shape:
    if info.discriminator is not None:  # a tagged union declared on the field itself
        return _PARSED
    return _shape(info.annotation)


def _external_bodies(members: list[Any]) -> dict[str, FieldInfo]:
    """Each struct or newtype variant's key and body (unit variants are strings: no body)."""
    bodies: dict[str, FieldInfo] = {}
    for member in members:
        if isinstance(member, type) and issubclass(member, WireModel):
            bodies.update(_wire_fields(member))
    return bodies


# By identity, holding the type (see _codec.adapter): type aliases compare slowly.
_SHAPES: dict[int, tuple[Any, _Shape]] = {}


def _shape(tp: Any) -> _Shape:
    entry = _SHAPES.get(id(tp))
    if entry is None or entry[0] is not tp:
        entry = _SHAPES[id(tp)] = (tp, _shape_of(tp))
    return entry[1]


def _shape_of(tp: Any) -> _Shape:
    tagging = None
    discriminated = False
    while True:
        if hasattr(tp, "__value__") and not isinstance(tp, type):  # a TypeAliasType
            marks = _marks(tp)
            if _buffered(marks):
                return _PARSED
            tagging = marks.get("x-serde-tagging", tagging)
            tp = tp.__value__
        elif typing.get_origin(tp) is typing.Annotated:
            tp, *metadata = typing.get_args(tp)
            discriminated |= any(
                isinstance(item, FieldInfo) and item.discriminator is not None for item in metadata
            )
        else:
            break
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        members = [member for member in typing.get_args(tp) if member is not type(None)]
        if discriminated:  # pydantic's mark of an internally tagged enum
            return _PARSED
        if tagging == "external":
            return _External(_external_bodies(members))
        if len(members) == 1:  # Option<T>: null, or a T read directly (deserialize_option)
            return _shape(members[0])
        return _PARSED  # a union the schema does not call external: assume serde buffers it
    if origin is list:
        return _Sequence(typing.get_args(tp)[0])
    if origin is dict:
        return _Map(typing.get_args(tp)[1])
    if isinstance(tp, type) and issubclass(tp, WireModel):
        if (
            issubclass(tp, LlmMessageBase)
            or _buffered(_marks(tp))
            or _is_internal_variant(tp)  # only ever read through its enum
        ):
            return _PARSED
        return _Struct(tp)
    return _PARSED


# --- ignore_value's grammar ---------------------------------------------------------------------

_TOKEN = re.compile(
    rb"[ \t\n\r]*+(?:"
    rb"([\[{])|([\]}])|(,)|(:)"
    # a string as ignore_str reads it: any byte but '"', '\' and controls; checked escapes
    rb'|("(?:[^"\\\x00-\x1f]++|\\["\\/bfnrt]|\\u[0-9A-Fa-f]{4})*+")'
    # a number as ignore_integer/_decimal/_exponent read it, or a literal (parse_ident)
    rb"|(-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?(?:[eE][+-]?[0-9]++)?|true|false|null))"
)
_OPEN, _CLOSE, _COMMA, _COLON, _STRING, _SCALAR = range(1, 7)
_VALUE, _FIRST_IN_ARRAY, _FIRST_IN_OBJECT, _KEY, _COLON_NEXT, _AFTER = range(6)
_OPENER_OF = {ord("]"): ord("["), ord("}"): ord("{")}


def skip_ignored_value(raw: bytes, pos: int) -> int:
    """The end of the JSON value that starts at ``pos``, checked as serde_json's ``ignore_value``
    checks it (grammar only; any depth, held on a list, never on Python's stack).

    Raises ``ValueError`` where ``ignore_value`` fails.
    """
    brackets = bytearray()
    state = _VALUE
    while True:
        token = _TOKEN.match(raw, pos)
        if token is None:
            raise ValueError(f"not JSON at offset {pos}")
        kind = token.lastindex
        bracket = raw[token.end() - 1]
        pos = token.end()
        if state in (_VALUE, _FIRST_IN_ARRAY):
            if kind == _OPEN:
                brackets.append(bracket)
                state = _FIRST_IN_OBJECT if bracket == ord("{") else _FIRST_IN_ARRAY
                continue
            if kind not in (_STRING, _SCALAR) and not (
                kind == _CLOSE and state == _FIRST_IN_ARRAY and bracket == ord("]")
            ):
                raise ValueError(f"expected a value at offset {token.start(kind or 0)}")
        elif state in (_FIRST_IN_OBJECT, _KEY):
            if kind == _STRING:
                state = _COLON_NEXT
                continue
            if not (kind == _CLOSE and state == _FIRST_IN_OBJECT and bracket == ord("}")):
                raise ValueError(f"expected a key at offset {token.start(kind or 0)}")
        elif state == _COLON_NEXT:
            if kind != _COLON:
                raise ValueError(f"expected ':' at offset {token.start(kind or 0)}")
            state = _VALUE
            continue
        elif kind == _COMMA:  # _AFTER: inside a container, after a value
            state = _KEY if brackets[-1] == ord("{") else _VALUE
            continue
        elif kind != _CLOSE or _OPENER_OF[bracket] != brackets[-1]:
            raise ValueError(
                f"expected ',' or a closing bracket at offset {token.start(kind or 0)}"
            )
        if kind == _CLOSE:
            brackets.pop()
        if not brackets:  # a value just ended: the whole one, or one inside a container
            return pos
        state = _AFTER


# --- the walk -----------------------------------------------------------------------------------


def _nothing(value: Any) -> None:
    return None


def _not_json(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


# Finds where a value serde parses in full ends, at C speed; builds nothing (no int() of long
# digit strings) and accepts no NaN. Whatever it accepts that serde rejects (a number out of
# range, a lone surrogate) is left for loads to report.
_PARSED_VALUE = json.JSONDecoder(
    object_pairs_hook=_nothing, parse_int=_nothing, parse_float=_nothing, parse_constant=_not_json
)
_WHITESPACE = re.compile(rb"[ \t\n\r]*+")
_BLANK = bytes(byte if byte in b"\n\r" else ord(" ") for byte in range(256))


class _Walk:
    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.text = raw.decode("latin-1")  # one character per byte: offsets stay byte offsets
        self.ignored: list[tuple[int, int]] = []

    def _blank_space(self, pos: int) -> int:
        end: int = _WHITESPACE.match(self.raw, pos).end()  # type: ignore[union-attr]
        return end

    def value(self, pos: int, shape: _Shape, depth: int) -> int:
        """The end of the value at ``pos``, read as ``shape``; ``depth`` containers enclose it."""
        opener = self.raw[pos : pos + 1]
        if opener == b"{" and isinstance(shape, _Struct | _Map | _External):
            return self._object(pos, shape, depth + 1)
        if opener == b"[" and isinstance(shape, _Struct | _Sequence):
            return self._array(pos, shape, depth + 1)
        try:
            end: int = _PARSED_VALUE.raw_decode(self.text, pos)[1]
        except (ValueError, RecursionError):  # serde rejects it too (Python goes ~1000 deep)
            raise _Unreadable from None
        return end

    def _skipped(self, pos: int) -> int:
        try:
            end = skip_ignored_value(self.raw, pos)
        except ValueError:
            raise _Unreadable from None
        self.ignored.append((pos, end))
        return end

    def _key(self, pos: int) -> tuple[str, int]:
        if self.raw[pos : pos + 1] != b'"':
            raise _Unreadable
        try:
            key, end = _PARSED_VALUE.raw_decode(self.text, pos)
            token = self.raw[pos:end]
            if not token.isascii():  # the text is Latin-1: read the key as UTF-8
                key = json.loads(token)
        except ValueError:  # serde's parse_str rejects the key
            raise _Unreadable from None
        colon = self._blank_space(end)
        if self.raw[colon : colon + 1] != b":":
            raise _Unreadable
        return str(key), self._blank_space(colon + 1)

    def _after(self, end: int, closing: bytes) -> tuple[int, bool]:
        """After an element: (where the next one starts, True), or (the end of the container,
        False) at its closing bracket."""
        pos = self._blank_space(end)
        delimiter = self.raw[pos : pos + 1]
        if delimiter == b",":
            return self._blank_space(pos + 1), True
        if delimiter == closing:
            return pos + 1, False
        raise _Unreadable

    def _object(self, pos: int, shape: _Struct | _Map | _External, depth: int) -> int:
        if depth > SERDE_MAX_DEPTH:  # check_recursion!: serde rejects whatever follows
            raise _Unreadable
        pos = self._blank_space(pos + 1)
        if self.raw[pos : pos + 1] == b"}":
            return pos + 1
        more = True
        while more:
            key, pos = self._key(pos)
            child = shape.child(key)
            end = self._skipped(pos) if child is _IGNORED else self.value(pos, child, depth)
            pos, more = self._after(end, b"}")
        return pos

    def _array(self, pos: int, shape: _Struct | _Sequence, depth: int) -> int:
        if depth > SERDE_MAX_DEPTH:
            raise _Unreadable
        pos = self._blank_space(pos + 1)
        if self.raw[pos : pos + 1] == b"]":
            return pos + 1
        more, index = True, 0
        while more:
            end = self.value(pos, shape.element(index), depth)
            pos, more = self._after(end, b"]")
            index += 1
        return pos


def blank_ignored(tp: Any, raw: bytes) -> bytes | None:
    """``raw`` with the value of every key that serde skips (an unknown key of a struct read
    directly, with no buffering enum or ``Value`` above it) blanked out: ``0`` and spaces, line
    breaks kept. None when there is none, or when serde rejects the document whatever those
    values hold (an ignored value that breaks ``ignore_value``'s grammar, a direct struct nested
    too deep, text that is not JSON): ``loads`` then reports its error as it found it.
    """
    shape = _shape(tp)
    if not isinstance(shape, _Struct | _Sequence | _Map | _External):
        return None  # serde reads the whole document
    walk = _Walk(raw)
    try:
        walk.value(walk._blank_space(0), shape, 0)
    except _Unreadable:
        return None
    if not walk.ignored:
        return None
    blanked = bytearray(raw)
    for start, end in walk.ignored:
        blanked[start:end] = b"0" + raw[start + 1 : end].translate(_BLANK)
    return bytes(blanked)
