"""phi-core's helper API (runtime/formats/phi_core/helpers.py) on the generated models."""

from __future__ import annotations

from pathlib import Path

import pytest
from mypy_run import run_mypy

import phi_wire.v0_8
from phi_wire import (
    OVERFLOW_PHRASES,
    AgentMessage,
    AssistantMessage,
    CostRates,
    ExtensionMessage,
    LlmAssistantMessage,
    LlmMessage,
    LlmUserMessage,
    Message,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCallContent,
    TurnId,
    Usage,
    UserMessage,
    convert_to_llm,
    dumps,
    llm_message,
    loads,
    user_message,
)

PROVIDER_OVERFLOWS = [
    "prompt is too long: 213462 tokens > 200000 maximum",
    "input is too long for requested model",
    "Your input exceeds the context window of this model",
    "The input token count (1196265) exceeds the maximum number of tokens allowed",
    "This model's maximum prompt length is 131072 but request contains 537812 tokens",
    "Please reduce the length of the messages or completion",
    "This endpoint's maximum context length is 128000 tokens",
    "prompt token count of 140000 exceeds the limit of 128000",
    "the request exceeds the available context size, try increasing it",
    "the number of tokens to keep is greater than the context length",
    "invalid params, context window exceeds limit (2013)",
    "Invalid request: Your request exceeded model token limit: 262144",
    "CONTEXT LENGTH EXCEEDED",
    "error code: context_length_exceeded",
    "Too Many Tokens in request",
    "token limit exceeded for this model",
]


def assistant(error: str | None, stop: StopReason = StopReason.ERROR) -> AssistantMessage:
    return AssistantMessage(
        content=[],
        stop_reason=stop,
        model="m",
        provider="p",
        usage=Usage(input=0, output=0),
        timestamp=1,
        error_message=error,
    )


@pytest.mark.parametrize("text", PROVIDER_OVERFLOWS)
def test_each_provider_overflow_pattern_is_recognised(text: str) -> None:
    assert assistant(text).is_context_overflow()


def test_every_listed_phrase_has_a_provider_case() -> None:
    for phrase in OVERFLOW_PHRASES:
        assert any(phrase in case.lower() for case in PROVIDER_OVERFLOWS), phrase


def test_overflow_needs_an_error_reply_with_a_matching_text() -> None:
    assert not assistant("internal server error").is_context_overflow()
    assert not assistant("prompt is too long", StopReason.STOP).is_context_overflow()
    assert not assistant(None).is_context_overflow()
    assert not user_message("prompt is too long").is_context_overflow()


def test_message_user_and_role() -> None:
    message = user_message("hi")
    assert isinstance(message, UserMessage) and message.role == "user" and message.text == "hi"
    assert phi_wire.v0_8.user_message("x").__class__ is phi_wire.v0_8.UserMessage
    assert assistant(None).role == "assistant"


def test_accessors_and_extract_json() -> None:
    reply = AssistantMessage(
        content=[
            ThinkingContent(thinking="plan "),
            TextContent(text='{"a": '),
            ThinkingContent(thinking="more"),
            TextContent(text="1}"),
        ],
        stop_reason=StopReason.STOP,
        model="m",
        provider="p",
        usage=Usage(input=1, output=1),
        timestamp=1,
    )
    assert reply.text == '{"a": 1}' and reply.thinking == "plan more" and reply.tool_calls == []
    assert reply.extract_json() == {"a": 1}
    call = ToolCallContent(id="c", name="respond_json", arguments={"b": 2})
    other = ToolCallContent(id="d", name="bash", arguments={"cmd": "ls"})
    with_tool = reply.model_copy(update={"content": [*reply.content, other, call]})
    assert with_tool.tool_calls == [other, call]
    assert with_tool.extract_json() == {"b": 2}  # the respond_json call wins over the text
    assert assistant(None).extract_json() is None


def test_usage_arithmetic() -> None:
    a = Usage(input=100, output=50, reasoning=20, cache_read=300, cache_write=100, total_tokens=550)
    b = Usage(input=1, output=2, reasoning=0, cache_read=3, cache_write=4, total_tokens=10)
    assert (
        a.combine(b)
        == a + b
        == Usage(
            input=101, output=52, reasoning=20, cache_read=303, cache_write=104, total_tokens=560
        )
    )
    assert a.cache_hit_rate() == 300 / 500 and Usage(input=0, output=9).cache_hit_rate() == 0.0
    rates = CostRates(
        input_per_million=3,
        output_per_million=15,
        cache_read_per_million=0.3,
        cache_write_per_million=3.75,
    )
    expected = (100 * 3 + 50 * 15 + 300 * 0.3 + 100 * 3.75) / 1e6  # reasoning not charged again
    assert a.estimated_cost(rates) == pytest.approx(expected)


