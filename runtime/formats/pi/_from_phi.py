"""phi-core 0.10 -> pi 1.5: messages of every role, content blocks, usage, and a message list as
a pi session v3 file (``session_from_phi_core``: a header, then one ``message`` entry per message,
each the child of the one before). pi's objects are built as its own constructors build them
(their key order); ``convert`` says what each mapping decides."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import phi_wire.pi as pi
import phi_wire.v0_10 as phi
from phi_wire.convert import Conversion, EntryIds, Losses, UnsupportedConversion, derived_id
from phi_wire.errors import WireError
from phi_wire.pointer import extended as at

from ._shared import CARRIED_KEY, EXTENSION_KIND, EXTENSION_ROLES, STOP_REASON_FROM_PHI

PI_ROLES: dict[str, Any] = {
    "system": pi.SystemMessage,
    "custom": pi.CustomMessage,
    "bashExecution": pi.BashExecutionMessage,
    "branchSummary": pi.BranchSummaryMessage,
    "compactionSummary": pi.CompactionSummaryMessage,
}
"""The pi message class of each role an ExtensionMessage carries (``EXTENSION_ROLES``)."""
assert tuple(PI_ROLES) == EXTENSION_ROLES

_LLM_META = {
    "turn_id": "turnId",
    "node_id": "nodeId",
    "parent_id": "parentId",
    "provenance_hint": "provenanceHint",
}
JS_SAFE_INTEGER = 2**53 - 1
"""The largest integer a JavaScript number holds exactly."""
ZERO_COST = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}


def block_from_phi(block: Any, pointer: str, losses: Losses, lane: str) -> dict[str, Any] | None:
    """A phi-core content block as pi's JSON; ``lane``: "assistant" (text, thinking, toolCall)
    or "user" (text, image: user, tool-result and custom content)."""
    if isinstance(block, phi.TextContent):
        return {"type": "text", "text": block.text}
    if isinstance(block, phi.ImageContent) and lane == "user":
        return {"type": "image", "data": block.data, "mimeType": block.mime_type}
    if isinstance(block, phi.ThinkingContent) and lane == "assistant":
        thinking: dict[str, Any] = {"type": "thinking", "thinking": block.thinking}
        if block.signature is not None:
            thinking["thinkingSignature"] = block.signature
        return thinking
    if isinstance(block, phi.ToolCallContent) and lane == "assistant":
        arguments = block.arguments
        if not isinstance(arguments, dict):
            losses.add(pointer, "changed", 'pi\'s arguments are an object: written {"value": ...}')
            arguments = {"value": arguments}
        unsafe_numbers(block.arguments, at(pointer, "arguments"), losses)
        return {"type": "toolCall", "id": block.id, "name": block.name, "arguments": arguments}
    where = "an assistant's" if lane == "assistant" else "user and tool-result"
    losses.add(pointer, "dropped", f"pi's {where} content has no {block.type} block")
    return None


def unsafe_numbers(value: Any, pointer: str, losses: Losses) -> None:
    """A ``changed`` loss at each integer of a free-form value a JavaScript number cannot hold
    exactly (pi reads and writes doubles)."""
    if isinstance(value, dict):
        for key, item in value.items():
            unsafe_numbers(item, at(pointer, key), losses)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            unsafe_numbers(item, at(pointer, index), losses)
    elif type(value) is int and abs(value) > JS_SAFE_INTEGER:
        losses.add(pointer, "changed", "pi's numbers are doubles: rounded")


def _blocks(blocks: Sequence[Any], pointer: str, losses: Losses, lane: str) -> list[Any]:
    converted = (
        block_from_phi(block, at(pointer, index), losses, lane)
        for index, block in enumerate(blocks)
    )
    return [block for block in converted if block is not None]


def usage_from_phi(usage: Any, pointer: str, losses: Losses, cost: bool = True) -> dict[str, Any]:
    """phi-core's counts as pi's Usage JSON (``cost`` all zero, invented)."""
    counts: dict[str, Any] = {
        "input": usage.input,
        "output": usage.output,
        "cacheRead": usage.cache_read,
        "cacheWrite": usage.cache_write,
    }
    if usage.reasoning:
        counts["reasoning"] = usage.reasoning
    counts["totalTokens"] = usage.total_tokens
    if cost:
        losses.add(pointer, "invented", "pi's usage requires cost: all zero")
        counts["cost"] = dict(ZERO_COST)
    return counts


def _meta(message: Any, pointer: str, losses: Losses) -> None:
    if not isinstance(
        message, phi.LlmUserMessage | phi.LlmAssistantMessage | phi.LlmToolResultMessage
    ):
        return
    for name, wire in _LLM_META.items():
        if getattr(message, name) is not None:
            losses.add(at(pointer, wire), "dropped", "pi's messages have no revert-mode metadata")
    if message.tags:
        losses.add(at(pointer, "tags"), "dropped", "pi's messages have no node tags")


_MESSAGES = (
    phi.UserMessage,
    phi.LlmUserMessage,
    phi.AssistantMessage,
    phi.LlmAssistantMessage,
    phi.ToolResultMessage,
    phi.LlmToolResultMessage,
)
"""The phi-core messages of the first lane (the second: ``ExtensionMessage``)."""


def message_from_phi(message: Any, pointer: str, losses: Losses) -> Any:
    """One phi-core message as pi 1.5's model."""
    if type(message).__module__ == phi.AgentStart.__module__:
        raise UnsupportedConversion(NO_EVENTS)
    if isinstance(message, phi.ExtensionMessage):
        return _extension(message, pointer, losses)
    if not isinstance(message, _MESSAGES):  # a tool definition, a usage, a block...: no message
        raise UnsupportedConversion(
            f"no pi counterpart for phi-core's {type(message).__name__} (convertible: messages "
            "and message lists, sessions)"
        )
    _meta(message, pointer, losses)
    if message.timestamp > JS_SAFE_INTEGER:
        losses.add(at(pointer, "timestamp"), "changed", "pi's numbers are doubles: rounded")
    content = at(pointer, "content")
    if isinstance(message, phi.UserMessage | phi.LlmUserMessage):
        blocks = _blocks(message.content, content, losses, "user")
        text: Any = blocks
        if len(blocks) == 1 and blocks[0]["type"] == "text":
            text = blocks[0]["text"]  # pi's common form; see _to_phi._user
        return pi.UserMessage.model_validate(
            {"role": "user", "content": text, "timestamp": message.timestamp}
        )
    if isinstance(message, phi.AssistantMessage | phi.LlmAssistantMessage):
        stop, reason = STOP_REASON_FROM_PHI[message.stop_reason.value]
        if reason is not None:
            losses.add(at(pointer, "stopReason"), "changed", reason)
        losses.add(pointer, "invented", "pi requires api (the provider's API): empty")
        document: dict[str, Any] = {
            "role": "assistant",
            "content": _blocks(message.content, content, losses, "assistant"),
            "api": "",
            "provider": message.provider,
            "model": message.model,
            "usage": usage_from_phi(message.usage, at(pointer, "usage"), losses),
            "stopReason": stop,
            "timestamp": message.timestamp,
        }
        if message.error_message is not None:
            document["errorMessage"] = message.error_message
        return pi.AssistantMessage.model_validate(document)
    if isinstance(message, phi.ToolResultMessage | phi.LlmToolResultMessage):
        return pi.ToolResultMessage.model_validate(
            {
                "role": "toolResult",
                "toolCallId": message.tool_call_id,
                "toolName": message.tool_name,
                "content": _blocks(message.content, content, losses, "user"),
                "isError": message.is_error,
                "timestamp": message.timestamp,
            }
        )
    raise UnsupportedConversion(f"not a phi-core message: {type(message).__name__}")


