"""clark-agent 0.4 <-> phi-core 0.10: messages, blocks, usage, stop reasons, tool results, history
rows, and clark-agent's events into phi-core's.

The mapping tables are in ``docs/conversions/clark-agent.md`` (the tests read its stop-reason
and usage tables and compare them with ``STOP_REASON_TO_PHI``, ``STOP_REASON_FROM_PHI`` and
``USAGE_FIELDS``). The decisions this module implements, in short:

* ``system`` has no phi-core message: it becomes an ``ExtensionMessage`` of kind
  ``SYSTEM_KIND`` whose data is ``{"content": ..., "timestamp": ...}``; ``custom`` becomes an
  ``ExtensionMessage`` with the same kind and ``data`` = payload (its timestamp has no place).
  Both come back as they were.
* ``reasoning`` <-> ``thinking``; clark's tag-elicited ``thinking`` becomes a phi-core
  ``thinking`` too and comes back as ``reasoning`` (a named loss); ``reasoning_details`` travels
  as an empty ``thinking`` block whose ``signature`` (phi-core's opaque echo-back token) is the
  compact JSON of clark's ``ReasoningDetailsContent``, key order kept.
* ``image``: a base64 ``data:`` URL splits into ``data`` + ``mimeType``; any other URL is kept
  verbatim in ``data`` (base64 never holds ``:``, so it is recognised on the way back).
* user content: a string is one text block; one text block comes back as a string.
* usage: an absent clark usage is an all-zero phi-core usage, and an all-zero one comes back as
  absent; counters outside the other side's range are clamped (named).

Every loss names a JSON pointer into the *source* document (wire key names).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel

import phi_wire.clark_agent as clark
import phi_wire.v0_10 as phi
from phi_wire.convert import Conversion, Loss, UnsupportedConversion
from phi_wire.pointer import escape

__all__ = [
    "STOP_REASON_FROM_PHI",
    "STOP_REASON_TO_PHI",
    "SYSTEM_KIND",
    "USAGE_FIELDS",
    "from_phi_core",
    "to_phi_core",
]

SYSTEM_KIND = "clark-agent.system"
"""The ExtensionMessage kind that carries a clark-agent ``system`` message through phi-core."""

STOP_REASON_TO_PHI: dict[str, str] = {
    "end_turn": "stop",
    "tool_use": "toolUse",
    "max_tokens": "length",
    "error": "error",
    "aborted": "aborted",
    "other": "stop",  # changed: phi-core has no "other"
}
STOP_REASON_FROM_PHI: dict[str, str] = {
    "stop": "end_turn",
    "toolUse": "tool_use",
    "length": "max_tokens",
    "error": "error",
    "aborted": "aborted",
    "maxTurns": "other",
    "userStop": "other",
    "handoff": "other",
    "guardRail": "other",
    "contextCompacted": "other",
    "paused": "other",
}

USAGE_FIELDS: dict[str, str] = {
    "input_tokens": "input",
    "output_tokens": "output",
    "cache_creation_input_tokens": "cache_write",
    "cache_read_input_tokens": "cache_read",
}
"""clark-agent Usage key -> phi-core Usage key."""

_I64_MAX = 2**63 - 1
_DATA_URL = re.compile(r"data:([^;,]+);base64,(.*)", re.DOTALL)
_EPOCH = "1970-01-01T00:00:00Z"

CLARK_MESSAGES = (
    clark.SystemMessage,
    clark.UserMessage,
    clark.AssistantMessage,
    clark.ToolResultMessage,
    clark.CustomMessage,
)
PHI_LLM = (phi.LlmUserMessage, phi.LlmAssistantMessage, phi.LlmToolResultMessage)
PHI_PLAIN = (phi.UserMessage, phi.AssistantMessage, phi.ToolResultMessage)


class _Losses:
    """The losses of one conversion, with the pointer prefix of the value being converted."""

    def __init__(self) -> None:
        self.items: list[Loss] = []

    def add(self, pointer: str, kind: str, reason: str) -> None:
        self.items.append(Loss(pointer, kind, reason))  # type: ignore[arg-type]


def _at(pointer: str, *keys: str | int) -> str:
    return pointer + "".join("/" + escape(key) for key in keys)


# --- shared pieces -----------------------------------------------------------------------------


def _ms_to_rfc3339(ms: int) -> str:
    """Unix milliseconds as chrono writes a DateTime<Utc>: 0 or 3 fraction digits, ``Z``."""
    seconds, millis = divmod(ms, 1000)
    try:
        text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    except (OverflowError, OSError, ValueError):
        return _EPOCH
    if not text[:4].isdigit() or len(text) != 19:
        return _EPOCH
    return text + (f".{millis:03d}" if millis else "") + "Z"


def _usage_to_phi(usage: Any, pointer: str, losses: _Losses) -> Any:
    values: dict[str, int] = {}
    for clark_key, phi_key in USAGE_FIELDS.items():
        count = getattr(usage, clark_key)
        if count < 0:
            losses.add(
                _at(pointer, clark_key), "changed", "negative: phi-core's u64 counter holds 0"
            )
            count = 0
        values[phi_key] = count
    return phi.Usage(**values)


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


def _is_zero_usage(usage: Any) -> bool:
    return not any(getattr(usage, name) for name in type(usage).model_fields)


# --- blocks: clark-agent -> phi-core ----------------------------------------------------------


def _image_to_phi(block: Any, pointer: str, losses: _Losses) -> Any:
    match = _DATA_URL.fullmatch(block.source)
    if match is not None:
        mime, data = match.group(1), match.group(2)
        if block.media_type is None:
            losses.add(
                pointer, "changed", "no media_type: converting back writes the data URL's type"
            )
        elif block.media_type != mime:
            losses.add(
                _at(pointer, "media_type"),
                "dropped",
                f"phi-core's mimeType is the data URL's type ({mime})",
            )
    else:
        data = block.source
        mime = block.media_type or ""
        losses.add(
            _at(pointer, "source"),
            "changed",
            "not a base64 data: URL: phi-core's image data holds base64 bytes, so the URL is kept "
            "in data as-is (fetch it before sending the message to a provider)",
        )
        if block.media_type is None:
            losses.add(pointer, "invented", "phi-core requires a mimeType: empty")
    if block.alt is not None:
        losses.add(_at(pointer, "alt"), "dropped", "phi-core's image has no alt text")
    return phi.ImageContent(data=data, mime_type=mime)


def _details_carrier(block: Any) -> str:
    return clark.dumps(clark.ReasoningDetailsContent(details=block.details))


def _block_to_phi(block: Any, pointer: str, losses: _Losses) -> Any:
    if isinstance(block, clark.TextBlock):
        return phi.TextContent(text=block.text)
    if isinstance(block, clark.ImageBlock):
        return _image_to_phi(block, pointer, losses)
    if isinstance(block, clark.ReasoningBlock):
        return phi.ThinkingContent(thinking=block.text)
    if isinstance(block, clark.ThinkingBlock):
        losses.add(
            _at(pointer, "type"),
            "changed",
            "phi-core has one thinking block for clark-agent's tag-elicited thinking and its "
            "provider-native reasoning: this one comes back as a reasoning block",
        )
        return phi.ThinkingContent(thinking=block.text)
    if isinstance(block, clark.ReasoningDetailsBlock):
        return phi.ThinkingContent(thinking="", signature=_details_carrier(block))
    if isinstance(block, clark.ToolCallBlock):
        return phi.ToolCallContent(id=block.id, name=block.name, arguments=block.arguments)
    raise UnsupportedConversion(f"not a clark-agent content block: {type(block).__name__}")


def _blocks_to_phi(blocks: Sequence[Any], pointer: str, losses: _Losses) -> list[Any]:
    return [_block_to_phi(block, _at(pointer, index), losses) for index, block in enumerate(blocks)]


def _timestamp_to_phi(timestamp: int | None, pointer: str, losses: _Losses) -> int:
    if timestamp is None:
        losses.add(pointer, "invented", "no timestamp (it was null): phi-core requires one: 0")
        return 0
    return timestamp


# --- messages: clark-agent -> phi-core --------------------------------------------------------


def _message_to_phi(message: Any, pointer: str, losses: _Losses) -> Any:
    if isinstance(message, clark.SystemMessage):
        data: dict[str, Any] = {"content": message.content}
        if message.timestamp is not None:
            data["timestamp"] = message.timestamp
        return phi.ExtensionMessage(role="extension", kind=SYSTEM_KIND, data=data)
    if isinstance(message, clark.CustomMessage):
        if message.timestamp is not None:
            losses.add(
                _at(pointer, "timestamp"), "dropped", "phi-core's ExtensionMessage has no timestamp"
            )
        return phi.ExtensionMessage(role="extension", kind=message.kind, data=message.payload)
    timestamp = _timestamp_to_phi(message.timestamp, pointer, losses)
    if isinstance(message, clark.UserMessage):
        content = message.content
        if isinstance(content, str):
            blocks = [phi.TextContent(text=content)]
        else:
            if len(content) == 1 and isinstance(content[0], clark.TextBlock):
                losses.add(
                    _at(pointer, "content"),
                    "changed",
                    "one text block: phi-core cannot tell it from plain string content, which it "
                    "comes back as",
                )
            blocks = _blocks_to_phi(content, _at(pointer, "content"), losses)
        return phi.LlmUserMessage(content=blocks, timestamp=timestamp)
    if isinstance(message, clark.AssistantMessage):
        return _assistant_to_phi(message, timestamp, pointer, losses)
    if isinstance(message, clark.ToolResultMessage):
        for key in ("narration", "details"):
            if getattr(message, key) is not None:
                losses.add(_at(pointer, key), "dropped", f"phi-core's toolResult has no {key}")
        return phi.LlmToolResultMessage(
            tool_call_id=message.tool_call_id,
            tool_name=message.tool_name,
            content=_blocks_to_phi(message.content, _at(pointer, "content"), losses),
            is_error=message.is_error,
            timestamp=timestamp,
        )
    raise UnsupportedConversion(f"not a clark-agent message: {type(message).__name__}")


def _assistant_to_phi(message: Any, timestamp: int, pointer: str, losses: _Losses) -> Any:
    stop = message.stop_reason.value
    if stop == "other":
        losses.add(
            _at(pointer, "stop_reason"), "changed", 'phi-core has no "other": stop (end_turn back)'
        )
    for key in ("model", "provider"):
        losses.add(pointer, "invented", f"phi-core requires {key}; clark-agent has none: empty")
    if message.usage is None:
        usage = phi.Usage(input=0, output=0)
        losses.add(pointer, "invented", "no usage: phi-core requires one: all zero")
    else:
        if _is_zero_usage(message.usage):
            losses.add(
                _at(pointer, "usage"), "changed", "all zero: it comes back as no usage at all"
            )
        usage = _usage_to_phi(message.usage, _at(pointer, "usage"), losses)
    return phi.LlmAssistantMessage(
        content=_blocks_to_phi(message.content, _at(pointer, "content"), losses),
        stop_reason=phi.StopReason(STOP_REASON_TO_PHI[stop]),
        model="",
        provider="",
        usage=usage,
        timestamp=timestamp,
        error_message=message.error_message,
    )


def _tool_result_to_phi(result: Any, pointer: str, losses: _Losses) -> Any:
    """tool.rs's ToolResult (tool events) -> phi-core's event ToolResult."""
    for key in ("is_error", "terminate"):
        if getattr(result, key):
            losses.add(_at(pointer, key), "dropped", f"phi-core's ToolResult has no {key}")
    if result.narration is not None:
        losses.add(_at(pointer, "narration"), "dropped", "phi-core's ToolResult has no narration")
    return phi.ToolResult(
        content=_blocks_to_phi(result.content, _at(pointer, "content"), losses),
        details=result.details,
    )


# --- events: clark-agent -> phi-core ----------------------------------------------------------


class _Run:
    """What a clark event stream tells about the phi-core fields its events lack."""

    def __init__(self, events: Sequence[Any]) -> None:
        identities = [event.identity for event in events if isinstance(event, clark.RunIdentified)]
        self.identity = identities[0] if identities else None
        self.turn_index = -1
        self.last_timestamp: int | None = None

    def loop_id(self, pointer: str, losses: _Losses) -> str:
        if self.identity is not None:
            losses.add(pointer, "invented", "phi-core requires loop_id: the run's run_id")
            return str(self.identity.run_id)
        losses.add(pointer, "invented", "phi-core requires loop_id; no run_identified: empty")
        return ""

    def timestamp(self, pointer: str, losses: _Losses, message: Any = None) -> str:
        own = getattr(message, "timestamp", None) if message is not None else None
        if isinstance(own, int):
            self.last_timestamp = own
        if self.last_timestamp is None:
            losses.add(pointer, "invented", f"phi-core requires a timestamp: {_EPOCH}")
            return _EPOCH
        losses.add(pointer, "invented", "phi-core requires a timestamp: the latest message's")
        return _ms_to_rfc3339(self.last_timestamp)


_PLAIN_OF: dict[type[BaseModel], type[BaseModel]] = {
    phi.LlmUserMessage: phi.UserMessage,
    phi.LlmAssistantMessage: phi.AssistantMessage,
    phi.LlmToolResultMessage: phi.ToolResultMessage,
}


def _plain_message(message: Any, pointer: str, losses: _Losses) -> Any:
    """A clark message as phi-core's plain Message (TurnEnd.tool_results), or None."""
    converted = _message_to_phi(message, pointer, losses)
    if isinstance(converted, phi.ExtensionMessage):
        losses.add(pointer, "dropped", "phi-core's TurnEnd.tool_results holds LLM messages only")
        return None
    plain: type[BaseModel] = _PLAIN_OF[type(converted)]
    return plain.model_validate(converted.model_dump(by_alias=False))


