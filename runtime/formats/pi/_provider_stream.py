"""pi-ai's provider stream (``AssistantMessageEvent``s) as phi-wire's provider ``StreamEvent``s,
and the partial message of the 1.5 CLI's delta-only ``message_update`` lines assembled.

pi fact (pi-ai ``AssistantMessageEventStream``): a reply is ``start``, per content block
``<kind>_start``/``<kind>_delta``.../``<kind>_end`` (kinds ``text``, ``thinking``, ``toolcall``;
each with ``contentIndex``, the block's place in the message), then ``done`` (``reason``,
``message``) or ``error`` (``reason``, ``error``: the failed message). In-process every event but
the last carries ``partial``, the provider's live message; the 1.5 CLI (``--mode json``/``rpc``)
writes the same events without ``partial`` (``toolcall_start`` gains ``id``/``toolName``), so
the message must be assembled from the deltas (``DeltaAssembler``).

phi-core's ``StreamEvent`` is the same stream without the partial message: ``Start``, a delta per
text/thinking/tool-call-argument fragment (``content_index`` = pi's ``contentIndex``),
``ToolCallStart`` (id, name) / ``ToolCallEnd``, ``Done``/``Error`` with the final message. So:
``start`` -> ``Start``; ``*_delta`` -> the matching delta; ``toolcall_start`` ->
``ToolCallStart``; ``toolcall_end`` -> ``ToolCallEnd``; ``text_start``/``thinking_start`` give
nothing (phi-core opens a block at its first delta); ``text_end``/``thinking_end`` give nothing,
or the delta their ``content`` adds to what the deltas said (an empty block: an empty delta, so
the block exists in phi-core's partials too); ``done`` -> ``Done``; ``error`` -> ``Error``. Each
``partial`` is dropped (a loss: phi-core's stream carries no partial message; ``translate_stream``
rebuilds it from the deltas and ends with the ``Done`` message).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from typing import Any

import phi_wire.v0_10 as phi
from phi_wire.convert import Conversion

from ._event_messages import EXACT_STOP_REASONS, message_to_phi
from ._stream_shared import Losses, SurrogateJoiner, at, clean_json
from .recognise import PROVIDER_EVENT_TAGS

__all__ = [
    "PROVIDER_EVENTS",
    "RAW_KEYS",
    "DeltaAssembler",
    "provider_stream_to_phi",
    "tool_call_leftover",
]

PROVIDER_EVENTS = PROVIDER_EVENT_TAGS
"""The ``type`` tags of pi-ai's ``AssistantMessageEvent`` (both lines)."""

PARTIAL_DROPPED = (
    "the provider's live partial message: phi-core's StreamEvents carry none "
    "(translate_stream assembles it from the deltas; Done carries the final message)"
)
NO_PLACE = "phi-core's {kind} stream event has no {{key}}"
RAW_KEYS = frozenset({"delta", "partial"})
"""Keys whose text the converters read raw: deltas (joined: ``SurrogateJoiner``), partials."""
TOOL_CALL_NO_PLACE = "phi-core's tool call block has no {key}"
BLOCK_KINDS = {"text": "text", "thinking": "thinking", "toolcall": "toolCall"}
TEXT_KEYS = {"text": "text", "thinking": "thinking"}


class _Blocks:
    """What the deltas said so far, per content index (to tell what an ``*_end`` adds)."""

    def __init__(self) -> None:
        self.text: dict[int, str] = {}
        self.joiner = SurrogateJoiner()


def _delta_event(kind: str, index: int, delta: str) -> Any:
    if kind == "text":
        return phi.StreamTextDelta(content_index=index, delta=delta)
    if kind == "thinking":
        return phi.StreamThinkingDelta(content_index=index, delta=delta)
    return phi.StreamToolCallDelta(content_index=index, delta=delta)


