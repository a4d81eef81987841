"""phi-core 0.10 -> OpenTelemetry GenAI: message lists, sessions (the route gives their loops'
messages), event streams and tool definitions as the conventions' four documents (``convert``
says what each mapping decides)."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

import phi_wire.otel_genai as otel
import phi_wire.v0_10 as phi
from phi_wire.convert import Conversion, UnsupportedConversion

from ._shared import (
    CLARK_SYSTEM_KIND,
    FINISH_REASON_FROM_PHI,
    MESSAGE_KIND,
    SYSTEM_INSTRUCTIONS_KIND,
    Losses,
    at,
    compact,
)

__all__ = ["from_phi_core"]

_LLM_ROLES = frozenset({"user", "assistant", "toolResult"})
_NO_METADATA = "OpenTelemetry's messages have no"
PROVIDER_ENDS = frozenset({"Done", "Error"})
"""The provider stream's events that end it, with the message its deltas built (``StreamDone``,
``StreamError``)."""


def from_phi_core(value: Any, *, name: str = "") -> Conversion[Any]:
    """A phi-core value as a list of OpenTelemetry documents (each a list of models: a
    ``SystemInstructions``, an ``InputMessages``, an ``OutputMessages``, a ``ToolDefinitions``):
    a message or message list as the last model call's input and output, an event stream as each
    turn's request and reply, tool definitions as a ``ToolDefinitions``."""
    items = value if isinstance(value, list) else [value]
    listed = isinstance(value, list)
    plain = [json.loads(str(phi.dumps(item))) for item in items]
    pointers = [f"/{index}" if listed else "" for index in range(len(items))]
    losses = Losses()
    kinds = {_kind_of(item) for item in items}
    if None in kinds:
        odd = next(item for item in items if _kind_of(item) is None)
        raise UnsupportedConversion(
            f"OpenTelemetry's message documents have no place for phi-core's {type(odd).__name__}"
        )
    documents: list[list[Any]]
    if "event" in kinds:
        documents = _stream(list(zip(pointers, plain, strict=True)), losses)
    else:
        documents = _conversation(list(zip(pointers, plain, strict=True)), losses)
    return Conversion(documents, tuple(losses))


def _kind_of(item: Any) -> str | None:
    kind = type(item).__name__
    if kind == "ToolDefinition":
        return "tool"
    if hasattr(item, "role"):
        return "message"
    if isinstance(getattr(item, "type", None), str):
        return "event"
    return None


def _conversation(items: list[tuple[str, Any]], losses: Losses) -> list[list[Any]]:
    """Messages (and tool definitions) as the last model call saw them: the input is every
    message but the last when that is the model's (the output); system instructions and tools
    are documents of their own."""
    system: list[Any] = []
    chat: list[tuple[str, Any]] = []
    tools: list[tuple[str, Any]] = []
    for pointer, item in items:
        if "name" in item and "parameters" in item and "role" not in item:
            tools.append((pointer, item))
        elif item.get("role") in _LLM_ROLES:
            chat.append((pointer, item))
        elif item.get("kind") == SYSTEM_INSTRUCTIONS_KIND and isinstance(item.get("data"), list):
            if chat:
                losses.add(
                    pointer,
                    "changed",
                    "system instructions are a document of their own, before the messages: "
                    "their place among the messages is not kept",
                )
            losses.rest(item, pointer, {"role", "kind", "data"}, "gen_ai.system_instructions")
            system.append(item["data"])
        elif item.get("kind") == CLARK_SYSTEM_KIND and _system_data(item.get("data")):
            losses.rest(item, pointer, {"role", "kind", "data"}, "an OpenTelemetry message")
            chat.append((pointer, item))  # in its place: a system message among the input
        elif item.get("kind") == MESSAGE_KIND and isinstance(item.get("data"), dict):
            losses.rest(item, pointer, {"role", "kind", "data"}, "an OpenTelemetry message")
            chat.append((pointer, item))
        else:
            losses.add(
                pointer,
                "dropped",
                "OpenTelemetry's messages have no extension message (application data that "
                "never reaches the model)",
            )
    output = chat.pop() if chat and chat[-1][1].get("role") == "assistant" else None
    names: dict[str, str] = {}
    documents: list[list[Any]] = [_document(otel.SystemInstructions, parts) for parts in system]
    if chat:
        messages = [_message(item, pointer, losses, names, output=False) for pointer, item in chat]
        documents.append(_document(otel.InputMessages, messages))
    if output is not None:
        pointer, item = output
        documents.append(
            _document(otel.OutputMessages, [_message(item, pointer, losses, names, output=True)])
        )
    if tools:
        documents.append(_tools(tools, losses))
    return documents