def _delta_to_phi(chunk: Any, pointer: str, losses: _Losses) -> Any:
    if isinstance(chunk, clark.TextChunk):
        return phi.TextDelta(text=phi.DeltaBody(delta=chunk.delta))
    if isinstance(chunk, clark.ReasoningChunk):
        return phi.ThinkingDelta(thinking=phi.DeltaBody(delta=chunk.delta))
    if isinstance(chunk, clark.ThinkingChunk):
        losses.add(_at(pointer, "kind"), "changed", "tag-elicited thinking: a Thinking delta")
        return phi.ThinkingDelta(thinking=phi.DeltaBody(delta=chunk.delta))
    if isinstance(chunk, clark.ToolCallDeltaChunk):
        losses.add(_at(pointer, "index"), "dropped", "phi-core's ToolCallDelta has no index")
        for key in ("id_delta", "name_delta"):
            if getattr(chunk, key) is not None:
                losses.add(_at(pointer, key), "dropped", f"phi-core's ToolCallDelta has no {key}")
        if chunk.arguments_delta is None:
            losses.add(pointer, "invented", "no arguments_delta: an empty delta")
        return phi.ToolCallDelta(tool_call_delta=phi.DeltaBody(delta=chunk.arguments_delta or ""))
    return None  # reasoning_details: no StreamDelta carries items


