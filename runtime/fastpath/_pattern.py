"""The fast path's expression: a regular expression compiled from the models' own pydantic-core
schema (so it follows ``tools/codegen`` without being edited) that matches only a *subset* of what
``loads`` accepts.

That subset is the compact form phi-core writes (keys in declaration order, or sorted inside an
``LlmMessage``), strings without surrogate escapes, integers short enough to be inside their Rust
range, plain decimals, canonical timestamps, ``serde_json::Value`` subtrees at most
``VALUE_DEPTH`` deep. Every document it matches is therefore valid (a fixed key order leaves no
room for a duplicate field, a short number is read alike by serde and Python, the nesting stays
far below serde's limit) once its bytes are UTF-8: strings take any byte >= 0x80 and
``FastPath`` checks UTF-8 apart, once per block (``_utf8``). A schema element it cannot express
(a validator function that declares no fast-path role, see
``phi_wire.primitives.fast_path_role_of``; a recursive type) makes the type ineligible, so
``loads`` judges all its documents.

With ``exact_values`` the expression vouches for more than validity, for ``loads``' own fast path
(``phi_wire.serde._shortcut``): every value pydantic-core reads from a document it matches is the
value serde reads (numbers that ``_numbers`` would leave alone: no ``-0``, integers inside u64 or
i64, of at most 18 digits two levels or more inside a ``serde_json::Value``, decimals of at most
15 digits and no exponent) and every timestamp is already in chrono's
canonical form (``Timestamp``'s validator would return it unchanged), so pydantic-core's result on
the document as it is *is* ``loads``' result. That expression matches one document (``loads`` is
given one), with its line ending if any, rather than a run of lines.

For pi (``JS_FORMATS``), read by ``JSON.parse`` and then its models, ``_js`` says what changes:
numbers, strings, nulls, and where optional keys may come (``_objects``)."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Collection, Sequence
from typing import Any

from phi_wire.formats import find
from phi_wire.primitives import (
    CANONICAL_TIMESTAMP,
    CANONICAL_TIMESTAMP_TEXT,
    TRANSPARENT,
    adapter,
    fast_path_role_of,
    parsed_as_value,
)

from ._js import (
    JS_FORMATS,
    JS_INTEGER_DIGITS,
    JS_STRING,
    JS_VALUE_DEPTH,
    NOT_NULL,
    SURELY_NOT_NULL,
    TAG_KEY,
    constrained_string,
    nullable_keys,
    post_init_cannot_fail,
)
from ._numbers import EXACT_NUMBER as _EXACT_NUMBER
from ._numbers import LAX_NUMBER as _LAX_NUMBER
from ._numbers import NUMBER as _NUMBER
from ._numbers import NUMBER_LEVELS
from ._numbers import SHORT_EXACT_NUMBER as _SHORT_EXACT_NUMBER
from ._objects import _floating_object, _Member, _object
from ._tokens import Seq, _alt, _group, _lit, _opaque, _render  # noqa: F401 (tests use it)

__all__ = ["LAX_FORMATS", "Unsupported", "build_pattern"]

LAX_FORMATS = frozenset({"operator-use"})
"""Formats read by pydantic's own lax ``validate_json`` (Operator-Use): every JSON document that
strict reading accepts it accepts too, a repeated key included (the last wins), so the same
expression vouches for them, and for their ``dict`` fields (any keys, in any order)."""

VALUE_DEPTH = 3
"""Deepest ``serde_json::Value`` (tool arguments, metadata, details...) the fast path accepts."""


class Unsupported(Exception):
    """A schema element the fast path cannot express; the type is judged by ``loads`` alone."""


# --- JSON pieces ---------------------------------------------------------------------------------

# A JSON string: no raw control characters, no surrogate escapes (lone ones are invalid, pairs are
# rare: phi-core writes non-ASCII raw). Bytes >= 0x80 are taken in runs with the printable ASCII
# ones, at C speed: their UTF-8 is checked once per block by ``_utf8`` (matching UTF-8's forms
# here, one branch per character, made non-ASCII text slower than ``json.loads``). Written as
# runs of plain characters between escapes ("unrolled"): a string without escapes, the common
# case, is one run and no alternation (some 10% less time for phi-core's events).
_PLAIN_RUN = rb"[ !#-\[\]-\xff]*+"
_STRING = (
    rb'"'
    + _PLAIN_RUN
    + rb'(?:\\(?:["\\/bfnrt]|u(?![dD][89a-fA-F])[0-9a-fA-F]{4})'
    + _PLAIN_RUN
    + rb')*+"'
)
# A borrowed ``&str`` (``x-serde-borrowed``): serde reads it only in place, so it holds no escape.
_BORROWED_STRING = rb'"' + _PLAIN_RUN + rb'"'
_FIELD_KEYWORDS_ANY_VALUE = frozenset(
    {
        "x-skip-serializing-if",
        "x-serde-default",
        "x-serde-lenient",
        "x-serde-null-as-default",
        "x-default-factory",
    }
)
"""Field keywords that change how a field is written or defaulted, or make it accept more (a
malformed or null value read as absent), never reject a value its schema accepts (so the field's
own schema is a subset of what it accepts); any other ``x-`` keyword on a field, unknown here,
makes its type ineligible."""
# chrono's canonical DateTime<Utc> (any fraction length), only for days every year has.
_TIMESTAMP = (
    rb'"[0-9]{4}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)'
    rb'|(?:0[13578]|1[02])-31)T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,9})?Z"'
)
# Exactly what chrono writes on those days (``exact_values``): no fraction, or 3, 6 or 9 digits
# whose last three are not all zero (``phi_wire.base.CANONICAL_TIMESTAMP_TEXT``, quoted).
_EXACT_TIMESTAMP = b'"' + CANONICAL_TIMESTAMP_TEXT.encode() + b'"'


def _array(item: bytes) -> bytes:
    """A JSON array of ``item``s, with ``item`` written once (each is followed by a comma that
    another item follows, or by the closing bracket)."""
    return rb"\[(?:" + item + rb"(?:,(?=[^\]])|(?=\])))*+\]"


@functools.cache
def _value(
    depth: int,
    number: bytes = _NUMBER,
    string: bytes = _STRING,
    array_depth: int = 1,
    deeper_number: bytes | None = None,
    level: int = 0,
) -> bytes:
    """Any JSON value nested at most ``depth`` arrays/objects deep, its numbers ``number``s and
    its strings ``string``s; an array counts ``array_depth`` levels (2: its items are scalars
    where an object's members may be objects, and the expression grows as Fibonacci's numbers
    with ``depth``, not as powers of two). ``deeper_number``: the numbers of the values nested
    ``NUMBER_LEVELS`` deep or more (the value's own and its items' stay ``number``s); ``level``:
    how deep this value is nested."""
    own = number if deeper_number is None or level < NUMBER_LEVELS else deeper_number
    tail = rb"|" + own + rb"|true|false|null)"
    if depth <= 0:
        return rb"(?:" + string + tail
    inner = _value(depth - 1, number, string, array_depth, deeper_number, level + 1)
    items = _value(depth - array_depth, number, string, array_depth, deeper_number, level + 1)
    obj = rb"\{(?:" + string + rb":" + inner + rb"(?:,(?=[^}])|(?=\})))*+\}"
    # flat, each alternative told by its first byte: the engine skips the others at once
    return rb"(?:" + string + rb"|" + obj + rb"|" + _array(items) + tail


def _integer(schema: dict[str, Any], most_digits: int | None = None) -> bytes:
    """Integers in the schema's range (``most_digits``: at most that many digits, too)."""
    most = 18 if most_digits is None else most_digits
    cap = 99 if most_digits is None else most_digits  # a bound's own length, not capped
    extra = set(schema) - {"type", "ge", "le", "strict", "ref", "metadata"}
    if extra:
        raise Unsupported(f"int constraints {sorted(extra)}")
    ge, le = schema.get("ge"), schema.get("le")
    if ge is not None and ge > 0:
        raise Unsupported("int with a positive lower bound")
    choices = []
    if le is None or le >= 0:
        digits = most if le is None else min(cap, len(str(le)) - 1)  # 10**digits - 1 < le
        choices.append(b"0" if digits < 1 else rb"0|[1-9][0-9]{0,%d}" % (digits - 1))
    if ge is None or ge < 0:
        digits = most if ge is None else min(cap, len(str(-ge)) - 1)
        if digits >= 1:  # never "-0": serde reads it as the float -0.0
            choices.append(rb"-[1-9][0-9]{0,%d}" % (digits - 1))
    if not choices:
        raise Unsupported("int range")
    return rb"(?:" + rb"|".join(choices) + rb")"