def test_two_lanes_and_the_one_way_rule() -> None:
    bare = user_message("hi")
    llm = llm_message(bare)
    assert isinstance(llm, LlmUserMessage) and llm.turn_id is None and llm.as_llm() == bare
    turn = TurnId(loop_id="l", turn_index=2)
    stamped = llm_message(bare, turn)
    assert stamped.turn_id == turn and llm.with_turn_id(turn) == stamped
    assert dumps(stamped) == dumps(llm)[:-1] + ',"turnId":{"loopId":"l","turnIndex":2}}'

    extension = ExtensionMessage.new("status", {"state": "running"})
    assert extension.role == "extension" and extension.as_llm() is None
    assert extension.turn_id is None and extension.with_turn_id(turn) is extension
    with pytest.raises(TypeError):
        llm_message(extension)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        llm_message(stamped)  # already in the LLM lane
    parsed = loads(AgentMessage, dumps(extension))
    assert isinstance(parsed, ExtensionMessage)

    reply = LlmAssistantMessage.new(assistant("boom"))
    assert convert_to_llm([llm, extension, reply]) == [bare, assistant("boom")]


def test_agent_message_accessors_follow_phi_core() -> None:
    stamped = llm_message(UserMessage(content=[], timestamp=7))
    assert stamped.role == "user" and stamped.timestamp == 7 and stamped.turn_id is None
    extension = loads(AgentMessage, '{"role":"status","kind":"k","data":null}')
    assert isinstance(extension, ExtensionMessage)
    assert extension.role == "status"  # an extension's role is its own, free-form
    assert extension.timestamp == 0  # AgentMessage::timestamp of an extension
    assert convert_to_llm([extension]) == []


def test_constructors_on_concrete_classes() -> None:
    assert isinstance(UserMessage.user("x"), UserMessage)
    with pytest.raises(TypeError):
        AssistantMessage.user("x")
    llm = LlmAssistantMessage.new(user_message("hi"))  # the variant follows the message's role
    assert isinstance(llm, LlmUserMessage)
    assert sum([Usage(input=1, output=2), Usage(input=3, output=4)]) == Usage(input=4, output=6)
    with pytest.raises(TypeError):
        Usage(input=1, output=1) + 1  # type: ignore[operator]


def test_public_unions_still_work_as_types() -> None:
    from pydantic import BaseModel

    text = '{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}'
    assert isinstance(loads(Message, text), UserMessage)
    assert isinstance(loads(LlmMessage, text), LlmUserMessage)
    assert phi_wire.v0_8.schema(Message)["title"] == "Message"
    assert Message.__name__ == "Message" and repr(Message) == "Message"

    class Holder(BaseModel):
        first: Message
        maybe: Message | None = None
        many: list[LlmMessage] = []

    holder = Holder.model_validate(
        {"first": loads(Message, text), "many": [loads(LlmMessage, text)]}
    )
    assert holder.maybe is None and isinstance(holder.many[0], LlmUserMessage)


def test_public_names_are_the_generated_objects_themselves() -> None:
    """No stand-ins: what type checkers see is what the runtime holds."""
    import phi_wire.v0_10

    assert phi_wire.Message is phi_wire.v0_10.Message
    assert phi_wire.LlmMessage is phi_wire.v0_10.LlmMessage
    assert phi_wire.v0_10.Message.__module__ == "phi_wire.v0_10.message"
    assert type(phi_wire.v0_10.Message).__name__ == "TypeAliasType"


ONE_WAY_SNIPPET = """
from phi_wire.v0_8 import ExtensionMessage, llm_message, user_message

fine = llm_message(user_message("hi"))
refused = llm_message(ExtensionMessage.new("status", {}))
"""


def test_the_one_way_rule_is_enforced_by_the_types(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mypy, as tools/typecheck runs it, rejects an ExtensionMessage where a Message goes."""
    root = Path(__file__).resolve().parent.parent
    snippet = tmp_path / "snippet.py"
    snippet.write_text(ONE_WAY_SNIPPET, encoding="utf-8")
    status, out = run_mypy(
        [snippet],
        ["--config-file", str(root / "pyproject.toml")],
        cache="mypy-cache-tests",
        staging=tmp_path / "staged",
        monkeypatch=monkeypatch,
    )
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert status == 1 and len(errors) == 1, out
    assert "snippet.py:5:" in errors[0] and '"ExtensionMessage"' in errors[0], out


def test_the_documented_helper_example_runs() -> None:
    """docs/streaming.md's first example (README text) asserts what it shows."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "streaming.md").read_text("utf-8")
    block = text.split("```python\n", 1)[1].split("```\n", 1)[0]
    exec(compile(block, "docs/streaming.md", "exec"), {})
