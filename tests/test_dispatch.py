"""A union of phi-wire models is written by its member's own serializer (issue 21, goal 3):
``phi_wire.serde._dispatch``.

pydantic-core writes a union's value twice over: as Python objects (``to_python``), then those
objects as JSON. ``dumps``'s serializer stands a polymorphic model schema in for each union of
phi-wire models, which writes the value through its class's serializer, installed by ``_write``
(JSON as ``dumps`` writes it, Python objects as pydantic's own). These tests hold what that
changes and what it must not: the bytes, the errors on a value of the wrong type, everything
``model_dump`` and ``model_dump_json`` with options return, and a user's own classes.
"""

from __future__ import annotations

import json
import signal
import sys
from typing import Any

import pytest
from corpus import fixtures_root
from pydantic import BaseModel
from pydantic_core import SchemaSerializer
from pydantic_own import pydantic_json

import phi_wire
import phi_wire.v0_8 as wire
from phi_wire.serde._write import writer

BASE = fixtures_root() / "phi-core" / "0.8.0"


def session() -> Any:
    return wire.loads(wire.Session, (BASE / "sessions" / "session.main.json").read_bytes())


def agent_end() -> Any:
    lines = (BASE / "streams" / "events.main_session.jsonl").read_bytes().splitlines()
    events = (wire.loads(wire.AgentEvent, line) for line in lines)
    return next(event for event in events if isinstance(event, wire.AgentEnd))


def test_a_session_s_unions_are_written_by_their_members_own_serializers() -> None:
    """Every event of a loop, every message: no union left between them and their class's
    serializer, which is ``dumps``'s own (the same bytes as phi-core's file)."""
    value = session()
    text = (BASE / "sessions" / "session.main.json").read_text(encoding="utf-8")
    assert wire.dumps(value, pretty=True) == text.rstrip("\n")
    assert wire.dumps(value) == pydantic_json(value)
    for loop in value.loops:
        for recorded in loop.events:
            event = recorded.event
            assert type(event).__pydantic_serializer__ is writer(type(event))


@pytest.mark.parametrize("pretty", [False, True])
def test_a_ctrl_c_in_a_list_of_messages_is_no_longer_dropped(pretty: bool) -> None:
    """pydantic-core drops an interrupt raised on the first instruction of a Python function it
    calls inside a union (``test_interrupts``): an extension message's data, in an event's list
    of messages, is no longer written inside one, so its Ctrl-C leaves ``dumps`` as itself."""
    end = agent_end()
    end.messages = [wire.ExtensionMessage.new("status", {"b": 1, "a": 2})]  # its one JsonValue
    sent: list[str] = []

    def profile(frame: Any, event: str, arg: object) -> None:
        if event == "call" and frame.f_code.co_name == "sorted_json" and not sent:
            sent.append("sorted_json")
            signal.raise_signal(signal.SIGINT)

    written = wire.dumps(end, pretty=pretty)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.setprofile(profile)
    try:
        with pytest.raises(KeyboardInterrupt):
            wire.dumps(end, pretty=pretty)
    finally:
        sys.setprofile(None)
        signal.signal(signal.SIGINT, previous)
    assert sent
    assert wire.dumps(end, pretty=pretty) == written


MESSAGES = "ExtensionMessage, LlmAssistantMessage, LlmToolResultMessage, LlmUserMessage"


@pytest.mark.parametrize("wrong", [5, "text", {"role": "user"}, None], ids=repr)
def test_a_value_that_is_no_model_is_refused_with_the_union_named(wrong: Any) -> None:
    """Put in a list of messages unvalidated: a ``WireError`` naming what was expected, never
    written; ``model_dump_json`` refuses it too (pydantic's own would warn and guess)."""
    end = agent_end()
    end.messages.append(wrong)
    expected = f"expected one of {MESSAGES}, found a value of type {type(wrong).__name__}"
    for pretty in (False, True):
        with pytest.raises(wire.WireError, match=expected):
            wire.dumps(end, pretty=pretty)
    with pytest.raises(ValueError, match="AttributeError"):
        end.model_dump_json()


