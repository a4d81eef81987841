"""Does a JSON document look like one of OpenTelemetry GenAI's message documents, and which? The
conventions' four attribute values are JSON arrays: ``gen_ai.input.messages`` and
``gen_ai.output.messages`` of messages ``{"role", "parts": [...]}`` (output messages when each
carries ``finish_reason``), ``gen_ai.system_instructions`` of parts ``{"type", "content"...}``,
``gen_ai.tool.definitions`` of tools ``{"type": "function", "name", "parameters"...}``. On a span
an attribute's value is often the document's JSON *as a string*: such a string is unwrapped and
recognised the same way.

A claim is ``certain`` when the document holds what only these conventions write: messages whose
``parts`` are typed parts (or empty), a part type of the conventions with its field
(``tool_call_response`` and ``response``...), a function tool definition with ``parameters``, or
the tool format an emitter is known to write instead (Anthropic's ``input_schema``). A list of
text parts with ``content`` is Operator-Use's content too: only possible. Nothing here imports
pydantic.
"""

from __future__ import annotations

import json
from typing import Any

from phi_wire.formats.shapes import tag_of

__all__ = ["ARRAYS_ARE_DOCUMENTS", "FALLBACK", "PART_TYPES", "claim", "recognise"]

Claim = tuple[str, bool]

PART_TYPES: dict[str, str] = {
    "text": "content",
    "tool_call": "name",
    "tool_call_response": "response",
    "server_tool_call": "server_tool_call",
    "server_tool_call_response": "server_tool_call_response",
    "blob": "content",
    "file": "file_id",
    "uri": "uri",
    "reasoning": "content",
    "compaction": "",
}
"""The conventions' part types and the field that marks each (a compaction part needs none)."""

_CHECKED = 64
"""The items of an array looked at."""
_UNWRAPPED_AT_MOST = 16 * 1024 * 1024
"""A JSON string longer than this is not unwrapped to be recognised (``loads`` still reads it)."""

ARRAYS_ARE_DOCUMENTS = True
"""Each of the conventions' documents is an array: an array is judged as the document it looks
like (``InputMessages``), not as a list of its items."""

FALLBACK = "InputMessages"
"""A document whose shape names none is judged as input messages (the commonest attribute)."""


def _typed_parts(parts: list[Any]) -> bool:
    return all(tag_of(part, "type") is not None for part in parts[:_CHECKED])


def _message(document: Any) -> Claim | None:
    if not isinstance(document, dict) or not isinstance(document.get("parts"), list):
        return None
    if "role" not in document:
        return None
    name = "OutputMessage" if "finish_reason" in document else "ChatMessage"
    return name, _typed_parts(document["parts"])


def _part(document: Any) -> bool | None:
    """Whether ``document`` is a part (certain: a conventions' type with its field), or None."""
    kind = tag_of(document, "type")
    if kind is None or "role" in document:
        return None
    field = PART_TYPES.get(kind)
    if field is None or (field and field not in document):
        return None
    return kind != "text"


def _tool(document: Any) -> bool | None:
    """Whether ``document`` is a tool definition (certain: a function with ``parameters``, or
    Anthropic's raw tool), or None."""
    if not isinstance(document, dict) or not isinstance(document.get("name"), str):
        return None
    if "input_schema" in document and "type" not in document:
        return True
    kind = tag_of(document, "type")
    if kind == "function":
        return "parameters" in document or "description" in document
    return None


def _array(document: list[Any]) -> Claim | None:
    items = document[:_CHECKED]
    messages = [_message(item) for item in items]
    if any(found is not None for found in messages):
        if not all(
            isinstance(item, dict) and ("role" in item or "parts" in item) for item in items
        ):
            return None
        # pydantic-ai puts finish_reason on the assistant messages of its input too
        output = all(found is not None and found[0] == "OutputMessage" for found in messages)
        certain = all(found is not None and found[1] for found in messages)
        return ("OutputMessages" if output else "InputMessages"), certain
    tools = [_tool(item) for item in items]
    if all(found is not None for found in tools):
        return "ToolDefinitions", any(tools)
    parts = [_part(item) for item in items]
    known = [found for found in parts if found is not None]
    if known and all(tag_of(item, "type") is not None and "role" not in item for item in items):
        # a system instruction may be of any type: one of the conventions' names the list
        return "SystemInstructions", any(known)
    return None


def claim(document: Any) -> Claim | None:
    """(type, certain) when ``document`` (parsed JSON) has the shape of one of the conventions'
    documents (or of one message), else None."""
    if isinstance(document, str):
        return _wrapped(document)
    if isinstance(document, list):
        return _array(document) if document else None
    return _message(document)


def _wrapped(text: str) -> Claim | None:
    """A span attribute's value: the document's JSON held in a JSON string."""
    if len(text) > _UNWRAPPED_AT_MOST or text.lstrip()[:1] != "[":
        return None
    try:
        inner = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(inner, list) or not inner:
        return None
    found = _array(inner)
    return (found[0], True) if found is not None else None


def recognise(document: Any) -> str | None:
    """The OpenTelemetry GenAI type ``document`` (parsed JSON) has the shape of, or None."""
    found = claim(document)
    return found[0] if found is not None else None
