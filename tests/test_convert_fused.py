"""Issue 19, section 4: Operator-Use -> clark-agent goes through phi-core's messages, its two
steps fused (``_fused``): each phi-core message the first step makes is taken by the second at
once (no phi-core message of the input held, walked again and freed with the rest), and the
second step does not check again the numbers the first one checked. The documents and losses
(their order too) are exactly those of the two steps one after the other (``via_hub``), for every
Operator-Use corpus document, corruptions of them and generated ones; the command takes the fused
steps for message lines (streamed) and session files (read whole).
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from command import run
from hypothesis import given, settings
from hypothesis import strategies as st
from test_convert_fast_operator_use import (
    EXAMPLES,
    corruptions,
    lines_of,
    messages,
    session_files,
    session_messages,
)

import phi_wire.convert._fast_whole as fast_whole
import phi_wire.convert._stream as convert_stream
import phi_wire.formats.clark_agent._fast_from_phi as clark_from_phi
import phi_wire.formats.operator_use._fast_to_phi as operator_use_to_phi
from phi_wire.convert import FastUnsupported
from phi_wire.convert._fast import checked_number, dumped, fast_converter
from phi_wire.formats.operator_use._fast import free_value
from phi_wire.formats.operator_use.convert import MessageStreamToPhi

SOURCE, TARGET = "operator-use", "clark-agent"


def outcome(converter: Callable[..., Any], documents: list[Any], kind: str) -> Any:
    """What ``converter`` makes of (a copy of: the converters normalise in place) ``documents``:
    each document as the target writes it and the losses in order, or that it hands them back."""
    try:
        converted, losses = converter(copy.deepcopy(documents), kind)
    except FastUnsupported:
        return "handed back"
    try:
        written = [dumped(document) for document in converted]
    except ValueError:
        return "not written"
    return written, list(losses)


def same_as_two_steps(documents: list[Any], kind: str) -> Any:
    """The fused converter's outcome (and the fused writer's: each document written as it is
    made), asserted equal to the two steps' (``via_hub``)."""
    from phi_wire.convert._fused import fused_converter, fused_writer

    fused = fused_converter(SOURCE, TARGET, kind)
    writing = fused_writer(SOURCE, TARGET, kind, dumped)
    two_steps = fast_converter(SOURCE, TARGET, kind)  # ``via_hub``: the steps one after the other
    assert fused is not None and writing is not None and two_steps is not None
    found = outcome(fused, documents, kind)
    assert found == outcome(two_steps, documents, kind)
    try:
        written, losses = writing(copy.deepcopy(documents), kind)
    except (FastUnsupported, ValueError):
        assert found in ("handed back", "not written")
    else:
        assert (written, list(losses)) == found
    return found


def test_the_corpus_messages_convert_as_the_two_steps_convert() -> None:
    """Every message of both layouts' session files, as one file of lines, and each alone."""
    for layout in ("d0da87a6", "d1cdaad8"):
        documents = [json.loads(line) for line in session_messages(layout)]
        found = same_as_two_steps(documents, "AgentMessage")
        if layout == "d0da87a6":  # the layout read (the other's keys: the model path's losses)
            written, losses = found
            assert len(written) >= len(documents) // 2 and losses  # converted, not handed back
        for document in documents:
            same_as_two_steps([document], "AgentMessage")


@pytest.mark.parametrize(
    "path", session_files(), ids=lambda path: f"{path.parent.parent.name}/{path.name}"
)
def test_every_session_file_converts_as_the_two_steps_convert(path: Path) -> None:
    documents = [json.loads(line) for line in lines_of(path)]
    same_as_two_steps(documents, "SessionFile")


def test_corrupted_message_lines_convert_as_the_two_steps_convert() -> None:
    """Unknown keys, nulls, wrong types... at every object of the corpus's messages: handed back
    by both, or converted alike."""
    lines = session_messages("d0da87a6")
    for _, corrupted in itertools.islice(corruptions(lines), 0, None, 7):
        same_as_two_steps([json.loads(line) for line in corrupted.splitlines()], "AgentMessage")


@EXAMPLES
@given(st.lists(messages(clean=False), min_size=1, max_size=5))
def test_generated_messages_convert_as_the_two_steps_convert(generated: list[Any]) -> None:
    same_as_two_steps(generated, "AgentMessage")


@EXAMPLES
@given(st.lists(messages(clean=True), min_size=1, max_size=5))
def test_generated_clean_messages_convert_as_the_two_steps_convert(generated: list[Any]) -> None:
    same_as_two_steps(generated, "AgentMessage")


