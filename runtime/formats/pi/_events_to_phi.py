"""pi's agent event streams as phi-core ``AgentEvent``s: pi-agent-core's ``AgentEvent``s, the
coding agent's ``AgentSessionEvent``s (``AgentSession.subscribe``), and the 1.5 CLI's
``--mode json``/``--mode rpc`` output.

pi fact: pi-agent-core's events carry no run identity and no time (``agent_start`` and
``turn_start`` are bare ``{type}``), only messages and tool executions; phi-core's carry a
``loop_id`` on every event, a turn index and a timestamp. So a converted stream is one phi-core
loop per pi run (``agent_start`` ... ``agent_end``), its ``loop_id`` (and ``AgentStart``'s
``agent_id``; ``session_id`` too, unless a session header line gives pi's session id) derived
from the input's name and the run's position (``derived_id``: the same input gives the same
ids), turns numbered from 0 within a run (the first ``User``-triggered, later ones
``Continuation``), timestamps taken from the messages around the event; each invented value is
an ``invented`` loss.

Event by event: ``agent_start``/``agent_end`` -> ``AgentStart``/``AgentEnd`` (its usage the sum
of the run's assistant messages'); ``turn_start``/``turn_end`` -> ``TurnStart``/``TurnEnd``;
``message_start``/``message_end`` -> ``MessageStart``/``MessageEnd``; ``message_update`` ->
``MessageUpdate`` for a delta (its message pi's cumulative ``message``, or, for the CLI's
delta-only lines, the message assembled from the deltas: ``DeltaAssembler``); a block's
start/end update has no phi-core event (phi-core's updates are deltas; the block is in the next
update's and the end's message); ``tool_execution_*`` -> ``ToolExecution*`` (``durationMs``
dropped). The coding agent's own events (queue, compaction, auto-retry, bash, settled,
summarisation retries, session changes, ``extension_error``), RPC responses and the session
header line have no phi-core counterpart: each is one ``dropped`` loss naming it. Messages are
converted as messages are (``_event_messages``), their losses under the event's pointer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import phi_wire.v0_10 as phi
from phi_wire.convert import Conversion, derived_id
from phi_wire.serde import Timestamp

from ._event_messages import content_to_phi, message_to_phi, usage_losses
from ._provider_stream import RAW_KEYS, DeltaAssembler, tool_call_leftover
from ._stream_shared import Losses, SurrogateJoiner, at, clean_json
from .recognise import AGENT_EVENT_TAGS

__all__ = ["AGENT_EVENTS", "SESSION_ONLY", "agent_events_to_phi"]

AGENT_EVENTS = AGENT_EVENT_TAGS
"""pi-agent-core's ``AgentEvent`` tags: each has a phi-core counterpart."""

SESSION_ONLY = {
    "queue_update": "the coding agent's steering/follow-up queue",
    "compaction_start": "the coding agent's compaction start (phi-core's CompactionStarted "
    "needs token and message counts pi does not give)",
    "compaction_end": "the coding agent's compaction result (phi-core's CompactionEnded needs "
    "message counts pi does not give)",
    "auto_retry_start": "the coding agent's automatic retry",
    "auto_retry_end": "the coding agent's automatic retry",
    "agent_settled": "the coding agent's end of all work of a prompt",
    "bash_execution_update": "output of a user's bash command (not a tool call)",
    "summarization_retry_scheduled": "a retry of the compaction summary",
    "summarization_retry_attempt_start": "a retry of the compaction summary",
    "summarization_retry_finished": "a retry of the compaction summary",
    "entry_appended": "a session entry written (phi-core's stream holds no session entries)",
    "session_info_changed": "the session's name",
    "thinking_level_changed": "the session's thinking level",
    "extension_error": "an extension's error (RPC)",
    "extension_ui_request": "an extension's UI request (RPC)",
    "response": "an RPC response",
    "session": "the session header line (its id is each AgentStart's session_id)",
}
"""Tags of the coding agent's and the CLI's lines without a phi-core event, and what they are."""

NO_PLACE = "phi-core's {kind} has no {{key}}"
SAME_PARTIAL = (
    "a second copy of the event's message (pi's live partial): phi-core's update holds the "
    "message once"
)
OTHER_PARTIAL = (
    "pi's live partial, here not the event's message: phi-core's update holds one message (the "
    "event's)"
)
ZERO_USAGE = {"input": 0, "output": 0}


class _Run:
    """One pi run (``agent_start`` ... ``agent_end``): one phi-core loop."""

    def __init__(self, loop_id: str) -> None:
        self.loop_id = loop_id
        self.turns = 0


