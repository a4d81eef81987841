"""Provider streams to AgentEvents (runtime/_stream.py), in phi-core's order, plus accumulation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import phi_wire as wire
from phi_wire import MessageAccumulator, loads, translate_stream

USAGE = wire.Usage(input=12, output=7, total_tokens=19)


def final(
    content: list[Any], stop: str = "stop", error: str | None = None
) -> wire.AssistantMessage:
    return wire.AssistantMessage(
        content=content,
        stop_reason=stop,
        model="m",
        provider="anthropic",
        usage=USAGE,
        timestamp=42,
        error_message=error,
    )


def shape(events: list[Any]) -> list[str]:
    """Event types, with the delta kind for updates: the order phi-core emits."""
    names = []
    for event in events:
        if event.type == "MessageUpdate":
            delta = event.delta
            kind = (
                "Text"
                if getattr(delta, "text", None)
                else "Thinking"
                if getattr(delta, "thinking", None)
                else "ToolCallDelta"
            )
            names.append(f"MessageUpdate:{kind}")
        else:
            names.append(event.type)
    return names


def run(stream: Any, **options: Any) -> list[Any]:
    return list(translate_stream(stream, loop_id="loop", model="m", **options))


def test_plain_text() -> None:
    done = final([wire.TextContent(text="Hello world")])
    events = run(
        [
            wire.StreamStart(),
            wire.StreamTextDelta(content_index=0, delta="Hello"),
            wire.StreamTextDelta(content_index=0, delta=" world"),
            wire.StreamDone(message=done),
        ]
    )
    assert shape(events) == [
        "MessageStart",
        "MessageUpdate:Text",
        "MessageUpdate:Text",
        "MessageEnd",
    ]
    placeholder = events[0].message
    assert (
        placeholder.content == []
        and placeholder.provider == ""
        and placeholder.stop_reason == "stop"
    )
    assert placeholder.model == "m" and placeholder.usage == wire.Usage(input=0, output=0)
    assert [event.message.text for event in events[1:3]] == ["Hello", "Hello world"]
    assert events[-1].message == wire.LlmMessage.new(done)
    assert all(event.loop_id == "loop" for event in events)


def test_thinking_text_and_two_tool_calls() -> None:
    done = final(
        [
            wire.ThinkingContent(thinking="Let me think", signature="sig"),
            wire.TextContent(text="Running both."),
            wire.ToolCallContent(id="c1", name="bash", arguments={"cmd": "ls"}),
            wire.ToolCallContent(id="c2", name="read", arguments={"path": "a"}),
        ],
        stop="toolUse",
    )
    stream = [
        wire.StreamStart(),
        wire.StreamThinkingDelta(content_index=0, delta="Let me "),
        wire.StreamThinkingDelta(content_index=0, delta="think"),
        wire.StreamTextDelta(content_index=1, delta="Running both."),
        wire.StreamToolCallStart(content_index=2, id="c1", name="bash"),
        wire.StreamToolCallDelta(content_index=2, delta='{"cmd":'),
        wire.StreamToolCallStart(content_index=3, id="c2", name="read"),
        wire.StreamToolCallDelta(content_index=3, delta='{"path":"a"}'),
        wire.StreamToolCallDelta(content_index=2, delta='"ls"}'),
        wire.StreamToolCallEnd(content_index=3),
        wire.StreamToolCallEnd(content_index=2),
        wire.StreamDone(message=done),
    ]
    events = run(stream)
    assert shape(events) == [
        "MessageStart",
        "MessageUpdate:Thinking",
        "MessageUpdate:Thinking",
        "MessageUpdate:Text",
        "MessageUpdate:ToolCallDelta",
        "MessageUpdate:ToolCallDelta",
        "MessageUpdate:ToolCallDelta",
        "MessageEnd",
    ]
    last_update = events[-2].message
    assert last_update.thinking == "Let me think" and last_update.text == "Running both."
    assert [call.arguments for call in last_update.tool_calls] == ['{"cmd":"ls"}', '{"path":"a"}']
    assert events[-1].message.as_llm() == done

    accumulator = MessageAccumulator(model="m")
    for event in stream[:-1]:
        accumulator.feed(event)
    assert [call.arguments for call in accumulator.message.tool_calls] == [
        {"cmd": "ls"},
        {"path": "a"},
    ]
    accumulator.feed(stream[-1])
    assert accumulator.finished and accumulator.message.as_llm() == done


def test_error_before_start() -> None:
    failure = final([wire.TextContent(text="")], stop="error", error="API error: overloaded")
    events = run(
        [wire.StreamTextDelta(content_index=0, delta="lost"), wire.StreamError(message=failure)]
    )
    assert shape(events) == ["MessageStart", "MessageEnd"]  # the early delta is dropped
    assert events[0].message == events[1].message == wire.LlmMessage.new(failure)


def test_error_after_start() -> None:
    failure = final([wire.TextContent(text="Hel")], stop="error", error="connection reset")
    events = run(
        [
            wire.StreamStart(),
            wire.StreamTextDelta(content_index=0, delta="Hel"),
            wire.StreamError(message=failure),
        ]
    )
    assert shape(events) == ["MessageStart", "MessageUpdate:Text", "MessageEnd"]
    assert events[-1].message.error_message == "connection reset"


def test_a_failing_provider_never_raises() -> None:
    def provider() -> Iterator[Any]:
        yield wire.StreamStart()
        raise ConnectionError("socket closed")

    events = run(provider())
    assert shape(events) == ["MessageStart", "MessageEnd"]
    message = events[-1].message
    assert message.stop_reason == "error" and message.provider == "unknown"
    assert message.error_message == "socket closed"


def test_cancellation_keeps_the_partial_message() -> None:
    cancel = {"now": False}

    def provider() -> Iterator[Any]:
        yield wire.StreamStart()
        yield wire.StreamTextDelta(content_index=0, delta="Partial")
        cancel["now"] = True
        yield wire.StreamTextDelta(content_index=0, delta=" never seen")

    events = run(provider(), cancelled=lambda: cancel["now"])
    assert shape(events) == ["MessageStart", "MessageUpdate:Text", "MessageEnd"]
    message = events[-1].message
    assert message.stop_reason == "aborted" and message.text == "Partial"


def test_accumulating_phi_core_agent_events() -> None:
    """phi-core's own MessageUpdates re-send the placeholder; the accumulator assembles deltas."""
    lines = _fixture_stream()
    accumulator = MessageAccumulator()
    ends = []
    for line in lines:
        event = loads(wire.AgentEvent, line)
        accumulator.feed(event)
        if event.type == "MessageEnd":
            assert accumulator.message == event.message  # exactly the final message
            ends.append(event.message)
        elif event.type == "MessageUpdate":
            assert accumulator.message.content, "deltas are assembled into content"
    assert len(ends) > 10


def _fixture_stream() -> list[str]:
    from corpus import fixtures_root

    path = fixtures_root() / "phi-core" / "0.8.0" / "streams" / "events.main_session.jsonl"
    return path.read_text(encoding="utf-8").split("\n")[:-1]
