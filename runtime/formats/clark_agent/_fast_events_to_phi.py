"""clark-agent 0.4 events -> phi-core 0.10 events, dict to dict: the events as JSON gives them
(lines clark-agent's fast path vouched for), phi-core's built in its writer's key order (an event
in declaration order, its LlmMessages sorted, a TurnEnd's tool results and a ToolResult's blocks
in declaration order, free-form values sorted), with the same losses at the same pointers as
``_to_phi._event_to_phi``, and the run's state (``_Run``: its identity, the turn counted, the
latest message's timestamp) carried in the same object as the model path's, so both paths can
take turns on one stream. A document this cannot convert exactly raises ``FastUnsupported``
(and leaves the run's state as it was)."""

from __future__ import annotations

from typing import Any

from phi_wire.convert import FastUnsupported, Place, PlacedLosses

from ._fast_to_phi import _blocks, _free, _message
from ._shared import _EPOCH, _ms_to_rfc3339

__all__ = ["events_to_phi"]

_NO_COUNTERPART: dict[str, str] = {
    "run_identified": "phi-core has no run-identity event (its run_id becomes the loop_id)",
    "output_tokens_escalation": "phi-core has no output-cap escalation event",
    "context_transform_applied": "phi-core has no context-transform event",
    "tool_gate_applied": "phi-core has no tool-gate event",
    "tool_gate_conflict_resolved": "phi-core has no tool-gate event",
    "provider_request_prepared": (
        "phi-core's TurnRequest carries the provider payload, which this snapshot does not hold"
    ),
}
_LOOP_OF_RUN = "phi-core requires loop_id: the run's run_id"
_NO_LOOP = "phi-core requires loop_id; no run_identified: empty"
_USAGE_ORDER = ("input", "output", "reasoning", "cache_read", "cache_write", "total_tokens")


class _State:
    """The run's state as ``_to_phi._Run`` keeps it (the same object), read and written here."""

    def __init__(self, run: Any) -> None:
        self.run = run
        identity = run.identity  # one for the whole stream: its loop id written once a batch
        self.loop = "" if identity is None else str(identity.run_id)
        self.loop_reason = _NO_LOOP if identity is None else _LOOP_OF_RUN

    def loop_id(self, place: Place, losses: PlacedLosses) -> str:
        losses.lose((place, "invented", self.loop_reason))
        return self.loop

    def remember(self, message: dict[str, Any]) -> None:
        own = message.get("timestamp")
        if type(own) is int:
            self.run.last_timestamp = own

    def timestamp(self, place: Place, losses: PlacedLosses) -> str:
        last = self.run.last_timestamp
        if last is None:
            losses.lose((place, "invented", f"phi-core requires a timestamp: {_EPOCH}"))
            return _EPOCH
        losses.lose((place, "invented", "phi-core requires a timestamp: the latest message's"))
        return _ms_to_rfc3339(last)


def _declared(block: dict[str, Any]) -> dict[str, Any]:
    """A content block (as an LlmMessage holds it: sorted) in declaration order, as a plain
    Message or a ToolResult holds it."""
    kind = block["type"]
    if kind == "text":
        return {"type": "text", "text": block["text"]}
    if kind == "image":
        return {"type": "image", "data": block["data"], "mimeType": block["mimeType"]}
    if kind == "thinking":
        declared = {"type": "thinking", "thinking": block["thinking"]}
        if "signature" in block:
            declared["signature"] = block["signature"]
        return declared
    arguments = block["arguments"]
    return {"type": "toolCall", "id": block["id"], "name": block["name"], "arguments": arguments}


def _usage(usage: dict[str, Any]) -> dict[str, Any]:
    return {key: usage[key] for key in _USAGE_ORDER}


_ZERO_USAGE = dict.fromkeys(_USAGE_ORDER, 0)


