"""Build the sample data in examples/ with phi-wire's own models (no phi-core involved).

    python examples/make_examples.py

writes ``examples/events.jsonl`` (one compact AgentEvent per line, as a phi-core event log) and
``examples/session.json`` (a persisted Session, pretty like ``save_session``). The output is
deterministic, so re-running it leaves git clean; tests check that the checked-in files are what
this script writes.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from phi_wire import (
    AgentEnd,
    AgentEvent,
    AgentStart,
    DeltaBody,
    FirstLoopFormation,
    FormationTimestamp,
    LlmAssistantMessage,
    LlmToolResultMessage,
    LlmUserMessage,
    LoopConfigSnapshot,
    LoopEvent,
    LoopRecord,
    LoopStatus,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    Session,
    SessionScope,
    StopReason,
    TextContent,
    TextDelta,
    ThinkingLevel,
    Timestamp,
    ToolCallContent,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolResult,
    ToolResultMessage,
    Turn,
    TurnEnd,
    TurnId,
    TurnStart,
    TurnTrigger,
    Usage,
    dumps,
)

HERE = Path(__file__).resolve().parent
SESSION = "5e1f0c2a-7d3b-4c9e-8a61-0b2d4f6e8a13"
AGENT = "c0ffee00-1234-4abc-9def-0123456789ab"
LOOP = f"{SESSION}.anthropic.claude-sonnet-4-5.1"
START_NS = 1_780_000_000_123_456_789  # 2026-05-28T20:26:40.123456789Z


def at(millis: int) -> Timestamp:
    """A timestamp ``millis`` after the start, with nanoseconds as Utc::now() has them."""
    return Timestamp.from_unix_nanos(START_NS + millis * 1_000_000 + millis % 7)


def unix_ms(millis: int) -> int:
    return START_NS // 1_000_000 + millis


def build_events() -> list[AgentEvent]:
    config = LoopConfigSnapshot(
        model="claude-sonnet-4-5",
        provider="anthropic",
        config_id="anthropic.claude-sonnet-4-5",
        name="Claude Sonnet 4.5",
        reasoning=False,
        context_window=200_000,
        max_tokens=8_192,
        thinking_level=ThinkingLevel.OFF,
        temperature=0.2,
    )
    prompt = LlmUserMessage(
        content=[TextContent(text="How many lines does README.md have?")], timestamp=unix_ms(1)
    )
    turn = TurnId(loop_id=LOOP, turn_index=0)
    call = ToolCallContent(id="toolu_01", name="bash", arguments={"command": "wc -l README.md"})
    usage = Usage(input=812, output=41, cache_read=0, cache_write=0, total_tokens=853)
    placeholder = LlmAssistantMessage(
        content=[],
        stop_reason=StopReason.STOP,
        model="claude-sonnet-4-5",
        provider="",
        usage=Usage(input=0, output=0),
        timestamp=unix_ms(5),
    )
    asked = LlmAssistantMessage(
        content=[TextContent(text="Let me count."), call],
        stop_reason=StopReason.TOOL_USE,
        model="claude-sonnet-4-5",
        provider="anthropic",
        usage=usage,
        timestamp=unix_ms(900),
    )
    result = LlmToolResultMessage(
        tool_call_id="toolu_01",
        tool_name="bash",
        content=[TextContent(text="42 README.md\n")],
        is_error=False,
        timestamp=unix_ms(950),
    )
    answer = LlmAssistantMessage(
        content=[TextContent(text="README.md has 42 lines.")],
        stop_reason=StopReason.STOP,
        model="claude-sonnet-4-5",
        provider="anthropic",
        usage=Usage(input=880, output=12, total_tokens=892),
        timestamp=unix_ms(1400),
    )
    turn1 = TurnId(loop_id=LOOP, turn_index=1)
    return [
        AgentStart(
            agent_id=AGENT,
            session_id=SESSION,
            loop_id=LOOP,
            timestamp=at(0),
            metadata={"client": "phi-wire examples"},
            config_snapshot=config,
        ),
        TurnStart(loop_id=LOOP, turn_index=0, timestamp=at(2), triggered_by=TurnTrigger.USER),
        MessageStart(loop_id=LOOP, message=prompt),
        MessageEnd(loop_id=LOOP, message=prompt),
        MessageStart(loop_id=LOOP, message=placeholder),
        MessageUpdate(
            loop_id=LOOP, message=placeholder, delta=TextDelta(text=DeltaBody(delta="Let me "))
        ),
        MessageUpdate(
            loop_id=LOOP, message=placeholder, delta=TextDelta(text=DeltaBody(delta="count."))
        ),
        MessageEnd(loop_id=LOOP, message=asked),
        ToolExecutionStart(
            loop_id=LOOP, tool_call_id="toolu_01", tool_name="bash", args=call.arguments
        ),
        ToolExecutionEnd(
            loop_id=LOOP,
            tool_call_id="toolu_01",
            tool_name="bash",
            result=ToolResult(content=result.content, details={"exit_code": 0}),
            is_error=False,
        ),
        MessageStart(loop_id=LOOP, message=result),
        MessageEnd(loop_id=LOOP, message=result),
        TurnEnd(
            loop_id=LOOP,
            message=asked.model_copy(update={"turn_id": turn}),
            usage=usage,
            timestamp=at(960),
            tool_results=[
                ToolResultMessage(
                    **result.model_dump(
                        include={"tool_call_id", "tool_name", "content", "is_error", "timestamp"}
                    )
                )
            ],
        ),
        TurnStart(
            loop_id=LOOP, turn_index=1, timestamp=at(961), triggered_by=TurnTrigger.CONTINUATION
        ),
        MessageEnd(loop_id=LOOP, message=answer),
        TurnEnd(
            loop_id=LOOP,
            message=answer.model_copy(update={"turn_id": turn1}),
            usage=answer.usage,
            timestamp=at(1401),
            tool_results=[],
        ),
        AgentEnd(
            loop_id=LOOP,
            messages=[
                prompt,
                asked.model_copy(update={"turn_id": turn}),
                result.model_copy(update={"turn_id": turn}),
                answer.model_copy(update={"turn_id": turn1}),
            ],
            usage=Usage(input=1692, output=53, total_tokens=1745),
            timestamp=at(1402),
        ),
    ]


def build_session(events: list[AgentEvent]) -> Session:
    start, end = events[0], events[-1]
    assert isinstance(start, AgentStart) and isinstance(end, AgentEnd)
    turns = [
        Turn(
            turn_id=TurnId(loop_id=LOOP, turn_index=index),
            triggered_by=trigger,
            usage=turn_end.usage,
            input_messages=inputs,
            output_message=turn_end.message,
            tool_results=outputs,
            started_at=turn_start.timestamp,
            ended_at=turn_end.timestamp,
        )
        for index, (trigger, turn_start, turn_end, inputs, outputs) in enumerate(
            [
                (TurnTrigger.USER, events[1], events[12], [end.messages[0]], [end.messages[2]]),
                (TurnTrigger.CONTINUATION, events[13], events[15], [events[11].message], []),
            ]
        )
        if isinstance(turn_start, TurnStart) and isinstance(turn_end, TurnEnd)
    ]
    record = LoopRecord(
        loop_id=LOOP,
        session_id=SESSION,
        agent_id=AGENT,
        started_at=start.timestamp,
        ended_at=end.timestamp,
        status=LoopStatus.COMPLETED,
        config=start.config_snapshot,
        messages=end.messages,
        turns=turns,
        usage=end.usage,
        metadata=start.metadata,
        events=[
            LoopEvent(sequence=index, event=event)
            for index, event in enumerate(events)
            if not isinstance(event, MessageUpdate)
        ],
        children_loop_ids=[],
        child_loop_refs=[],
    )
    return Session(
        session_id=SESSION,
        agent_id=AGENT,
        created_at=start.timestamp,
        last_active_at=start.timestamp,
        formation=FirstLoopFormation(first_loop=FormationTimestamp(timestamp=start.timestamp)),
        scope=SessionScope.PERSISTENT,
        loops=[record],
    )


def write_atomically(path: Path, text: str) -> None:
    """Write to a temporary file beside ``path``, then rename: never a half-written file."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def render() -> dict[str, str]:
    events = build_events()
    return {
        "events.jsonl": "".join(dumps(event) + "\n" for event in events),
        "session.json": dumps(build_session(events), pretty=True),
    }


def main() -> None:
    for name, text in render().items():
        write_atomically(HERE / name, text)
        print(f"wrote examples/{name}")


if __name__ == "__main__":
    main()
