"""The public API: objects built in Python write what phi-core writes; strict, clear errors."""

from __future__ import annotations

import subprocess
import sys

from corpus import fixtures_root

import phi_wire
from phi_wire.v0_8 import (
    AgentEvent,
    AgentMessage,
    AgentStart,
    AssistantMessage,
    ContinuationTag,
    LlmMessage,
    LlmUserMessage,
    LoopConfigSnapshot,
    Message,
    NodeTag,
    RerunContinuation,
    StopReason,
    TagKind,
    TextContent,
    ThinkingContent,
    Timestamp,
    ToolCallContent,
    ToolResult,
    TurnId,
    TurnStart,
    TurnTrigger,
    Usage,
    WireError,
    dumps,
    loads,
    schema,
)

VALID = fixtures_root() / "phi-core" / "0.8.0" / "valid"
LOOP = "9b2f4c1a-6e3d-4f7b-8a15-2c9e0d7b3f64.anthropic.claude-sonnet-4-5.thinking.1"


def fixture_text(path: str) -> str:
    return (VALID / path).read_text(encoding="utf-8")


def test_python_built_assistant_message_matches_phi_core() -> None:
    message = AssistantMessage(
        content=[
            ThinkingContent(
                thinking="Need to read the file first.",
                signature="EqQBCkYIBRgCKkDx3Gm9R1v0sVdQm7yZ0a8pQ2kX4cB9nW1tL6eH3fJ5uT8rY2oP0iA7sD4gK1lZ9xC6vB3nM5qW8eR2tY4uI7oP1aS3EgzKp9dLm2Vx7Qw4RtYaGgw0xF8hN2jK5pL3mQ9rIjC7tU1vW4yZ6aB8cD0eF2gH4iJ6kL8mN0oP2qR4sT6uV8wX0yZ2aB4cD6eF8gH0iJ2kL4mN6oP8qR0sT2uV4wX6yZ8aB0c=",
            ),
            TextContent(text="Reading the scanner."),
            ToolCallContent(
                id="toolu_01A9xQ3bV7mN2kL5pR8sT4wY",
                name="read_file",
                arguments={"path": "crates/lexer/src/ident.rs"},
            ),
        ],
        stop_reason=StopReason.TOOL_USE,
        model="claude-sonnet-4-5",
        provider="anthropic",
        usage=Usage(input=4182, output=391, cache_write=3904, total_tokens=8477),
        timestamp=1779702068832,
    )
    assert dumps(message) == fixture_text("Message/Message.assistant.tool_use.json")


def test_python_built_llm_message_is_written_with_sorted_keys() -> None:
    message = LlmUserMessage(
        content=[TextContent(text="hi")],
        timestamp=12345,
        turn_id=TurnId(loop_id=LOOP, turn_index=0),
        node_id=1,
        tags=[
            NodeTag(
                kind=TagKind.LESSON,
                text="bubble sort timed out",
                created_at_turn=5,
                abandoned_node_ids=[11, 12],
            ),
            NodeTag(
                kind=TagKind.CHECKPOINT,
                text="lexer fixed",
                created_at_turn=9,
                abandoned_node_ids=[],
            ),
        ],
    )
    assert dumps(message) == fixture_text("LlmMessage/LlmMessage.all_metadata.json")


def test_python_built_values_follow_serde_rules() -> None:
    # Value keys sorted, integers past u64 become f64, details written as null by default.
    assert dumps(
        ToolCallContent(id="c", name="n", arguments={"b": 2**64, "a": {"z": 1, "y": -0.0}})
    ) == (
        '{"type":"toolCall","id":"c","name":"n","arguments":{"a":{"y":-0.0,"z":1},"b":1.8446744073709552e+19}}'
    )
    assert dumps(ToolResult(content=[TextContent(text="ok")])) == fixture_text(
        "ToolResult/ToolResult.minimal.json"
    )
    # f32: shortest digits of the nearest f32; overflow is infinity, written as null.
    assert dumps(
        LoopConfigSnapshot(model="gpt-5.1", provider="openai", temperature=1 / 3)
    ) == fixture_text("LoopConfigSnapshot/LoopConfigSnapshot.temperature_f32_third.json")
    assert dumps(LoopConfigSnapshot(model="m", provider="p", temperature=1e40)).endswith(
        '"temperature":null}'
    )


def test_python_built_event_with_continuation_and_timestamp() -> None:
    event = AgentStart(
        agent_id="a",
        session_id="s",
        loop_id="l",
        continuation_kind=RerunContinuation(
            rerun=ContinuationTag(tag="2026-05-25T09:47:12.118204301+00:00")
        ),
        timestamp=Timestamp.from_unix_nanos(1779702067_386712788),
        metadata={"z": 1, "a": [True, None]},
    )
    assert dumps(event) == (
        '{"type":"AgentStart","agent_id":"a","session_id":"s","loop_id":"l","parent_loop_id":null,'
        '"continuation_kind":{"Rerun":{"tag":"2026-05-25T09:47:12.118204301+00:00"}},'
        '"timestamp":"2026-05-25T09:41:07.386712788Z","metadata":{"a":[true,null],"z":1}}'
    )
    default = AgentStart(
        agent_id="a",
        session_id="s",
        loop_id="l",
        timestamp=Timestamp("2026-05-25T11:41:07.1+02:00"),
    )
    assert '"continuation_kind":"Initial","timestamp":"2026-05-25T09:41:07.100Z"' in dumps(default)


