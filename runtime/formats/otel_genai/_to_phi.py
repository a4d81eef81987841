"""OpenTelemetry GenAI -> phi-core 0.10: the conventions' documents as each emitter writes them
(input and output messages, system instructions, tool definitions) as phi-core messages and tool
definitions (``convert`` says what each mapping decides)."""

from __future__ import annotations

import json
from typing import Any

import phi_wire.v0_10 as phi
from phi_wire.convert import (
    SORTED_BY_PHI_CORE,
    Conversion,
    UnsupportedConversion,
    derived_id,
    reordered_by_sorting,
)
from phi_wire.formats.otel_genai import codec

from ._shared import (
    CLARK_SYSTEM_KIND,
    FINISH_REASON_TO_PHI,
    MESSAGE_KIND,
    SYSTEM_INSTRUCTIONS_KIND,
    Losses,
    at,
    compact,
)

__all__ = ["to_phi_core"]

_MESSAGES = frozenset({"ChatMessage", "OutputMessage"})
_TOOLS = frozenset({"FunctionToolDefinition", "GenericToolDefinition"})
_SYSTEM = frozenset({"TextPart", "UnknownSystemInstructionPart"})
_TIMESTAMP = "OpenTelemetry's messages have no timestamp: 0"


def to_phi_core(value: Any, *, name: str = "") -> Conversion[Any]:
    """An OpenTelemetry document (a list of messages, of system instruction parts or of tools),
    a message, or a list of documents (a JSONL file of them) as a list of phi-core values."""
    if isinstance(value, list) and value and all(isinstance(item, list) for item in value):
        documents = [(f"/{index}", item) for index, item in enumerate(value)]
    elif isinstance(value, list):
        documents = [("", value)]
    elif type(value).__name__ in _MESSAGES:
        documents = [("", [value])]
    else:
        raise UnsupportedConversion(
            f"phi-core has no counterpart of a lone OpenTelemetry {type(value).__name__}: convert "
            "the document holding it"
        )
    losses = Losses()
    reader = _Reader(losses, name)
    converted: list[Any] = []
    for pointer, document in documents:
        converted += reader.document(document, pointer, lone=not isinstance(value, list))
    return Conversion(converted, tuple(losses))