def _stream(items: list[tuple[str, Any]], losses: Losses) -> list[list[Any]]:
    """An event stream: each ``TurnRequest`` (the request of one model call) as its system
    instructions, input messages and tools, each ``TurnEnd`` (its reply) as output messages;
    a stream without requests as the message list of its ``MessageEnd`` events; a provider
    stream (``StreamEvent``s) as the message its ``Done`` or ``Error`` holds. Every other
    event is dropped (the documents hold messages, not events)."""
    requests = any(item.get("type") == "TurnRequest" for _, item in items)
    documents: list[list[Any]] = []
    ended: list[tuple[str, Any]] = []
    for pointer, item in items:
        kind = item.get("type")
        if "role" in item:
            ended.append((pointer, item))
        elif requests and kind == "TurnRequest":
            documents += _request(item, pointer, losses)
        elif requests and kind == "TurnEnd":
            losses.rest(item, pointer, {"type", "message"}, "gen_ai.output.messages")
            names: dict[str, str] = {}
            message = _message(item["message"], at(pointer, "message"), losses, names, output=True)
            documents.append(_document(otel.OutputMessages, [message]))
        elif not requests and kind == "MessageEnd":
            losses.rest(item, pointer, {"type", "message"}, "a message list")
            ended.append((at(pointer, "message"), item["message"]))
        elif kind in PROVIDER_ENDS and isinstance(item.get("message"), dict):
            # a provider stream's last event holds the whole reply its deltas built
            losses.rest(item, pointer, {"type", "message"}, "the model call's output")
            ended.append((at(pointer, "message"), item["message"]))
        else:
            losses.add(
                pointer, "dropped", f"OpenTelemetry's message documents have no {kind} event"
            )
    if ended:
        documents += _conversation(ended, losses)
    return documents


def _request(item: Any, pointer: str, losses: Losses) -> list[list[Any]]:
    losses.rest(item, pointer, {"type", "payload"}, "a model call's documents")
    payload = item["payload"]
    where = at(pointer, "payload")
    losses.rest(payload, where, {"system_prompt", "messages", "tools"}, "a model call's documents")
    documents: list[list[Any]] = []
    if payload["system_prompt"]:
        documents.append(
            _document(
                otel.SystemInstructions, [{"type": "text", "content": payload["system_prompt"]}]
            )
        )
    else:
        losses.add(at(where, "system_prompt"), "dropped", "an empty system prompt is no document")
    names: dict[str, str] = {}
    messages = [
        _message(message, at(where, "messages", index), losses, names, output=False)
        for index, message in enumerate(payload["messages"])
    ]
    documents.append(_document(otel.InputMessages, messages))
    tools = [(at(where, "tools", index), tool) for index, tool in enumerate(payload["tools"])]
    if tools:
        documents.append(_tools(tools, losses))
    return documents


def _tools(tools: list[tuple[str, Any]], losses: Losses) -> list[Any]:
    written = []
    for pointer, tool in tools:
        losses.rest(tool, pointer, {"name", "description", "parameters"}, "a tool definition")
        written.append(
            {
                "type": "function",
                "name": tool["name"],
                "description": tool["description"],
                "parameters": tool["parameters"],
            }
        )
    return _document(otel.ToolDefinitions, written)


