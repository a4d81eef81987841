"""Operator-Use -> clark-agent without the models: the two dict converters composed through
phi-core (``phi_wire.convert``'s ``via_hub``: Operator-Use's to phi-core, then clark-agent's from
it), for message lines and session files of both layouts, corruptions of them and generated ones:
the text written and the losses (file, line, pointer, kind, reason, in order; the second step's
at the file's name, pointing into the phi-core form, noted as the model path notes them) are
exactly the model path's, and so is an error; and the corpus does take the fast path. Then the
command's reports, whose losses the fast path places only when they are read (``-v``,
``--output-format json``, ``--loss-report``), are the same text both ways.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from command import run
from hypothesis import given
from hypothesis import strategies as st
from schema_strategies import from_schema
from test_convert_fast import corpus_lines
from test_convert_fast import corruptions as clark_corruptions
from test_convert_fast_operator_use import (
    EXAMPLES,
    FIRST_LANE,
    LAYOUTS,
    Both,
    compact,
    corpus,
    corruptions,
    lines_of,
    message_fixtures,
    messages,
    one_line,
    session_files,
    session_messages,
)

import phi_wire.clark_agent as clark
import phi_wire.convert
import phi_wire.convert._fast_whole as fast_whole
import phi_wire.convert._files as convert_files
from phi_wire.convert import VIA_HUB, fast_converter, via_hub
from phi_wire.formats.clark_agent.convert import FAST_CONVERTERS as CLARK_CONVERTERS
from phi_wire.formats.operator_use.convert import FAST_CONVERTERS as OPERATOR_USE_CONVERTERS


@pytest.fixture
def both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Both:
    return Both(tmp_path, monkeypatch, target="clark-agent")


def test_a_pair_without_phi_core_has_the_composition_of_its_two_converters() -> None:
    """Found from the two tables, whichever they are (none when either step has none)."""
    for kind in ("AgentMessage", "SessionFile"):
        assert fast_converter("operator-use", "clark-agent", kind) is not None
    assert fast_converter("operator-use", "clark-agent", "AgentEvent") is None  # no first step
    assert (fast_converter("clark-agent", "operator-use", "AgentMessage") is not None) == (
        ("phi-core", "operator-use", "AgentMessage") in OPERATOR_USE_CONVERTERS
    )
    assert fast_converter("phi-core", "phi-core", "AgentMessage") is None


def test_the_second_steps_losses_are_noted_and_point_into_the_phi_core_form() -> None:
    """The first step's losses, then the second's, noted (their pointers' first token: the
    index of a phi-core document)."""
    lines = session_messages("d0da87a6", FIRST_LANE)
    first = OPERATOR_USE_CONVERTERS["operator-use", "phi-core", "AgentMessage"]
    second = CLARK_CONVERTERS["phi-core", "clark-agent", "AgentMessage"]
    documents = [json.loads(line) for line in lines]
    hub, first_losses = first([json.loads(line) for line in lines], "AgentMessage")
    out, second_losses = second(hub, "AgentMessage")
    converted, losses = via_hub(first, second)(documents, "AgentMessage")
    assert converted == out
    noted = [loss._replace(reason=f"{loss.reason} {VIA_HUB}") for loss in second_losses]
    assert losses == [*first_losses, *noted]
    assert second_losses, "the corpus's messages lose something to clark-agent"
    assert {int(loss.pointer.split("/")[1]) for loss in second_losses} <= set(range(len(hub)))


@pytest.mark.parametrize(
    "path", session_files(), ids=lambda path: f"{path.parent.parent.name}/{path.name}"
)
def test_every_session_file_converts_the_same_without_the_models(path: Path, both: Both) -> None:
    both.check(path.read_bytes(), path.name)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_corpus_message_converts_the_same_without_the_models(layout: str, both: Both) -> None:
    lines = session_messages(layout)
    both.check("".join(line + "\n" for line in lines))  # tool names found across lines
    for index, line in enumerate(lines):
        both.check(line + "\n", f"message-{index}.jsonl")
    for path in message_fixtures(layout):
        both.check(one_line(path) + "\n", path.name + "l")
        both.check(path.read_bytes(), path.name)  # one document: its pointers have no index


def test_the_corpus_takes_the_fast_path(both: Both) -> None:
    """What goes fast to phi-core goes fast to clark-agent: clark-agent's converter takes every
    message Operator-Use's makes of the corpus."""
    for path in session_files():
        both.check(path.read_bytes(), path.name)
    for layout in LAYOUTS:
        lines = session_messages(layout, FIRST_LANE)
        both.check("".join(line + "\n" for line in lines), f"{layout}-messages.jsonl")
    assert both.taken == [
        "forked.jsonl",
        "linear.jsonl",
        "live_nondeterministic.jsonl",
        "resumed.jsonl",
        "d0da87a6-messages.jsonl",
    ]


