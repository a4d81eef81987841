"""Issue 19, section 4: a file of Operator-Use message lines is converted as it is read, to
phi-core and to clark-agent (through phi-core), ``BATCH`` lines at a time (``_stream``), never read
or held whole; what crosses a batch's edge is carried: the tool names of the calls met so far (a
tool result names its call by id only: ``MessageStreamToPhi``) and, through phi-core, the count
of phi-core messages made (the second step's pointers index them: ``ThroughHub``). The command
writes and says exactly what converting the file whole does: the bytes, the losses in their
order (``-v``, ``--output-format json``, ``--loss-report``, the counts) and the exit status.
"""

from __future__ import annotations

import itertools
import json
from operator import itemgetter
from pathlib import Path
from typing import Any

import pytest
from command import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_convert_fast_operator_use import (
    FIRST_LANE,
    compact,
    corruptions,
    messages,
    session_messages,
)
from test_convert_stream import REPORTS, command, whole

import phi_wire.convert
import phi_wire.convert._batches as convert_batches
import phi_wire.convert._files as convert_files
import phi_wire.convert._stream as convert_stream
import phi_wire.operator_use as ou
from phi_wire.convert import Converted, convert
from phi_wire.convert._fast import line_path, negative_zero, runs
from phi_wire.formats.operator_use.convert import MessageStreamToPhi

TARGETS = ("phi-core", "clark-agent")
first = itemgetter(0)


def messages_file(folder: Path, copies: int = 1) -> Path:
    """The corpus's messages of both layouts (d1cdaad8's keys d0da87a6 drops: read by the
    models, their reader's losses), each tool call and its result on consecutive lines."""
    lines = session_messages("d0da87a6") * copies + session_messages("d1cdaad8")
    path = folder / "messages.jsonl"
    path.write_text("".join(line + "\n" for line in lines), "utf-8")
    return path


def calls_across_batches(path: Path, size: int) -> list[str]:
    """The ids of the tool results whose call is in an earlier batch of ``size`` lines."""
    batch_of: dict[str, int] = {}
    across = []
    for number, line in enumerate(path.read_text("utf-8").splitlines()):
        for block in json.loads(line).get("contents", []):
            if block["type"] == "tool_call":
                batch_of[block["id"]] = number // size
            elif block["type"] == "tool_result" and batch_of.get(block["id"], -1) < number // size:
                across.append(block["id"])
    return across