def _message(
    message: Any, pointer: str, losses: Losses, names: dict[str, str], *, output: bool
) -> Any:
    """One phi-core message (or an extension of ``MESSAGE_KIND``) as an OpenTelemetry message;
    ``names``: each tool call's name by id, so far (a tool result's name comes back from it)."""
    role = message["role"]
    if role not in _LLM_ROLES and message["kind"] == CLARK_SYSTEM_KIND:
        return _system_message(message["data"], pointer, losses)
    if role not in _LLM_ROLES:  # an OpenTelemetry message kept through phi-core
        return message["data"]
    parts: list[Any]
    if role == "toolResult":
        kept = {"role", "toolCallId", "toolName", "content", "isError", "timestamp"}
        call = message["toolCallId"]
        if names.get(call) != message["toolName"]:
            losses.add(
                at(pointer, "toolName"),
                "dropped",
                "a tool_call_response part has no tool name (it comes back from the tool call "
                "with its id, and no tool call before it has that id and this name)",
            )
        if message["isError"]:
            losses.add(
                at(pointer, "isError"), "dropped", "a tool_call_response part has no error flag"
            )
        response = _response(message["content"], at(pointer, "content"), losses)
        parts = [{"type": "tool_call_response", "id": call, "response": response}]
        written: dict[str, Any] = {"role": "tool", "parts": parts}
    else:
        kept = {"role", "content", "timestamp"}
        parts = [
            _part(block, at(pointer, "content", index), losses, names)
            for index, block in enumerate(message["content"])
        ]
        if not parts:  # the conventions' `parts: []` says an emitter lost the content
            losses.add(
                at(pointer, "content"),
                "changed",
                "no content: written as one empty text part (no parts would say the content "
                "was lost), which comes back as one empty text block",
            )
            parts = [{"type": "text", "content": ""}]
        written = {"role": role, "parts": parts}
    if role == "assistant":
        kept |= {"model", "provider", "usage", "error_message"}
        if output:
            kept.add("stopReason")
            reason = message["stopReason"]
            written["finish_reason"] = FINISH_REASON_FROM_PHI.get(reason, reason)
        for key in ("model", "provider", "usage", "error_message"):
            if key in message:
                losses.add(
                    at(pointer, key),
                    "dropped",
                    f"{_NO_METADATA} {key} (a span's attributes hold the model call's)",
                )
    losses.add(at(pointer, "timestamp"), "dropped", f"{_NO_METADATA} timestamp")
    losses.rest(
        message,
        pointer,
        kept | {"timestamp", "model", "provider", "usage", "error_message"},
        "an OpenTelemetry message",
    )
    if role == "assistant" and not output:
        losses.add(
            at(pointer, "stopReason"),
            "dropped",
            "an input message has no finish reason (only the output's has one)",
        )
    return written


def _system_message(data: dict[str, Any], pointer: str, losses: Losses) -> Any:
    """clark-agent's system message (its extension's data) as a ``system`` message."""
    for key in data:
        if key != "content":
            losses.add(at(pointer, "data", key), "dropped", f"{_NO_METADATA} {key}")
    return {"role": "system", "parts": [{"type": "text", "content": data["content"]}]}


def _system_data(data: Any) -> bool:
    """Whether an extension's data is a system message's (clark-agent's: its content, and its
    timestamp if it had one)."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("content"), str)
        and set(data) <= {"content", "timestamp"}
    )


def _part(block: Any, pointer: str, losses: Losses, names: dict[str, str]) -> Any:
    kind = block["type"]
    if kind == "text":
        return {"type": "text", "content": block["text"]}
    if kind == "thinking":
        if block.get("signature") is not None:
            losses.add(at(pointer, "signature"), "dropped", "a reasoning part has no signature")
        return {"type": "reasoning", "content": block["thinking"]}
    if kind == "toolCall":
        names[block["id"]] = block["name"]
        return {
            "type": "tool_call",
            "id": block["id"],
            "name": block["name"],
            "arguments": block["arguments"],
        }
    # an image: a URL (clark-agent's, kept in data) is a uri part, base64 a blob
    data, mime = block["data"], block["mimeType"]
    if ":" in data:
        return {"type": "uri", "modality": "image", "mime_type": mime, "uri": data}
    if not _base64(data):  # a blob's content must be base64: kept as a data: URL instead
        losses.add(
            at(pointer, "data"),
            "changed",
            "not base64: written as a data: URL (a uri part), which comes back as this data",
        )
        uri = f"data:{mime};base64,{data}"
        return {"type": "uri", "modality": "image", "mime_type": mime, "uri": uri}
    return {"type": "blob", "modality": "image", "mime_type": mime, "content": data}


def _base64(text: str) -> bool:
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _response(content: list[Any], pointer: str, losses: Losses) -> Any:
    """A tool result's content blocks as the part's ``response``: one text block is its text,
    anything else the list of parts."""
    if len(content) == 1 and content[0]["type"] == "text":
        return content[0]["text"]
    return [_part(block, at(pointer, index), losses, {}) for index, block in enumerate(content)]


def _document(tp: Any, value: list[Any]) -> list[Any]:
    document: list[Any] = otel.loads(tp, compact(value))
    for model in document:
        model.set_wire_layout(None)
    return document