def test_corrupted_message_lines_convert_the_same_without_the_models(both: Both) -> None:
    lines = session_messages("d0da87a6", FIRST_LANE)
    for _, text in corruptions(lines):
        both.check(text)
    assert both.taken, "some corruptions (escapes, non-ASCII, reordered args) stay fast"


def test_corrupted_session_files_convert_the_same_without_the_models(both: Both) -> None:
    lines = lines_of(corpus("d0da87a6") / "sessions" / "linear.jsonl")
    for _, text in corruptions(lines):
        both.check(text, "linear.jsonl")
    assert both.taken


@EXAMPLES
@given(st.lists(messages(clean=False), min_size=1, max_size=4))
def test_generated_messages_convert_the_same_without_the_models(
    both: Both, generated: list[dict[str, Any]]
) -> None:
    both.check("".join(compact(message) + "\n" for message in generated))


def test_generated_clean_messages_take_the_fast_path_and_convert_the_same(both: Both) -> None:
    inputs: list[str] = []

    @EXAMPLES
    @given(st.lists(messages(clean=True), min_size=1, max_size=4))
    def converted(generated: list[dict[str, Any]]) -> None:
        inputs.append(f"{len(inputs)}.jsonl")
        both.check("".join(compact(message) + "\n" for message in generated), inputs[-1])

    converted()
    assert len(both.taken) >= len(inputs) // 2


# --- the command's reports: the losses placed when read, the same text ----------------------


def reports(
    capsys: pytest.CaptureFixture[str], folder: Path, source: Path, target: str, *options: str
) -> tuple[int, str, str, str]:
    """``phi-wire convert`` of ``source`` with ``options``: exit status, standard output and
    error, and the loss report (if asked for), the output's and the report's names alike and
    the time taken left out."""
    report = folder / "losses.jsonl"
    report.unlink(missing_ok=True)
    wanted = ("--loss-report", str(report)) if "--loss-report" in options else ()
    options = tuple(option for option in options if option != "--loss-report")
    code, out, err = run(
        capsys,
        "convert",
        "--from",
        "operator-use",
        "--to",
        target,
        str(source),
        "-o",
        str(folder / "out.jsonl"),
        *options,
        *wanted,
    )
    written = report.read_text("utf-8") if report.exists() else ""
    elapsed = re.compile(r'"elapsed_s": ?[0-9.e-]+')
    return code, elapsed.sub("", out), elapsed.sub("", err), elapsed.sub("", written)


OPTIONS = [(), ("-v",), ("--output-format", "json"), ("--loss-report",), ("-v", "--loss-report")]


