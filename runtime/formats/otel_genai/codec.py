"""``loads`` and ``dumps`` for OpenTelemetry GenAI's message documents, as instrumentations write
them: an attribute's value is the document as JSON text, written by each emitter its own way
(compact, or ``json.dumps``'s ``", "``/``": "``; keys in its own order; ``null`` or nothing for an
absent value), and on a span often *as a JSON string* (a file holding ``"[{\\"role\\": ...}]"``).

* reading accepts exactly what the official schema accepts (the generated models, open and
  strict); a document held in a JSON string is unwrapped first and read the same way;
* writing gives back the emitter's bytes for a document read and not changed: the keys each
  object had, in their order, its separators and its escaping, and the string wrapping; a value
  built in code is written compactly, each object's set and non-null fields in declared order.

Errors are ``WireError``s naming the JSON pointer (and line, for JSON syntax).
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Any

from pydantic import BaseModel, ValidationError

from phi_wire.errors import Problem, WireError, json_syntax_error
from phi_wire.pointer import join
from phi_wire.primitives import adapter, type_name
from phi_wire.serde import Writable

from .base import READING, Layout, OtelModel

__all__ = [
    "Layout",
    "decode",
    "dumps",
    "layout_of",
    "loads",
    "parse_document",
    "plain",
    "read_document",
]


_CANDIDATES = (
    Layout(",", ":", False),
    Layout(", ", ": ", True),
    Layout(",", ":", True),
    Layout(", ", ": ", False),
)
"""The layouts the emitters write: compact (openai-v2, pydantic-ai, google-genai, the anthropic
SDK) and ``json.dumps``'s default (OpenLLMetry)."""


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_document(text: str) -> tuple[Any, str, bool]:
    """The parsed document, its JSON text and whether it was wrapped in a JSON string; raises
    ``ValueError`` (``json.JSONDecodeError`` for syntax) or ``RecursionError``."""
    value = json.loads(text, parse_constant=_no_constant)
    if isinstance(value, str) and value.lstrip()[:1] in ("[", "{"):
        try:
            return json.loads(value, parse_constant=_no_constant), value, True
        except ValueError:
            pass
    return value, text, False


def read_document(text: str, name: str) -> tuple[Any, str, bool]:
    """``parse_document``, its errors a ``WireError`` about the type ``name``."""
    try:
        return parse_document(text)
    except json.JSONDecodeError as error:
        raise json_syntax_error(name, error.msg, error.lineno, error.colno) from None
    except RecursionError:
        raise WireError(name, "", "nested too deeply to read") from None
    except ValueError as error:
        raise WireError(name, "", f"invalid JSON: {error}") from None


def decode(data: str | bytes | bytearray | memoryview, name: str) -> str:
    """The text of ``data``; ``WireError`` about the type ``name`` when it is not UTF-8."""
    return _decode(data, name)


def _decode(data: str | bytes | bytearray | memoryview, name: str) -> str:
    if isinstance(data, str):
        return data
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError as error:
        raise WireError(name, "", f"not UTF-8 ({error.reason} at offset {error.start})") from None


def loads(tp: Any, data: str | bytes | bytearray | memoryview) -> Any:
    """Read ``data`` as the wire type ``tp`` (``InputMessages``, ``ChatMessage``...), accepting
    exactly what the official schema accepts; a JSON string holding the document is read too.
    Raises ``WireError`` naming the type, the JSON pointer and the problem."""
    name = type_name(tp)
    text = _decode(data, name)
    document, inner, wrapped = read_document(text, name)
    try:
        value = _validated(tp, inner, document)
    except ValidationError as error:
        problems = problems_of(error, document)
        raise WireError(name, problems[0].pointer, problems[0].message, problems=problems) from None
    found = _layout_of_text(document, inner)
    layout = found._replace(
        wrapped=wrapped, wrapping_ascii=not wrapped or json.dumps(inner) == text.strip()
    )
    for model in _top_models(value):
        model.set_wire_layout(layout)
    return value