class _Converter:
    def __init__(self, events: Sequence[dict[str, Any]], name: str) -> None:
        self.events = events
        self.name = name
        self.losses = Losses()
        self.run: _Run | None = None
        self.session_id: str | None = None
        self.assembler = DeltaAssembler()
        self.tool_args: dict[str, Any] = {}
        self.joiner = SurrogateJoiner()
        self.times = self._times()

    def _times(self) -> list[int]:
        """For each event, the timestamp of the nearest message at or after it (else before
        it): the time an event without one is given."""
        stamps: list[int | None] = []
        for event in self.events:
            message = event.get("message")
            stamp = message.get("timestamp") if isinstance(message, dict) else None
            stamps.append(stamp if isinstance(stamp, int) and stamp >= 0 else None)
        times = [0] * len(stamps)
        following: int | None = None
        for index in range(len(stamps) - 1, -1, -1):
            following = stamps[index] if stamps[index] is not None else following
            times[index] = following if following is not None else -1
        previous = 0
        for index, stamp in enumerate(times):
            if stamp == -1:
                times[index] = previous
            previous = times[index]
        return times

    # -- helpers -----------------------------------------------------------------------------

    def _time(self, index: int) -> Timestamp:
        return Timestamp.from_unix_nanos(self.times[index] * 1_000_000)

    def _loop(self, pointer: str) -> _Run:
        if self.run is None:  # events before any agent_start: a loop of their own
            self.run = _Run(derived_id(self.name, pointer, "pi run without agent_start"))
            self.losses.add(
                pointer,
                "invented",
                "no agent_start before it: phi-core's loop_id derived from the input's name",
            )
        return self.run

    def _message(self, message: Any, pointer: str) -> Any:
        converted = message_to_phi(message)
        self.losses.extend(converted.losses, pointer)
        value = converted.value
        if isinstance(value, phi.ExtensionMessage):
            return value
        return phi.llm_message(value)

    def _bare(self, message: Any, pointer: str) -> Any:
        converted = message_to_phi(message)
        if isinstance(converted.value, phi.ExtensionMessage):
            self.losses.add(pointer, "dropped", "phi-core's TurnEnd holds only LLM messages here")
            return None
        self.losses.extend(converted.losses, pointer)
        return converted.value

    def _tool_result(self, result: Any, pointer: str) -> Any:
        if not isinstance(result, dict):
            self.losses.add(pointer, "dropped", "not a tool result object")
            return phi.ToolResult(content=[], details=None)
        converted = content_to_phi(result.get("content", []))
        content = converted.value
        self.losses.extend(converted.losses, at(pointer, "content"))
        self.losses.leftover(
            result, ("content", "details"), pointer, NO_PLACE.format(kind="ToolResult")
        )
        details = self.losses.free_form(result.get("details"), "details", pointer)
        return phi.ToolResult(content=content, details=details)

    # -- events ------------------------------------------------------------------------------

    def convert(self) -> Conversion[list[Any]]:
        out: list[Any] = []
        for index, event in enumerate(self.events):
            pointer = f"/{index}"
            kind = str(event.get("type"))
            event = clean_json(event, pointer, self.losses, RAW_KEYS)
            if kind in AGENT_EVENTS:
                out += getattr(self, f"_{kind}")(event, pointer, index)
            else:
                what = SESSION_ONLY.get(kind, f"a pi event of type {kind!r}")
                if kind == "session" and isinstance(event.get("id"), str):
                    self.session_id = event["id"]
                self.losses.add(pointer, "dropped", f"{what}: phi-core has no event for it")
        return Conversion(out, tuple(self.losses))

    def _agent_start(self, event: dict[str, Any], pointer: str, index: int) -> list[Any]:
        self.run = _Run(derived_id(self.name, pointer, "pi run"))
        session_id = self.session_id or derived_id(self.name, "", "pi session")
        self.losses.add(
            pointer,
            "invented",
            "pi's agent_start has no ids or time: phi-core's loop_id and agent_id derived from "
            "the input's name and the event's position"
            + ("" if self.session_id else ", session_id from the input's name")
            + ", timestamp the next message's",
        )
        self.losses.leftover(event, ("type",), pointer, NO_PLACE.format(kind="AgentStart"))
        return [
            phi.AgentStart(
                agent_id=derived_id(self.name, pointer, "pi agent"),
                session_id=session_id,
                loop_id=self.run.loop_id,
                parent_loop_id=None,
                timestamp=self._time(index),
                metadata=None,
            )
        ]

    def _agent_end(self, event: dict[str, Any], pointer: str, index: int) -> list[Any]:
        run = self._loop(pointer)
        messages = [
            self._message(message, at(pointer, "messages", position))
            for position, message in enumerate(event.get("messages", []))
        ]
        totals = dict.fromkeys(("input", "output", "reasoning", "cache_read", "cache_write"), 0)
        totals["total_tokens"] = 0
        for message in messages:
            if isinstance(message, phi.LlmAssistantMessage):
                for key in totals:
                    totals[key] += getattr(message.usage, key)
        self.losses.add(
            pointer,
            "invented",
            "pi's agent_end has no usage or time: phi-core's usage the sum of its assistant "
            "messages', timestamp the last message's",
        )
        self.losses.leftover(event, ("type", "messages"), pointer, NO_PLACE.format(kind="AgentEnd"))
        self.run = None
        return [
            phi.AgentEnd(
                loop_id=run.loop_id,
                messages=messages,
                usage=phi.Usage(**totals),
                timestamp=self._time(index),
                rejection=None,
            )
        ]

    def _turn_start(self, event: dict[str, Any], pointer: str, index: int) -> list[Any]:
        run = self._loop(pointer)
        trigger = "User" if run.turns == 0 else "Continuation"
        run.turns += 1
        self.losses.add(
            pointer,
            "invented",
            "pi's turn_start has no index, time or trigger: phi-core's turn_index its place in "
            "the run, timestamp the next message's, triggered_by User for a run's first turn "
            "and Continuation after",
        )
        self.losses.leftover(event, ("type",), pointer, NO_PLACE.format(kind="TurnStart"))
        return [
            phi.TurnStart(
                loop_id=run.loop_id,
                turn_index=run.turns - 1,
                timestamp=self._time(index),
                triggered_by=trigger,
            )
        ]

    def _turn_end(self, event: dict[str, Any], pointer: str, index: int) -> list[Any]:
        run = self._loop(pointer)
        message = self._message(event["message"], at(pointer, "message"))
        usage = message.usage if isinstance(message, phi.LlmAssistantMessage) else None
        results = [
            self._bare(result, at(pointer, "toolResults", position))
            for position, result in enumerate(event.get("toolResults", []))
        ]
        self.losses.add(
            pointer,
            "invented",
            "pi's turn_end has no usage or time: phi-core's usage its message's, timestamp "
            "its message's",
        )
        self.losses.leftover(
            event, ("type", "message", "toolResults"), pointer, NO_PLACE.format(kind="TurnEnd")
        )
        return [
            phi.TurnEnd(
                loop_id=run.loop_id,
                message=message,
                usage=usage or phi.Usage(**ZERO_USAGE),
                timestamp=self._time(index),
                tool_results=[result for result in results if result is not None],
            )
        ]

    def _message_start(self, event: dict[str, Any], pointer: str, index: int) -> list[Any]:
        run = self._loop(pointer)
        if isinstance(event.get("message"), dict):
            self.assembler.start(event["message"])
        self.joiner = SurrogateJoiner()
        message = self._message(event["message"], at(pointer, "message"))
        self.losses.leftover(
            event, ("type", "message"), pointer, NO_PLACE.format(kind="MessageStart")
        )
        return [phi.MessageStart(loop_id=run.loop_id, message=message)]

    def _message_end(self, event: dict[str, Any], pointer: str, index: int) -> list[Any]:
        run = self._loop(pointer)
        message = self._message(event["message"], at(pointer, "message"))
        self.losses.leftover(
            event, ("type", "message"), pointer, NO_PLACE.format(kind="MessageEnd")
        )
        return [phi.MessageEnd(loop_id=run.loop_id, message=message)]

    def _message_update(self, event: dict[str, Any], pointer: str, index: int) -> list[Any]:
        run = self._loop(pointer)
        inner = event.get("assistantMessageEvent")
        inner = inner if isinstance(inner, dict) else {}
        kind = str(inner.get("type"))
        block_kind, _, step = kind.partition("_")
        if "message" in event:  # in-process: pi's cumulative message
            source, carried = event["message"], ["type", "assistantMessageEvent", "message"]
            partial = inner.get("partial")
            if partial is not None:
                same = clean_json(partial, "", Losses(), frozenset()) == source
                self.losses.add(
                    at(pointer, "assistantMessageEvent", "partial"),
                    "dropped",
                    SAME_PARTIAL if same else OTHER_PARTIAL,
                )
        else:  # the 1.5 CLI's delta-only line: the message assembled from the deltas
            if self.assembler.message is None:
                self.losses.add(
                    pointer,
                    "dropped",
                    "no message_start before it (pi's CLI starts every message with one): no "
                    "message to assemble its delta into",
                )
                return []
            assembled = self.assembler.apply(event.get("usage"), inner)
            if assembled is None:
                self.losses.add(
                    pointer,
                    "dropped",
                    "its contentIndex is no block of the message being streamed (pi opens "
                    "blocks in order): nothing to assemble it into",
                )
                return []
            source = assembled
            carried = ["type", "assistantMessageEvent", "usage"]
            if isinstance(event.get("usage"), dict):
                self.losses.extend(usage_losses(event["usage"], at(pointer, "usage")))
        self.losses.leftover(event, carried, pointer, NO_PLACE.format(kind="MessageUpdate"))
        inner_carried = ["type", "contentIndex", "partial", "delta", "content", "toolCall"]
        tool_call_leftover(
            inner.get("toolCall"), at(pointer, "assistantMessageEvent", "toolCall"), self.losses
        )
        inner_carried += ["id", "toolName"]
        self.losses.leftover(
            inner,
            inner_carried,
            at(pointer, "assistantMessageEvent"),
            NO_PLACE.format(kind="MessageUpdate"),
        )
        if step == "end" and isinstance(inner.get("contentIndex"), int):
            held = self.joiner.flush(
                inner["contentIndex"], at(pointer, "assistantMessageEvent"), self.losses
            )
            if held:  # a character's first half the last delta held back: alone after all
                return [self._update(run, source, event, pointer, block_kind, held)]
        if step != "delta" or block_kind not in ("text", "thinking", "toolcall"):
            self.losses.add(
                pointer,
                "dropped",
                f"pi's {kind} update: phi-core's MessageUpdate carries deltas only (the block "
                "is in the next update's and MessageEnd's message)",
            )
            return []
        text = str(inner.get("delta", ""))
        block = inner.get("contentIndex")
        delta_at = at(pointer, "assistantMessageEvent", "delta")
        joined = self.joiner.feed(block, text, delta_at, self.losses)
        return [self._update(run, source, event, pointer, block_kind, joined)]

    def _update(
        self, run: _Run, source: Any, event: dict[str, Any], pointer: str, kind: str, text: str
    ) -> Any:
        message = self._message_in_update(source, event, pointer)
        body = phi.DeltaBody(delta=text)
        if kind == "text":
            delta: Any = phi.TextDelta(text=body)
        elif kind == "thinking":
            delta = phi.ThinkingDelta(thinking=body)
        else:
            delta = phi.ToolCallDelta(tool_call_delta=body)
        return phi.MessageUpdate(loop_id=run.loop_id, message=message, delta=delta)

    def _message_in_update(self, source: Any, event: dict[str, Any], pointer: str) -> Any:
        if "message" in event:
            return self._message(source, at(pointer, "message"))
        # assembled: its losses are those of the message_start's message, already reported
        converted = message_to_phi(source)
        value = converted.value
        return value if isinstance(value, phi.ExtensionMessage) else phi.llm_message(value)

    def _tool_execution_start(self, event: dict[str, Any], pointer: str, index: int) -> list[Any]:
        run = self._loop(pointer)
        self.tool_args[str(event.get("toolCallId"))] = event.get("args")
        self.losses.leftover(
            event,
            ("type", "toolCallId", "toolName", "args"),
            pointer,
            NO_PLACE.format(kind="ToolExecutionStart"),
        )
        return [
            phi.ToolExecutionStart(
                loop_id=run.loop_id,
                tool_call_id=event["toolCallId"],
                tool_name=event["toolName"],
                args=self.losses.free_form(event.get("args"), "args", pointer),
            )
        ]

    def _tool_execution_update(self, event: dict[str, Any], pointer: str, index: int) -> list[Any]:
        run = self._loop(pointer)
        carried = ["type", "toolCallId", "toolName", "partialResult"]
        if self.tool_args.get(str(event.get("toolCallId"))) == event.get("args"):
            carried.append("args")  # the same as its tool_execution_start's: carried there
        self.losses.leftover(event, carried, pointer, NO_PLACE.format(kind="ToolExecutionUpdate"))
        return [
            phi.ToolExecutionUpdate(
                loop_id=run.loop_id,
                tool_call_id=event["toolCallId"],
                tool_name=event["toolName"],
                partial_result=self._tool_result(
                    event.get("partialResult"), at(pointer, "partialResult")
                ),
            )
        ]

    def _tool_execution_end(self, event: dict[str, Any], pointer: str, index: int) -> list[Any]:
        run = self._loop(pointer)
        self.losses.leftover(
            event,
            ("type", "toolCallId", "toolName", "result", "isError"),
            pointer,
            NO_PLACE.format(kind="ToolExecutionEnd"),
        )
        return [
            phi.ToolExecutionEnd(
                loop_id=run.loop_id,
                tool_call_id=event["toolCallId"],
                tool_name=event["toolName"],
                result=self._tool_result(event.get("result"), at(pointer, "result")),
                is_error=bool(event.get("isError")),
                child_loop_id=None,
            )
        ]


def agent_events_to_phi(
    events: Sequence[dict[str, Any]], *, name: str = ""
) -> Conversion[list[Any]]:
    """pi's agent/session event stream (JSON views, in order; a session header, RPC responses
    and any pi event line among them) as phi-core 0.10 ``AgentEvent``s, the losses' pointers
    ``/<index>/...``; ``name`` (the input's) seeds the ids invented."""
    return _Converter(events, name).convert()