_NO_COUNTERPART: dict[type[BaseModel], str] = {
    clark.RunIdentified: "phi-core has no run-identity event (its run_id becomes the loop_id)",
    clark.OutputTokensEscalation: "phi-core has no output-cap escalation event",
    clark.ContextTransformApplied: "phi-core has no context-transform event",
    clark.ToolGateApplied: "phi-core has no tool-gate event",
    clark.ToolGateConflictResolved: "phi-core has no tool-gate event",
    clark.ProviderRequestPrepared: (
        "phi-core's TurnRequest carries the provider payload, which this snapshot does not hold"
    ),
}


def _event_to_phi(event: Any, pointer: str, losses: _Losses, run: _Run) -> Any:
    reason = _NO_COUNTERPART.get(type(event))
    if reason is not None:
        losses.add(pointer, "dropped", reason)
        return None
    message_pointer = _at(pointer, "message")
    if isinstance(event, clark.AgentStart):
        for key in ("agent_id", "session_id"):
            losses.add(pointer, "invented", f"phi-core requires {key}: empty")
        return phi.AgentStart(
            agent_id="",
            session_id="",
            loop_id=run.loop_id(pointer, losses),
            timestamp=run.timestamp(pointer, losses),
        )
    if isinstance(event, clark.AgentEnd):
        messages = [
            _message_to_phi(message, _at(pointer, "messages", index), losses)
            for index, message in enumerate(event.messages)
        ]
        losses.add(pointer, "invented", "phi-core requires the run's usage: the messages' sum")
        return phi.AgentEnd(
            loop_id=run.loop_id(pointer, losses),
            messages=messages,
            usage=_sum_usage(messages),
            timestamp=run.timestamp(pointer, losses),
        )
    if isinstance(event, clark.TurnStart):
        run.turn_index += 1
        losses.add(pointer, "invented", "phi-core requires turn_index: counted from turn_start")
        losses.add(pointer, "invented", "phi-core requires triggered_by: User")
        return phi.TurnStart(
            loop_id=run.loop_id(pointer, losses),
            turn_index=max(run.turn_index, 0),
            timestamp=run.timestamp(pointer, losses),
            triggered_by=phi.TurnTrigger.USER,
        )
    if isinstance(event, clark.TurnEnd):
        message = _message_to_phi(event.message, message_pointer, losses)
        results = [
            _plain_message(result, _at(pointer, "tool_results", index), losses)
            for index, result in enumerate(event.tool_results)
        ]
        return phi.TurnEnd(
            loop_id=run.loop_id(pointer, losses),
            message=message,
            usage=getattr(message, "usage", None) or phi.Usage(input=0, output=0),
            timestamp=run.timestamp(pointer, losses, event.message),
            tool_results=[result for result in results if result is not None],
        )
    if isinstance(event, clark.MessageStart | clark.MessageEnd):
        run.timestamp(pointer, _Losses(), event.message)  # remember it; no timestamp here
        target = phi.MessageStart if isinstance(event, clark.MessageStart) else phi.MessageEnd
        return target(
            loop_id=run.loop_id(pointer, losses),
            message=_message_to_phi(event.message, message_pointer, losses),
        )
    if isinstance(event, clark.MessageUpdate):
        delta = _delta_to_phi(event.chunk, _at(pointer, "chunk"), losses)
        if delta is None:
            losses.add(pointer, "dropped", "phi-core's StreamDelta has no reasoning-details delta")
            return None
        return phi.MessageUpdate(
            loop_id=run.loop_id(pointer, losses),
            message=_message_to_phi(event.partial, _at(pointer, "partial"), losses),
            delta=delta,
        )
    if isinstance(event, clark.ToolExecutionStart):
        return phi.ToolExecutionStart(
            loop_id=run.loop_id(pointer, losses),
            tool_call_id=event.tool_call_id,
            tool_name=event.tool_name,
            args=event.args,
        )
    if isinstance(event, clark.ToolExecutionUpdate):
        return phi.ToolExecutionUpdate(
            loop_id=run.loop_id(pointer, losses),
            tool_call_id=event.tool_call_id,
            tool_name=event.tool_name,
            partial_result=_tool_result_to_phi(event.partial, _at(pointer, "partial"), losses),
        )
    if isinstance(event, clark.ToolExecutionEnd):
        return phi.ToolExecutionEnd(
            loop_id=run.loop_id(pointer, losses),
            tool_call_id=event.tool_call_id,
            tool_name=event.tool_name,
            result=_tool_result_to_phi(event.result, _at(pointer, "result"), losses),
            is_error=event.is_error,
        )
    raise UnsupportedConversion(f"not a clark-agent event: {type(event).__name__}")


