"""Provider streams to AgentEvents (runtime/formats/phi_core/stream.py), in phi-core's order,
plus accumulation."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from corpus import fixtures_root

import phi_wire as wire
from phi_wire import MessageAccumulator, atranslate_stream, dumps, loads, translate_stream

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
            names.append(f"MessageUpdate:{type(event.delta).__name__}")
        else:
            names.append(event.type)
    return names


def run(stream: Any, **options: Any) -> list[Any]:
    return list(translate_stream(stream, loop_id="loop", model="m", **options))


def test_plain_text() -> None:
    done = final([wire.TextContent(text="Hello world")])
    translation = translate_stream(
        [
            wire.StreamStart(),
            wire.StreamTextDelta(content_index=0, delta="Hello"),
            wire.StreamTextDelta(content_index=0, delta=" world"),
            wire.StreamDone(message=done),
        ],
        loop_id="loop",
        model="m",
    )
    assert translation.message is None
    events = list(translation)
    assert shape(events) == [
        "MessageStart",
        "MessageUpdate:TextDelta",
        "MessageUpdate:TextDelta",
        "MessageEnd",
    ]
    placeholder = events[0].message
    assert isinstance(placeholder, wire.LlmAssistantMessage) and placeholder.turn_id is None
    assert placeholder.content == [] and placeholder.provider == ""
    assert placeholder.stop_reason == "stop" and placeholder.model == "m"
    assert placeholder.usage == wire.Usage(input=0, output=0)
    assert [event.delta.text.delta for event in events[1:3]] == ["Hello", " world"]
    assert [event.message.text for event in events[1:3]] == ["Hello", "Hello world"]
    assert events[-1].message == wire.llm_message(done)
    assert all(event.loop_id == "loop" for event in events)
    assert translation.message == done  # what stream_assistant_response returns


THINKING_TEXT_TOOLS = [
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
    wire.StreamDone(
        message=final(
            [
                wire.ThinkingContent(thinking="Let me think", signature="sig"),
                wire.TextContent(text="Running both."),
                wire.ToolCallContent(id="c1", name="bash", arguments={"cmd": "ls"}),
                wire.ToolCallContent(id="c2", name="read", arguments={"path": "a"}),
            ],
            stop="toolUse",
        )
    ),
]
THINKING_TEXT_TOOLS_ORDER = [
    "MessageStart",
    "MessageUpdate:ThinkingDelta",
    "MessageUpdate:ThinkingDelta",
    "MessageUpdate:TextDelta",
    "MessageUpdate:ToolCallDelta",
    "MessageUpdate:ToolCallDelta",
    "MessageUpdate:ToolCallDelta",
    "MessageEnd",
]


def test_thinking_text_and_two_tool_calls() -> None:
    events = run(THINKING_TEXT_TOOLS)
    assert shape(events) == THINKING_TEXT_TOOLS_ORDER
    first_call = events[4].message
    assert first_call.tool_calls[0].arguments == '{"cmd":'  # the raw JSON text so far
    last_update = events[-2].message
    assert last_update.thinking == "Let me think" and last_update.text == "Running both."
    assert [(call.id, call.name) for call in last_update.tool_calls] == [
        ("c1", "bash"),
        ("c2", "read"),
    ]
    assert [call.arguments for call in last_update.tool_calls] == ['{"cmd":"ls"}', '{"path":"a"}']
    assert events[-1].message.as_llm() == THINKING_TEXT_TOOLS[-1].message
    for event in events:  # every snapshot is a valid AgentEvent on the wire
        assert dumps(loads(wire.AgentEvent, dumps(event))) == dumps(event)


def test_the_accumulator_assembles_provider_events_by_content_index() -> None:
    accumulator = MessageAccumulator(model="m")
    for event in THINKING_TEXT_TOOLS[:-1]:
        accumulator.feed(event)
    message = accumulator.message
    assert [block.type for block in message.content] == [
        "thinking",
        "text",
        "toolCall",
        "toolCall",
    ]
    assert [call.arguments for call in message.tool_calls] == [{"cmd": "ls"}, {"path": "a"}]
    assert not accumulator.finished
    accumulator.feed(THINKING_TEXT_TOOLS[-1])
    assert accumulator.finished and accumulator.message.as_llm() == THINKING_TEXT_TOOLS[-1].message
    accumulator.feed(wire.StreamTextDelta(content_index=0, delta="late"))
    assert accumulator.message.as_llm() == THINKING_TEXT_TOOLS[-1].message  # final stays final


def test_blocks_keep_index_order_and_bad_arguments_stay_text() -> None:
    accumulator = MessageAccumulator()
    accumulator.feed(wire.StreamStart())
    accumulator.feed(wire.StreamTextDelta(content_index=2, delta="later"))
    accumulator.feed(wire.StreamToolCallStart(content_index=0, id="c", name="t"))
    accumulator.feed(wire.StreamToolCallDelta(content_index=0, delta="{not json"))
    accumulator.feed(wire.StreamToolCallEnd(content_index=0))
    accumulator.feed(wire.StreamTextDelta(content_index=1, delta="middle"))
    content = accumulator.message.content
    assert [block.type for block in content] == ["toolCall", "text", "text"]
    assert content[0].arguments == "{not json" and content[2].text == "later"


def test_the_accumulator_follows_the_translators_snapshots() -> None:
    accumulator = MessageAccumulator()
    for event in run(THINKING_TEXT_TOOLS):
        accumulator.feed(event)
        assert accumulator.message == event.message
    assert accumulator.finished


def test_error_before_start() -> None:
    failure = final([wire.TextContent(text="")], stop="error", error="API error: overloaded")
    translation = translate_stream(
        [wire.StreamTextDelta(content_index=0, delta="lost"), wire.StreamError(message=failure)],
        loop_id="loop",
    )
    events = list(translation)
    assert shape(events) == ["MessageStart", "MessageEnd"]  # the early delta is dropped
    assert events[0].message == events[1].message == wire.llm_message(failure)
    assert translation.message == failure


def test_error_after_start() -> None:
    failure = final([wire.TextContent(text="Hel")], stop="error", error="connection reset")
    events = run(
        [
            wire.StreamStart(),
            wire.StreamTextDelta(content_index=0, delta="Hel"),
            wire.StreamError(message=failure),
        ]
    )
    assert shape(events) == ["MessageStart", "MessageUpdate:TextDelta", "MessageEnd"]
    assert events[-1].message == wire.llm_message(failure)


def test_done_without_start_and_deltas_after_done() -> None:
    done = final([wire.TextContent(text="x")])
    events = run(
        [
            wire.StreamDone(message=done),
            wire.StreamTextDelta(content_index=0, delta="late"),
            wire.StreamError(message=done),
        ]
    )
    # phi-core: MessageEnd only; a later delta re-sends the final message; a later Error does
    # not open the message again.
    assert shape(events) == ["MessageEnd", "MessageUpdate:TextDelta", "MessageEnd"]
    assert events[1].message == wire.llm_message(done)


def assert_synthetic(message: Any, error: str) -> None:
    """phi-core's synthetic error Message for a provider failure."""
    assert isinstance(message, wire.AssistantMessage) and message.stop_reason == "error"
    assert message.provider == "unknown" and message.model == "m"
    assert message.content == [wire.TextContent(text="")]
    assert message.usage == wire.Usage(input=0, output=0)
    assert message.error_message == error


