"""clark-agent 0.4 -> phi-core 0.10: blocks, messages, history rows and clark-agent's events
(``convert`` says what each mapping decides)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel

import phi_wire.clark_agent as clark
import phi_wire.v0_10 as phi
from phi_wire.convert import (
    SORTED_BY_PHI_CORE,
    Conversion,
    FastUnsupported,
    Loss,
    UnsupportedConversion,
    reordered_by_sorting,
)
from phi_wire.convert import Losses as _Losses
from phi_wire.pointer import extended as _at

from ._fast_events_to_phi import events_to_phi
from ._shared import (
    _DATA_URL,
    _EPOCH,
    STOP_REASON_TO_PHI,
    SYSTEM_KIND,
    USAGE_FIELDS,
    _is_zero_usage,
    _ms_to_rfc3339,
    union_members,
)

CLARK_MESSAGES = union_members(clark.AgentMessage)


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


# --- blocks: clark-agent -> phi-core ----------------------------------------------------------


def _free(value: Any, key: str, pointer: str, losses: _Losses) -> Any:
    """The free-form value at ``key`` of the object at ``pointer``: clark-agent keeps its key
    order, phi-core sorts it (``SORTED_BY_PHI_CORE``)."""
    if reordered_by_sorting(value):
        losses.add(pointer, "changed", SORTED_BY_PHI_CORE.format(key=key))
    return value


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
        arguments = _free(block.arguments, "arguments", pointer, losses)
        return phi.ToolCallContent(id=block.id, name=block.name, arguments=arguments)
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
        data = _free(message.payload, "payload", pointer, losses)
        return phi.ExtensionMessage(role="extension", kind=message.kind, data=data)
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
        details=_free(result.details, "details", pointer, losses),
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
            args=_free(event.args, "args", pointer, losses),
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


class EventStreamToPhi:
    """A clark-agent event stream converted to phi-core a batch of events at a time (a streamed
    file): the run's state (the turn counted, the latest message's timestamp) carried from one
    batch to the next, its identity the stream's first ``run_identified`` (found before the first
    batch, wherever it is), so the batches give the events and losses ``to_phi_core`` gives for
    the whole stream (each loss's pointer into its batch: ``/<index in the batch>...``)."""

    def __init__(self, identity: Any | None) -> None:
        self._run = _Run(())
        self._run.identity = identity

    def convert(self, events: Sequence[Any]) -> Conversion[Any]:
        """The next batch of the stream, as ``to_phi_core`` converts a stream's events."""
        if not all(isinstance(event, CLARK_EVENTS) for event in events):
            raise UnsupportedConversion("a clark-agent event stream holds events only")
        losses = _Losses()
        converted = [
            _event_to_phi(event, _at("", index), losses, self._run)
            for index, event in enumerate(events)
        ]
        return Conversion([event for event in converted if event is not None], tuple(losses))

    def convert_dicts(
        self, documents: list[dict[str, Any]], kind: str
    ) -> tuple[list[dict[str, Any]], Sequence[Loss]]:
        """The next events of the stream as JSON (lines clark-agent's fast path vouched for),
        converted dict to dict with this stream's state (``_fast_events_to_phi``): what
        ``convert`` gives for their models, as phi-core's JSON."""
        if kind != "AgentEvent":
            raise FastUnsupported(kind)
        return events_to_phi(documents, self._run)


def _sum_usage(messages: Iterable[Any]) -> Any:
    total = {name: 0 for name in phi.Usage.model_fields}
    for message in messages:
        usage = getattr(message, "usage", None)
        if isinstance(usage, phi.Usage):
            for name in total:
                total[name] += getattr(usage, name)
    return phi.Usage(**total)


CLARK_EVENTS = union_members(clark.AgentEvent)
CLARK_BLOCKS = (
    clark.TextBlock,
    clark.ImageBlock,
    clark.ThinkingBlock,
    clark.ReasoningBlock,
    clark.ReasoningDetailsBlock,
    clark.ToolCallBlock,
)


def to_phi_core(value: Any, *, name: str = "") -> Conversion[Any]:
    """A clark-agent value (a message, a list of history rows, an event or an event stream, a
    block, ``Usage``, ``StopReason``, ``ToolCall``, ``ToolResult``) as phi-core 0.10's."""
    losses = _Losses()
    converted = _to_phi(value, losses)
    return Conversion(converted, tuple(losses))


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
        arguments = _free(value.arguments, "arguments", pointer, losses)
        losses.add(
            pointer,
            "changed",
            "phi-core has a toolCall content block only: it comes back as a tool_call block",
        )
        return phi.ToolCallContent(id=value.id, name=value.name, arguments=arguments)
    if isinstance(value, clark.ToolResult):
        return _tool_result_to_phi(value, pointer, losses)
    raise UnsupportedConversion(
        f"no phi-core counterpart for clark-agent's {type(value).__name__} (convertible: "
        "messages and history rows, events and event streams, blocks, Usage, StopReason, "
        "ToolCall, ToolResult)"
    )
