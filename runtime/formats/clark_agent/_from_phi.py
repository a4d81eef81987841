"""phi-core 0.10 -> clark-agent 0.4: blocks, messages, extension messages and message lists
(``convert`` says what each mapping decides)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import phi_wire.clark_agent as clark
import phi_wire.v0_10 as phi
from phi_wire.convert import Conversion, UnsupportedConversion
from phi_wire.convert import Losses as _Losses
from phi_wire.pointer import extended as _at

from ._shared import (
    _I64_MAX,
    STOP_REASON_FROM_PHI,
    STOP_REASON_TO_PHI,
    SYSTEM_KIND,
    USAGE_FIELDS,
    _is_zero_usage,
)

PHI_LLM = (phi.LlmUserMessage, phi.LlmAssistantMessage, phi.LlmToolResultMessage)
PHI_PLAIN = (phi.UserMessage, phi.AssistantMessage, phi.ToolResultMessage)


def _usage_from_phi(usage: Any, pointer: str, losses: _Losses) -> Any:
    values: dict[str, int] = {}
    for clark_key, phi_key in USAGE_FIELDS.items():
        count = getattr(usage, phi_key)
        if count > _I64_MAX:
            losses.add(
                _at(pointer, phi_key), "changed", "above i64::MAX: clark-agent's i64 holds it"
            )
            count = _I64_MAX
        values[clark_key] = count
    for phi_key in ("reasoning", "total_tokens"):
        if getattr(usage, phi_key):
            losses.add(_at(pointer, phi_key), "dropped", "clark-agent's Usage has no such counter")
    return clark.Usage(**values)


# --- phi-core -> clark-agent ------------------------------------------------------------------


def _image_from_phi(block: Any, pointer: str, losses: _Losses) -> Any:
    if ":" in block.data:  # not base64: the URL an image kept on its way in
        return clark.ImageBlock(source=block.data, media_type=block.mime_type or None)
    return clark.ImageBlock(
        source=f"data:{block.mime_type};base64,{block.data}", media_type=block.mime_type
    )


def _details_from_carrier(signature: str) -> Any:
    """The ReasoningDetailsContent a thinking block's signature carries, or None."""
    if not signature.startswith('{"details":'):
        return None
    try:
        document = json.loads(signature)  # correctly rounded: exactly the values written
    except ValueError:
        return None
    if not isinstance(document, dict) or set(document) != {"details"}:
        return None
    if not isinstance(document["details"], list):
        return None
    return clark.ReasoningDetailsBlock(details=document["details"])


def _thinking_from_phi(block: Any, pointer: str, losses: _Losses) -> Any:
    if block.signature is not None:
        carried = _details_from_carrier(block.signature)
        if carried is not None:
            if block.thinking:
                losses.add(
                    _at(pointer, "thinking"),
                    "dropped",
                    "a thinking block that carries reasoning_details: its text has no place",
                )
            return carried
        losses.add(
            _at(pointer, "signature"),
            "dropped",
            "clark-agent's reasoning block has no signature (clark keeps signatures inside "
            "reasoning_details items, whose provider format phi-core does not record)",
        )
    return clark.ReasoningBlock(text=block.thinking)


def _block_from_phi(block: Any, pointer: str, losses: _Losses, allowed: str) -> Any:
    """``allowed``: "user"/"tool" (text, image) or "assistant" (text, thinking, tool calls)."""
    if isinstance(block, phi.TextContent):
        return clark.TextBlock(text=block.text)
    if isinstance(block, phi.ImageContent) and allowed != "assistant":
        return _image_from_phi(block, pointer, losses)
    if isinstance(block, phi.ThinkingContent) and allowed == "assistant":
        return _thinking_from_phi(block, pointer, losses)
    if isinstance(block, phi.ToolCallContent) and allowed == "assistant":
        return clark.ToolCallBlock(id=block.id, name=block.name, arguments=block.arguments)
    losses.add(pointer, "dropped", f"clark-agent's {allowed} content has no {block.type} block")
    return None


def _blocks_from_phi(blocks: Sequence[Any], pointer: str, losses: _Losses, allowed: str) -> Any:
    converted = (
        _block_from_phi(block, _at(pointer, index), losses, allowed)
        for index, block in enumerate(blocks)
    )
    return [block for block in converted if block is not None]


_LLM_META = {"turn_id": "turnId", "node_id": "nodeId", "parent_id": "parentId"}