def test_loads_returns_the_variant_and_dumps_is_exact() -> None:
    text = fixture_text("AgentEvent/AgentEvent.TurnStart.User.json")
    event = loads(AgentEvent, text)
    assert isinstance(event, TurnStart)
    assert event.triggered_by is TurnTrigger.USER
    assert dumps(event) == text
    assert loads(AgentEvent, text.encode()) == event


def test_strict_typing_as_serde() -> None:
    base = '{"input":1,"output":2}'
    assert loads(Usage, base).reasoning == 0
    for bad, found in [
        ('{"input":"1","output":2}', 'found string "1"'),
        ('{"input":1.0,"output":2}', "found floating point 1.0"),
        ('{"input":-1,"output":2}', "found integer -1"),
        ('{"input":1,"output":2,"reasoning":null}', "found null"),
    ]:
        try:
            loads(Usage, bad)
        except WireError as error:
            assert found in str(error), str(error)
        else:
            raise AssertionError(f"accepted {bad}")
    try:
        loads(
            Message,
            '{"role":"toolResult","toolCallId":"c","toolName":"t","content":[],"isError":1,"timestamp":1}',
        )
    except WireError as error:
        assert error.pointer == "/isError"
    else:
        raise AssertionError("1 was accepted for a bool")


def test_error_names_type_variant_and_pointer() -> None:
    text = fixture_text("AgentEvent/AgentEvent.MessageEnd.error.json").replace(
        '"stopReason":"error"', '"stopReason":"bogus"'
    )
    try:
        loads(AgentEvent, text)
    except WireError as error:
        assert error.type_name == "AgentEvent"
        assert len(error.problems) == 1, error.problems  # one problem, not one per union branch
        problem = error.problems[0]
        assert problem.pointer == "/message/stopReason"
        assert "MessageEnd" in problem.variant and "assistant" in problem.variant
        assert "'stop'" in problem.message and 'found string "bogus"' in problem.message
        assert str(error).startswith("AgentEvent MessageEnd")
    else:
        raise AssertionError("bogus stop reason accepted")


def test_error_for_unknown_variant_and_bad_json() -> None:
    try:
        loads(AgentEvent, '{"type":"AgentStarted"}')
    except WireError as error:
        assert "unknown variant" in str(error) and "AgentStart" in str(error)
    try:
        loads(AgentEvent, '{"type": "TurnStart",\n  "loop_id": }')
    except WireError as error:
        assert error.line == 2 and "invalid JSON" in str(error)
    else:
        raise AssertionError("invalid JSON accepted")


def test_untagged_envelope_lanes() -> None:
    llm = loads(LlmMessage, '{"role":"user","content":[],"timestamp":1}')
    assert isinstance(llm, LlmUserMessage)
    extension = loads(phi_wire.AgentMessage, '{"role":"user","kind":"k","data":null}')
    assert type(extension).__name__ == "ExtensionMessage"
    # Valid in both lanes, and more of its keys are the extension's: serde still takes the first.
    both = '{"role":"user","content":[],"timestamp":1,"kind":"k","data":1,"loop_id":"l"}'
    assert isinstance(loads(AgentMessage, both), LlmUserMessage)


def test_schema_is_self_contained() -> None:
    bundle = schema(AgentEvent)
    assert bundle["$ref"] == "#/$defs/AgentEvent"
    assert {"AgentStart", "Usage", "Content", "LlmMessage", "DateTime"} <= set(bundle["$defs"])
    bundle["$defs"].clear()
    assert schema(AgentEvent)["$defs"], "schema() hands out copies"


def test_top_level_package_speaks_the_newest_version() -> None:
    import phi_wire.v0_10

    assert phi_wire.PHI_CORE_VERSION == "0.10"
    assert phi_wire.AgentEvent is phi_wire.v0_10.AgentEvent
    assert phi_wire.loads is loads


def test_externally_tagged_errors_name_the_variant_keys() -> None:
    from phi_wire import ContinuationKind, StreamDelta

    for tp, text, expected in [
        (
            StreamDelta,
            '{"type":"Text","delta":"x"}',
            "exactly one variant key (Text, Thinking, ToolCallDelta), found delta, type",
        ),
        (StreamDelta, '{"Text":{"delta":"a"},"Thinking":{"delta":"b"}}', "found Text, Thinking"),
        (
            ContinuationKind,
            '{"Initial":{}}',
            "'Compaction' or an object with exactly one variant key (Branch, Rerun)",
        ),
        (ContinuationKind, '{"Rerun":{}}', "/Rerun: missing field `tag`"),
    ]:
        try:
            loads(tp, text)
        except WireError as error:
            assert expected in str(error), str(error)
        else:
            raise AssertionError(f"accepted {text}")


def test_the_package_loads_its_names_on_first_use() -> None:
    """`phi-wire validate` starts without pydantic; the first name asked for brings the models."""
    code = (
        "import sys, phi_wire, phi_wire.cli\n"
        "assert 'pydantic' not in sys.modules, 'phi_wire imports pydantic eagerly again'\n"
        "from phi_wire import AgentEvent\n"
        "assert 'pydantic' in sys.modules and AgentEvent is phi_wire.v0_10.AgentEvent\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