@pytest.mark.parametrize("target", ["phi-core", "clark-agent"])
@pytest.mark.parametrize("options", OPTIONS, ids=lambda options: " ".join(options) or "counts")
def test_every_report_is_the_same_whether_losses_are_placed_at_once_or_when_read(
    target: str,
    options: tuple[str, ...],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Messages of both layouts (d1cdaad8's keys d0da87a6 drops: the reader's losses) and a
    session file: each report of the fast path's run is the model path's, and the fast path
    places its losses only for a report that lists them. (Message lines are read whole here, as
    the library and standard input read them: the command streams a file of them, whose reports
    ``test_convert_stream_operator_use`` compares with these.)"""
    monkeypatch.setattr(fast_whole, "BUILD_MIN_BYTES", 0)
    monkeypatch.setattr(phi_wire.convert, "streamed", lambda *_, **__: None)
    placed = convert_files._placed
    calls: list[str] = []

    def counted(*arguments: Any) -> Any:
        calls.append("placed")
        return placed(*arguments)

    monkeypatch.setattr(convert_files, "_placed", counted)
    messages_file = tmp_path / "messages.jsonl"
    messages_file.write_text("".join(line + "\n" for line in session_messages("d0da87a6")))
    inputs = [messages_file, corpus("d0da87a6") / "sessions" / "resumed.jsonl"]
    real = convert_files.fast_converted
    lists_losses = bool(options)
    for source in inputs:
        fast = reports(capsys, tmp_path, source, target, *options)
        assert calls == (["placed"] if lists_losses else []), "placed only when listed"
        calls.clear()
        monkeypatch.setattr(convert_files, "fast_converted", lambda *arguments: None)
        models = reports(capsys, tmp_path, source, target, *options)
        monkeypatch.setattr(convert_files, "fast_converted", real)
        assert fast == models
        assert fast[0] == 0 and "losses" in fast[1] + fast[2]


# --- clark-agent -> Operator-Use: clark-agent's converter to phi-core, then phi-core's to ------
# Operator-Use (``("phi-core", "operator-use", "AgentMessage")``, when its table has one)

FROM_PHI_TO_OPERATOR_USE = ("phi-core", "operator-use", "AgentMessage") in OPERATOR_USE_CONVERTERS
CLARK_LINES = corpus_lines("clark-agent", ("0.4.0",), {"AgentMessage"}, jsonl_only=True)


class ThroughHub(Both):
    """``Both`` for another format's lines to Operator-Use's session file, whose fast way is
    phi-core's: the lines' dict converter to phi-core (``hub_converted``, counted), then
    phi-core's session-file writer; the other way, the models."""

    fast_ways = ("fast_converted", "hub_converted")

    def __init__(self, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__(folder, monkeypatch, target="operator-use")
        monkeypatch.setattr(convert_files, "FAST_MIN_BYTES", 0)  # the corpus is small


@pytest.fixture
def from_clark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ThroughHub:
    return ThroughHub(tmp_path, monkeypatch)


def history(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def test_a_clark_agent_history_converts_to_operator_use_the_same_without_the_models(
    from_clark: ThroughHub,
) -> None:
    """The corpus' rows as one history and each alone, and their corruptions (an unknown key, a
    null, edge numbers, a missing timestamp, escapes, ``-0``...): the same session file and
    losses both ways; the whole history fast (through phi-core's dicts and its session-file
    writer)."""
    assert len(CLARK_LINES) >= 19
    from_clark.check(history(CLARK_LINES), "history.jsonl", "clark-agent")
    assert from_clark.taken == ["history.jsonl"]  # through phi-core without models
    for seed, line in enumerate(CLARK_LINES):
        from_clark.check(history([line, line]), f"{seed}.jsonl", "clark-agent")
        for index, variant in enumerate(clark_corruptions(line, seed)):
            lines = [*CLARK_LINES[:seed], variant, *CLARK_LINES[seed + 1 :]]
            from_clark.check(history(lines), f"{seed}-{index}.jsonl", "clark-agent")


def test_a_streamed_formats_lines_go_whole_only_through_phi_core() -> None:
    """clark-agent's lines stream to and from phi-core (the per-line seam): the whole-input
    path takes them only on their way to another format."""
    assert fast_whole._converter("clark-agent", "phi-core", "AgentMessage") is None
    assert fast_whole._converter("phi-core", "clark-agent", "AgentMessage") is None
    found = fast_whole._converter("clark-agent", "operator-use", "AgentMessage")
    assert (found is not None) == FROM_PHI_TO_OPERATOR_USE


@EXAMPLES
@given(st.lists(from_schema(clark.schema(clark.AgentMessage)), min_size=1, max_size=3))
def test_generated_clark_agent_rows_convert_to_operator_use_the_same_without_the_models(
    from_clark: ThroughHub, generated: list[Any]
) -> None:
    lines = [compact(document).encode("utf-8", "surrogatepass") for document in generated]
    from_clark.check(history(lines), "generated.jsonl", "clark-agent")
