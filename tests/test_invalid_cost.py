"""An invalid document costs work bounded by the schema, not by how many of its items fail
(issue 17, defect 4): ``loads`` of a 96 kB Turn of 32,000 empty arrays took 3.3 s, a 301 kB one
9.7 s and 458 MB. No test here times anything: each counts the work (errors pydantic built and
the values copied into them, problems built, steps of the sequence-form walk, validator calls).
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from corpus import ROOT

import phi_wire.clark_agent as clark_agent
import phi_wire.v0_10 as wire
from phi_wire.errors import WireError
from phi_wire.serde import _codec, _full_report, _sequence

SESSION = json.loads((ROOT / "examples" / "session.json").read_text(encoding="utf-8"))
SESSION_HEAD = json.dumps({**SESSION, "loops": []}, separators=(",", ":"))[: -len("[]}")]
TURN = SESSION["loops"][0]["turns"][0]
A_MESSAGE_AS_SEQUENCE = '["user",[["text","a"]],5]'  # serde's sequence form of a user message


def filled(head: str, item: str, tail: str, size: int = 99_000) -> str:
    """``head``, then ``item`` repeated (comma-separated) to about ``size`` bytes, then ``tail``."""
    return head + ",".join([item] * ((size - len(head) - len(tail)) // (len(item) + 1))) + tail


def in_a_turn(field: str, item: str, size: int = 99_000) -> str:
    """A valid Turn but for its array ``field``: ``item`` repeated to about ``size`` bytes."""
    head, tail = json.dumps({**TURN, field: "HERE"}).split('"HERE"')
    return filled(head + "[", item, "]" + tail, size)


SHAPES: dict[str, tuple[Any, str]] = {
    # the issue's own document and its Message of the same shape
    "Turn of empty arrays": (wire.Turn, '{"tool_results":[' + ",".join(["[]"] * 32000) + "]}"),
    "Message of empty arrays": (
        wire.Message,
        '{"role":"user","content":[' + ",".join(["[]"] * 32000) + '],"timestamp":1}',
    ),
    "array of numbers": (wire.Turn, filled('{"tool_results":[', "0", "]}")),
    "array of empty objects": (wire.Session, filled(SESSION_HEAD + "[", "{}", "]}")),
    "array of objects of the wrong variant": (
        wire.LoopRecord,
        filled('{"events":[', '{"type":"TurnStart"}', "]}"),
    ),
    "array of unknown tags": (wire.LoopRecord, filled('{"events":[', '{"type":"x"}', "]}")),
    "untagged union elements": (wire.Turn, filled('{"input_messages":[', '{"role":1}', "]}")),
    "deeply nested arrays": (wire.Turn, filled('{"tool_results":[', "[" * 120 + "]" * 120, "]}")),
    "nested arrays in a valid turn": (wire.Turn, in_a_turn("tool_results", "[" * 60 + "]" * 60)),
    "sequence forms and a missing field": (
        wire.Turn,
        filled('{"input_messages":[', A_MESSAGE_AS_SEQUENCE, "]}"),
    ),
    "clark-agent union elements": (
        clark_agent.AgentMessage,
        filled('{"role":"user","content":[', "{}", '],"timestamp":1}'),
    ),
}


def values(node: Any) -> int:
    """How many JSON values ``node`` holds, itself included."""
    if isinstance(node, dict):
        return 1 + sum(values(item) for item in node.values())
    if isinstance(node, list):
        return 1 + sum(values(item) for item in node)
    return 1


@dataclass
class Work:
    errors: int = 0
    """Errors pydantic built (and ``loads`` translated)."""
    copied: int = 0
    """JSON values pydantic copied into those errors (each holds its input)."""
    walked: int = 0
    """Values the sequence-form walk visited."""
    validations: int = 0
    """Validator calls the walk made (an untagged union's lanes)."""


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> Iterator[Work]:
    counted = Work()
    translate = _codec.from_json_validation_error
    walk = _sequence.objects_from_sequences
    fits = _sequence._fits

    def counting_translate(name: str, details: Any, *args: Any, **kwargs: Any) -> Any:
        counted.errors += len(details)
        counted.copied += sum(values(detail["input"]) for detail in details)
        return translate(name, details, *args, **kwargs)

    def counting_walk(tp: Any, value: Any) -> Any:
        counted.walked += 1
        return walk(tp, value)

    def counting_fits(member: Any, candidate: Any) -> bool:
        counted.validations += 1
        return fits(member, candidate)

    monkeypatch.setattr(_codec, "from_json_validation_error", counting_translate)
    monkeypatch.setattr(_codec, "objects_from_sequences", counting_walk)
    monkeypatch.setattr(_sequence, "objects_from_sequences", counting_walk)
    monkeypatch.setattr(_sequence, "_fits", counting_fits)
    yield counted


@pytest.fixture(scope="module")
def complete_models() -> None:
    """Every model class built, as in a program that has made or validated models directly
    (pydantic-core then reuses a class's own validator for it: the bound must hold all the same;
    it did not once ``examples/make_examples.py`` had run in the same process)."""
    from pydantic import BaseModel

    for module in (wire, clark_agent):
        for name in module.WIRE_TYPES:
            found = getattr(module, name)
            if isinstance(found, type) and issubclass(found, BaseModel):
                found.model_rebuild(force=True)


@pytest.mark.parametrize("models", ["as imported", "complete"])
@pytest.mark.parametrize("shape", SHAPES)
def test_an_invalid_document_costs_work_bounded_by_the_schema(
    shape: str, models: str, work: Work, request: pytest.FixtureRequest
) -> None:
    if models == "complete":
        request.getfixturevalue("complete_models")
    tp, text = SHAPES[shape]
    assert len(text) < 100_000
    with pytest.raises(WireError) as caught:
        wire.loads(tp, text)  # clark-agent's loads is the same exact codec
    size = values(json.loads(text))
    assert work.errors <= 50, work
    assert len(caught.value.problems) <= 50
    # the walk stops at the first value nothing can read (a valid turn's worth of values first)
    assert work.walked <= 50 + values(TURN) and work.validations <= 5, work
    # each error holds a copy of its input: a bounded number of them, the document at most each
    assert work.copied <= 12 * size, (work, size)
    if any(step.isdecimal() for p in caught.value.problems for step in p.pointer.split("/")):
        assert caught.value.first_invalid_items_only
        assert "each array judged up to its first invalid item" in str(caught.value)


def test_sequence_forms_cost_one_validation_each(work: Work) -> None:
    """Sequence forms before the problem are each read (they may make the document valid): one
    validation of the lane an untagged union takes, a few steps of the walk, no more."""
    head, tail = json.dumps({**TURN, "input_messages": "HERE"}).split('"HERE"')
    forms = (99_000 - len(head) - len(tail)) // (len(A_MESSAGE_AS_SEQUENCE) + 1) - 1
    text = head + "[" + ",".join([A_MESSAGE_AS_SEQUENCE] * forms + ['"x"']) + "]" + tail
    with pytest.raises(WireError):
        wire.loads(wire.Turn, text)
    assert work.errors <= 50 and forms <= work.validations <= forms + 5, work
    assert work.walked <= 10 * forms, work


def test_the_verdict_and_the_first_problem_are_those_of_a_full_report() -> None:
    """Judging each array up to its first invalid item changes no verdict and no first problem:
    the same document read in full (``fail_fast=False``) says the same first, and more."""
    text = '{"tool_results":[' + ",".join(["[]"] * 3000) + "]}"
    with pytest.raises(WireError) as bounded:
        wire.loads(wire.Turn, text)
    with pytest.raises(WireError) as full:
        wire.loads(wire.Turn, text, fail_fast=False)
    assert bounded.value.problems[0] == full.value.problems[0]
    assert set(bounded.value.problems) <= set(full.value.problems)
    assert len(full.value.problems) == 3007 and not full.value.first_invalid_items_only
    assert str(full.value).endswith("(and 3006 more problems)")
    assert bounded.value.first_invalid_items_only


def test_a_document_under_the_bound_is_reported_in_full(work: Work) -> None:
    """Up to ``FULL_REPORT_VALUES`` values every problem is listed, at a cost linear in them:
    each empty loop misses its 10 fields."""
    loops = _full_report.FULL_REPORT_VALUES - 20
    text = SESSION_HEAD + "[" + ",".join(["{}"] * loops) + "]}"
    with pytest.raises(WireError) as caught:
        wire.loads(wire.Session, text)
    assert len(caught.value.problems) == 10 * loops and not caught.value.first_invalid_items_only
    assert work.errors == 10 * loops and work.copied == 10 * loops


def test_a_big_document_of_sequence_forms_is_still_read() -> None:
    """The walk turns every sequence form of a big valid document into an object (the bound is
    on the work an invalid document costs, never on what is valid)."""
    text = in_a_turn("input_messages", A_MESSAGE_AS_SEQUENCE, 3000 * 26)
    assert not _full_report.searched_in_full(text.encode())
    turn = wire.loads(wire.Turn, text)
    assert len(turn.input_messages) > 2900
    assert {wire.dumps(message) for message in turn.input_messages} == {
        '{"content":[{"text":"a","type":"text"}],"role":"user","timestamp":5}'
    }


def test_the_collector_is_paused_only_while_a_document_is_judged() -> None:
    """``loads`` pauses Python's cyclic collector while it judges (pydantic's errors copy their
    inputs: it would walk the whole heap again and again), and leaves it as it found it."""
    seen: list[bool] = []
    walk = _sequence.objects_from_sequences

    def watching(tp: Any, value: Any) -> Any:
        seen.append(gc.isenabled())
        return walk(tp, value)

    text = '{"type":"MessageEnd","loop_id":"l","message":["user",5]}'  # walked, then invalid
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_codec, "objects_from_sequences", watching)
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            try:
                with pytest.raises(WireError):
                    wire.loads(wire.AgentEvent, text)
                assert gc.isenabled() is enabled
            finally:
                gc.enable()
    assert seen == [False, False]


def test_a_real_session_of_many_values_is_still_reported_in_full() -> None:
    """The bound is on dense documents: phi-core's recorded main session (486 kB, one value per
    48 bytes) with two bad stop reasons in different messages gets both, and no note."""
    from corpus import fixtures_root

    path = fixtures_root() / "phi-core" / "0.10.0" / "sessions" / "session.main.json"
    text = path.read_text(encoding="utf-8").replace('"stop"', '"bogus"', 2)
    assert _full_report.searched_in_full(text.encode())
    with pytest.raises(WireError) as caught:
        wire.loads(wire.Session, text)
    assert len(caught.value.problems) == 2 and not caught.value.first_invalid_items_only
    assert "first invalid item" not in str(caught.value)
