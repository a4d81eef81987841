"""Models built in Python are as strict as ``loads`` (runtime/serde/_wire.py ``WireModel``).

Each test is one statement of the README's "Models built in Python" section.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

import phi_wire.v0_10 as wire
from phi_wire import WireError
from phi_wire.base import WireModel

U64_MAX = 2**64 - 1


def assistant(**overrides: Any) -> Any:
    fields: dict[str, Any] = {
        "content": [],
        "stop_reason": "stop",
        "model": "m",
        "provider": "p",
        "usage": {"input": 1, "output": 2},
        "timestamp": 1,
    }
    return wire.AssistantMessage(**{**fields, **overrides})


@pytest.mark.parametrize(
    ("build", "pointer", "found"),
    [
        (lambda: wire.Usage(input="5", output=0), "/input", 'found string "5"'),  # issue 10
        (lambda: wire.Usage(input=5.0, output=0), "/input", "found floating point 5.0"),
        (lambda: wire.Usage(input=True, output=0), "/input", "found boolean true"),
        (lambda: wire.Usage(input=U64_MAX + 1, output=0), "/input", "<= 18446744073709551615"),
        (lambda: wire.UserMessage(content=(), timestamp=1), "/content", "found tuple"),
        (lambda: wire.TextContent(text=b"x"), "/text", "expected a valid string"),
        (lambda: assistant(stop_reason="Stop"), "/stop_reason", "expected one of"),
        (lambda: assistant(usage={"input": "1", "output": 2}), "/usage/input", "string"),
        (lambda: wire.ToolCallContent(id="c", name="n", arguments={1: 2}), "/arguments", "keys"),
        (
            lambda: wire.ToolCallContent(id="c", name="n", arguments=[float("nan")]),
            "/arguments",
            "no NaN or infinity: nan at /0",
        ),
        (lambda: wire.ToolCallContent(id="c", name="n", arguments={1, 2}), "/arguments", "set"),
        (lambda: wire.LlmUserMessage(content=[], timestamp=1, turn_id="abc"), "/turn_id", ""),
        (lambda: wire.Usage.model_validate({"input": "5", "output": 0}), "/input", "string"),
    ],
)
def test_construction_is_strict(build: Any, pointer: str, found: str) -> None:
    with pytest.raises(WireError) as caught:
        build()
    assert caught.value.pointer == pointer
    assert found in str(caught.value), str(caught.value)


def test_construction_takes_what_serde_reads_and_pythons_natural_forms() -> None:
    by_name = assistant(stop_reason="toolUse")
    by_alias = wire.AssistantMessage.model_validate(
        {
            "content": [{"type": "text", "text": "hi"}],
            "stopReason": {"toolUse": None},  # serde's map form of a unit variant
            "model": "m",
            "provider": "p",
            "usage": wire.Usage(input=1, output=2),
            "timestamp": 1,
        }
    )
    assert by_name.stop_reason is by_alias.stop_reason is wire.StopReason.TOOL_USE
    event = wire.TurnStart(
        loop_id="l",
        turn_index=0,
        timestamp=dt.datetime(2026, 5, 25, tzinfo=dt.UTC),
        triggered_by="FollowUp",  # a serde alias
    )
    assert event.triggered_by is wire.TurnTrigger.CONTINUATION
    assert wire.ToolCallContent(id="c", name="n", arguments={"n": 2**64}).arguments == {
        "n": 1.8446744073709552e19  # a serde_json::Value holds integers up to u64::MAX only
    }


def test_assignment_is_validated() -> None:
    message = wire.UserMessage(content=[], timestamp=1)
    with pytest.raises(WireError) as caught:
        message.timestamp = "oops"  # issue 10: dumps wrote "oops"
    assert (
        str(caught.value) == 'UserMessage /timestamp: expected a valid integer, found string "oops"'
    )
    assert message.timestamp == 1
    message.timestamp = 2
    message.content = [{"type": "text", "text": "hi"}]
    assert wire.dumps(message) == (
        '{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":2}'
    )


def test_model_validate_json_is_loads() -> None:
    """It accepted "turn_index":"0", 0.0 and repeated keys (issue 10)."""
    for field in ('"0"', "0.0"):
        with pytest.raises(WireError, match="/turn_index"):
            wire.TurnStart.model_validate_json(
                '{"type":"TurnStart","loop_id":"l","turn_index":'
                + field
                + ',"timestamp":"2026-05-25T09:41:07Z","triggered_by":"User"}'
            )
    with pytest.raises(WireError, match="duplicate field `input`"):
        wire.Usage.model_validate_json('{"input":1,"input":2,"output":3}')
    assert wire.Usage.model_validate_json("[1,2]") == wire.Usage(input=1, output=2)
    with pytest.raises(TypeError, match="takes no pydantic options"):
        wire.Usage.model_validate_json('{"input":1,"output":2}', strict=False)


def test_helpers_validate_what_they_are_given() -> None:
    llm = wire.LlmUserMessage(content=[], timestamp=1)
    with pytest.raises(WireError, match="LlmUserMessage /turn_id"):
        llm.with_turn_id("abc")  # was stored as is (phi-core's with_turn_id takes a TurnId)
    stamped = llm.with_turn_id({"loopId": "l", "turnIndex": 2})
    assert stamped.turn_id == wire.TurnId(loop_id="l", turn_index=2) and llm.turn_id is None
    assert '"turnId":{"loopId":"l","turnIndex":2}' in wire.dumps(stamped)


def test_usage_sums_past_u64_are_errors() -> None:
    """phi-core's Usage::combine adds with `+`: a panic in debug builds, a silent wrap-around in
    release builds. phi-wire raises (issue 10: it was a pydantic ValidationError)."""
    big = wire.Usage(input=U64_MAX, output=0)
    with pytest.raises(WireError, match="Usage /input: expected a value <= 18446744073709551615"):
        big + wire.Usage(input=1, output=0)
    with pytest.raises(WireError):
        sum([big, big])
    assert (big + wire.Usage(input=0, output=1)).input == U64_MAX


def test_dumps_refuses_a_value_of_the_wrong_type() -> None:
    message = wire.UserMessage(content=[], timestamp=1)
    message.content.append("oops")  # in place: not validated
    with pytest.raises(WireError, match="UserMessage /: cannot be written as phi-core writes it"):
        wire.dumps(message)
    with pytest.raises(WireError, match="cannot be written"):
        wire.dumps(wire.Usage.model_construct(input="5", output=0))


def test_what_is_not_checked() -> None:
    """model_construct and model_copy validate nothing, and dumps checks types, not ranges;
    strict=False and model_validate_strings are pydantic's lax and string modes, by name."""
    constructed = wire.UserMessage.model_construct(content=[], timestamp=-1)
    assert wire.dumps(constructed) == '{"role":"user","content":[],"timestamp":-1}'
    copied = wire.UserMessage(content=[], timestamp=1).model_copy(update={"timestamp": -2})
    assert wire.dumps(copied) == '{"role":"user","content":[],"timestamp":-2}'
    assert wire.Usage.model_validate({"input": "5", "output": 0}, strict=False).input == 5
    assert wire.Usage.model_validate_strings({"input": "5", "output": "0"}).input == 5
    with pytest.raises(WireError, match="/input"):
        wire.Usage.model_validate_strings({"input": "x", "output": "0"})


def test_the_wire_init_is_not_a_custom_init_to_pydantic() -> None:
    """WireModel.__init__ (which raises WireError) carries pydantic's mark of its own __init__:
    otherwise pydantic-core would call it on every parse, and the validate fast path would refuse
    every model. Should pydantic stop honouring the mark, this fails."""
    for name in wire.__all__:
        model = getattr(wire, name)
        if isinstance(model, type) and issubclass(model, WireModel):
            assert model.__pydantic_custom_init__ is False, name
    schema: Any = wire.AssistantMessage.__pydantic_core_schema__
    while schema["type"] == "definitions":
        schema = schema["schema"]
    assert schema["type"] == "model" and not schema.get("custom_init")