def failing_provider() -> Iterator[Any]:
    yield wire.StreamStart()
    yield wire.StreamTextDelta(content_index=0, delta="Hal")
    raise ConnectionError("socket closed")


def test_a_failing_provider_never_raises() -> None:
    translation = translate_stream(failing_provider(), loop_id="loop", model="m")
    assert shape(list(translation)) == ["MessageStart", "MessageUpdate:TextDelta"]
    assert_synthetic(translation.message, "socket closed")


def test_end_failed_closes_the_open_message() -> None:
    events = run(failing_provider(), end_failed=True)
    assert shape(events) == ["MessageStart", "MessageUpdate:TextDelta", "MessageEnd"]
    assert_synthetic(events[-1].message.as_llm(), "socket closed")
    lone = run(iter([]), end_failed=True)
    assert shape(lone) == ["MessageStart", "MessageEnd"]
    assert_synthetic(lone[-1].message.as_llm(), "provider stream ended without Done or Error")


def test_cancellation() -> None:
    cancel = {"now": False}

    def provider() -> Iterator[Any]:
        yield wire.StreamStart()
        yield wire.StreamTextDelta(content_index=0, delta="Partial")
        cancel["now"] = True
        yield wire.StreamTextDelta(content_index=0, delta=" never seen")
        raise AssertionError("not read after cancellation")

    translation = translate_stream(
        provider(), loop_id="loop", model="m", cancelled=lambda: cancel["now"]
    )
    events = list(translation)
    # phi-core: the provider returns Err(Cancelled) without an Error event: no MessageEnd.
    assert shape(events) == ["MessageStart", "MessageUpdate:TextDelta"]
    assert events[-1].message.text == "Partial"
    assert_synthetic(translation.message, "Cancelled")