def _tool_identity(event: dict[str, Any], index: int) -> tuple[str, str]:
    """A tool call's id and name at its start: the CLI's ``id``/``toolName``, or the block of
    the partial message (in-process)."""
    if "id" in event:
        return str(event["id"]), str(event.get("toolName", ""))
    partial = event.get("partial")
    if isinstance(partial, dict):
        content = partial.get("content")
        if isinstance(content, list) and 0 <= index < len(content):
            block = content[index]
            if isinstance(block, dict):
                return str(block.get("id", "")), str(block.get("name", ""))
    return "", ""


def tool_call_leftover(block: Any, pointer: str, losses: Losses) -> None:
    """The keys of a ``toolcall_end``'s ``toolCall`` phi-core's tool call has no place for."""
    if isinstance(block, dict):
        losses.leftover(block, ("type", "id", "name", "arguments"), pointer, TOOL_CALL_NO_PLACE)


def _event_to_phi(
    event: dict[str, Any], pointer: str, blocks: _Blocks, losses: Losses
) -> list[Any]:
    kind = str(event.get("type"))
    if "partial" in event:
        losses.add(at(pointer, "partial"), "dropped", PARTIAL_DROPPED)
    if kind == "start":
        losses.leftover(event, ("type", "partial"), pointer, NO_PLACE.format(kind="Start"))
        return [phi.StreamStart()]
    if kind in ("done", "error"):
        key = "message" if kind == "done" else "error"
        converted = message_to_phi(event[key])
        losses.extend(converted.losses, at(pointer, key))
        stop_reason = event[key].get("stopReason") if isinstance(event[key], dict) else None
        carried = ["type", key, "partial"]
        if event.get("reason") == stop_reason and stop_reason in EXACT_STOP_REASONS:
            carried.append("reason")  # the message's own stopReason: carried with it
        name = "Done" if kind == "done" else "Error"
        losses.leftover(event, carried, pointer, NO_PLACE.format(kind=name))
        if not isinstance(converted.value, phi.AssistantMessage):
            losses.add(at(pointer, key), "dropped", "not an assistant message")
            return []
        if kind == "done":
            return [phi.StreamDone(message=converted.value)]
        return [phi.StreamError(message=converted.value)]
    block_kind, _, step = kind.partition("_")
    index = event.get("contentIndex")
    if block_kind not in BLOCK_KINDS or not isinstance(index, int):
        losses.add(pointer, "dropped", f"pi's {kind!r} event: phi-core's stream has none")
        return []
    carried = ["type", "contentIndex", "partial"]
    out: list[Any] = []
    if step == "delta":
        carried.append("delta")
        delta = blocks.joiner.feed(index, str(event.get("delta", "")), at(pointer, "delta"), losses)
        if block_kind in TEXT_KEYS:
            blocks.text[index] = blocks.text.get(index, "") + delta
        out.append(_delta_event(block_kind, index, delta))
    elif step == "start" and block_kind == "toolcall":
        carried += ["id", "toolName"]
        tool_id, name = _tool_identity(event, index)
        out.append(phi.StreamToolCallStart(content_index=index, id=tool_id, name=name))
    elif step == "end" and block_kind == "toolcall":
        carried.append("toolCall")  # the same block as the final message's (Done carries it)
        tool_call_leftover(event.get("toolCall"), at(pointer, "toolCall"), losses)
        out.append(phi.StreamToolCallEnd(content_index=index))
    elif step == "end":
        carried.append("content")
        out += _end_of_text(event, pointer, index, block_kind, blocks, losses)
    name = {"start": "block start", "end": "block end", "delta": "delta"}.get(step, step)
    losses.leftover(event, carried, pointer, NO_PLACE.format(kind=f"{block_kind} {name}"))
    return out


