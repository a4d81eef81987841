"""phi-core 0.10 messages and events -> clark-agent 0.4, dict to dict: the documents as JSON gives
them (lines phi-core's fast path vouched for), clark-agent's built in its writer's key order
(declaration order; free-form values as they came), the same losses at the same pointers as
``_from_phi`` and ``_events_from_phi`` (each kept with its place, ``PlacedLosses``: its pointer
written only when it is read). A document this cannot
convert exactly (a thinking block whose signature may carry clark-agent's reasoning details, a
number phi-wire's writer prints otherwise than Python's ``json``) raises ``FastUnsupported``: it
takes the model path."""

from __future__ import annotations

import functools
from typing import Any

from phi_wire.convert import FastUnsupported, Loss, LossKind, Place, PlacedLosses

from ._fast_to_phi import checked_free
from ._shared import (
    _I64_MAX,
    STOP_REASON_FROM_PHI,
    STOP_REASON_TO_PHI,
    SYSTEM_KIND,
    USAGE_FIELDS,
    phi_events,
)

__all__ = ["events_from_phi", "message_from_phi", "messages_from_phi"]


def _lose(losses: PlacedLosses, place: Place, kind: LossKind, reason: str) -> None:
    losses.lose((place, kind, reason))  # its pointer written when read (a count: never)


# --- blocks ------------------------------------------------------------------------------------

_NO_SIGNATURE = (
    "clark-agent's reasoning block has no signature (clark keeps signatures inside "
    "reasoning_details items, whose provider format phi-core does not record)"
)


def _block(
    block: dict[str, Any], place: Place, losses: PlacedLosses, lane: str, check: bool = True
) -> dict[str, Any] | None:
    """``lane``: "user"/"tool" (text, image) or "assistant" (text, thinking, tool calls);
    ``check``: whether the free-form values' numbers are checked (False: the step that made the
    block checked them). A text block is ``_blocks``' own."""
    kind = block["type"]
    if kind == "toolCall" and lane == "assistant":
        if check:
            checked_free(block["arguments"])
        return {
            "type": "tool_call",
            "id": block["id"],
            "name": block["name"],
            "arguments": block["arguments"],
        }
    if kind == "thinking" and lane == "assistant":
        signature = block.get("signature")
        if signature is not None:
            if signature.startswith('{"details":'):
                raise FastUnsupported("a signature that may carry reasoning details")
            _lose(losses, (place, "signature"), "dropped", _NO_SIGNATURE)
        return {"type": "reasoning", "text": block["thinking"]}
    if kind == "image" and lane != "assistant":
        data = block["data"]
        mime = block["mimeType"]
        if ":" in data:  # not base64: the URL an image kept on its way in
            image: dict[str, Any] = {"type": "image", "source": data}
            if mime:
                image["media_type"] = mime
            return image
        return {"type": "image", "source": f"data:{mime};base64,{data}", "media_type": mime}
    _lose(losses, place, "dropped", f"clark-agent's {lane} content has no {kind} block")
    return None


def _blocks(
    blocks: list[Any], place: Place, losses: PlacedLosses, lane: str, check: bool = True
) -> list[dict[str, Any]]:
    converted = []
    for index, block in enumerate(blocks):
        if block["type"] == "text":  # most blocks: no call, no place made
            converted.append({"type": "text", "text": block["text"]})
            continue
        done = _block(block, (place, index), losses, lane, check)
        if done is not None:
            converted.append(done)
    return converted


# --- messages ----------------------------------------------------------------------------------

_LLM_META = ("turnId", "nodeId", "parentId")
_NO_MODEL = tuple((key, f"clark-agent's assistant has no {key}") for key in ("model", "provider"))
_USAGE_KEYS = ("input", "output", "reasoning", "cache_read", "cache_write", "total_tokens")


def _usage(usage: dict[str, Any], place: Place, losses: PlacedLosses) -> dict[str, Any] | None:
    if not any(map(usage.get, _USAGE_KEYS)):  # (absent: None, as false as 0)
        return None
    out: dict[str, Any] = {}
    for clark_key, phi_key in USAGE_FIELDS.items():
        count = usage.get(phi_key, 0)
        if count > _I64_MAX:
            reason = "above i64::MAX: clark-agent's i64 holds it"
            _lose(losses, (place, phi_key), "changed", reason)
            count = _I64_MAX
        out[clark_key] = count
    for phi_key in ("reasoning", "total_tokens"):
        if usage.get(phi_key, 0):
            reason = "clark-agent's Usage has no such counter"
            _lose(losses, (place, phi_key), "dropped", reason)
    return out