def _literal(value: Any) -> Seq:
    if value is None or isinstance(value, bool | int | str):
        return _lit(json.dumps(value).encode())
    raise Unsupported(f"literal {value!r}")


def _function(schema: dict[str, Any]) -> Any:
    function = schema.get("function")
    if isinstance(function, dict):
        function = function.get("function")
    return function


def _sorts_keys(schema: dict[str, Any]) -> bool:
    """An LlmMessage is written through serde_json::Value: every key of its subtree sorted."""
    cls = schema.get("cls")
    return parsed_as_value(cls)


class _Compiler:
    """Turns a pydantic-core schema into a pattern (as a token sequence)."""

    def __init__(self, exact_values: bool = False, lax: bool = False, js: bool = False) -> None:
        self.js = js
        """``JSON.parse``'s reader (``JS_FORMATS``, see ``_js``): numbers as doubles, ``dict``
        schemas expressed, ``null`` only for the keys pi's type allows it."""
        self.lax = lax
        """A pydantic lax reader's (``LAX_FORMATS``): ``dict`` schemas are expressed (any keys,
        each value of the values' schema; a repeated key is no error there, the last wins), and
        numbers may have an exponent (of at most two digits: never read as an infinity). serde's
        readers get neither (their maps' repeated keys and exponents are not looked at here)."""
        self.number = _EXACT_NUMBER if exact_values else _LAX_NUMBER if lax or js else _NUMBER
        self.deeper_number = _SHORT_EXACT_NUMBER if exact_values else None
        """The numbers nested deep in a ``serde_json::Value`` (``_value``); None: ``number``."""
        self.integer_digits = JS_INTEGER_DIGITS if js else None
        self.value_depth = JS_VALUE_DEPTH if js else VALUE_DEPTH
        self.string = JS_STRING if js else _STRING
        self.array_depth = 2 if js else 1
        self.timestamp = _EXACT_TIMESTAMP if exact_values else _TIMESTAMP
        self.definitions: dict[str, dict[str, Any]] = {}
        self.expanding: list[str] = []
        self.memo: dict[tuple[str, bool, str | None], Seq] = {}

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        while schema["type"] in {"definitions", "definition-ref", "json-or-python"} or (
            self.lax and schema["type"] == "lax-or-strict"
        ):
            if schema["type"] == "lax-or-strict":  # a lax reader validates with the lax one
                schema = schema["lax_schema"]
            elif schema["type"] == "definitions":
                for item in schema["definitions"]:
                    self.definitions[item["ref"]] = item
                schema = schema["schema"]
            elif schema["type"] == "json-or-python":
                schema = schema["json_schema"]
            else:
                schema = self.definitions[schema["schema_ref"]]
        return schema

    def key_sets(
        self, schema: dict[str, Any], tag: str | None = None
    ) -> list[tuple[frozenset[str], frozenset[str]] | None]:
        """The top-level keys of the documents that can match, per variant: (required, optional)
        pairs, and None for a variant that may not be an object."""
        schema = self.resolve(schema)
        kind = schema["type"]
        if kind == "model":
            members = self.fields(schema, sorted_keys=_sorts_keys(schema))
            required = frozenset(m.key for m in members if m.required or m.key == tag)
            return [(required, frozenset(m.key for m in members) - required)]
        if kind == "tagged-union":
            tag = schema["discriminator"]
            return [keys for c in schema["choices"].values() for keys in self.key_sets(c, tag)]
        if kind == "union":
            items = [c if isinstance(c, dict) else c[0] for c in schema["choices"]]
            return [keys for c in items for keys in self.key_sets(c)]
        if kind in {"nullable", "default"} or kind.startswith("function-"):
            return self.key_sets(schema["schema"]) + ([None] if kind == "nullable" else [])
        return [None]

    def compile(self, schema: dict[str, Any], sorted_keys: bool, tag: str | None = None) -> Seq:
        if schema["type"] == "definition-ref":
            return self.definition(schema["schema_ref"], sorted_keys, tag)
        schema = self.resolve(schema)
        if schema["type"] == "definition-ref":
            return self.compile(schema, sorted_keys, tag)
        kind = schema["type"]
        if kind == "model":
            sorted_keys = sorted_keys or _sorts_keys(schema)
            members = self.fields(schema, sorted_keys)
            if tag is not None:  # the discriminator must be there, whatever its default
                members = [_Member(m.key, m.value, m.required or m.key == tag) for m in members]
            return self.object_of(members)
        if tag is not None:
            raise Unsupported(f"tagged-union choice of type {kind}")
        return self.compile_value(schema, kind, sorted_keys)

    def object_of(self, members: list[_Member]) -> Seq:
        """A model's object: its members in order (``JSON.parse``'s reader: optional ones after
        any required one)."""
        return _floating_object(members) if self.js else _object(members)

    def definition(self, ref: str, sorted_keys: bool, tag: str | None) -> Seq:
        """A definition's expression, compiled once per (ref, key order, tag); a type that
        contains itself is ``Unsupported``."""
        key = (ref, sorted_keys, tag)
        if key not in self.memo:
            if ref in self.expanding:
                raise Unsupported(f"recursive type {ref}")
            self.expanding.append(ref)
            try:
                self.memo[key] = self.compile(self.definitions[ref], sorted_keys, tag)
            finally:
                self.expanding.pop()
        return self.memo[key]

    def compile_value(self, schema: dict[str, Any], kind: str, sorted_keys: bool) -> Seq:
        plain = not set(schema) - {"type", "strict", "ref", "metadata", "serialization"}
        if kind == "str" and plain:
            return _opaque(self.string)
        if kind == "str" and self.js and constrained_string(schema) is not None:
            return _opaque(constrained_string(schema) or b"")
        if kind == "float" and plain:
            return _opaque(rb"(?:" + self.number + rb")")
        if kind == "int":
            return _opaque(_integer(schema, self.integer_digits))
        if kind == "bool":
            return _alt([_lit(b"true"), _lit(b"false")])
        if kind == "none":
            return _lit(b"null")
        if kind == "any":
            value = _value(
                self.value_depth, self.number, self.string, self.array_depth, self.deeper_number
            )
            return _opaque(value)
        if kind == "literal":
            return _alt([_literal(value) for value in schema["expected"]])
        if kind == "enum" and schema.get("sub_type") == "str":
            return _alt([_literal(member.value) for member in schema["members"]])
        if kind == "nullable":
            return _alt([_lit(b"null"), self.compile(schema["schema"], sorted_keys)])
        if kind == "list" and not set(schema) - {"type", "items_schema", "strict", "ref"} - {
            "metadata",
            "serialization",
        }:
            return _opaque(_array(_group(self.compile(schema["items_schema"], sorted_keys))))
        if kind == "union":
            choices = [c if isinstance(c, dict) else c[0] for c in schema["choices"]]
            return _alt([self.compile(choice, sorted_keys) for choice in choices])
        if kind == "dict" and (self.lax or self.js) and not set(schema) - _DICT_KEYS:
            keys = self.resolve(schema.get("keys_schema", {"type": "any"}))
            if keys["type"] not in {"str", "any"} or set(keys) - {"type", "metadata", "ref"}:
                raise Unsupported("dict keys other than plain strings")
            values = schema.get("values_schema", {"type": "any"})
            member = self.string + b":" + _group(self.compile(values, sorted_keys))
            return _opaque(rb"\{(?:" + member + rb"(?:,(?=[^}])|(?=\})))*+\}")
        if kind == "tagged-union" and isinstance(schema["discriminator"], str):
            tag = schema["discriminator"]
            return _alt([self.compile(c, sorted_keys, tag) for c in schema["choices"].values()])
        if kind.startswith("function-"):
            function = _function(schema)
            role = fast_path_role_of(function)
            if role == CANONICAL_TIMESTAMP and kind == "function-after":
                return _opaque(self.timestamp)
            if role == TRANSPARENT or (self.lax and kind == "function-after" and _path(function)):
                return self.compile(schema["schema"], sorted_keys)
            raise Unsupported(f"validator {getattr(function, '__qualname__', function)}")
        raise Unsupported(f"schema {kind} {sorted(schema)}")

    def fields(self, schema: dict[str, Any], sorted_keys: bool) -> list[_Member]:
        post_init = schema.get("post_init") and not (
            self.js and post_init_cannot_fail(schema.get("cls"))
        )
        if schema.get("custom_init") or schema.get("root_model") or post_init:
            raise Unsupported(f"model {schema.get('cls')} with custom construction")
        inner = schema["schema"]
        if inner["type"] != "model-fields":
            raise Unsupported(f"model around {inner['type']}")
        nullable = nullable_keys(schema.get("cls")) if self.js else None
        members = []
        for name, field in inner["fields"].items():
            alias = field.get("validation_alias")
            if alias is not None and not isinstance(alias, str):
                raise Unsupported("alias path")
            value = field["schema"]
            tag = self.js and (alias or name) == TAG_KEY and value.get("default") is not None
            required = value["type"] != "default" or tag
            if value["type"] == "default":
                value = value["schema"]
            if _borrowed(field):
                if self.resolve(value)["type"] != "str":
                    raise Unsupported(f"borrowed field {name} that is not a plain string")
                seq = _opaque(_BORROWED_STRING)
            elif nullable is not None and not nullable.get(alias or name, False):
                seq = self.not_null(value, sorted_keys)
            else:
                seq = self.compile(value, sorted_keys)
            members.append(_Member(alias or name, seq, required))
        if sorted_keys:
            members.sort(key=lambda member: member.key.encode())
        return members

    def not_null(self, schema: dict[str, Any], sorted_keys: bool) -> Seq:
        """A value of ``schema`` other than ``null`` (pi refuses ``null`` for a key read as
        absent: ``_js``)."""
        resolved = self.resolve(schema)
        if resolved["type"] == "nullable":
            resolved = self.resolve(resolved["schema"])
        seq = self.compile(resolved, sorted_keys)
        if resolved["type"] in SURELY_NOT_NULL or (
            resolved["type"] == "literal" and None not in resolved["expected"]
        ):
            return seq
        return _opaque(NOT_NULL) + seq