def _end_of_text(
    event: dict[str, Any], pointer: str, index: int, kind: str, blocks: _Blocks, losses: Losses
) -> list[Any]:
    """A text or thinking block's end: the delta its ``content`` adds to the deltas so far
    (with what the deltas held back: ``SurrogateJoiner``)."""
    held = blocks.joiner.flush(index, at(pointer, "content"), losses)
    content = event.get("content")
    said = blocks.text.get(index)
    if said is None:  # a block without deltas: its content as one delta opens it
        text = content if isinstance(content, str) else held
        blocks.text[index] = text
        return [_delta_event(kind, index, text)]
    if isinstance(content, str) and content.startswith(said):
        blocks.text[index] = content
        return [_delta_event(kind, index, content[len(said) :])] if content != said else []
    if isinstance(content, str):
        losses.add(
            pointer,
            "changed",
            "the block's final content is not its deltas joined: phi-core's partials show the "
            "deltas, Done the final content",
        )
    if held:
        blocks.text[index] = said + held
        return [_delta_event(kind, index, held)]
    return []


def provider_stream_to_phi(events: Sequence[dict[str, Any]]) -> Conversion[list[Any]]:
    """pi-ai's ``AssistantMessageEvent``s (their JSON views, one stream, in order) as phi-wire's
    provider ``StreamEvent``s (phi-core 0.10's models), the losses' pointers ``/<index>/...``."""
    losses = Losses()
    blocks = _Blocks()
    out: list[Any] = []
    for index, event in enumerate(events):
        pointer = f"/{index}"
        event = clean_json(event, pointer, losses, RAW_KEYS)
        out += _event_to_phi(event, pointer, blocks, losses)
    return Conversion(out, tuple(losses))


class DeltaAssembler:
    """The cumulative message of a 1.5 CLI stream (``--mode json``/``--mode rpc``), whose
    ``message_update`` lines carry ``usage`` and a partial-less ``assistantMessageEvent``: start
    it with the ``message_start`` message, ``apply`` each update; ``message`` is then the partial
    pi's in-process ``message_update`` would carry (a fresh dict each time; tool-call arguments
    are ``{}`` until their JSON is complete, as pi parses it at the block's end)."""

    def __init__(self) -> None:
        self.message: dict[str, Any] | None = None
        self._arguments: dict[int, str] = {}

    def start(self, message: dict[str, Any]) -> None:
        self.message = dict(message)
        self.message["content"] = list(message.get("content") or [])
        self._arguments.clear()

    def apply(self, usage: Any, event: dict[str, Any]) -> dict[str, Any] | None:
        """The message after one delta-only update; None (the message unchanged) when its
        ``contentIndex`` is no block of the message nor the next one (pi opens blocks in
        order): nothing to assemble it into."""
        message = dict(self.message or {"role": "assistant", "content": []})
        content = list(message.get("content") or [])
        kind = str(event.get("type"))
        index = event.get("contentIndex")
        if isinstance(index, int) and not 0 <= index <= len(content):
            return None
        if usage is not None:
            message["usage"] = usage
        if isinstance(index, int):
            if index == len(content):
                content.append({})
            content[index] = self._block(kind, index, dict(content[index]), event)
        message["content"] = content
        self.message = message
        return message

    def _block(self, kind: str, index: int, block: dict[str, Any], event: dict[str, Any]) -> Any:
        block_kind, _, step = kind.partition("_")
        field = TEXT_KEYS.get(block_kind)
        if field is not None:
            if step == "start":
                return {"type": block_kind, field: ""}
            if step == "delta":
                block[field] = str(block.get(field, "")) + str(event.get("delta", ""))
            elif step == "end" and isinstance(event.get("content"), str):
                block[field] = event["content"]
            return block
        if step == "start":
            self._arguments[index] = ""
            return {
                "type": "toolCall",
                "id": event.get("id", ""),
                "name": event.get("toolName", ""),
                "arguments": {},
            }
        if step == "delta":
            text = self._arguments.get(index, "") + str(event.get("delta", ""))
            self._arguments[index] = text
            with contextlib.suppress(ValueError):  # incomplete JSON: the arguments so far stay
                block["arguments"] = json.loads(text)
            return block
        if step == "end" and isinstance(event.get("toolCall"), dict):
            return dict(event["toolCall"])
        return block