def _extension(
    message: dict[str, Any], place: Place, losses: PlacedLosses, check: bool = True
) -> dict[str, Any]:
    role = message["role"]
    if role != "extension":
        _lose(
            losses,
            (place, "role"),
            "changed",
            f"clark-agent's custom message has no free-form role ({role!r}): it comes "
            'back as "extension"',
        )
    data = message["data"]
    if message["kind"] == SYSTEM_KIND and type(data) is dict and _system_data(data):
        system: dict[str, Any] = {"role": "system", "content": data["content"]}
        if data.get("timestamp") is not None:
            system["timestamp"] = data["timestamp"]
        return system
    if check:
        checked_free(data)
    return {"role": "custom", "kind": message["kind"], "payload": data}


def _system_data(data: dict[str, Any]) -> bool:
    if type(data.get("content")) is not str or not set(data) <= {"content", "timestamp"}:
        return False
    stamp = data.get("timestamp")
    return stamp is None or (type(stamp) is int and 0 <= stamp < 2**64)


def _message(
    message: dict[str, Any], place: Place, losses: PlacedLosses, check: bool = True
) -> dict[str, Any]:
    if "kind" in message:
        return _extension(message, place, losses, check)
    for key in _LLM_META:
        if key in message:
            _lose(losses, (place, key), "dropped", "clark-agent has no turn/node ids")
    if message.get("tags"):
        _lose(losses, (place, "tags"), "dropped", "clark-agent has no node tags")
    if "provenanceHint" in message:
        _lose(losses, (place, "provenanceHint"), "dropped", "clark-agent has no provenance")
    role = message["role"]
    content_place = (place, "content")
    if role == "assistant":
        for key, reason in _NO_MODEL:  # (most assistant messages: a loss each, one reason each)
            if message[key]:
                losses.lose((place, key, "dropped", reason))
        stop = message["stopReason"]
        if STOP_REASON_TO_PHI[STOP_REASON_FROM_PHI[stop]] != stop:
            reason = f"clark-agent has no {stop!r}: other"
            _lose(losses, (place, "stopReason"), "changed", reason)
        out: dict[str, Any] = {
            "role": "assistant",
            "content": _blocks(message["content"], content_place, losses, "assistant", check),
            "stop_reason": STOP_REASON_FROM_PHI[stop],
        }
        if message.get("error_message") is not None:
            out["error_message"] = message["error_message"]
        out["timestamp"] = message["timestamp"]
        usage = _usage(message["usage"], (place, "usage"), losses)
        if usage is not None:
            out["usage"] = usage
        return out
    if role == "user":
        blocks = _blocks(message["content"], content_place, losses, "user", check)
        content: Any = blocks
        if len(blocks) == 1 and blocks[0]["type"] == "text":
            content = blocks[0]["text"]  # clark's common case
        return {"role": "user", "content": content, "timestamp": message["timestamp"]}
    if role == "toolResult":
        return {
            "role": "tool_result",
            "tool_call_id": message["toolCallId"],
            "tool_name": message["toolName"],
            "content": _blocks(message["content"], content_place, losses, "tool", check),
            "is_error": message["isError"],
            "timestamp": message["timestamp"],
        }
    raise FastUnsupported(f"a message of role {role!r}")


def message_from_phi(document: dict[str, Any], index: int, losses: PlacedLosses) -> dict[str, Any]:
    """One phi-core message (the ``index``-th of the input's phi-core form: its losses' pointers'
    first token) as a clark-agent history row, its losses added to ``losses``, as
    ``messages_from_phi`` converts it, for a second step fused with the first (``phi_wire
    .convert``'s ``_fused``): the message as the first step builds it, whose free-form values
    that step checked (not checked again here) and whose usage may lack the counts phi-core's
    reader fills in (read as 0, as here they are)."""
    return _message(document, (None, index), losses, False)


def messages_from_phi(
    documents: list[dict[str, Any]], kind: str
) -> tuple[list[dict[str, Any]], list[Loss]]:
    """phi-core messages (``AgentMessage``) as clark-agent history rows, and the losses."""
    if kind != "AgentMessage":
        raise FastUnsupported(kind)
    losses = PlacedLosses()
    converted = [
        _message(document, (None, index), losses) for index, document in enumerate(documents)
    ]
    return converted, list(losses)


# --- events ------------------------------------------------------------------------------------

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
"""The wire keys of each phi-core event that clark-agent's event of the same name carries (as
``_events_from_phi``'s table)."""