def _plain(message: dict[str, Any], place: Place, losses: PlacedLosses) -> dict[str, Any] | None:
    """A clark message as phi-core's plain Message (TurnEnd.tool_results), or None."""
    converted = _message(message, place, losses)
    role = converted["role"]
    content = [_declared(block) for block in converted.get("content", ())]
    if role == "user":
        return {"role": "user", "content": content, "timestamp": converted["timestamp"]}
    if role == "assistant":
        plain = {
            "role": "assistant",
            "content": content,
            "stopReason": converted["stopReason"],
            "model": converted["model"],
            "provider": converted["provider"],
            "usage": _usage(converted["usage"]),
            "timestamp": converted["timestamp"],
        }
        if "error_message" in converted:
            plain["error_message"] = converted["error_message"]
        return plain
    if role == "toolResult":
        return {
            "role": "toolResult",
            "toolCallId": converted["toolCallId"],
            "toolName": converted["toolName"],
            "content": content,
            "isError": converted["isError"],
            "timestamp": converted["timestamp"],
        }
    losses.lose((place, "dropped", "phi-core's TurnEnd.tool_results holds LLM messages only"))
    return None


def _delta(chunk: dict[str, Any], place: Place, losses: PlacedLosses) -> dict[str, Any] | None:
    kind = chunk["kind"]
    if kind == "text":
        return {"Text": {"delta": chunk["delta"]}}
    if kind == "reasoning":
        return {"Thinking": {"delta": chunk["delta"]}}
    if kind == "thinking":
        losses.lose(((place, "kind"), "changed", "tag-elicited thinking: a Thinking delta"))
        return {"Thinking": {"delta": chunk["delta"]}}
    if kind == "tool_call_delta":
        losses.lose(((place, "index"), "dropped", "phi-core's ToolCallDelta has no index"))
        for key in ("id_delta", "name_delta"):
            if chunk.get(key) is not None:
                reason = f"phi-core's ToolCallDelta has no {key}"
                losses.lose(((place, key), "dropped", reason))
        arguments = chunk.get("arguments_delta")
        if arguments is None:
            losses.lose((place, "invented", "no arguments_delta: an empty delta"))
        return {"ToolCallDelta": {"delta": arguments or ""}}
    return None  # reasoning_details: no StreamDelta carries items


def _tool_result(result: dict[str, Any], place: Place, losses: PlacedLosses) -> dict[str, Any]:
    for key in ("is_error", "terminate"):
        if result.get(key):
            losses.lose(((place, key), "dropped", f"phi-core's ToolResult has no {key}"))
    if result.get("narration") is not None:
        reason = "phi-core's ToolResult has no narration"
        losses.lose(((place, "narration"), "dropped", reason))
    content = _blocks(result["content"], (place, "content"), losses)
    details = result.get("details")
    if details is not None:
        details = _free(details, "details", place, losses)
    return {"content": [_declared(block) for block in content], "details": details}