class _Reader:
    """Reads documents one after another: a tool result's name comes from the call before it
    with its id, in any document read so far."""

    def __init__(self, losses: Losses, name: str) -> None:
        self.losses = losses
        self.name = name
        self.names: dict[str, str] = {}

    def document(self, document: list[Any], pointer: str, *, lone: bool) -> list[Any]:
        kinds = {type(item).__name__ for item in document}
        plain = codec.plain(document)
        if not document:
            self.losses.add(pointer or "", "dropped", "an empty document: nothing to convert")
            return []
        if kinds <= _MESSAGES:
            found: list[Any] = []
            for index, message in enumerate(plain):
                found += self.message(message, pointer if lone else at(pointer, index))
            return found
        if kinds <= _TOOLS:
            return [
                tool
                for index, item in enumerate(plain)
                if (tool := self.tool(item, at(pointer, index))) is not None
            ]
        if kinds <= _SYSTEM:
            if reordered_by_sorting(plain):
                self.losses.add(pointer, "changed", SORTED_BY_PHI_CORE.format(key="data"))
            return [_extension(SYSTEM_INSTRUCTIONS_KIND, plain)]
        raise UnsupportedConversion(
            f"no phi-core counterpart of a list of {', '.join(sorted(kinds))}"
        )

    def tool(self, tool: dict[str, Any], pointer: str) -> Any:
        if tool.get("type") != "function":
            self.losses.add(
                pointer,
                "dropped",
                f"phi-core's tool definitions are functions, not {tool.get('type')!r}",
            )
            return None
        self.losses.rest(
            tool,
            pointer,
            {"type", "name", "description", "parameters"},
            "phi-core's ToolDefinition",
        )
        description = tool.get("description")
        if not isinstance(description, str):
            self.losses.add(
                at(pointer, "description"), "invented", "phi-core's tool needs a description: ''"
            )
            description = ""
        parameters = tool.get("parameters")
        if parameters is None:
            self.losses.add(
                at(pointer, "parameters"), "invented", "phi-core's tool needs parameters: {}"
            )
            parameters = {}
        elif reordered_by_sorting(parameters):
            self.losses.add(pointer, "changed", SORTED_BY_PHI_CORE.format(key="parameters"))
        return phi.loads(
            phi.ToolDefinition,
            compact({"name": tool["name"], "description": description, "parameters": parameters}),
        )

    def message(self, message: dict[str, Any], pointer: str) -> list[Any]:
        role = message["role"]
        if _system_message(message):  # phi-core's (and clark-agent's) system message
            text: str = message["parts"][0]["content"]
            return [_extension(CLARK_SYSTEM_KIND, {"content": text})]
        if role not in ("user", "assistant", "tool"):
            self.losses.add(
                pointer,
                "changed",
                f"phi-core has no {role!r} message: kept whole as an extension message (which "
                "phi-core never sends to a model)",
            )
            if reordered_by_sorting(message):
                self.losses.add(pointer, "changed", SORTED_BY_PHI_CORE.format(key="data"))
            return [_extension(MESSAGE_KIND, message)]
        kept = {"role", "parts", "name", "finish_reason"}
        self.losses.rest(message, pointer, kept, "a phi-core message")
        if message.get("name") is not None:
            self.losses.add(at(pointer, "name"), "dropped", "phi-core's messages have no name")
        parts: list[Any] = message["parts"]
        if not parts:
            self.losses.add(
                at(pointer, "parts"),
                "dropped",
                "no parts: the emitter had already lost this message's content (openai-v2 writes "
                "[] for every list-valued content): an empty message",
            )
        found: list[Any] = []
        blocks: list[Any] = []
        for index, part in enumerate(parts):
            where = at(pointer, "parts", index)
            if part.get("type") == "tool_call_response":
                if blocks or (role != "tool" and not found):
                    found.append(self.llm(role, blocks, message, pointer))
                    blocks = []
                found.append(self.result(part, where))
            else:
                block = self.block(part, where, role)
                if block is not None:
                    blocks.append(block)
        if role != "tool" and (blocks or not found):
            found.append(self.llm(role, blocks, message, pointer))
        elif role == "tool" and blocks:
            self.losses.add(
                pointer,
                "dropped",
                "phi-core's tool results answer a tool call: these parts answer none",
            )
        if len(found) > 1:
            self.losses.add(
                pointer,
                "changed",
                f"one message with tool results became {len(found)} phi-core messages",
            )
        return found

    def llm(self, role: str, blocks: list[Any], message: dict[str, Any], pointer: str) -> Any:
        if role == "tool":
            role = "user"
        self.losses.add(pointer, "invented", _TIMESTAMP)
        written: dict[str, Any] = {"role": role, "content": blocks}
        if role == "assistant":
            reason = message.get("finish_reason")
            if isinstance(reason, str):
                mapped = FINISH_REASON_TO_PHI.get(reason)
                stop = mapped or "stop"
                if mapped is None or reason in _FINISH_MATCH:
                    self.losses.add(
                        at(pointer, "finish_reason"),
                        "changed",
                        f"phi-core has no {reason!r}: {stop!r}",
                    )
            else:
                stop = "toolUse" if any(block["type"] == "toolCall" for block in blocks) else "stop"
                self.losses.add(
                    pointer, "invented", f"an input message has no finish reason: {stop!r}"
                )
            self.losses.add(
                pointer,
                "invented",
                "OpenTelemetry's messages have no model, provider or usage: '', '' and zeros",
            )
            written |= {
                "stopReason": stop,
                "model": "",
                "provider": "",
                "usage": {
                    "input": 0,
                    "output": 0,
                    "reasoning": 0,
                    "cache_read": 0,
                    "cache_write": 0,
                    "total_tokens": 0,
                },
            }
        written["timestamp"] = 0
        return phi.loads(phi.AgentMessage, compact(written))

    def result(self, part: dict[str, Any], pointer: str) -> Any:
        self.losses.rest(
            part, pointer, {"type", "id", "response", "result"}, "a phi-core tool result"
        )
        call = part.get("id")
        if not isinstance(call, str):
            call = derived_id(self.name, pointer, compact(part))
            self.losses.add(
                at(pointer, "id"),
                "invented",
                "phi-core's tool result needs the call's id: a derived one",
            )
        if "response" in part:
            response = part["response"]
        else:
            self.losses.add(
                at(pointer, "result"),
                "changed",
                "pydantic-ai's 'result' read as the conventions' 'response'",
            )
            response = part.get("result")
        content = self.response(
            response, at(pointer, "response" if "response" in part else "result")
        )
        tool = self.names.get(call)
        if tool is None:
            self.losses.add(
                pointer, "invented", "no tool call before it has its id: the tool's name is ''"
            )
        self.losses.add(pointer, "invented", _TIMESTAMP)
        written = {
            "role": "toolResult",
            "toolCallId": call,
            "toolName": tool or "",
            "content": content,
            "isError": False,
            "timestamp": 0,
        }
        return phi.loads(phi.AgentMessage, compact(written))

    def response(self, response: Any, pointer: str) -> list[Any]:
        if isinstance(response, str):
            return [{"type": "text", "text": response}]
        if isinstance(response, list) and all(
            isinstance(part, dict) and isinstance(part.get("type"), str) for part in response
        ):
            blocks = [
                self.block(part, at(pointer, index), "tool") for index, part in enumerate(response)
            ]
            return [block for block in blocks if block is not None]
        self.losses.add(
            pointer,
            "changed",
            "phi-core's tool results hold content blocks: the JSON value as its text",
        )
        return [{"type": "text", "text": json.dumps(response, ensure_ascii=False)}]

    def block(self, part: dict[str, Any], pointer: str, role: str) -> Any:
        kind = part.get("type")
        content = part.get("content")
        if kind in ("text", "reasoning", "thinking") and isinstance(content, str):
            self.losses.rest(part, pointer, {"type", "content"}, f"a phi-core {kind} block")
            if kind == "text":
                return {"type": "text", "text": content}
            if kind == "thinking":
                self.losses.add(
                    at(pointer, "type"),
                    "changed",
                    "pydantic-ai's 'thinking' part read as the conventions' 'reasoning'",
                )
            return {"type": "thinking", "thinking": content}
        if kind == "tool_call" and isinstance(part.get("name"), str):
            return self.call(part, pointer)
        if kind in ("blob", "uri") and _image(part):
            data = part.get("content") if kind == "blob" else part.get("uri")
            if isinstance(data, str):
                self.losses.rest(
                    part,
                    pointer,
                    {"type", "modality", "mime_type", "content", "uri"},
                    "a phi-core image",
                )
                mime = part.get("mime_type")
                if not isinstance(mime, str):
                    self.losses.add(
                        at(pointer, "mime_type"),
                        "invented",
                        "phi-core's image needs a MIME type: ''",
                    )
                    mime = ""
                if kind == "uri" and data.startswith(f"data:{mime};base64,"):
                    data = data.removeprefix(f"data:{mime};base64,")  # an image phi-core held
                return {"type": "image", "data": data, "mimeType": mime}
            self.losses.add(
                at(pointer, "content"),
                "dropped",
                "raw bytes, not base64 (google-genai's log records): phi-core's image holds base64",
            )
            return None
        reason = f"phi-core has no {kind!r} content"
        if kind == "anthropic_image":
            reason += " (the anthropic SDK's spans write it without the image: already lost)"
        elif kind in ("blob", "uri", "file"):
            reason = (
                f"phi-core's content holds images only, not {part.get('modality')!r} {kind} parts"
            )
        self.losses.add(pointer, "dropped", reason)
        return None

    def call(self, part: dict[str, Any], pointer: str) -> Any:
        self.losses.rest(part, pointer, {"type", "id", "name", "arguments"}, "a phi-core tool call")
        call = part.get("id")
        if not isinstance(call, str):
            call = derived_id(self.name, pointer, compact(part))
            self.losses.add(
                at(pointer, "id"), "invented", "phi-core's tool call needs an id: a derived one"
            )
        arguments = part.get("arguments")
        if isinstance(arguments, str):
            try:
                parsed = json.loads(arguments)
            except ValueError:
                parsed = arguments
            if isinstance(parsed, dict):
                self.losses.add(
                    pointer,
                    "changed",
                    "the arguments were a JSON string (pydantic-ai's): phi-core holds the parsed "
                    "object, and a conversion back writes it parsed",
                )
                arguments = parsed
        if reordered_by_sorting(arguments):
            self.losses.add(pointer, "changed", SORTED_BY_PHI_CORE.format(key="arguments"))
        self.names[call] = part["name"]
        return {"type": "toolCall", "id": call, "name": part["name"], "arguments": arguments}


_FINISH_MATCH = {"content_filter": "guardRail"}
"""Finish reasons whose phi-core stop reason is their meaning, if not their name: still a
``changed`` loss (they come back as phi-core's name), reported by ``llm``."""


def _system_message(message: dict[str, Any]) -> bool:
    """Whether a message is a system message of one text and nothing else: what clark-agent's
    system message (an ``ExtensionMessage`` of ``CLARK_SYSTEM_KIND`` in phi-core) holds whole."""
    parts = message["parts"]
    return (
        message["role"] == "system"
        and set(message) <= {"role", "parts", "name"}
        and message.get("name") is None
        and len(parts) == 1
        and set(parts[0]) == {"type", "content"}
        and parts[0]["type"] == "text"
        and isinstance(parts[0]["content"], str)
    )


def _image(part: dict[str, Any]) -> bool:
    mime = part.get("mime_type")
    return part.get("modality") == "image" or (isinstance(mime, str) and mime.startswith("image/"))


def _extension(kind: str, data: Any) -> Any:
    return phi.loads(phi.AgentMessage, compact({"role": "extension", "kind": kind, "data": data}))
