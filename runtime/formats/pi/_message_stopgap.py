"""The smallest pi -> phi-core message mapping the stream converters need, until the message
converter exists.

TODO(h20c): replace ``_message_to_phi`` by ``phi_wire.formats.pi.convert.to_phi_core`` (h20c's
message converter) at the merge; nothing else of this module is used elsewhere.

pi fact: pi-ai's ``Message`` is phi-core's ancestor: ``user``/``assistant``/``toolResult`` map
key by key (``thinkingSignature`` -> ``signature``, ``errorMessage`` -> ``error_message``,
camelCase usage keys -> snake_case, a string user content -> one text block); everything else
pi puts on a message (``api``, ``cost``, ``durationMs``, signatures of text and tool calls,
stream scratch keys...) has no place in phi-core and is a loss. The coding agent's own roles
(``system``, ``bashExecution``, ``custom``, ``branchSummary``, ``compactionSummary``) become an
``ExtensionMessage`` (``role: "extension"``, ``kind``: ``pi.<role>``, ``data``: the message's
other keys, in order), as docs/pi.md's correspondence table proposes.
"""

from __future__ import annotations

from typing import Any

import phi_wire.v0_10 as phi
from phi_wire.convert import Conversion

from ._stream_shared import Losses, at, clean_json, js_view

__all__ = ["_message_to_phi", "usage_to_phi"]

NO_PLACE = "phi-core's {where} has no {{key}}"

STOP_REASONS = {
    "stop": "stop",
    "length": "length",
    "toolUse": "toolUse",
    "error": "error",
    "aborted": "aborted",
}
NEAREST_STOP_REASONS = {
    "pending": (
        "stop",
        "pi's 'pending' (a partial still streaming): phi-core's placeholder 'stop'",
    ),
    "deferred": ("paused", "pi's 'deferred' (a batch request to fetch later): phi-core's 'paused'"),
}
LLM_ROLES = frozenset({"user", "assistant", "toolResult"})


def _block_to_phi(block: Any, pointer: str, losses: Losses) -> Any:
    kind = block.get("type") if isinstance(block, dict) else None
    if kind == "text":
        losses.leftover(block, ("type", "text"), pointer, NO_PLACE.format(where="text block"))
        return phi.TextContent(text=block["text"])
    if kind == "thinking":
        losses.leftover(
            block,
            ("type", "thinking", "thinkingSignature"),
            pointer,
            NO_PLACE.format(where="thinking block"),
        )
        return phi.ThinkingContent(
            thinking=block["thinking"], signature=block.get("thinkingSignature")
        )
    if kind == "image":
        losses.leftover(
            block, ("type", "data", "mimeType"), pointer, NO_PLACE.format(where="image block")
        )
        return phi.ImageContent(data=block["data"], mime_type=block["mimeType"])
    if kind == "toolCall":
        losses.leftover(
            block,
            ("type", "id", "name", "arguments"),
            pointer,
            NO_PLACE.format(where="tool call block"),
        )
        arguments = losses.free_form(block["arguments"], "arguments", pointer)
        return phi.ToolCallContent(id=block["id"], name=block["name"], arguments=arguments)
    losses.add(pointer, "dropped", f"a content block of type {kind!r}: phi-core has none")
    return None


def _content_to_phi(content: Any, pointer: str, losses: Losses) -> list[Any]:
    if isinstance(content, str):
        if content:
            losses.add(
                pointer[: pointer.rfind("/")],
                "changed",
                "its content is a string: phi-core holds it as one text block",
            )
        else:
            losses.add(
                pointer[: pointer.rfind("/")],
                "changed",
                "its content is an empty string: phi-core holds no block",
            )
        return [phi.TextContent(text=content)] if content else []
    blocks = [
        _block_to_phi(block, at(pointer, index), losses) for index, block in enumerate(content)
    ]
    return [block for block in blocks if block is not None]


def usage_to_phi(usage: Any, pointer: str, losses: Losses) -> Any:
    """pi's ``Usage`` as phi-core's: the token counts (camelCase to snake_case); ``cost``, the
    1.5 ``cacheWrite1h`` have no place."""
    losses.leftover(
        usage,
        ("input", "output", "cacheRead", "cacheWrite", "reasoning", "totalTokens"),
        pointer,
        NO_PLACE.format(where="usage"),
    )
    return phi.Usage(
        input=usage["input"],
        output=usage["output"],
        reasoning=usage.get("reasoning", 0),
        cache_read=usage.get("cacheRead", 0),
        cache_write=usage.get("cacheWrite", 0),
        total_tokens=usage.get("totalTokens", 0),
    )


def _stop_reason(value: str, pointer: str, losses: Losses) -> str:
    if value in STOP_REASONS:
        return STOP_REASONS[value]
    nearest, reason = NEAREST_STOP_REASONS.get(
        value, ("stop", f"pi's stop reason {value!r}: phi-core has none; 'stop'")
    )
    losses.add(pointer, "changed", reason)
    return nearest


def _timestamp(message: dict[str, Any], pointer: str, losses: Losses) -> int:
    value = message.get("timestamp")
    if isinstance(value, int) and value >= 0:
        return value
    losses.add(at(pointer, "timestamp"), "invented", "phi-core needs a u64 timestamp: 0")
    return 0


def _message_to_phi(message: Any) -> Conversion[Any]:
    """A pi message (its JSON view, a dict; or a pi model) as a phi-core ``Message`` (the three
    LLM roles) or ``ExtensionMessage`` (pi's other roles), pointers relative to the message."""
    losses = Losses()
    message = clean_json(js_view(message), "", losses, frozenset())
    role = message.get("role")
    if role not in LLM_ROLES:
        data = {key: item for key, item in message.items() if key != "role"}
        losses.free_form(data, "data", "")
        value: Any = phi.ExtensionMessage(role="extension", kind=f"pi.{role}", data=data)
        return Conversion(value, tuple(losses.items))
    content = _content_to_phi(message.get("content", []), "/content", losses)
    timestamp = _timestamp(message, "", losses)
    where = NO_PLACE.format(where=f"{role} message")
    if role == "user":
        losses.leftover(message, ("role", "content", "timestamp"), "", where)
        value = phi.UserMessage(content=content, timestamp=timestamp)
    elif role == "assistant":
        losses.leftover(
            message,
            (
                "role",
                "content",
                "provider",
                "model",
                "usage",
                "stopReason",
                "timestamp",
                "errorMessage",
            ),
            "",
            where,
        )
        value = phi.AssistantMessage(
            content=content,
            stop_reason=_stop_reason(message["stopReason"], "/stopReason", losses),
            model=message["model"],
            provider=message["provider"],
            usage=usage_to_phi(message["usage"], "/usage", losses),
            timestamp=timestamp,
            error_message=message.get("errorMessage"),
        )
    else:
        losses.leftover(
            message,
            ("role", "toolCallId", "toolName", "content", "isError", "timestamp"),
            "",
            where,
        )
        value = phi.ToolResultMessage(
            tool_call_id=message["toolCallId"],
            tool_name=message["toolName"],
            content=content,
            is_error=message["isError"],
            timestamp=timestamp,
        )
    return Conversion(value, tuple(losses.items))