def _sum_usage(messages: Iterable[Any]) -> Any:
    total = {name: 0 for name in phi.Usage.model_fields}
    for message in messages:
        usage = getattr(message, "usage", None)
        if isinstance(usage, phi.Usage):
            for name in total:
                total[name] += getattr(usage, name)
    return phi.Usage(**total)


CLARK_EVENTS = tuple(
    getattr(clark, name)
    for name in (
        "AgentStart",
        "RunIdentified",
        "AgentEnd",
        "TurnStart",
        "TurnEnd",
        "MessageStart",
        "MessageUpdate",
        "MessageEnd",
        "ToolExecutionStart",
        "ToolExecutionUpdate",
        "ToolExecutionEnd",
        "OutputTokensEscalation",
        "ContextTransformApplied",
        "ToolGateApplied",
        "ToolGateConflictResolved",
        "ProviderRequestPrepared",
    )
)
CLARK_BLOCKS = (
    clark.TextBlock,
    clark.ImageBlock,
    clark.ThinkingBlock,
    clark.ReasoningBlock,
    clark.ReasoningDetailsBlock,
    clark.ToolCallBlock,
)


def to_phi_core(value: Any) -> Conversion[Any]:
    """A clark-agent value (a message, a list of history rows, an event or an event stream, a
    block, ``Usage``, ``StopReason``, ``ToolCall``, ``ToolResult``) as phi-core 0.10's."""
    losses = _Losses()
    converted = _to_phi(value, losses)
    return Conversion(converted, tuple(losses.items))


