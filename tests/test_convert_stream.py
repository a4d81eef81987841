"""Issue 19, section 4: a JSONL input whose documents each convert on their own is converted as
it is read (``phi_wire.convert._stream``), ``BATCH`` lines at a time, written as they are made:
never read whole, never held whole, its losses counted rather than kept unless the report lists
them; and the command says and writes exactly what converting it whole does (the bytes, the
losses, the errors, the fall-back for documents of several types)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from command import run
from corpus import fixtures_root
from hypothesis import given, settings
from hypothesis import strategies as st

import phi_wire.convert
import phi_wire.convert._files as convert_files
import phi_wire.convert._stream as convert_stream
import phi_wire.convert._write as convert_write
from phi_wire.convert import read_input

CLARK = fixtures_root() / "clark-agent" / "0.4.0"
PHI = fixtures_root() / "phi-core" / "0.10.0"
HISTORY = CLARK / "history" / "history.multi_turn.jsonl"
EVENTS = PHI / "streams" / "events.main_session.jsonl"
CLARK_EVENTS = CLARK / "streams" / "events.reasoning_tool_run.jsonl"
CASES = [
    (HISTORY, "clark-agent", "phi-core"),
    (EVENTS, "phi-core", "clark-agent"),
    (CLARK_EVENTS, "clark-agent", "phi-core"),
]
REPORTS: list[list[str]] = [[], ["-v"], ["--output-format", "json"], ["--loss-report", "LOSSES"]]


def copies(path: Path, folder: Path, times: int, name: str = "big.jsonl") -> Path:
    big = folder / name
    big.write_bytes(path.read_bytes() * times)
    return big


def whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command as it was: every input read and converted whole."""
    monkeypatch.setattr(phi_wire.convert, "streamed", lambda *_, **__: None)


def said(text: str) -> str:
    """The report without what differs from run to run (the elapsed time)."""
    return re.sub(r'"elapsed_s": [0-9.]+', "", text)


def command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, arguments: list[str], out: str
) -> tuple[int, str, str, bytes | None, str | None]:
    losses = tmp_path / f"{out}.losses"
    arguments = [str(losses) if argument == "LOSSES" else argument for argument in arguments]
    code, stdout, stderr = run(capsys, *arguments, "-o", str(tmp_path / out))
    written = tmp_path / out
    return (
        code,
        said(stdout.replace(out, "OUT")),
        said(stderr.replace(out, "OUT")),
        written.read_bytes() if written.exists() else None,
        said(losses.read_text("utf-8").replace(out, "OUT")) if losses.exists() else None,
    )


@pytest.mark.parametrize("report", REPORTS, ids=["text", "-v", "json", "loss-report"])
@pytest.mark.parametrize(
    ("path", "source", "target"), CASES, ids=["history", "events", "clark-events"]
)
def test_a_streamed_input_gives_what_converting_it_whole_gives(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    path: Path,
    source: str,
    target: str,
    report: list[str],
) -> None:
    big = copies(path, tmp_path, 5)
    monkeypatch.setattr(convert_files, "BATCH", 7)
    arguments = ["convert", "--from", source, "--to", target, str(big), *report]
    streamed = command(capsys, tmp_path, arguments, "streamed.jsonl")
    whole(monkeypatch)
    assert streamed == command(capsys, tmp_path, arguments, "whole.jsonl")
    assert streamed[0] == 0 and streamed[3]