def test_async_twin() -> None:
    async def provider(events: list[Any]) -> AsyncIterator[Any]:
        for event in events:
            await asyncio.sleep(0)
            yield event

    async def collect(events: list[Any]) -> tuple[list[Any], Any]:
        translation = atranslate_stream(provider(events), loop_id="loop", model="m")
        return [event async for event in translation], translation.message

    events, message = asyncio.run(collect(THINKING_TEXT_TOOLS))
    assert shape(events) == THINKING_TEXT_TOOLS_ORDER
    assert [event.message.content for event in events[1:]] == [
        event.message.content for event in run(THINKING_TEXT_TOOLS)[1:]
    ]
    assert message == THINKING_TEXT_TOOLS[-1].message

    async def failing() -> AsyncIterator[Any]:
        yield wire.StreamStart()
        raise TimeoutError

    async def collect_failure() -> tuple[list[Any], Any]:
        translation = atranslate_stream(failing(), loop_id="loop", model="m")
        return [event async for event in translation], translation.message

    events, message = asyncio.run(collect_failure())
    assert shape(events) == ["MessageStart"]
    assert_synthetic(message, "TimeoutError")


def test_events_follow_the_version_of_the_provider_events() -> None:
    import phi_wire.v0_8 as v0_8

    done = v0_8.AssistantMessage(
        content=[],
        stop_reason="stop",
        model="m",
        provider="p",
        usage=v0_8.Usage(input=0, output=0),
        timestamp=0,
    )
    events = run([v0_8.StreamStart(), v0_8.StreamDone(message=done)])
    assert all(type(event).__module__.startswith("phi_wire.v0_8.") for event in events)


@pytest.mark.parametrize("version", ["0.8.0"])
def test_accumulating_phi_core_agent_events(version: str) -> None:
    """phi-core's own MessageUpdates re-send the placeholder; the accumulator assembles deltas."""
    path = fixtures_root() / "phi-core" / version / "streams" / "events.main_session.jsonl"
    accumulator = MessageAccumulator()
    ends = updates = 0
    for line in path.read_text(encoding="utf-8").split("\n")[:-1]:
        event = loads(wire.AgentEvent, line)
        if event.type == "MessageEnd" and event.message.role == "assistant":
            partial = accumulator.message.text  # the deltas streamed so far begin the reply
            assert event.message.text.startswith(partial)
        accumulator.feed(event)
        if event.type == "MessageEnd":
            assert accumulator.message == event.message  # exactly the final message
            ends += 1
        elif event.type == "MessageUpdate":
            assert accumulator.message.content, "deltas are assembled into content"
            updates += 1
    assert ends > 10 and updates > 0