def _to_phi(value: Any, losses: _Losses) -> Any:
    if isinstance(value, list):
        if value and all(isinstance(item, CLARK_EVENTS) for item in value):
            run = _Run(value)
            events = [
                _event_to_phi(event, _at("", i), losses, run) for i, event in enumerate(value)
            ]
            return [event for event in events if event is not None]
        return [_to_phi_item(item, _at("", index), losses) for index, item in enumerate(value)]
    if isinstance(value, CLARK_EVENTS):
        return _event_to_phi(value, "", losses, _Run([value]))
    return _to_phi_item(value, "", losses)


def _to_phi_item(value: Any, pointer: str, losses: _Losses) -> Any:
    if isinstance(value, CLARK_MESSAGES):
        return _message_to_phi(value, pointer, losses)
    if isinstance(value, CLARK_BLOCKS):
        return _block_to_phi(value, pointer, losses)
    if isinstance(value, clark.Usage):
        return _usage_to_phi(value, pointer, losses)
    if isinstance(value, clark.StopReason):
        if value is clark.StopReason.OTHER:
            losses.add(pointer, "changed", 'phi-core has no "other": stop (end_turn back)')
        return phi.StopReason(STOP_REASON_TO_PHI[value.value])
    if isinstance(value, clark.ToolCall):
        return phi.ToolCallContent(id=value.id, name=value.name, arguments=value.arguments)
    if isinstance(value, clark.ToolResult):
        return _tool_result_to_phi(value, pointer, losses)
    raise UnsupportedConversion(
        f"no phi-core counterpart for clark-agent's {type(value).__name__} (convertible: "
        "messages and history rows, events and event streams, blocks, Usage, StopReason, "
        "ToolCall, ToolResult)"
    )


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


def from_phi_core(value: Any) -> Conversion[Any]:
    """A phi-core 0.10 value (a message, a list of messages, a content block, ``Usage``,
    ``StopReason``, an event ``ToolResult``) as clark-agent 0.4's."""
    losses = _Losses()
    if isinstance(value, list):
        converted: Any = [
            _from_phi_item(item, _at("", index), losses) for index, item in enumerate(value)
        ]
    else:
        converted = _from_phi_item(value, "", losses)
    return Conversion(converted, tuple(losses.items))


def _from_phi_item(value: Any, pointer: str, losses: _Losses) -> Any:
    if isinstance(value, (*PHI_LLM, *PHI_PLAIN, phi.ExtensionMessage)):
        return _message_from_phi(value, pointer, losses)
    if isinstance(value, phi.TextContent | phi.ImageContent | phi.ThinkingContent):
        lane = "user" if isinstance(value, phi.ImageContent) else "assistant"
        return _block_from_phi(value, pointer, losses, lane)
    if isinstance(value, phi.ToolCallContent):
        return clark.ToolCall(id=value.id, name=value.name, arguments=value.arguments)
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
        "messages and message lists, content blocks, Usage, StopReason, ToolResult; events "
        "convert from clark-agent to phi-core only)"
    )