def test_a_streamed_input_is_never_read_whole_and_its_losses_are_counted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Work counted: the file is never read whole (``read_input``), each conversion is given one
    batch, and without -v or a JSON report no loss is kept one by one (fails before: the whole
    input was read, converted and held, with its losses)."""
    big = copies(HISTORY, tmp_path, 20)
    monkeypatch.setattr(convert_files, "BATCH", 7)

    def read_whole(name: str) -> Any:
        raise AssertionError(f"{name} read whole")

    held: list[int] = []
    real_convert = convert_stream.convert

    def counting(value: Any, **options: Any) -> Any:
        held.append(len(value))
        return real_convert(value, **options)

    reports: list[Any] = []
    real_converted = convert_stream.Stream.converted

    def kept(stream: Any) -> Any:
        reports.append(real_converted(stream))
        return reports[-1]

    monkeypatch.setattr(phi_wire.convert, "read_input", read_whole)
    monkeypatch.setattr(convert_stream, "convert", counting)
    monkeypatch.setattr(convert_stream.Stream, "converted", kept)
    code, _, err = run(capsys, "convert", "--to", "phi-core", str(big), "-o", str(tmp_path / "o/"))
    assert code == 0, err
    assert held and max(held) <= 7 and sum(held) == 20 * len(HISTORY.read_bytes().splitlines())
    (converted,) = reports
    assert converted.losses == [] and sum(converted.loss_counts().values()) > 0
    assert f"{sum(converted.loss_counts().values())} losses" in err


def peak_bytes(capsys: pytest.CaptureFixture[str], source: Path, out: Path) -> int:
    tracemalloc.start()
    try:
        code, _, err = run(capsys, "convert", "--to", "phi-core", str(source), "-o", str(out))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 0, err
    return peak


def test_memory_is_bounded_by_a_batch_not_by_the_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The peak of Python's allocations converting ten times the input stays under twice that of
    the small one (issue 19's goal for the command's peak RSS), and under a quarter of the big
    input's size (fails before: the input was read whole, into a buffer of MAX_INPUT_BYTES, and
    held with its models and its output)."""
    monkeypatch.setattr(convert_files, "BATCH", 20)
    monkeypatch.setattr(convert_write, "CHUNK_BYTES", 16 * 1024)  # the writer's buffer: fixed
    small = copies(HISTORY, tmp_path, 60, "small.jsonl")
    big = copies(HISTORY, tmp_path, 600, "big.jsonl")
    peak_bytes(capsys, small, tmp_path / "warm.jsonl")  # imports and caches made here
    small_peak = peak_bytes(capsys, small, tmp_path / "small.out.jsonl")
    big_peak = peak_bytes(capsys, big, tmp_path / "big.out.jsonl")
    assert big_peak < 2 * small_peak, (small_peak, big_peak)
    assert big_peak < big.stat().st_size // 4, big_peak  # the input is never held


