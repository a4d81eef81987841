"""The fast path of ``phi-wire validate``: one regular expression accepts the lines that are surely
valid, at C speed and with no Python work per line; every other line goes to ``loads``.

The expression is compiled from the models' own pydantic-core schema (so it follows
``tools/codegen`` without being edited) and matches only a *subset* of what ``loads`` accepts: the
compact form phi-core writes (keys in declaration order, or sorted inside an ``LlmMessage``),
strings without surrogate escapes, integers short enough to be inside their Rust range, plain
decimals, canonical timestamps, ``serde_json::Value`` subtrees at most ``VALUE_DEPTH`` deep.
Every line the expression matches is therefore valid (a fixed key order leaves no room for a
duplicate field, a short number is read alike by serde and Python, the nesting stays far below
serde's limit), and every line it does not match is judged exactly by ``loads``: the fast path can
make a run slower, never change a verdict. A schema element it cannot express (a validator
function it does not know, a recursive type) makes the type ineligible, so ``loads`` judges all.
A whole document, such as a pretty session file, is matched in its compact form (``compact``).
"""

from __future__ import annotations

import array
import functools
import hashlib
import importlib
import importlib.util
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ["FastPath", "Unsupported", "compact", "fast_path", "type_pattern"]

VALUE_DEPTH = 3
"""Deepest ``serde_json::Value`` (tool arguments, metadata, details...) the fast path accepts."""


class Unsupported(Exception):
    """A schema element the fast path cannot express; the type is judged by ``loads`` alone."""


# --- patterns as token sequences -----------------------------------------------------------------
# A pattern is a tuple of tokens: an int is one literal byte, a bytes object one self-contained
# regular expression (a group or an atom). Literal bytes stay visible so that alternatives can be
# factored: a tagged union's variants share `{"type":"`, an LlmMessage's variants share their
# `content` array, which the regular expression engine then reads once, not once per variant.

Token = int | bytes
Seq = tuple[Token, ...]


def _lit(text: bytes) -> Seq:
    return tuple(text)


def _render(seq: Seq) -> bytes:
    out: list[bytes] = []
    run = bytearray()
    for token in seq:
        if isinstance(token, int):
            run.append(token)
            continue
        if run:
            out.append(re.escape(bytes(run)))
            run.clear()
        out.append(token)
    if run:
        out.append(re.escape(bytes(run)))
    return b"".join(out)


def _group(seq: Seq) -> bytes:
    return b"(?:" + _render(seq) + b")"


def _common_prefix(seqs: list[Seq]) -> int:
    shortest = min(len(seq) for seq in seqs)
    for index in range(shortest):
        if any(seq[index] != seqs[0][index] for seq in seqs):
            return index
    return shortest


def _common_suffix(seqs: list[Seq]) -> int:
    shortest = min(len(seq) for seq in seqs)
    for index in range(1, shortest + 1):
        if any(seq[-index] != seqs[0][-index] for seq in seqs):
            return index - 1
    return shortest


def _alt(seqs: list[Seq]) -> Seq:
    """The alternation of ``seqs``, with shared prefixes and suffixes factored out."""
    unique = list(dict.fromkeys(seqs))
    if len(unique) == 1:
        return unique[0]
    groups: dict[Token | None, list[Seq]] = {}
    for seq in unique:
        groups.setdefault(seq[0] if seq else None, []).append(seq)
    branches: list[Seq] = []
    for members in groups.values():
        if len(members) == 1:
            branches.append(members[0])
            continue
        length = _common_prefix(members)
        branches.append(members[0][:length] + _alt([seq[length:] for seq in members]))
    branches = _merge_tails(branches)
    if len(branches) == 1:
        return branches[0]
    length = _common_suffix(branches)
    heads = [branch[: len(branch) - length] for branch in branches]
    heads.sort(key=lambda head: not head)  # an empty alternative last
    body = b"(?:" + b"|".join(_render(head) for head in heads) + b")"
    return (body, *branches[0][len(branches[0]) - length :])