@pytest.mark.parametrize("wrong", [wire.TextContent(text="t"), wire.Usage(input=1, output=2)])
def test_a_model_of_another_class_is_refused_by_the_union(wrong: BaseModel) -> None:
    """A phi-wire model that is none of the union's members is judged by the union itself, as
    before: a ``WireError`` from ``dumps``."""
    end = agent_end()
    end.messages.append(wrong)
    for pretty in (False, True):
        with pytest.raises(wire.WireError, match=r"cannot be written.*Expected `LlmUserMessage`"):
            wire.dumps(end, pretty=pretty)


OPTIONS: list[dict[str, Any]] = [
    {"exclude_unset": True},
    {"exclude_defaults": True},
    {"by_alias": False},
    {"exclude_none": True},
    {"exclude_computed_fields": True},
    {"exclude": {"loops": {0: {"messages"}}}},
    {"include": {"session_id", "loops"}},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda options: next(iter(options)))
def test_model_dump_json_with_options_is_pydantic_s_own(options: dict[str, Any]) -> None:
    """``dumps``'s serializer writes a sorted subtree's fields as computed fields, which some
    options treat otherwise (``exclude_unset`` never drops one, ``exclude_computed_fields`` drops
    them all): given any option, ``model_dump_json`` runs pydantic's own serializer."""
    value = session()
    wire.dumps(value)  # installed
    own = SchemaSerializer(wire.Session.__pydantic_core_schema__, _use_prebuilt=False)
    assert value.model_dump_json(**options) == own.to_json(value, **options).decode()


@pytest.mark.parametrize("mode", ["python", "json"])
def test_model_dump_is_pydantic_s_own(mode: str) -> None:
    """Python objects, in either mode, as pydantic's own serializer makes them (the installed
    serializer's Python half), options included."""
    value = session()
    wire.dumps(value)
    own = SchemaSerializer(wire.Session.__pydantic_core_schema__, _use_prebuilt=False)
    for options in [{}, *OPTIONS]:
        assert value.model_dump(mode=mode, **options) == own.to_python(value, mode=mode, **options)
    assert json.loads(value.model_dump_json()) == value.model_dump(mode="json")


class Holder(BaseModel):
    """A user's model that holds phi-core values, itself none of phi-wire's."""

    event: wire.AgentEvent
    items: list[Holder | wire.TextContent] = []


def test_a_user_s_classes_are_never_changed() -> None:
    """``dumps`` writes a user's model through a serializer of its own, as before: its class's
    serializer is left as pydantic made it, and no flag is put on it."""
    holder = Holder(
        event=agent_end(), items=[Holder(event=agent_end()), wire.TextContent(text="t")]
    )
    before = Holder.__pydantic_serializer__
    written = phi_wire.dumps(holder)
    assert Holder.__pydantic_serializer__ is before
    assert not [name for name in vars(Holder) if name.startswith("__phi_wire")]
    assert written == pydantic_json(holder)


class NotedAssistant(wire.LlmAssistantMessage):
    """A user's subclass of a union member, with a field of its own."""

    note: str = "kept"


def test_a_user_s_subclass_in_a_union_is_written_as_dumps_writes_it_alone() -> None:
    """Through its own class's serializer, as ``dumps`` writes it at the top: its own field is
    written (the union wrote its parent's fields only, silently dropping it)."""
    end = agent_end()
    assistant = next(m for m in end.messages if isinstance(m, wire.LlmAssistantMessage))
    noted = NotedAssistant(**dict(assistant))
    end.messages = [noted]
    written = json.loads(wire.dumps(end))["messages"][0]
    assert written == json.loads(wire.dumps(noted))
    assert written["note"] == "kept"