def _path(function: Any) -> bool:
    """Whether ``function`` is pydantic's validator of a ``pathlib.Path`` field (Operator-Use's
    ``cwd``), which takes every string the expression matches (``Path(text)``: only a lone
    surrogate, which the expression never matches, fails); known by its name, so that another
    pydantic's leaves the type ineligible, never wrongly vouched for."""
    return (
        getattr(function, "__module__", "") == "pydantic._internal._generate_schema"
        and getattr(function, "__qualname__", "")
        == "GenerateSchema._path_schema.<locals>.path_validator"
    )


def _borrowed(field: dict[str, Any]) -> bool:
    """Whether a model field is a borrowed ``&str`` (``x-serde-borrowed``), which serde reads only
    when written without escapes; an ``x-`` keyword this module does not know: ``Unsupported``."""
    metadata = field.get("metadata")
    extra = metadata.get("pydantic_js_extra") if isinstance(metadata, dict) else None
    if not isinstance(extra, dict):
        return False
    unknown = {key for key in extra if key.startswith("x-")} - _FIELD_KEYWORDS_ANY_VALUE
    if unknown - {"x-serde-borrowed"}:
        raise Unsupported(f"field keywords {sorted(unknown)}")
    return bool(extra.get("x-serde-borrowed"))


_DICT_KEYS = frozenset({"type", "keys_schema", "values_schema", "strict", "ref", "metadata"})