def _merge_tails(branches: list[Seq]) -> list[Seq]:
    """(a X | b X) is (a|b) X: merge branches equal from their first non-literal token on."""
    tails: dict[Seq, list[Seq]] = {}
    order: list[Seq | None] = []
    merged: list[Seq] = []
    for branch in branches:
        cut = next((i for i, token in enumerate(branch) if isinstance(token, bytes)), None)
        if cut is None or cut == 0:
            order.append(None)
            merged.append(branch)
            continue
        tail = branch[cut:]
        if tail not in tails:
            tails[tail] = []
            order.append(tail)
            merged.append(())
        tails[tail].append(branch[:cut])
    result: list[Seq] = []
    for shared, branch in zip(order, merged, strict=True):
        if shared is None:
            result.append(branch)
        else:
            heads = tails[shared]
            result.append((heads[0] if len(heads) == 1 else _alt(heads)) + shared)
    return result


def _opaque(regex: bytes) -> Seq:
    return (regex,)


# --- JSON pieces ---------------------------------------------------------------------------------

# A JSON string: no raw control characters, no surrogate escapes (lone ones are invalid, pairs are
# rare: phi-core writes non-ASCII raw), well-formed UTF-8 (RFC 3629's table: no overlong forms, no
# surrogates), so the bytes need no separate decoding pass.
_UTF8 = (
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
    rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
    rb"|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)
_STRING = (
    rb'"(?:[ !#-\[\]-\x7f]++|\\["\\/bfnrt]|\\u(?![dD][89a-fA-F])[0-9a-fA-F]{4}|' + _UTF8 + rb')*+"'
)
# Numbers serde reads as finite and of the same kind as Python does: no exponent, under 10**20
# (integers in range for u64/i64 or read as a float, which a serde_json::Value holds as well).
_NUMBER = rb"-?(?:0|[1-9][0-9]{0,19})(?:\.[0-9]{1,20})?"
_SCALAR = rb"(?:" + _STRING + rb"|" + _NUMBER + rb"|true|false|null)"
# chrono's canonical DateTime<Utc> (any fraction length), only for days every year has.
_TIMESTAMP = (
    rb'"[0-9]{4}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)'
    rb'|(?:0[13578]|1[02])-31)T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,9})?Z"'
)


def _array(item: bytes) -> bytes:
    """A JSON array of ``item``s, with ``item`` written once (each is followed by a comma that
    another item follows, or by the closing bracket)."""
    return rb"\[(?:" + item + rb"(?:,(?=[^\]])|(?=\])))*+\]"


@functools.cache
def _value(depth: int) -> bytes:
    """Any JSON value nested at most ``depth`` arrays/objects deep."""
    if depth == 0:
        return _SCALAR
    inner = _value(depth - 1)
    member = _STRING + rb":" + inner
    obj = rb"\{(?:" + member + rb"(?:,(?=[^}])|(?=\})))*+\}"
    return rb"(?:" + _SCALAR + rb"|" + _array(inner) + rb"|" + obj + rb")"


def _integer(schema: dict[str, Any]) -> bytes:
    extra = set(schema) - {"type", "ge", "le", "strict", "ref", "metadata"}
    if extra:
        raise Unsupported(f"int constraints {sorted(extra)}")
    ge, le = schema.get("ge"), schema.get("le")
    if ge is not None and ge > 0:
        raise Unsupported("int with a positive lower bound")
    choices = []
    if le is None or le >= 0:
        digits = 18 if le is None else len(str(le)) - 1  # 10**digits - 1 < le
        choices.append(b"0" if digits < 1 else rb"0|[1-9][0-9]{0,%d}" % (digits - 1))
    if ge is None or ge < 0:
        digits = 18 if ge is None else len(str(-ge)) - 1
        if digits >= 1:  # never "-0": serde reads it as the float -0.0
            choices.append(rb"-[1-9][0-9]{0,%d}" % (digits - 1))
    if not choices:
        raise Unsupported("int range")
    return rb"(?:" + rb"|".join(choices) + rb")"


def _literal(value: Any) -> Seq:
    if value is None or isinstance(value, bool | int | str):
        return _lit(json.dumps(value).encode())
    raise Unsupported(f"literal {value!r}")


class _Member(NamedTuple):
    key: str
    value: Seq
    required: bool

    def seq(self, comma: bool) -> Seq:
        return _lit(b"," * comma + json.dumps(self.key).encode() + b":") + self.value


def _optional(seq: Seq) -> Seq:
    return (b"(?:" + _render(seq) + b")?",)


def _object(members: list[_Member]) -> Seq:
    """An object with ``members`` in this order; optional ones may be absent."""
    if not members:
        return _lit(b"{}")
    first = next((index for index, member in enumerate(members) if member.required), None)
    if first is None:  # all optional: one alternative per member that may come first
        alternatives = [
            members[start].seq(comma=False)
            + tuple(
                token for member in members[start + 1 :] for token in _optional(member.seq(True))
            )
            for start in range(len(members))
        ]
        return _lit(b"{") + _alt([*alternatives, ()]) + _lit(b"}")
    seq: Seq = _lit(b"{")
    for member in members[:first]:
        seq += _optional(member.seq(comma=False) + _lit(b","))
    seq += members[first].seq(comma=False)
    for member in members[first + 1 :]:
        seq += member.seq(comma=True) if member.required else _optional(member.seq(comma=True))
    return seq + _lit(b"}")


def _function(schema: dict[str, Any]) -> str:
    function = schema.get("function")
    if isinstance(function, dict):
        function = function.get("function")
    return f"{getattr(function, '__module__', '')}.{getattr(function, '__qualname__', function)}"


_PASS_THROUGH = {
    # JSON mode returns the value unchanged
    "phi_wire._wire._validate_json_value",
    # rounds to f32, never raises
    "phi_wire._wire._to_f32",
    # returns the default instead of raising: the inner schema alone is stricter
    "phi_wire._wire._lenient.<locals>.validate",
    # reads null as the default: the inner schema alone is stricter
    "phi_wire._wire._null_as_default.<locals>.validate",
}
_TIMESTAMP_VALIDATOR = "phi_wire._timestamp.Timestamp"  # a canonical timestamp never fails it


def _sorts_keys(schema: dict[str, Any]) -> bool:
    """An LlmMessage is written through serde_json::Value: every key of its subtree sorted."""
    from phi_wire._wire import LlmMessageBase

    cls = schema.get("cls")
    return isinstance(cls, type) and issubclass(cls, LlmMessageBase)


class _Compiler:
    """Turns a pydantic-core schema into a pattern (as a token sequence)."""

    def __init__(self) -> None:
        self.definitions: dict[str, dict[str, Any]] = {}
        self.expanding: list[str] = []
        self.memo: dict[tuple[str, bool, str | None], Seq] = {}

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        while schema["type"] in {"definitions", "definition-ref", "json-or-python"}:
            if schema["type"] == "definitions":
                for item in schema["definitions"]:
                    self.definitions[item["ref"]] = item
                schema = schema["schema"]
            elif schema["type"] == "json-or-python":
                schema = schema["json_schema"]
            else:
                schema = self.definitions[schema["schema_ref"]]
        return schema

    def first_keys(self, schema: dict[str, Any], tag: str | None = None) -> set[str]:
        """The keys a matching document can start with ("" when it may not be an object)."""
        schema = self.resolve(schema)
        kind = schema["type"]
        if kind == "model":
            keys = set()
            for member in self.fields(schema, sorted_keys=_sorts_keys(schema)):
                keys.add(member.key)
                if member.required or member.key == tag:
                    return keys
            return keys | {""}
        if kind == "tagged-union":
            tag = schema["discriminator"]
            return set().union(*(self.first_keys(c, tag) for c in schema["choices"].values()))
        if kind == "union":
            items = [c if isinstance(c, dict) else c[0] for c in schema["choices"]]
            return set().union(*(self.first_keys(c) for c in items))
        if kind in {"nullable", "default"} or kind.startswith("function-"):
            return self.first_keys(schema["schema"]) | ({""} if kind == "nullable" else set())
        return {""}

    def compile(self, schema: dict[str, Any], sorted_keys: bool, tag: str | None = None) -> Seq:
        if schema["type"] == "definition-ref":
            ref = schema["schema_ref"]
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
        schema = self.resolve(schema)
        if schema["type"] == "definition-ref":
            return self.compile(schema, sorted_keys, tag)
        kind = schema["type"]
        if kind == "model":
            sorted_keys = sorted_keys or _sorts_keys(schema)
            members = self.fields(schema, sorted_keys)
            if tag is not None:  # the discriminator must be there, whatever its default
                members = [_Member(m.key, m.value, m.required or m.key == tag) for m in members]
            return _object(members)
        if tag is not None:
            raise Unsupported(f"tagged-union choice of type {kind}")
        return self.compile_value(schema, kind, sorted_keys)

    def compile_value(self, schema: dict[str, Any], kind: str, sorted_keys: bool) -> Seq:
        plain = not set(schema) - {"type", "strict", "ref", "metadata", "serialization"}
        if kind == "str" and plain:
            return _opaque(_STRING)
        if kind == "float" and plain:
            return _opaque(rb"(?:" + _NUMBER + rb")")
        if kind == "int":
            return _opaque(_integer(schema))
        if kind == "bool":
            return _alt([_lit(b"true"), _lit(b"false")])
        if kind == "none":
            return _lit(b"null")
        if kind == "any":
            return _opaque(_value(VALUE_DEPTH))
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
        if kind == "tagged-union" and isinstance(schema["discriminator"], str):
            tag = schema["discriminator"]
            return _alt([self.compile(c, sorted_keys, tag) for c in schema["choices"].values()])
        if kind.startswith("function-"):
            name = _function(schema)
            if name == _TIMESTAMP_VALIDATOR and kind == "function-after":
                return _opaque(_TIMESTAMP)
            if name in _PASS_THROUGH:
                return self.compile(schema["schema"], sorted_keys)
            raise Unsupported(f"validator {name}")
        raise Unsupported(f"schema {kind} {sorted(schema)}")

    def fields(self, schema: dict[str, Any], sorted_keys: bool) -> list[_Member]:
        if schema.get("custom_init") or schema.get("root_model") or schema.get("post_init"):
            raise Unsupported(f"model {schema.get('cls')} with custom construction")
        inner = schema["schema"]
        if inner["type"] != "model-fields":
            raise Unsupported(f"model around {inner['type']}")
        members = []
        for name, field in inner["fields"].items():
            alias = field.get("validation_alias")
            if alias is not None and not isinstance(alias, str):
                raise Unsupported("alias path")
            value = field["schema"]
            required = value["type"] != "default"
            if not required:
                value = value["schema"]
            members.append(_Member(alias or name, self.compile(value, sorted_keys), required))
        if sorted_keys:
            members.sort(key=lambda member: member.key.encode())
        return members


def _type_seq(tp: Any) -> tuple[Seq, set[str]]:
    from phi_wire._codec import adapter

    compiler = _Compiler()
    schema: dict[str, Any] = dict(adapter(tp).core_schema)
    seq = compiler.compile(schema, sorted_keys=False)
    return seq, compiler.first_keys(schema)


def type_pattern(tp: Any) -> tuple[bytes, set[str]]:
    """(pattern, possible first keys) of a wire type; raises Unsupported."""
    seq, first_keys = _type_seq(tp)
    return _render(seq), first_keys


class FastPath:
    """Finds, in a block of JSONL lines, the ones the pattern does not vouch for; vouches for
    whole (pretty) documents."""

    def __init__(self, lines: re.Pattern[bytes]) -> None:
        self.lines = lines
        """Matches as many whole valid lines as follow the start position."""

    def unmatched(self, block: bytes) -> list[int]:
        """Start offsets of the lines of ``block`` (whole lines, the last one may lack its
        newline) that must be judged exactly."""
        bad: list[int] = []
        position = 0
        size = len(block)
        while position < size:
            found = self.lines.match(block, position)
            end = found.end() if found is not None else position
            if end >= size:
                break
            bad.append(end)
            newline = block.find(b"\n", end)
            position = size if newline == -1 else newline + 1
        return bad

    def vouches(self, document: bytes) -> bool:
        """Whether one whole document (pretty or compact) is surely valid."""
        compacted = compact(document)
        # no newline left (JSON strings hold none raw): the line pattern matches exactly one
        # document, or none at all (the empty text, which is not one)
        if not compacted or b"\n" in compacted:
            return False
        return self.lines.fullmatch(compacted) is not None


# --- whole documents: pretty JSON ---------------------------------------------------------------
# phi-core's sessions are pretty JSON (save_session). Whitespace between two tokens never changes
# a JSON text's meaning, so a pretty document is valid exactly when its compact form is, provided
# the compact form has the same tokens: removing a blank must never join two of them (`1 2` into
# `12`). Blanks that touch a structural character (`{}[],:`) are token boundaries; a blank between
# a string and a number or literal is one too, and the compact pattern rejects the result anyway
# (`"a"1` is not JSON). Strings are kept byte for byte, so blanks inside them stay.

_STRINGS = re.compile(rb'("[^"\\]*+(?:\\[\s\S][^"\\]*+)*+")')
_BLANKS = b" \t\n\r"
_STRUCTURAL = b"{}[],:"
# Between strings, keep only the words (numbers, literals): structural characters and the NUL
# standing for a string become spaces; blanks too, or are deleted.
_WORDS_APART = bytes.maketrans(_STRUCTURAL + b"\0\t\n\r", b" " * 10)
_WORDS_JOINED = bytes.maketrans(_STRUCTURAL + b"\0", b" " * 7)
# A document is compacted a piece at a time, each piece ending at a newline: splitting makes an
# object per string, some ten times the bytes, so a 100 MB session in one piece peaked over 1 GB.
PIECE_BYTES = 1 << 20
_NOT_WORD = frozenset(_STRUCTURAL + b'"')


def compact(document: bytes) -> bytearray | None:
    """``document`` without the blanks between its tokens; None when removing one would join two
    tokens, when a string is cut by a raw newline (not JSON), or when a NUL byte is present (no
    JSON text holds one: it stands for strings below)."""
    if b"\0" in document:
        return None
    compacted = bytearray()
    start, size = 0, len(document)
    while start < size:
        newline = document.find(b"\n", start + PIECE_BYTES)
        end = size if newline == -1 else newline + 1
        piece = _compact_piece(document[start:end])
        if piece is None:
            return None
        if compacted and piece and compacted[-1] not in _NOT_WORD and piece[0] not in _NOT_WORD:
            return None  # the newline that ends a piece separated two words
        compacted += piece
        start = end
    return compacted


def _compact_piece(piece: bytes) -> bytes | None:
    parts = _STRINGS.split(piece)  # text between strings at even indexes, strings at odd
    between = b"\0".join(parts[0::2])  # a few C-speed passes over all of it, not one per part
    if b'"' in between:
        return None  # a string left open: the piece ends inside it, or the text is not JSON
    words = between.translate(_WORDS_APART).split()
    if len(words) != len(between.translate(_WORDS_JOINED, _BLANKS).split()):
        return None  # a blank separated two words
    parts[0::2] = between.translate(None, _BLANKS).split(b"\0")
    return b"".join(parts)


def _lines_pattern(document: bytes) -> bytes:
    return rb"(?:" + document + rb"\r?(?:\n|\Z))*+"


def _build(version: str, types: Sequence[str], detect: Callable[[str], str | None] | None) -> bytes:
    from ._validate import wire_module

    wire = wire_module(version)
    seqs = []
    for name in types:
        try:
            seq, first_keys = _type_seq(getattr(wire, name))
        except Unsupported:
            continue
        if detect is not None and any(detect(key) != name for key in first_keys):
            continue  # a document of this type could be detected as another one
        seqs.append(seq)
    return _lines_pattern(_group(_alt(seqs))) if seqs else b""


# --- the compiled expression, cached -----------------------------------------------------------
# Compiling the expression (some 100 kB) takes the re module about a second; the code it compiles
# to is cached on disk per Python build, so later runs load it in milliseconds. The cache key
# covers everything the expression is made from: the tools' and the runtime's sources, the generated
# models of the version, pydantic's version and the interpreter's regular-expression engine.


def _engine() -> Any:
    """CPython's regular-expression engine (``re.compile`` is its parser and compiler)."""
    return importlib.import_module("_sre")


def _cache_dir() -> Path | None:
    configured = os.environ.get("PHI_WIRE_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None  # empty: no cache
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except (RuntimeError, KeyError):  # no home folder: no cache
            return None
    return Path(base) / "phi-wire"


def _package_folder(name: str) -> Path:
    spec = importlib.util.find_spec(name)  # finds, does not import
    if spec is None or spec.origin is None:
        raise ImportError(name)
    return Path(spec.origin).parent


def _installed(name: str) -> str:
    """An installed package's identity without importing it (importing pydantic costs start-up
    time that a cached run would otherwise not pay): its top-level files, sizes and times."""
    return ",".join(
        f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}"
        for path in sorted(_package_folder(name).iterdir())
        if path.is_file()
        for stat in [path.stat()]
    )


def _fingerprint(version: str, types: Sequence[str], detect: bool) -> str:
    _sre = _engine()
    digest = hashlib.sha256()
    for part in (
        sys.version,
        _sre.MAGIC,
        _sre.CODESIZE,
        _installed("pydantic"),
        _installed("pydantic_core"),
    ):
        digest.update(f"{part}\0".encode())
    digest.update(f"{version}\0{','.join(types)}\0{detect}\0".encode())
    sources = [Path(__file__), Path(__file__).with_name("_validate.py")]
    sources += sorted(_package_folder("phi_wire").glob("*.py"))
    generated = _package_folder("phi_wire.generated") / f"v{version.replace('.', '_')}"
    sources += sorted(generated.glob("*.py"))
    for source in sources:
        digest.update(source.read_bytes())
    return digest.hexdigest()[:32]


_MAGIC = b"phi-wire fast path 1\n"


def _load(path: Path) -> re.Pattern[bytes] | None:
    _sre = _engine()

    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(_MAGIC):
        return None
    header, _, body = data[len(_MAGIC) :].partition(b"\n")
    try:
        flags, groups = (int(item) for item in header.split())
        code = array.array("I" if _sre.CODESIZE == 4 else "H")
        code.frombytes(body)
        compiled: re.Pattern[bytes] = _sre.compile(
            None, flags, code.tolist(), groups - 1, {}, (None,) * groups
        )
    except (ValueError, TypeError, RuntimeError, OverflowError):
        return None  # another layout: compile afresh
    return compiled


def _compile(pattern: bytes, path: Path | None) -> re.Pattern[bytes]:
    """``re.compile(pattern)``, keeping the compiled code in ``path`` for later runs."""
    _sre = _engine()

    try:
        from re import _compiler, _parser  # type: ignore[attr-defined]

        tree = _parser.parse(pattern, 0)
        code = _compiler._code(tree, 0)
        groups = tree.state.groups
        compiled: re.Pattern[bytes] = _sre.compile(
            pattern, tree.state.flags, code, groups - 1, {}, (None,) * groups
        )
    except (ImportError, AttributeError, TypeError):  # another interpreter: no cache
        return re.compile(pattern)
    if path is not None:
        body = array.array("I" if _sre.CODESIZE == 4 else "H", code).tobytes()
        _write(path, _MAGIC + f"{tree.state.flags} {groups}\n".encode() + body)
    return compiled


def _write(path: Path, data: bytes) -> None:
    """Write through a temporary file and a rename; a cache that cannot be written is skipped."""
    import tempfile  # only here: a run that loads the cache does not pay for its import

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".tmp-", delete=False) as out:
            out.write(data)
        os.replace(out.name, path)
    except OSError:
        pass


def fast_path(
    version: str,
    types: Sequence[str],
    detect: Callable[[str], str | None] | None,
    build: bool,
) -> FastPath | None:
    """The fast path for documents of ``types`` (with ``detect``: only the types whose first keys
    ``detect`` maps back to them). Loaded from the cache, else built when ``build`` is true (it
    takes about a second), else None; None too when no type can be expressed."""
    folder = _cache_dir()
    path = None
    if folder is not None:
        path = folder / f"fast-{_fingerprint(version, types, detect is not None)}.bin"
        if path.with_suffix(".none").exists():
            return None
        cached = _load(path)
        if cached is not None:
            return FastPath(cached)
    if not build:
        return None
    pattern = _build(version, types, detect)
    if not pattern:
        if path is not None:
            _write(path.with_suffix(".none"), b"")
        return None
    return FastPath(_compile(pattern, path))