def _message_from_phi(message: Any, pointer: str, losses: _Losses) -> Any:
    if isinstance(message, phi.ExtensionMessage):
        return _extension_from_phi(message, pointer, losses)
    if isinstance(message, PHI_LLM):
        for name, wire in _LLM_META.items():
            if getattr(message, name) is not None:
                losses.add(_at(pointer, wire), "dropped", "clark-agent has no turn/node ids")
        if message.tags:
            losses.add(_at(pointer, "tags"), "dropped", "clark-agent has no node tags")
        if message.provenance_hint is not None:
            losses.add(_at(pointer, "provenanceHint"), "dropped", "clark-agent has no provenance")
    content_pointer = _at(pointer, "content")
    if isinstance(message, phi.UserMessage | phi.LlmUserMessage):
        blocks = _blocks_from_phi(message.content, content_pointer, losses, "user")
        content: Any = blocks
        if len(blocks) == 1 and isinstance(blocks[0], clark.TextBlock):
            content = blocks[0].text  # clark's common case; see _message_to_phi
        return clark.UserMessage(content=content, timestamp=message.timestamp)
    if isinstance(message, phi.AssistantMessage | phi.LlmAssistantMessage):
        for key in ("model", "provider"):
            if getattr(message, key):
                losses.add(_at(pointer, key), "dropped", f"clark-agent's assistant has no {key}")
        stop = message.stop_reason.value
        if STOP_REASON_TO_PHI[STOP_REASON_FROM_PHI[stop]] != stop:
            losses.add(_at(pointer, "stopReason"), "changed", f"clark-agent has no {stop!r}: other")
        usage = message.usage
        return clark.AssistantMessage(
            content=_blocks_from_phi(message.content, content_pointer, losses, "assistant"),
            stop_reason=clark.StopReason(STOP_REASON_FROM_PHI[stop]),
            error_message=message.error_message,
            timestamp=message.timestamp,
            usage=None
            if _is_zero_usage(usage)
            else _usage_from_phi(usage, _at(pointer, "usage"), losses),
        )
    if isinstance(message, phi.ToolResultMessage | phi.LlmToolResultMessage):
        return clark.ToolResultMessage(
            tool_call_id=message.tool_call_id,
            tool_name=message.tool_name,
            content=_blocks_from_phi(message.content, content_pointer, losses, "tool"),
            is_error=message.is_error,
            timestamp=message.timestamp,
        )
    raise UnsupportedConversion(f"not a phi-core message: {type(message).__name__}")


def _extension_from_phi(message: Any, pointer: str, losses: _Losses) -> Any:
    if message.role != "extension":
        losses.add(
            _at(pointer, "role"),
            "changed",
            f"clark-agent's custom message has no free-form role ({message.role!r}): it comes "
            'back as "extension"',
        )
    data = message.data
    if message.kind == SYSTEM_KIND and isinstance(data, dict) and _system_data(data):
        return clark.SystemMessage(content=data["content"], timestamp=data.get("timestamp"))
    return clark.CustomMessage(kind=message.kind, payload=data, timestamp=None)


def _system_data(data: dict[str, Any]) -> bool:
    if not isinstance(data.get("content"), str) or not set(data) <= {"content", "timestamp"}:
        return False
    stamp = data.get("timestamp")
    return stamp is None or (type(stamp) is int and 0 <= stamp < 2**64)


def from_phi_core(value: Any, *, name: str = "") -> Conversion[Any]:
    """A phi-core 0.10 value (a message, a list of messages, a content block, ``Usage``,
    ``StopReason``, an event ``ToolResult``) as clark-agent 0.4's."""
    losses = _Losses()
    if isinstance(value, list):
        converted: Any = [
            _from_phi_item(item, _at("", index), losses) for index, item in enumerate(value)
        ]
    else:
        converted = _from_phi_item(value, "", losses)
    return Conversion(converted, tuple(losses))


def _from_phi_item(value: Any, pointer: str, losses: _Losses) -> Any:
    if isinstance(value, (*PHI_LLM, *PHI_PLAIN, phi.ExtensionMessage)):
        return _message_from_phi(value, pointer, losses)
    if isinstance(value, phi.TextContent | phi.ImageContent | phi.ThinkingContent):
        lane = "user" if isinstance(value, phi.ImageContent) else "assistant"
        return _block_from_phi(value, pointer, losses, lane)
    if isinstance(value, phi.ToolCallContent):  # a content block: clark's tool_call block
        return _block_from_phi(value, pointer, losses, "assistant")
    if isinstance(value, phi.Usage):
        return _usage_from_phi(value, pointer, losses)
    if isinstance(value, phi.StopReason):
        if STOP_REASON_TO_PHI[STOP_REASON_FROM_PHI[value.value]] != value.value:
            losses.add(pointer, "changed", f"clark-agent has no {value.value!r}: other")
        return clark.StopReason(STOP_REASON_FROM_PHI[value.value])
    if isinstance(value, phi.ToolResult):
        if value.child_loop_id is not None:
            losses.add(_at(pointer, "child_loop_id"), "dropped", "clark-agent has no child loops")
        return clark.ToolResult(
            content=_blocks_from_phi(value.content, _at(pointer, "content"), losses, "tool"),
            details=value.details,
        )
    raise UnsupportedConversion(
        f"no clark-agent counterpart for phi-core's {type(value).__name__} (convertible: "
        "messages and message lists, sessions, events and event streams, content blocks, "
        "Usage, StopReason, ToolResult)"
    )