def test_documents_of_another_type_later_on_are_converted_whole(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A phi-core file of events, then messages, past the first batch: the stream stops and the
    input is converted whole, as before, nothing of the stream left behind."""
    events = EVENTS.read_bytes().splitlines()
    messages = [
        json.dumps(event["message"]).encode()
        for event in map(json.loads, events)
        if event.get("type") == "message_end"
    ]
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(b"\n".join(events * 2 + messages) + b"\n")
    monkeypatch.setattr(convert_files, "BATCH", 7)
    arguments = ["convert", "--from", "phi-core", "--to", "clark-agent", str(mixed)]
    streamed = command(capsys, tmp_path, arguments, "streamed.jsonl")
    whole(monkeypatch)
    assert streamed == command(capsys, tmp_path, arguments, "whole.jsonl")
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith(".")) == []


@pytest.mark.parametrize("to_file", [True, False], ids=["file", "stdout"])
def test_a_bad_line_past_the_first_batches_is_the_error_it_was(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    to_file: bool,
) -> None:
    """A row clark-agent rejects at line 30, after batches were written: the same one line
    (file:line: pointer), exit 2, no output (no file, no temporary file; nothing on standard
    output)."""
    rows = HISTORY.read_bytes().splitlines() * 4
    rows[29] = b'{"role":"user","content":7}'
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\n".join(rows) + b"\n")
    monkeypatch.setattr(convert_files, "BATCH", 7)
    arguments = ["convert", "--to", "phi-core", str(bad)]
    if to_file:
        arguments += ["-o", str(tmp_path / "out.jsonl")]
    code, out, err = run(capsys, *arguments)
    whole(monkeypatch)
    assert (code, out, err) == run(capsys, *arguments)
    assert code == 2 and out == "" and f"{bad}:30:" in err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bad.jsonl"]


@pytest.mark.parametrize("where", [None, 40], ids=["none", "in-a-later-batch"])
def test_a_clark_event_stream_is_streamed_with_its_run_identity_wherever_it_is(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    where: int | None,
) -> None:
    """clark-agent events to phi-core: every event's loop_id is the stream's first run_id, found
    before the first batch even when it comes batches later (or none: empty), the turns counted
    and the latest timestamp carried across batches; streamed (never read whole, one batch per
    conversion: fails before, the stream was converted whole) and written as converting it whole
    writes it."""
    lines = CLARK_EVENTS.read_bytes().splitlines()
    identified = [line for line in lines if b'"run_identified"' in line]
    rest = [line for line in lines if b'"run_identified"' not in line] * 3
    if where is not None:
        rest.insert(where, identified[0])
    stream = tmp_path / "events.jsonl"
    stream.write_bytes(b"\n".join(rest) + b"\n")
    monkeypatch.setattr(convert_files, "BATCH", 7)
    arguments = ["convert", "--from", "clark-agent", "--to", "phi-core", str(stream), "-v"]
    real_read_input = phi_wire.convert.read_input

    def read_whole(name: str) -> Any:
        raise AssertionError(f"{name} read whole")

    monkeypatch.setattr(phi_wire.convert, "read_input", read_whole)
    streamed = command(capsys, tmp_path, arguments, "streamed.jsonl")
    monkeypatch.setattr(phi_wire.convert, "read_input", real_read_input)
    whole(monkeypatch)
    assert streamed == command(capsys, tmp_path, arguments, "whole.jsonl")
    assert streamed[0] == 0 and streamed[3]
    loop_ids = {json.loads(line).get("loop_id") for line in streamed[3].splitlines()}
    run_id = json.loads(identified[0])["identity"]["run_id"]
    assert loop_ids == ({""} if where is None else {run_id})


def _corpus_lines(format: str, patterns: list[str]) -> list[bytes]:
    """Each document of the fixture files matched, as one line (a JSON file's: compacted)."""
    found: list[bytes] = []
    for pattern in patterns:
        for path in sorted((fixtures_root() / format).glob(pattern)):
            if path.suffix == ".json":
                found.append(json.dumps(json.loads(path.read_bytes())).encode())
            else:
                found += [line for line in path.read_bytes().splitlines() if line.strip()]
    return found


GENERATED = {
    ("clark-agent", "phi-core"): _corpus_lines(
        "clark-agent", ["0.4.0/history/*", "0.4.0/streams/*", "0.4.0/valid/AgentMessage/*"]
    ),
    ("phi-core", "clark-agent"): _corpus_lines(
        "phi-core", ["0.10.0/streams/*", "0.10.0/valid/AgentMessage/*"]
    ),
}


def _streamed_or_not(path: Path, source: str, target: str, keep: bool) -> Any:
    """What the stream gives (documents, losses, counts, documents read), or the error it says,
    or None when it hands the input back to be converted whole."""
    stream = convert_stream.streamed(str(path), source, target, None, keep=keep)
    if stream is None:
        return None
    try:
        documents = [document for batch in stream.batches() for document in batch]
    except convert_stream.NotStreamed:
        return None
    except phi_wire.convert.ConvertError as error:
        return str(error)
    converted = stream.converted()
    return documents, converted.losses, converted.loss_counts(), converted.documents


@settings(max_examples=60, deadline=None)
@given(
    pair=st.sampled_from(sorted(GENERATED)),
    picks=st.lists(st.integers(min_value=0), min_size=2, max_size=40),
    batch=st.integers(min_value=1, max_value=6),
    keep=st.booleans(),
    broken=st.one_of(st.none(), st.integers(min_value=0)),
)
def test_any_file_of_corpus_lines_streams_as_it_converts_whole(
    pair: tuple[str, str], picks: list[int], batch: int, keep: bool, broken: int | None
) -> None:
    """Generated files (corpus documents of the streamed pairs in any order and number: history
    rows, events of several runs, single messages, mixed; a line made invalid at random), streamed
    in batches of 1 to 6: the same documents, losses (or their counts) and documents read as
    converting the file whole, or the same one-line error; or handed back to be converted whole
    (documents of several types)."""
    source, target = pair
    pool = GENERATED[pair]
    lines = [pool[pick % len(pool)] for pick in picks]
    if broken is not None:
        lines[broken % len(lines)] = b'{"role":"user","content":7,"timestamp":"x"}'
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "generated.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        saved = convert_files.BATCH
        convert_files.BATCH = batch
        # a clark-agent row without its timestamp is stamped with the time of reading: one clock
        # for both conversions, or a millisecond ticking between them would differ
        frozen = time.time_ns()
        try:
            with mock.patch.object(time, "time_ns", lambda: frozen):
                streamed = _streamed_or_not(path, source, target, keep)
                try:
                    whole = convert_files.convert_input(read_input(str(path)), source, target)
                except phi_wire.convert.ConvertError as error:
                    assert streamed is None or streamed == str(error)
                    return
        finally:
            convert_files.BATCH = saved
    if streamed is None:
        return
    assert not isinstance(streamed, str), streamed
    documents, losses, counts, read = streamed
    assert documents == whole.documents_written
    assert read == whole.documents
    assert list(counts.items()) == list(whole.loss_counts().items())
    assert losses == (whole.losses if keep else [])


def test_a_named_pipe_is_read_once_not_opened_to_look_at_it(tmp_path: Path) -> None:
    """A FIFO is no file to stream: it is read whole, as before, never opened and closed first
    (which would drop what its writer wrote and leave the second open waiting for a writer that
    is gone). The command runs in a child process, so that a hang fails the test, not the run."""
    fifo = tmp_path / "history.jsonl"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as pipe:
            pipe.write(HISTORY.read_bytes())

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    result = subprocess.run(
        [sys.executable, "-m", "phi_wire", "convert", "--to", "phi-core", str(fifo)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    writer.join(timeout=5)
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == len(HISTORY.read_bytes().splitlines())
