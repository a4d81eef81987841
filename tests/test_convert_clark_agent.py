"""clark-agent <-> phi-core conversion
(runtime/formats/clark_agent/), on clark-agent's corpus.

For every message of the corpus (single messages, history rows, the samples in ``others/``):
the phi-core result is valid phi-core (``loads(dumps(x))`` through ``phi_wire.v0_10`` gives it
back), the round trip clark -> phi-core -> clark restores every leaf that no ``dropped`` or
``changed`` loss names (and adds none that no loss names), and no loss names a role, a text, a
tool call's id, name or arguments, or a tool result's call id. Events: the same for every event
and stream (one way). phi-core's own corpus converts the other way under the same rules. The
stop-reason and usage tables of ``docs/conversions/clark-agent.md`` are the converter's.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import ROOT, Fixture, fixtures, fixtures_root

import phi_wire.clark_agent as clark
import phi_wire.v0_10 as phi
from phi_wire.convert import Conversion, Loss, UnsupportedConversion, convert
from phi_wire.formats.clark_agent.convert import (
    STOP_REASON_FROM_PHI,
    STOP_REASON_TO_PHI,
    USAGE_FIELDS,
)

DOC = ROOT / "docs" / "conversions" / "clark-agent.md"
CLARK = "0.4.0"
FORBIDDEN = ("/role", "/text", "/id", "/name", "/arguments", "/tool_call_id", "/toolCallId")


# --- documents of the corpus ------------------------------------------------------------------


def lines(fixture: Fixture, key: str) -> list[str]:
    text = fixture.read(key).decode("utf-8")
    if fixture.entry.get("format") == "jsonl":
        return text[:-1].split("\n")
    return [text]


def corpus_documents(type_name: str) -> Iterator[Any]:
    """(id, [documents]) of every valid or accepted fixture of ``type_name`` serde reads back."""
    for kind, key in (("valid-canonical", "file"), ("accepted-noncanonical", "input_file")):
        for fixture in fixtures(CLARK, kind, "clark-agent"):
            if fixture.type_name != type_name or "read_back_error" in fixture.entry:
                continue
            yield pytest.param(lines(fixture, key), id=fixture.entry["id"])


def sample_rows() -> list[Any]:
    path = fixtures_root() / "others" / "clark-agent" / "clark-agent.history-rows.jsonl"
    rows = path.read_text(encoding="utf-8").splitlines()
    return [pytest.param(rows, id="others/clark-agent.history-rows")]


# --- leaf comparison --------------------------------------------------------------------------


def leaves(document: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    """(pointer, value) of every scalar and empty container."""
    if isinstance(document, dict) and document:
        for key, value in document.items():
            yield from leaves(value, f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}")
    elif isinstance(document, list) and document:
        for index, value in enumerate(document):
            yield from leaves(value, f"{pointer}/{index}")
    else:
        yield pointer, document


def as_json(module: Any, value: Any) -> Any:
    items = value if isinstance(value, list) else [value]
    parsed = [json.loads(module.dumps(item)) for item in items]
    return parsed if isinstance(value, list) else parsed[0]


def under(pointer: str, prefix: str) -> bool:
    return pointer == prefix or pointer.startswith(prefix + "/")


def assert_round_trip_restores(source: Any, back: Any, losses: tuple[Loss, ...]) -> None:
    """Every leaf of ``source`` is in ``back`` unless a dropped/changed loss names it (or a
    parent); every leaf ``back`` adds is named by some loss."""
    excused = [loss.pointer for loss in losses if loss.kind != "invented"]
    named = [loss.pointer for loss in losses]
    before, after = dict(leaves(source)), dict(leaves(back))
    lost = [
        f"{pointer}: {value!r} -> {after.get(pointer, '<missing>')!r}"
        for pointer, value in before.items()
        if (pointer not in after or after[pointer] != value)
        and not any(under(pointer, prefix) for prefix in excused)
    ]
    assert not lost, f"lost silently: {lost}"
    added = [p for p in after if p not in before and not any(under(p, q) for q in named)]
    assert not added, f"added silently: {added}"


def assert_no_forbidden_loss(losses: tuple[Loss, ...]) -> None:
    bad = [loss for loss in losses if loss.pointer.endswith(FORBIDDEN)]
    assert not bad, f"a loss names a role, a text or a tool call's identity: {bad}"


def assert_valid_phi(value: Any, tp: Any) -> None:
    """phi-core reads what phi-wire writes for it back as the same value (a float may come back
    one ULP off: serde_json's own reading of some long decimals is, see ``_numbers``)."""
    for item in value if isinstance(value, list) else [value]:
        text = phi.dumps(item)
        again = dict(leaves(json.loads(phi.dumps(phi.loads(tp, text)))))
        written = dict(leaves(json.loads(text)))
        assert again.keys() == written.keys(), "not valid phi-core: it reads differently"
        for pointer, leaf in written.items():
            if isinstance(leaf, float):
                assert math.isclose(again[pointer], leaf, rel_tol=1e-15), pointer
            else:
                assert again[pointer] == leaf, f"not valid phi-core: {pointer} reads differently"


# --- messages -----------------------------------------------------------------------------------


@pytest.mark.parametrize("documents", [*corpus_documents("AgentMessage"), *sample_rows()])
def test_clark_messages_convert_to_phi_core_and_back(documents: list[str]) -> None:
    rows = [clark.loads(clark.AgentMessage, text) for text in documents]
    source: Any = rows if len(rows) > 1 else rows[0]
    forward = convert(source, source="clark-agent", target="phi-core")
    assert_valid_phi(forward.value, phi.AgentMessage)
    assert_no_forbidden_loss(forward.losses)
    back = convert(forward.value, source="phi-core", target="clark-agent")
    assert back.losses == (), "phi-core made from clark-agent converts back without loss"
    assert_round_trip_restores(as_json(clark, source), as_json(clark, back.value), forward.losses)


@pytest.mark.parametrize("documents", [*corpus_documents("AgentEvent")])
def test_clark_events_convert_to_valid_phi_core_events(documents: list[str]) -> None:
    events = [clark.loads(clark.AgentEvent, text) for text in documents]
    source: Any = events if len(events) > 1 else events[0]
    result = convert(source, source="clark-agent", target="phi-core")
    assert_no_forbidden_loss(result.losses)
    converted = result.value if isinstance(result.value, list) else [result.value]
    kept = [event for event in converted if event is not None]
    assert_valid_phi(kept, phi.AgentEvent)
    dropped = {loss.pointer for loss in result.losses if loss.kind == "dropped"}
    if isinstance(source, list):
        # every event either has a counterpart, in order, or is named as dropped whole
        assert len(kept) + len({f"/{i}" for i in range(len(events))} & dropped) == len(events)
    elif result.value is None:
        assert "" in dropped


def test_a_stream_takes_its_loop_id_from_run_identified_and_counts_turns() -> None:
    path = fixtures_root() / "clark-agent" / CLARK / "streams" / "events.reasoning_tool_run.jsonl"
    events = [clark.loads(clark.AgentEvent, line) for line in path.read_text().splitlines()]
    run_id = next(e.identity.run_id for e in events if isinstance(e, clark.RunIdentified))
    converted = convert(events, source="clark-agent").value
    assert {event.loop_id for event in converted} == {run_id}
    turns = [event.turn_index for event in converted if isinstance(event, phi.TurnStart)]
    assert turns == list(range(len(turns)))
    updates = [event for event in converted if isinstance(event, phi.MessageUpdate)]
    assert updates and all(update.message.role == "assistant" for update in updates)


# --- phi-core -> clark-agent -------------------------------------------------------------------


def phi_documents() -> Iterator[Any]:
    for kind, key in (("valid-canonical", "file"), ("accepted-noncanonical", "input_file")):
        for fixture in fixtures("0.10.0", kind):
            if fixture.type_name in {"Message", "LlmMessage", "AgentMessage", "ExtensionMessage"}:
                yield pytest.param(fixture, key, id=fixture.entry["id"])


@pytest.mark.parametrize(("fixture", "key"), [*phi_documents()])
def test_phi_core_messages_convert_to_clark_and_back(fixture: Fixture, key: str) -> None:
    tp = getattr(phi, fixture.type_name)
    for text in lines(fixture, key):
        message = phi.loads(tp, text)
        forward = convert(message, source="phi-core", target="clark-agent")
        written = clark.dumps(forward.value)
        again = clark.loads(clark.AgentMessage, written)
        if forward.value.timestamp is None:  # clark-agent stamps a missing timestamp "now"
            again = again.model_copy(update={"timestamp": None})
        assert clark.dumps(again) == written, "not valid clark-agent: it reads differently"
        back = convert(forward.value, source="clark-agent", target="phi-core")
        if fixture.type_name in {"Message"}:  # plain Messages come back as LlmMessages
            assert_round_trip_restores(
                as_json(phi, message), as_json(phi, back.value), forward.losses + back.losses
            )
        else:
            assert_round_trip_restores(
                as_json(phi, message), as_json(phi, back.value), forward.losses + back.losses
            )


# --- the tables in the docs ---------------------------------------------------------------------


def doc_table(heading: str) -> list[list[str]]:
    """The rows of the first table under ``## heading`` in the mapping doc, cells unquoted."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def names(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def test_the_stop_reason_table_in_the_docs_is_the_converters() -> None:
    to_phi: dict[str, str] = {}
    from_phi: dict[str, str] = {}
    for clark_cell, phi_cell, direction in doc_table("Stop reasons"):
        (clark_name,) = names(clark_cell)
        for phi_name in names(phi_cell):
            if direction == "both" or direction.startswith("to phi-core"):
                to_phi[clark_name] = phi_name
            if direction == "both" or direction.startswith("to clark-agent"):
                from_phi[phi_name] = clark_name
    assert to_phi == STOP_REASON_TO_PHI
    assert from_phi == STOP_REASON_FROM_PHI
    assert set(to_phi) == {member.value for member in clark.StopReason}
    assert set(from_phi) == {member.value for member in phi.StopReason}


def test_the_usage_table_in_the_docs_is_the_converters() -> None:
    table = {names(a)[0]: names(b)[0] for a, b in doc_table("Usage")}
    assert table == USAGE_FIELDS
    assert set(table) == set(clark.Usage.model_fields)


@pytest.mark.parametrize("stop", list(clark.StopReason))
def test_stop_reasons_convert_by_the_table(stop: Any) -> None:
    result = convert(stop, source="clark-agent")
    assert result.value.value == STOP_REASON_TO_PHI[stop.value]
    back = convert(result.value, source="phi-core", target="clark-agent").value
    assert (back == stop) == (not result.losses)


def test_the_docs_example_runs_as_shown() -> None:
    block = DOC.read_text(encoding="utf-8").split("```python\n", 1)[1].split("```", 1)[0]
    assert block in (ROOT / "README.md").read_text(encoding="utf-8"), "README shows the same"
    scope: dict[str, Any] = {}
    exec(block, scope)
    assert scope["result"].losses == (
        Loss("/narration", "dropped", "phi-core's toolResult has no narration"),
    )
    assert isinstance(scope["result"].value, phi.LlmToolResultMessage)
    assert scope["back"] == scope["row"].model_copy(update={"narration": None})


# --- single pieces --------------------------------------------------------------------------------


def test_system_message_survives_as_a_documented_extension() -> None:
    system = clark.SystemMessage(content="Be brief.", timestamp=7)
    result = convert(system, source="clark-agent")
    assert result == Conversion(
        phi.ExtensionMessage(
            role="extension",
            kind="clark-agent.system",
            data={"content": "Be brief.", "timestamp": 7},
        ),
        (),
    )
    assert convert(result.value, source="phi-core", target="clark-agent").value == system


def test_reasoning_details_travel_in_the_signature_with_their_key_order() -> None:
    details = [{"type": "reasoning.text", "text": "t", "signature": "s", "format": "x", "index": 0}]
    block = clark.ReasoningDetailsBlock(details=details)
    thinking = convert(block, source="clark-agent").value
    assert thinking.thinking == "" and json.loads(thinking.signature) == {"details": details}
    back = convert(thinking, source="phi-core", target="clark-agent").value
    assert clark.dumps(back) == clark.dumps(block)


def test_a_provider_signature_is_named_when_it_cannot_come_along() -> None:
    thinking = phi.ThinkingContent(thinking="hm", signature="EqQBCkYIBRgCKkDx")
    result = convert(thinking, source="phi-core", target="clark-agent")
    assert result.value == clark.ReasoningBlock(text="hm")
    assert [loss.pointer for loss in result.losses] == ["/signature"]


@pytest.mark.parametrize(
    ("source", "media_type", "data", "mime"),
    [
        ("data:image/png;base64,iVBORw0KGgo=", "image/png", "iVBORw0KGgo=", "image/png"),
        ("https://example.com/a.png", "image/png", "https://example.com/a.png", "image/png"),
        ("https://example.com/a.png", None, "https://example.com/a.png", ""),
    ],
)
def test_images_keep_their_source(
    source: str, media_type: str | None, data: str, mime: str
) -> None:
    image = clark.ImageBlock(source=source, media_type=media_type)
    converted = convert(image, source="clark-agent").value
    assert (converted.data, converted.mime_type) == (data, mime)
    assert convert(converted, source="phi-core", target="clark-agent").value == image


def test_usage_counters_out_of_range_are_clamped_and_named() -> None:
    result = convert(clark.Usage(input_tokens=-5, output_tokens=3), source="clark-agent")
    assert (result.value.input, result.value.output) == (0, 3)
    assert [loss.pointer for loss in result.losses] == ["/input_tokens"]
    back = convert(
        phi.Usage(input=2**64 - 1, output=1, reasoning=4), source="phi-core", target="clark-agent"
    )
    assert back.value.input_tokens == 2**63 - 1
    assert [loss.pointer for loss in back.losses] == ["/input", "/reasoning"]


def test_types_without_a_counterpart_are_refused_clearly() -> None:
    record = clark.RunIdentity(run_id="r")
    with pytest.raises(UnsupportedConversion, match="no phi-core counterpart for clark-agent's"):
        convert(record, source="clark-agent")
    with pytest.raises(UnsupportedConversion, match="no clark-agent counterpart for phi-core's"):
        convert(phi.DeltaBody(delta="x"), source="phi-core", target="clark-agent")


def test_phi_core_events_convert_to_clark_agent_naming_what_they_drop() -> None:
    """(Issue 19: before, events converted from clark-agent to phi-core only.)"""
    event = phi.loads(
        phi.AgentEvent,
        '{"type":"TurnStart","loop_id":"l","turn_index":0,'
        '"timestamp":"2026-01-01T00:00:00Z","triggered_by":"User"}',
    )
    result = convert(event, target="clark-agent")
    assert isinstance(result.value, clark.TurnStart)
    assert sorted(loss.pointer for loss in result.losses) == [
        "/loop_id", "/timestamp", "/triggered_by", "/turn_index"
    ]  # fmt: skip
    assert {loss.kind for loss in result.losses} == {"dropped"}


def test_convert_finds_the_source_format_of_a_clark_model() -> None:
    usage = clark.Usage(input_tokens=1)
    assert convert(usage).value == phi.Usage(input=1, output=0)


def test_every_fixture_file_exists() -> None:
    """The corpus this module's tests read is there (a missing one is a failure)."""
    assert (fixtures_root() / "clark-agent" / CLARK / "manifest.json").is_file()
    assert Path(DOC).is_file()