_CLARK_TAG = {
    "AgentStart": "agent_start",
    "AgentEnd": "agent_end",
    "TurnStart": "turn_start",
    "TurnEnd": "turn_end",
    "MessageStart": "message_start",
    "MessageUpdate": "message_update",
    "MessageEnd": "message_end",
    "ToolExecutionStart": "tool_execution_start",
    "ToolExecutionUpdate": "tool_execution_update",
    "ToolExecutionEnd": "tool_execution_end",
}


@functools.cache
def _events() -> dict[str, tuple[str, tuple[str, ...]]]:
    """phi-core event tag -> its class's name and its wire keys in declaration order (the order
    ``_events_from_phi`` names the keys clark-agent does not carry)."""
    found = {}
    for event in phi_events():  # phi-core's models, imported for an event stream only
        fields = event.model_fields
        keys = tuple(field.alias or name for name, field in fields.items())
        found[str(fields["type"].default)] = (event.__name__, keys)
    return found


def _tool_result(result: dict[str, Any], place: Place, losses: PlacedLosses) -> dict[str, Any]:
    if result.get("child_loop_id") is not None:
        reason = "clark-agent has no child loops"
        _lose(losses, (place, "child_loop_id"), "dropped", reason)
    out: dict[str, Any] = {
        "content": _blocks(result["content"], (place, "content"), losses, "tool")
    }
    details = result.get("details")
    if details is not None:
        checked_free(details)
        out["details"] = details
    return out


def _delta(delta: dict[str, Any], place: Place, losses: PlacedLosses) -> dict[str, Any]:
    if "Text" in delta:
        return {"kind": "text", "delta": delta["Text"]["delta"]}
    if "Thinking" in delta:
        return {"kind": "reasoning", "delta": delta["Thinking"]["delta"]}
    _lose(losses, place, "invented", "clark-agent's tool-call delta has an index: 0")
    return {
        "kind": "tool_call_delta",
        "index": 0,
        "id_delta": None,
        "name_delta": None,
        "arguments_delta": delta["ToolCallDelta"]["delta"],
    }


def _event(event: dict[str, Any], place: Place, losses: PlacedLosses) -> dict[str, Any] | None:
    found = _events().get(event["type"])
    if found is None:
        raise FastUnsupported(f"an event of type {event['type']!r}")
    name, keys = found
    carried = _CARRIED.get(name)
    if carried is None:
        _lose(losses, place, "dropped", f"clark-agent has no {name} event")
        return None
    for key in keys:
        if key not in carried and event.get(key) is not None:
            _lose(losses, (place, key), "dropped", f"clark-agent's {name} event has no {key}")
    out: dict[str, Any] = {"type": _CLARK_TAG[name]}
    if name == "AgentEnd":
        messages_place = (place, "messages")
        out["messages"] = [
            _message(message, (messages_place, index), losses)
            for index, message in enumerate(event["messages"])
        ]
    elif name == "TurnEnd":
        out["message"] = _message(event["message"], (place, "message"), losses)
        results_place = (place, "tool_results")
        out["tool_results"] = [
            _message(result, (results_place, index), losses)
            for index, result in enumerate(event["tool_results"])
        ]
    elif name in ("MessageStart", "MessageEnd"):
        out["message"] = _message(event["message"], (place, "message"), losses)
    elif name == "MessageUpdate":
        out["partial"] = _message(event["message"], (place, "message"), losses)
        out["chunk"] = _delta(event["delta"], (place, "delta"), losses)
    elif name != "AgentStart" and name != "TurnStart":
        out["tool_call_id"] = event["tool_call_id"]
        out["tool_name"] = event["tool_name"]
        if name == "ToolExecutionStart":
            checked_free(event["args"])
            out["args"] = event["args"]
        elif name == "ToolExecutionUpdate":
            partial = _tool_result(event["partial_result"], (place, "partial_result"), losses)
            out["partial"] = partial
        else:
            out["result"] = _tool_result(event["result"], (place, "result"), losses)
            out["is_error"] = event["is_error"]
    return out


def events_from_phi(
    documents: list[dict[str, Any]], kind: str
) -> tuple[list[dict[str, Any]], list[Loss]]:
    """phi-core events (``AgentEvent``) as clark-agent's (an event clark-agent has none for left
    out, a loss naming it), and the losses."""
    if kind != "AgentEvent":
        raise FastUnsupported(kind)
    losses = PlacedLosses()
    converted = []
    for index, document in enumerate(documents):
        event = _event(document, (None, index), losses)
        if event is not None:
            converted.append(event)
    return converted, list(losses)
