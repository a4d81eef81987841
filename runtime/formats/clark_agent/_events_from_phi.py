"""phi-core 0.10 -> clark-agent 0.4, events: a phi-core ``AgentEvent`` stream as clark-agent's
``AgentEvent``\\ s. clark-agent's events carry less than phi-core's: every event field clark-agent
has no place for (the loop id, timestamps, usage, the turn index...) is a ``dropped`` loss at its
pointer, and a phi-core event clark-agent has no event for (``TurnRequest``, progress,
parallel-loop, compaction, prune and revert events, ``InputRejected``) is dropped whole, one loss
naming it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

import phi_wire.clark_agent as clark
import phi_wire.v0_10 as phi
from phi_wire.convert import Conversion, UnsupportedConversion
from phi_wire.convert import Losses as _Losses
from phi_wire.pointer import extended as _at

from ._from_phi import _from_phi_item, _message_from_phi
from ._from_phi import from_phi_core as _values_from_phi_core
from ._shared import phi_events

__all__ = ["PHI_EVENTS", "event_from_phi", "from_phi_core"]

PHI_EVENTS = phi_events()
"""phi-core 0.10's event classes (``AgentEvent``'s variants)."""

_CARRIED: dict[str, frozenset[str]] = {
    "AgentStart": frozenset({"type"}),
    "AgentEnd": frozenset({"type", "messages"}),
    "TurnStart": frozenset({"type"}),
    "TurnEnd": frozenset({"type", "message", "tool_results"}),
    "MessageStart": frozenset({"type", "message"}),
    "MessageUpdate": frozenset({"type", "message", "delta"}),
    "MessageEnd": frozenset({"type", "message"}),
    "ToolExecutionStart": frozenset({"type", "tool_call_id", "tool_name", "args"}),
    "ToolExecutionUpdate": frozenset({"type", "tool_call_id", "tool_name", "partial_result"}),
    "ToolExecutionEnd": frozenset({"type", "tool_call_id", "tool_name", "result", "is_error"}),
}
"""The fields of each phi-core event clark-agent's event of the same name carries."""


def _drop_uncarried(event: BaseModel, name: str, pointer: str, losses: _Losses) -> None:
    """Each field the event's JSON had (not None) that clark-agent's event does not carry."""
    carried = _CARRIED[name]
    fields = type(event).model_fields
    for field in sorted(event.model_fields_set - carried, key=list(fields).index):
        if getattr(event, field) is None:
            continue
        key = fields[field].alias or field
        losses.add(_at(pointer, key), "dropped", f"clark-agent's {name} event has no {key}")


def _delta_from_phi(delta: Any, pointer: str, losses: _Losses) -> Any:
    if isinstance(delta, phi.TextDelta):
        return clark.TextChunk(delta=delta.text.delta)
    if isinstance(delta, phi.ThinkingDelta):
        return clark.ReasoningChunk(delta=delta.thinking.delta)
    losses.add(pointer, "invented", "clark-agent's tool-call delta has an index: 0")
    return clark.ToolCallDeltaChunk(index=0, arguments_delta=delta.tool_call_delta.delta)


def event_from_phi(event: Any, pointer: str, losses: _Losses) -> Any:
    """One phi-core event as clark-agent's, or None (no counterpart: a loss says so)."""
    name = type(event).__name__
    if name not in _CARRIED:
        losses.add(pointer, "dropped", f"clark-agent has no {name} event")
        return None
    _drop_uncarried(event, name, pointer, losses)
    if isinstance(event, phi.AgentStart | phi.TurnStart):
        return getattr(clark, name)()
    if isinstance(event, phi.AgentEnd):
        messages = [
            _message_from_phi(message, _at(pointer, "messages", index), losses)
            for index, message in enumerate(event.messages)
        ]
        return clark.AgentEnd(messages=messages)
    if isinstance(event, phi.TurnEnd):
        return clark.TurnEnd(
            message=_message_from_phi(event.message, _at(pointer, "message"), losses),
            tool_results=[
                _message_from_phi(result, _at(pointer, "tool_results", index), losses)
                for index, result in enumerate(event.tool_results)
            ],
        )
    if isinstance(event, phi.MessageStart | phi.MessageEnd):
        message = _message_from_phi(event.message, _at(pointer, "message"), losses)
        return getattr(clark, name)(message=message)
    if isinstance(event, phi.MessageUpdate):
        return clark.MessageUpdate(
            partial=_message_from_phi(event.message, _at(pointer, "message"), losses),
            chunk=_delta_from_phi(event.delta, _at(pointer, "delta"), losses),
        )
    if isinstance(event, phi.ToolExecutionStart):
        return clark.ToolExecutionStart(
            tool_call_id=event.tool_call_id, tool_name=event.tool_name, args=event.args
        )
    if isinstance(event, phi.ToolExecutionUpdate):
        return clark.ToolExecutionUpdate(
            tool_call_id=event.tool_call_id,
            tool_name=event.tool_name,
            partial=_from_phi_item(event.partial_result, _at(pointer, "partial_result"), losses),
        )
    if isinstance(event, phi.ToolExecutionEnd):
        return clark.ToolExecutionEnd(
            tool_call_id=event.tool_call_id,
            tool_name=event.tool_name,
            result=_from_phi_item(event.result, _at(pointer, "result"), losses),
            is_error=event.is_error,
        )
    raise UnsupportedConversion(f"not a phi-core event: {name}")  # pragma: no cover


def from_phi_core(value: Any, *, name: str = "") -> Conversion[Any]:
    """A phi-core 0.10 value as clark-agent 0.4's: an event or an event stream (a list of events)
    here, anything else as ``_from_phi`` converts it (``name``: clark-agent invents no ids)."""
    if isinstance(value, PHI_EVENTS):
        losses = _Losses()
        return Conversion(event_from_phi(value, "", losses), tuple(losses))
    if isinstance(value, list) and value and all(isinstance(item, PHI_EVENTS) for item in value):
        losses = _Losses()
        events = [event_from_phi(event, _at("", i), losses) for i, event in enumerate(value)]
        converted = [event for event in events if event is not None]
        return Conversion(converted, tuple(losses))
    return _values_from_phi_core(value, name=name)