def _type_seqs(
    tp: Any, exact_values: bool = False, lax: bool = False, js: bool = False
) -> tuple[list[Seq], list[tuple[frozenset[str], frozenset[str]] | None]]:
    """The expression of ``tp`` (pi's: one per variant of its unions, so that the variants that
    several types share are written once in their union) and its documents' key sets."""
    compiler = _Compiler(exact_values, lax, js)
    schema: dict[str, Any] = dict(adapter(tp).core_schema)
    if js:  # no detection for pi: its key sets are not looked at (None: as if not an object)
        return _variants(compiler, schema), [None]
    return [compiler.compile(schema, sorted_keys=False)], compiler.key_sets(schema)


def _variants(compiler: _Compiler, schema: dict[str, Any], tag: str | None = None) -> list[Seq]:
    """The expressions of a schema's variants: of each choice of its (tagged) unions that can be
    expressed (a union's documents are those of its variants: leaving one out leaves its
    documents to ``loads``); ``Unsupported`` when none can."""
    resolved = compiler.resolve(schema)
    if resolved["type"] == "tagged-union" and isinstance(resolved["discriminator"], str):
        tag = resolved["discriminator"]
        choices = list(resolved["choices"].values())
    elif resolved["type"] == "union" and tag is None:
        choices = [c if isinstance(c, dict) else c[0] for c in resolved["choices"]]
    else:
        return [compiler.compile(schema, sorted_keys=False, tag=tag)]
    found: list[Seq] = []
    for choice in choices:
        try:
            found += _variants(compiler, choice, tag)
        except Unsupported:
            compiler.expanding.clear()  # a recursive type left its references open
    if not found:
        raise Unsupported(f"no variant of {resolved['type']} can be expressed")
    return found


def _lines_pattern(document: bytes) -> bytes:
    return rb"(?:" + document + rb"\r?(?:\n|\Z))*+"


def build_pattern(
    version: str,
    types: Sequence[str],
    detect: Callable[[Collection[str], Collection[str]], str | None] | None,
    exact_values: bool = False,
    format: str = "phi-core",
) -> bytes:
    """The expression for documents of ``types``, one per line (b"" when none can be expressed;
    with ``detect``, only the types that ``detect`` gives every document of, from its required
    and optional keys; a document that may not be an object is detected as ``detect((), ())``
    would not tell, so such a type is left out; ``exact_values``: see above, and the expression
    matches one document, followed by nothing but a line ending; ``format``: whose ``version``)."""
    wire = find(version, format).load()
    seqs = []
    for name in types:
        try:
            found, key_sets = _type_seqs(
                getattr(wire, name), exact_values, format in LAX_FORMATS, format in JS_FORMATS
            )
        except Unsupported:
            continue
        if detect is not None and any(keys is None or detect(*keys) != name for keys in key_sets):
            continue  # a document of this type could be detected as another one
        seqs += found
    if not seqs:
        return b""
    document = _group(_alt(seqs))
    return document + rb"\r?\n?" if exact_values else _lines_pattern(document)