@settings(max_examples=500)
@given(st.floats() | st.integers(min_value=-(2**70), max_value=2**70))
def test_the_first_steps_check_of_a_number_is_the_second_steps(number: float) -> None:
    """Why the second step need not check again: Operator-Use's ``free_value`` refuses exactly
    the numbers ``checked_number`` refuses."""
    outcomes = []
    for check in (free_value, checked_number):
        try:
            check(number)
        except FastUnsupported:
            outcomes.append(False)
        else:
            outcomes.append(True)
    assert outcomes[0] == outcomes[1]


class Counted:
    """Counts, during a command: the second step's re-checks (``checked_free``), and for each
    message the second step takes, the phi-core messages the first step (``phi_dicts``) has
    made and the second not yet taken, that one included (``ahead``)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.rechecks = 0
        self.made = 0
        self.ahead: list[int] = []
        real_check = clark_from_phi.checked_free
        real_dicts = operator_use_to_phi.phi_dicts
        real_message = clark_from_phi._message

        def rechecked(value: Any) -> None:
            self.rechecks += 1
            real_check(value)

        def made(*arguments: Any) -> Any:
            for message in real_dicts(*arguments):
                self.made += 1
                yield message

        def taken(*arguments: Any) -> Any:
            self.ahead.append(self.made - len(self.ahead))
            return real_message(*arguments)

        monkeypatch.setattr(clark_from_phi, "checked_free", rechecked)
        monkeypatch.setattr(operator_use_to_phi, "phi_dicts", made)
        monkeypatch.setattr(clark_from_phi, "_message", taken)


def calls_file(folder: Path, copies: int) -> Path:
    """Message lines with tool calls (arguments the second step would re-check)."""
    lines = session_messages("d0da87a6") * copies
    assert any('"tool_call"' in line for line in lines)
    path = folder / "messages.jsonl"
    path.write_text("".join(line + "\n" for line in lines), "utf-8")
    return path


def test_the_command_takes_the_fused_steps_for_message_lines(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Streamed message lines to clark-agent: no re-check, each phi-core message made when the
    second step takes it (at most a source message's few at once, never a batch's)."""
    monkeypatch.setattr(convert_stream, "FAST_MIN_BYTES", 0)
    source = calls_file(tmp_path, 3)
    counted = Counted(monkeypatch)
    code, _, err = run(capsys, "convert", "--from", SOURCE, "--to", TARGET, str(source), "-o", "-")
    assert code == 0, err
    assert counted.ahead and max(counted.ahead) <= 2
    assert counted.made == len(counted.ahead) >= len(lines_of(source)) // 2
    assert counted.rechecks == 0


def test_the_command_takes_the_fused_steps_for_a_session_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A session file (read whole) to clark-agent: the same."""
    monkeypatch.setattr(fast_whole, "BUILD_MIN_BYTES", 0)
    two_steps = fast_converter(SOURCE, TARGET, "SessionFile")
    assert two_steps is not None
    converted = [  # the files the dict converters convert (others take the model path)
        path
        for path in session_files()
        if outcome(two_steps, [json.loads(line) for line in lines_of(path)], "SessionFile")
        not in ("handed back", "not written")
    ]
    path = max(converted, key=lambda path: path.stat().st_size)
    counted = Counted(monkeypatch)
    code, _, err = run(capsys, "convert", "--from", SOURCE, "--to", TARGET, str(path), "-o", "-")
    assert code == 0, err
    assert counted.ahead and max(counted.ahead) <= 2  # made as taken, not all for the file
    assert counted.made == len(counted.ahead) > 2
    assert counted.rechecks == 0


def test_a_refused_batch_keeps_the_calls_of_the_batches_before() -> None:
    """Streamed (``ThroughHub``): a batch the fused first step refuses (here: of another kind) is
    taken back alone; the calls of the batches before it still name their results' tools."""
    hub = convert_stream.ThroughHub(MessageStreamToPhi(), TARGET, "in.jsonl")
    assert hub.fused is not None
    call = {
        "role": "assistant",
        "contents": [{"type": "tool_call", "id": "t1", "name": "bash", "args": {}}],
        "id": "a",
        "timestamp": 1.0,
    }
    result = {
        "role": "tool",
        "contents": [{"type": "tool_result", "id": "t1", "content": "ok"}],
        "id": "b",
        "timestamp": 2.0,
    }
    hub.convert_dicts([call], "AgentMessage")
    with pytest.raises(FastUnsupported):  # the stream converts that batch otherwise
        hub.convert_dicts([copy.deepcopy(result)], "SessionFile")
    converted, losses = hub.convert_dicts([result], "AgentMessage")
    assert converted[0]["tool_name"] == "bash"
    assert not [loss for loss in losses if loss.kind == "invented"]