def _event(event: dict[str, Any], place: Place, losses: PlacedLosses, state: _State) -> Any:
    kind = event["type"]
    reason = _NO_COUNTERPART.get(kind)
    if reason is not None:
        losses.lose((place, "dropped", reason))
        return None
    if kind == "message_update":
        delta = _delta(event["chunk"], (place, "chunk"), losses)
        if delta is None:
            reason = "phi-core's StreamDelta has no reasoning-details delta"
            losses.lose((place, "dropped", reason))
            return None
        loop_id = state.loop_id(place, losses)
        partial = _message(event["partial"], (place, "partial"), losses)
        return {"type": "MessageUpdate", "loop_id": loop_id, "message": partial, "delta": delta}
    if kind in ("message_start", "message_end"):
        state.remember(event["message"])
        loop_id = state.loop_id(place, losses)
        message = _message(event["message"], (place, "message"), losses)
        name = "MessageStart" if kind == "message_start" else "MessageEnd"
        return {"type": name, "loop_id": loop_id, "message": message}
    if kind == "tool_execution_start":
        loop_id = state.loop_id(place, losses)
        args = _free(event["args"], "args", place, losses)
        return {
            "type": "ToolExecutionStart",
            "loop_id": loop_id,
            "tool_call_id": event["tool_call_id"],
            "tool_name": event["tool_name"],
            "args": args,
        }
    if kind == "tool_execution_update":
        loop_id = state.loop_id(place, losses)
        partial = _tool_result(event["partial"], (place, "partial"), losses)
        return {
            "type": "ToolExecutionUpdate",
            "loop_id": loop_id,
            "tool_call_id": event["tool_call_id"],
            "tool_name": event["tool_name"],
            "partial_result": partial,
        }
    if kind == "tool_execution_end":
        loop_id = state.loop_id(place, losses)
        result = _tool_result(event["result"], (place, "result"), losses)
        return {
            "type": "ToolExecutionEnd",
            "loop_id": loop_id,
            "tool_call_id": event["tool_call_id"],
            "tool_name": event["tool_name"],
            "result": result,
            "is_error": event["is_error"],
            "child_loop_id": None,
        }
    if kind == "turn_end":
        message = _message(event["message"], (place, "message"), losses)
        results_place = (place, "tool_results")
        results = [
            _plain(result, (results_place, index), losses)
            for index, result in enumerate(event["tool_results"])
        ]
        loop_id = state.loop_id(place, losses)
        usage = _usage(message["usage"]) if "usage" in message else _ZERO_USAGE
        state.remember(event["message"])
        return {
            "type": "TurnEnd",
            "loop_id": loop_id,
            "message": message,
            "usage": usage,
            "timestamp": state.timestamp(place, losses),
            "tool_results": [result for result in results if result is not None],
        }
    if kind == "turn_start":
        state.run.turn_index += 1
        losses.lose((place, "invented", "phi-core requires turn_index: counted from turn_start"))
        losses.lose((place, "invented", "phi-core requires triggered_by: User"))
        return {
            "type": "TurnStart",
            "loop_id": state.loop_id(place, losses),
            "turn_index": max(state.run.turn_index, 0),
            "timestamp": state.timestamp(place, losses),
            "triggered_by": "User",
        }
    if kind == "agent_start":
        for key in ("agent_id", "session_id"):
            losses.lose((place, "invented", f"phi-core requires {key}: empty"))
        return {
            "type": "AgentStart",
            "agent_id": "",
            "session_id": "",
            "loop_id": state.loop_id(place, losses),
            "parent_loop_id": None,
            "continuation_kind": "Initial",
            "timestamp": state.timestamp(place, losses),
            "metadata": None,
        }
    if kind == "agent_end":
        messages_place = (place, "messages")
        messages = [
            _message(message, (messages_place, index), losses)
            for index, message in enumerate(event["messages"])
        ]
        reason = "phi-core requires the run's usage: the messages' sum"
        losses.lose((place, "invented", reason))
        total = dict(_ZERO_USAGE)
        for message in messages:
            counts = message.get("usage")
            if counts is not None:
                for key in _USAGE_ORDER:
                    total[key] += counts[key]
        return {
            "type": "AgentEnd",
            "loop_id": state.loop_id(place, losses),
            "messages": messages,
            "usage": total,
            "timestamp": state.timestamp(place, losses),
            "rejection": None,
        }
    raise FastUnsupported(f"an event of type {kind!r}")


def events_to_phi(
    documents: list[dict[str, Any]], run: Any
) -> tuple[list[dict[str, Any]], PlacedLosses]:
    """clark-agent events as phi-core's (one clark-agent has none for left out, a loss naming
    it), the run's state in ``run`` (``_to_phi._Run``) carried on; ``FastUnsupported`` leaves
    it as it was."""
    state = _State(run)
    saved = (run.turn_index, run.last_timestamp)
    losses = PlacedLosses()
    converted = []
    try:
        for index, document in enumerate(documents):
            event = _event(document, (None, index), losses, state)
            if event is not None:
                converted.append(event)
    except FastUnsupported:
        run.turn_index, run.last_timestamp = saved
        raise
    return converted, losses
