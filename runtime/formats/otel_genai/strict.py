"""Strict mode: what the conventions ask of a message document beyond what the official schema
checks, and every quirk phi-wire knows the instrumentations to write, each a ``Problem`` at its
pointer. The official schema lets any object with a string ``type`` through (its ``GenericPart``),
so a known part missing its field, a conventions' field under another name and an unknown part
type all pass it; here:

* each part type of the conventions has its required fields, of their types (``text`` and
  ``reasoning``: a string ``content``; ``tool_call``: ``name``; ``tool_call_response``:
  ``response``; ``blob``: base64 ``content``, ``modality`` and its ``mime_type``...);
* the conventions' names: ``response`` not ``result`` (pydantic-ai), ``reasoning`` not
  ``thinking`` (pydantic-ai), tool call ``arguments`` parsed, not a JSON string (pydantic-ai);
* data an emitter lost: ``parts: []`` (openai-v2 writes it for every list-valued content: text,
  images, audio, refusals gone), an ``anthropic_image`` part without its image (the anthropic
  SDK), raw bytes where base64 belongs (google-genai's log records);
* a part type the conventions do not define;
* tool definitions in a provider's own format (OpenLLMetry's raw Anthropic tools with
  ``input_schema``; Chat Completions' ``{"type": "function", "function": {...}}``; Bedrock's
  ``toolSpec``).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, NamedTuple

from phi_wire.errors import Problem
from phi_wire.pointer import join
from phi_wire.primitives import type_name

from . import codec
from .recognise import PART_TYPES

__all__ = ["MODALITIES", "Conventions", "conventions_of", "document_problems", "problems"]

MODALITIES = frozenset({"image", "video", "audio", "document"})


class Conventions(NamedTuple):
    """What one version of the conventions defines."""

    part_types: frozenset[str]
    modalities: frozenset[str]


_NEWEST = Conventions(frozenset(PART_TYPES), MODALITIES)
_BY_VERSION = {
    # compaction parts and the document modality came after 2026-05
    "2026-05": Conventions(frozenset(PART_TYPES) - {"compaction"}, MODALITIES - {"document"}),
}


def conventions_of(version: str) -> Conventions:
    """The part types and modalities of a version of the conventions (the newest's: any other)."""
    return _BY_VERSION.get(version, _NEWEST)


_REQUIRED: dict[str, tuple[tuple[str, type | None], ...]] = {
    "text": (("content", str),),
    "tool_call": (("name", str),),
    "tool_call_response": (("response", None),),
    "server_tool_call": (("name", str), ("server_tool_call", dict)),
    "server_tool_call_response": (("server_tool_call_response", dict),),
    "blob": (("modality", str), ("content", str)),
    "file": (("modality", str), ("file_id", str)),
    "uri": (("modality", str), ("uri", str)),
    "reasoning": (("content", str),),
    "compaction": (),
}
"""Each part type's required fields and their JSON type (None: any value)."""

_OTHER_NAMES: dict[tuple[str, str], str] = {
    ("tool_call_response", "result"): "pydantic-ai writes the tool's result as 'result'",
    ("tool_call", "args"): "the arguments are 'arguments'",
    ("text", "text"): "the text is 'content'",
    ("reasoning", "text"): "the reasoning is 'content'",
}
"""Fields written under another name than the conventions', by part type."""

_UNKNOWN_TYPES: dict[str, str] = {
    "thinking": "part type 'thinking' is not the conventions' (reasoning is type 'reasoning'); "
    "pydantic-ai writes it",
    "anthropic_image": "part type 'anthropic_image' is not the conventions' (an image is 'blob' "
    "or 'uri'); the anthropic SDK writes it",
}

_KIND_OF = {
    "InputMessages": "messages",
    "OutputMessages": "messages",
    "ChatMessage": "message",
    "OutputMessage": "message",
    "SystemInstructions": "parts",
    "ToolDefinitions": "tools",
}


def problems(
    tp: Any, data: str | bytes | bytearray | memoryview, version: str = ""
) -> list[Problem]:
    """What strict mode reports on ``data`` as ``tp`` (a type or its name) under the conventions
    of ``version`` (the newest: ""), beyond what the official schema checks (``loads`` says
    that): findings on a document the schema rejects too, so that a known emitter's format is
    named. ``WireError`` when ``data`` is not JSON."""
    name = tp if isinstance(tp, str) else type_name(tp)
    document, _, _ = codec.read_document(codec.decode(data, name), name)
    item = name[5:-1] if name.startswith("list[") and name.endswith("]") else None
    if item is not None and isinstance(document, list):
        return [
            Problem(join(index) + problem.pointer, problem.message)
            for index, value in enumerate(document)
            for problem in document_problems(item, value, version)
        ]
    return document_problems(name, document, version)


def document_problems(type_name: str, document: Any, version: str = "") -> list[Problem]:
    """Strict mode's findings on ``document`` (parsed JSON) as ``type_name``, under the
    conventions of ``version`` (the newest: "")."""
    known = conventions_of(version)
    kind = _KIND_OF.get(type_name, "part")
    found: list[Problem] = []
    if kind == "messages" and isinstance(document, list):
        for index, message in enumerate(document):
            found += _message(message, join(index), known)
    elif kind == "message":
        found += _message(document, "", known)
    elif kind == "parts" and isinstance(document, list):
        for index, part in enumerate(document):
            found += _part(part, join(index), known)
    elif kind == "tools" and isinstance(document, list):
        for index, tool in enumerate(document):
            found += _tool(tool, join(index))
    elif type_name == "ToolDefinition" or type_name.endswith("ToolDefinition"):
        found += _tool(document, "")
    else:
        found += _part(document, "", known)
    return found


def _message(message: Any, at: str, known: Conventions) -> list[Problem]:
    if not isinstance(message, dict) or not isinstance(message.get("parts"), list):
        return []
    parts: list[Any] = message["parts"]
    if not parts:
        return [
            Problem(
                at + "/parts",
                "no parts: the message's content was lost by its emitter (openai-v2 writes [] "
                "for every list-valued content: text, images, audio, refusals)",
            )
        ]
    found: list[Problem] = []
    for index, part in enumerate(parts):
        found += _part(part, f"{at}/parts/{index}", known)
    return found


def _part(part: Any, at: str, known: Conventions) -> list[Problem]:
    kind = part.get("type") if isinstance(part, dict) else None
    if not isinstance(part, dict) or not isinstance(kind, str):
        return []
    if kind not in known.part_types:
        quirk = _UNKNOWN_TYPES.get(kind)
        message = quirk or f"part type {kind!r} is not one the conventions define"
        if kind in PART_TYPES:
            message += " in this version (it came later)"
        if kind == "anthropic_image" and not (set(part) - {"type"}):
            message += ", and it carries no image: the content is lost"
        return [Problem(at + "/type", message)]
    found: list[Problem] = []
    for field, expected in _REQUIRED[kind]:
        if field not in part:
            other = next(
                (
                    (name, why)
                    for (part_kind, name), why in _OTHER_NAMES.items()
                    if part_kind == kind and name in part
                ),
                None,
            )
            if other is not None:
                found.append(
                    Problem(
                        at + join(other[0]),
                        f"{other[1]}: the conventions name it {field!r} ({kind} part)",
                    )
                )
            else:
                found.append(Problem(at, f"a {kind} part requires {field!r}"))
        elif expected is not None and not isinstance(part[field], expected):
            found.append(_wrong_type(part, field, expected, kind, at))
    found += _values(part, kind, at, known)
    return found


def _wrong_type(part: dict[str, Any], field: str, expected: type, kind: str, at: str) -> Problem:
    value = part[field]
    if kind == "blob" and field == "content" and isinstance(value, dict | list):
        return Problem(
            at + join(field),
            "raw bytes, not a base64 string (google-genai's log records carry the image's bytes)",
        )
    want = "a string" if expected is str else "an object"
    return Problem(at + join(field), f"{field!r} of a {kind} part must be {want}")


def _values(part: dict[str, Any], kind: str, at: str, known: Conventions) -> list[Problem]:
    found: list[Problem] = []
    content = part.get("content")
    if kind == "blob" and isinstance(content, str) and not _base64(content):
        found.append(Problem(at + "/content", "not base64: a blob's content is its bytes, base64"))
    if kind in ("blob", "file", "uri"):
        modality = part.get("modality")
        if isinstance(modality, str) and modality not in known.modalities:
            found.append(
                Problem(at + "/modality", f"modality {modality!r} is not one the conventions name")
            )
    if kind == "blob" and not isinstance(part.get("mime_type"), str):
        found.append(
            Problem(at, "a blob part without its mime_type: its bytes cannot be told apart")
        )
    arguments = part.get("arguments")
    if kind == "tool_call" and isinstance(arguments, str) and _json_structure(arguments):
        found.append(
            Problem(
                at + "/arguments",
                "the arguments are a JSON string: the conventions want the parsed value "
                "(pydantic-ai writes the string)",
            )
        )
    return found


def _base64(text: str) -> bool:
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _json_structure(text: str) -> bool:
    stripped = text.strip()
    if stripped[:1] not in ("{", "["):
        return False
    try:
        codec.parse_document(stripped)
    except (ValueError, RecursionError):
        return False
    return True


def _tool(tool: Any, at: str) -> list[Problem]:
    if not isinstance(tool, dict):
        return []
    if "input_schema" in tool and "parameters" not in tool:
        return [
            Problem(
                at + "/input_schema",
                "Anthropic's raw tool format (OpenLLMetry writes it): the conventions say "
                "'type': 'function' and 'parameters'",
            )
        ]
    if "toolSpec" in tool:
        return [Problem(at + "/toolSpec", "Bedrock's raw tool format, not a tool definition")]
    if isinstance(tool.get("function"), dict) and "name" not in tool:
        return [
            Problem(
                at + "/function",
                "Chat Completions' nested function: the conventions put 'name' and "
                "'parameters' on the definition itself",
            )
        ]
    found: list[Problem] = []
    if tool.get("type") == "function" and not isinstance(tool.get("name"), str):
        found.append(Problem(at, "a function tool definition requires 'name'"))
    return found