NO_EVENTS = (
    "phi-core's events are not converted to pi's (pi's event streams convert to phi-core's, not "
    "back)"
)


def _extension(message: Any, pointer: str, losses: Losses) -> Any:
    """A pi message an ExtensionMessage carries (``pi.<role>``), else a pi ``custom`` message
    whose details carry the ExtensionMessage (``{"phi-core": {"role", "data"}}``)."""
    role, data = message.role, message.data
    unsafe_numbers(data, at(pointer, "data"), losses)
    carried = message.kind.removeprefix(EXTENSION_KIND.format(role=""))
    ours = role == "extension" and message.kind == EXTENSION_KIND.format(role=carried)
    if ours and carried in PI_ROLES and isinstance(data, dict) and "role" not in data:
        try:
            return PI_ROLES[carried].model_validate({"role": carried, **data})
        except WireError:
            pass  # not what pi writes: carried as any other extension
    for key, value in (("content", "[]"), ("display", "false"), ("timestamp", "0")):
        losses.add(pointer, "invented", f"pi's custom message requires {key}: {value}")
    return pi.CustomMessage.model_validate(
        {
            "role": "custom",
            "customType": message.kind,
            "content": [],
            "display": False,
            "details": {CARRIED_KEY: {"role": role, "data": data}},
            "timestamp": 0,
        }
    )


def messages_from_phi(messages: Sequence[Any], losses: Losses) -> list[Any]:
    return [
        message_from_phi(message, at("", index), losses) for index, message in enumerate(messages)
    ]


def iso(ms: int) -> str:
    """Unix milliseconds as pi's ``new Date(ms).toISOString()``."""
    seconds, millis = divmod(ms, 1000)
    try:
        text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    except (OverflowError, OSError, ValueError):
        text = "1970-01-01T00:00:00"
    if len(text) != 19 or not text[:4].isdigit():
        text, millis = "1970-01-01T00:00:00", 0
    return f"{text}.{millis:03d}Z"


def session_from_phi_core(
    messages: Sequence[Any], *, cwd: str = ".", name: str = ""
) -> Conversion[Any]:
    """A list of phi-core messages as a pi session v3 file (a ``JsonLines`` of ``FileEntry``):
    a header (its id a uuid5 of ``name`` and the messages; ``cwd``), then one message entry per
    message, each the child of the one before, ids from ``EntryIds``, each entry's timestamp its
    message's (an ExtensionMessage's: the one before)."""
    losses = Losses()
    converted = messages_from_phi(messages, losses)
    texts = [pi.dumps(message) for message in converted]
    content = "\n".join(texts)
    ids = EntryIds(name, content)
    stamps = [getattr(message, "timestamp", 0) for message in messages]
    first = next((stamp for stamp in stamps if stamp), 0)
    header = {
        "type": "session",
        "version": 3,
        "id": derived_id(name, "", content),
        "timestamp": iso(first),
        "cwd": cwd,
    }
    losses.add("", "invented", f"a pi session file's header: a derived id, cwd {cwd!r}")
    lines: list[Any] = [pi.SessionHeader.model_validate(header)]
    parent: str | None = None
    last = first
    for index, message in enumerate(converted):
        last = stamps[index] or last
        entry = pi.SessionMessageEntry.model_validate(
            {
                "type": "message",
                "id": ids(index),
                "parentId": parent,
                "timestamp": iso(last),
                "message": message,
            }
        )
        parent = entry.id
        lines.append(entry)
    losses.add("", "invented", "each message entry's id, parentId and timestamp")
    return Conversion(pi.JsonLines(lines), tuple(losses))