class Counted:
    """Counts the documents given to the stream converter of the command's ``target`` (each call
    one run of a batch), and refuses to read an input whole."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, target: str) -> None:
        self.models: list[int] = []
        self.dicts: list[int] = []
        kind = MessageStreamToPhi if target == "phi-core" else convert_stream.ThroughHub
        for name, seen in (("convert", self.models), ("convert_dicts", self.dicts)):
            real = getattr(kind, name)

            def counting(
                self: Any, values: Any, *rest: Any, real: Any = real, seen: Any = seen
            ) -> Any:
                seen.append(len(values))
                return real(self, values, *rest)

            monkeypatch.setattr(kind, name, counting)

        def read_whole(name: str) -> Any:
            raise AssertionError(f"{name} read whole")

        self.monkeypatch = monkeypatch
        self.read_input = phi_wire.convert.read_input
        monkeypatch.setattr(phi_wire.convert, "read_input", read_whole)

    def read_whole_again(self) -> None:
        self.monkeypatch.setattr(phi_wire.convert, "read_input", self.read_input)


@pytest.mark.parametrize("report", REPORTS, ids=["text", "-v", "json", "loss-report"])
@pytest.mark.parametrize("fast", [True, False], ids=["fast", "models"])
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("size", [2, 7])
def test_a_streamed_message_file_gives_what_converting_it_whole_gives(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    target: str,
    fast: bool,
    report: list[str],
    size: int,
) -> None:
    """Tool results whose call is in an earlier batch (their tool's name is carried, not
    invented), by the dict converters or the models (d1cdaad8's lines always by the models):
    the same bytes, losses and reports as the whole file's, never read whole (fails before:
    the file was read and converted whole)."""
    source = messages_file(tmp_path, copies=2)
    if size == 2:
        assert calls_across_batches(source, size), "a call and its result in two batches"
    monkeypatch.setattr(convert_files, "BATCH", size)
    monkeypatch.setattr(convert_stream, "FAST_MIN_BYTES", 0 if fast else 1 << 40)
    arguments = ["convert", "--from", "operator-use", "--to", target, str(source), *report]
    counted = Counted(monkeypatch, target)
    streamed = command(capsys, tmp_path, arguments, "streamed.jsonl")
    assert counted.dicts if fast else not counted.dicts  # the dict converters carry the state
    assert counted.models  # d1cdaad8's lines, read by the models
    assert max(counted.models + counted.dicts) <= size
    assert sum(counted.models + counted.dicts) == len(source.read_bytes().splitlines())
    whole(monkeypatch)
    counted.read_whole_again()
    assert streamed == command(capsys, tmp_path, arguments, "whole.jsonl")
    assert streamed[0] == 0 and streamed[3]
    if target == "phi-core":  # every result names its tool: none is invented as ""
        names = [json.loads(line).get("toolName") for line in streamed[3].splitlines()]
        assert "" not in names and any(names)


@pytest.mark.parametrize("target", TARGETS)
def test_a_streamed_message_file_is_never_held_whole_and_its_losses_are_counted(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    target: str,
) -> None:
    """Work counted: the file is never read whole (``read_input``), each conversion is given
    one batch, and without a report that lists them no loss is kept one by one (fails before:
    the whole file was read, converted and held, with its losses)."""
    source = messages_file(tmp_path, copies=20)
    monkeypatch.setattr(convert_files, "BATCH", 7)
    monkeypatch.setattr(convert_stream, "FAST_MIN_BYTES", 0)
    counted = Counted(monkeypatch, target)
    reports: list[Converted] = []
    real_converted = convert_stream.Stream.converted

    def kept(stream: Any) -> Any:
        reports.append(real_converted(stream))
        return reports[-1]

    monkeypatch.setattr(convert_stream.Stream, "converted", kept)
    arguments = ["convert", "--from", "operator-use", "--to", target, str(source)]
    code, _, err = run(capsys, *arguments, "-o", str(tmp_path / "o/"))
    assert code == 0, err
    given = counted.models + counted.dicts
    assert max(given) <= 7 and sum(given) == len(source.read_bytes().splitlines())
    (converted,) = reports
    assert converted.losses == [] and sum(converted.loss_counts().values()) > 0
    assert f"{sum(converted.loss_counts().values()):,} losses" in err


def shifted(pointer: str, by: int) -> str:
    index, slash, rest = pointer[1:].partition("/")
    return f"/{int(index) + by}{slash}{rest}"


def test_the_tool_names_are_carried_from_batch_to_batch() -> None:
    """A tool result in the batch after its call's gets the call's tool name, by the models and
    by the dict converter alike: batch by batch, what ``to_phi_core`` gives for the whole list
    (each loss's pointer into its batch)."""
    lines = session_messages("d0da87a6")
    values = [ou.loads(ou.AgentMessage, line) for line in lines]
    expected = convert(values, source="operator-use", target="phi-core")
    for by_dicts in (False, True):
        stream = MessageStreamToPhi()
        converted: list[str] = []
        losses = []
        for start in range(0, len(lines), 2):
            if by_dicts:
                documents = [json.loads(line) for line in lines[start : start + 2]]
                dicts, found = stream.convert_dicts(documents, "AgentMessage")
                read = [phi_wire.loads(phi_wire.AgentMessage, json.dumps(item)) for item in dicts]
            else:
                done = stream.convert(values[start : start + 2])
                read, found = done.value, list(done.losses)
            converted += [phi_wire.dumps(message) for message in read]
            losses += [loss._replace(pointer=shifted(loss.pointer, start)) for loss in found]
        assert converted == [phi_wire.dumps(message) for message in expected.value]
        assert losses == list(expected.losses)
        assert '"toolName":"bash"' in "".join(converted)


def result_before_its_call(folder: Path) -> Path:
    """A tool result before its call (its tool's name unknown there: written ``""``), the call,
    and a result after it: the calls a run met must not leak into a line before them."""
    lines = session_messages("d0da87a6")
    call, result = lines[19], lines[20]
    assert '"tool_call"' in call and '"tool_result"' in result
    path = folder / "early.jsonl"
    path.write_text("".join(line + "\n" for line in [lines[0], result, call, result, lines[1]]))
    return path


@pytest.mark.parametrize("target", TARGETS)
def test_a_run_handed_back_after_its_conversion_forgets_its_calls(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    target: str,
) -> None:
    """A run the dict converter converted but whose output cannot be written as the fast path
    writes (here: made to fail once) is converted again line by line: the calls that run met
    are taken back first, so the result before its call still has no name, as in the whole
    file's conversion."""
    source = result_before_its_call(tmp_path)
    monkeypatch.setattr(convert_stream, "FAST_MIN_BYTES", 0)
    real_dumped = convert_batches.dumped
    failed: list[int] = []

    def failing_once(document: Any) -> str:
        if not failed:
            failed.append(1)
            raise ValueError("cannot be written so")
        return real_dumped(document)

    monkeypatch.setattr(convert_batches, "dumped", failing_once)
    arguments = ["convert", "--from", "operator-use", "--to", target, str(source), "-v"]
    streamed = command(capsys, tmp_path, arguments, "streamed.jsonl")
    assert failed
    monkeypatch.setattr(convert_batches, "dumped", real_dumped)
    whole(monkeypatch)
    assert streamed == command(capsys, tmp_path, arguments, "whole.jsonl")
    assert "no earlier tool call with this id" in streamed[2]


def test_a_second_step_handed_back_forgets_the_first_steps_calls(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Through phi-core: a run whose phi-core messages clark-agent's dict converter hands back
    (here: made to, once) is converted again line by line, the first step's calls of that run
    taken back, and the count of phi-core messages as before it. The two steps one after the
    other (fusion off: the fused steps' hand-back is tested in test_convert_fused.py)."""
    source = result_before_its_call(tmp_path)
    monkeypatch.setattr(convert_stream, "FAST_MIN_BYTES", 0)
    monkeypatch.setattr(convert_stream, "second_step", lambda target: None)
    real = convert_stream.fast_converter
    refused: list[int] = []

    def refusing_once(source: str, target: str, kind: str) -> Any:
        found = real(source, target, kind)
        if source != "phi-core" or found is None:
            return found

        def second(documents: Any, kind: str) -> Any:
            if not refused:
                refused.append(len(documents))
                raise phi_wire.convert.FastUnsupported("made to")
            return found(documents, kind)

        return second

    monkeypatch.setattr(convert_stream, "fast_converter", refusing_once)
    arguments = ["convert", "--from", "operator-use", "--to", "clark-agent", str(source), "-v"]
    streamed = command(capsys, tmp_path, arguments, "streamed.jsonl")
    assert refused == [5]  # the five lines' phi-core messages, in one run
    whole(monkeypatch)
    assert streamed == command(capsys, tmp_path, arguments, "whole.jsonl")


def test_a_batch_is_split_into_runs_as_each_line_is_judged() -> None:
    """``runs`` judges a batch in one pass of the expression (``unmatched`` over the lines
    joined): the same runs as judging each line (``vouches_line``, no integer ``-0``), for the
    corpus's lines, their corruptions (unknown keys, nulls, escapes, CRLF...), a ``-0``, bytes
    that are not UTF-8 and a line that is no JSON, at every place in a batch."""
    path = line_path("operator-use", "d0da87a6", "AgentMessage", True)
    assert path is not None
    lines = session_messages("d0da87a6", FIRST_LANE)
    texts = [text.encode() for _, text in corruptions(lines)]
    extra = [b'{"role":"user","contents":[],"id":"a","timestamp":-0}', b"\xff{}", b"not json"]
    batches: list[list[bytes]] = [
        [line for line in text.split(b"\n") if line.strip()] for text in texts
    ]
    for odd in extra:
        batches += [[odd, *batches[0][:3]], [*batches[0][:3], odd], [*batches[0][:2], odd, odd]]
    judged = 0
    for batch in batches:
        numbered = list(enumerate(batch, 1))
        each = [
            path.vouches_line(text) and not (b"-0" in text and negative_zero(text))
            for text in batch
        ]
        found = [(vouched, [number for number, _ in run]) for vouched, run in runs(numbered, path)]
        expected = [
            (vouched, [number for _, (number, _) in items])
            for vouched, items in itertools.groupby(zip(each, numbered, strict=True), key=first)
        ]
        assert found == expected, batch
        judged += each.count(False)
    assert judged > 50  # many lines refused, at many places


@settings(
    max_examples=40,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.lists(messages(clean=True) | messages(clean=False), min_size=2, max_size=8),
    st.integers(1, 3),
    st.sampled_from(TARGETS),
)
def test_generated_messages_stream_as_they_convert_whole(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    generated: list[dict[str, Any]],
    size: int,
    target: str,
) -> None:
    """Generated messages (tool calls and results of a few ids, in any order: a result before
    its call, a call made twice; lines the dict converter hands back, or ``loads`` rejects),
    streamed a few lines a batch by the dict converters where they can: the same bytes, ``-v``
    listing and exit status as the whole file's conversion, or the same error."""
    for old in ("streamed.jsonl", "whole.jsonl"):  # an error writes none: no earlier example's
        (tmp_path / old).unlink(missing_ok=True)
    source = tmp_path / "generated.jsonl"
    source.write_text("".join(compact(message) + "\n" for message in generated), "utf-8")
    with monkeypatch.context() as patched:
        patched.setattr(convert_files, "BATCH", size)
        patched.setattr(convert_stream, "FAST_MIN_BYTES", 0)
        arguments = ["convert", "--from", "operator-use", "--to", target, str(source), "-v"]
        streamed = command(capsys, tmp_path, arguments, "streamed.jsonl")
        whole(patched)
        assert streamed == command(capsys, tmp_path, arguments, "whole.jsonl")


@pytest.mark.parametrize("target", TARGETS)
def test_corrupted_message_files_stream_as_they_convert_whole(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    target: str,
) -> None:
    """The corpus's messages with an exponent, a long fraction, escapes, a blank line, CRLF
    line ends, an unknown key or a null somewhere (the lines the fast path or the dict converter
    hands to the models, or ``loads`` rejects), streamed three lines a batch: the same bytes,
    ``-v`` listing and exit status as the whole file's, or the same error."""
    monkeypatch.setattr(convert_files, "BATCH", 3)
    monkeypatch.setattr(convert_stream, "FAST_MIN_BYTES", 0)
    lines = session_messages("d0da87a6", FIRST_LANE)[17:29]  # two calls and their results
    chosen = [
        (name, text)
        for index, (name, text) in enumerate(corruptions(lines))
        if not name.startswith(("unknown key", "null")) or index % 7 == 0
    ]
    assert len(chosen) > 15
    for number, (name, text) in enumerate(chosen):
        source = tmp_path / f"{number}.jsonl"
        source.write_text(text, "utf-8")
        arguments = ["convert", "--from", "operator-use", "--to", target, str(source), "-v"]
        with monkeypatch.context() as patched:
            streamed = command(capsys, tmp_path, arguments, f"{number}.streamed.jsonl")
            whole(patched)
            assert streamed == command(capsys, tmp_path, arguments, f"{number}.whole.jsonl"), name