def _validated(tp: Any, text: str, document: Any) -> Any:
    """The value of ``text`` as ``tp``. pydantic's JSON parser refuses what Python's ``json``
    (the emitters' writer, and the official schema's reader) takes: a lone surrogate escape
    (``"\\ud800"``); such a document is validated as the value Python parsed (a role or a
    modality then reads as a string, not as the enum's member)."""
    validator = adapter(tp)
    try:
        return validator.validate_json(text, context=READING)
    except ValidationError as error:
        if any(item["type"] != "json_invalid" for item in error.errors(include_url=False)):
            raise
    return validator.validate_python(document, context=READING)


def _layout_of_text(document: Any, text: str) -> Layout:
    stripped = text.strip()
    for candidate in _CANDIDATES:
        try:
            written = json.dumps(
                document,
                separators=(candidate.item_separator, candidate.key_separator),
                ensure_ascii=candidate.ensure_ascii,
            )
        except (ValueError, RecursionError):
            break
        if written == stripped:
            return candidate
    return _spacing_of(stripped)


def _spacing_of(text: str) -> Layout:
    """A document no candidate writes exactly (pretty-printed, other float forms): its
    separators as the text's first ones show, non-ASCII as written."""
    spaced = ", " in text or ": " in text
    ascii_only = text.isascii() and "\\u" in text
    return Layout(", " if spaced else ",", ": " if spaced else ":", ascii_only)


def _top_models(value: Any) -> list[OtelModel]:
    if isinstance(value, OtelModel):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, OtelModel)]
    return []


def layout_of(value: Any) -> Layout:
    """The layout ``value`` (a document read by ``loads``, or one of its top-level objects) was
    written in; compact for a value built in code."""
    for model in _top_models(value):
        found = model.wire_layout()
        if found is not None:
            return found
    return Layout()


def plain(value: Any) -> Any:
    """``value`` as JSON-ready Python: each object read with the keys it had, in their order."""
    if isinstance(value, BaseModel):
        return _plain_model(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


def _plain_model(model: BaseModel) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for name, info in type(model).model_fields.items():
        item = getattr(model, name)
        if name in model.model_fields_set or item is not None:
            fields[info.alias or name] = plain(item)
    for key, item in (model.__pydantic_extra__ or {}).items():
        fields[key] = plain(item)
    keys = model.wire_keys() if isinstance(model, OtelModel) else None
    if not keys:
        return fields
    ordered = {key: fields.pop(key) for key in keys if key in fields}
    ordered.update(fields)  # set after reading: after the read keys
    return ordered


def dumps(value: Writable) -> str:
    """The JSON text of ``value`` (a document, a message, a part...): for a document read by
    ``loads``, the emitter's layout (separators, escaping, a JSON string's wrapping) and each
    object's keys in the order read."""
    layout = layout_of(value)
    text = json.dumps(
        plain(value),
        separators=(layout.item_separator, layout.key_separator),
        ensure_ascii=layout.ensure_ascii,
    )
    return json.dumps(text, ensure_ascii=layout.wrapping_ascii) if layout.wrapped else text


def problems_of(error: ValidationError, document: Any) -> tuple[Problem, ...]:
    """Each error pydantic reports, at the pointer of the deepest value of ``document`` its
    location reaches (a union's branch names are not keys), most specific first."""
    found: dict[tuple[str, str], int] = {}
    for item in error.errors(include_url=False):
        pointer, depth, rest = _pointer(document, item["loc"])
        message = item["msg"].removeprefix("Value error, ")
        if item["type"] == "missing" and rest:
            message = f"missing required key {rest[-1]!r}"
        elif item["type"] == "union_tag_invalid" or item["type"].startswith("literal"):
            message = f"{message} (found {json.dumps(item.get('input'))[:60]})"
        key = (pointer, message)
        found[key] = max(found.get(key, 0), depth)
    ranked = sorted(found, key=lambda key: -found[key])
    return tuple(Problem(pointer, message) for pointer, message in ranked)


def _pointer(document: Any, loc: tuple[int | str, ...]) -> tuple[str, int, list[str]]:
    path: list[int | str] = []
    node = document
    skipped: list[str] = []
    for token in loc:
        in_list = isinstance(node, list) and isinstance(token, int) and 0 <= token < len(node)
        if in_list or (isinstance(node, dict) and isinstance(token, str) and token in node):
            node = node[token]
            path.append(token)
        else:
            skipped.append(str(token))
    return join(*path), len(path), skipped
