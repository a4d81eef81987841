"""Issue 19, section 4: a JSONL file of phi-core messages, or of clark-agent history rows, converted
to an Operator-Use session file is read once, a batch at a time, its entries spooled without
their ids (``phi_wire.convert._session_file_stream``): the messages held at once are a batch's
(and a run of tool results the next batch may join), never the file's; the command writes and
says exactly what converting the file whole writes and says (the bytes, every loss in its order,
the counts, the fall-back to the whole-input path for a line it cannot take).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from command import run
from corpus import fixtures_root
from hypothesis import given, settings
from hypothesis import strategies as st
from test_convert_fast_operator_use_from_phi import (
    EDGE_CASES,
    MODEL_PATH_CASES,
    _assistant,
    _line,
    _result,
    _user,
    _written,
)
from test_convert_stream import REPORTS, command, whole

import phi_wire.convert
import phi_wire.convert._fast_whole as fast_whole
import phi_wire.convert._files as convert_files
import phi_wire.convert._session_file_stream as session_file_stream
import phi_wire.convert._stream as convert_stream
import phi_wire.formats.operator_use._entries_from_phi as entries_from_phi
import phi_wire.operator_use as operator_use
from phi_wire.convert import read_input

HISTORY = fixtures_root() / "clark-agent" / "0.4.0" / "history" / "history.multi_turn.jsonl"
TARGET = "operator-use"
BATCH = 7
RUN = 12
"""The longest run of tool results of one time in the generated inputs (one Operator-Use
message: it may not be split between batches)."""


def _phi_lines() -> list[bytes]:
    """phi-core messages in phi-core's own text: a conversation with runs of tool results of one
    time (up to ``RUN``, longer than a batch), models changing, extension messages; and the
    hand-made edge cases that the writer takes."""
    lines: list[bytes] = []
    for turn in range(8):
        at = 1_779_702_000_000 + turn * 10_000
        lines += [
            _line(_user(at, f"turn {turn}", turnId=f"t{turn}")),
            _line(_assistant(at + 1, model=f"m{turn % 3}", arguments={"n": turn})),
            *(_line(_result(at + 2, call=f"c{turn}.{n}")) for n in range(1 + turn * 11 % RUN)),
            _line(_result(at + 3, content=[])),
        ]
    for name, messages in EDGE_CASES.items():
        if name not in MODEL_PATH_CASES:
            lines += [_line(message) for message in messages]
    return [_written(line) for line in lines]


def _clark_lines() -> list[bytes]:
    """clark-agent history rows: the corpus history, its tool results given one time, and a
    run of ``RUN`` tool results of one time."""
    rows = [json.loads(line) for line in HISTORY.read_bytes().splitlines() if line.strip()]
    results = [row for row in rows if row["role"] == "tool_result"]
    for result in results:
        result["timestamp"] = results[0]["timestamp"]
    run = [{**results[0], "tool_call_id": f"call_r{n}"} for n in range(RUN)]
    return [json.dumps(row, separators=(",", ":")).encode() for row in [*rows, *run, *rows]]


PHI = _phi_lines()
CLARK = _clark_lines()
SOURCES = {"phi-core": PHI, "clark-agent": CLARK}


def _file(folder: Path, lines: list[bytes], least: int, name: str = "in.jsonl") -> Path:
    """The lines repeated (each copy a new part of one file) to ``least`` bytes or more."""
    text = b"\n".join(lines) + b"\n"
    path = folder / name
    path.write_bytes(text * (least // len(text) + 1))
    return path


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Batches of ``BATCH`` lines, and the fast paths taken on small inputs too (their
    expressions built)."""
    monkeypatch.setattr(convert_files, "BATCH", BATCH)
    monkeypatch.setattr(fast_whole, "BUILD_MIN_BYTES", 0)
    yield


@pytest.fixture
def streams(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Whether each input was streamed (or handed back to be converted whole)."""
    taken: list[bool] = []
    real = convert_stream.session_file_stream

    def counted(*arguments: Any) -> Any:
        stream = real(*arguments)
        taken.append(stream is not None)
        return stream

    monkeypatch.setattr(convert_stream, "session_file_stream", counted)
    yield taken


@pytest.mark.parametrize("report", REPORTS, ids=["text", "-v", "json", "loss-report"])
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_a_session_file_streamed_is_what_converting_it_whole_gives(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    small: None,
    streams: list[bool],
    source: str,
    report: list[str],
) -> None:
    """The file written, the report (every loss with its file:line and pointer, in order; the
    JSON records; the loss report) and the exit code equal the whole-input path's, batches of 7
    lines cutting runs of tool results of one time (fails before: there was no stream, the file
    was read whole)."""
    path = _file(tmp_path, SOURCES[source], 200_000)
    arguments = ["convert", "--from", source, "--to", TARGET, str(path), *report]
    streamed = command(capsys, tmp_path, arguments, "streamed.jsonl")
    assert streams == [True]
    whole(monkeypatch)
    assert streamed == command(capsys, tmp_path, arguments, "whole.jsonl")
    assert streamed[0] == 0 and streamed[3]


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_the_messages_held_at_once_are_a_batch_not_the_file(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    small: None,
    source: str,
) -> None:
    """Work counted: the file is never read whole (``read_input``), the converter of messages is
    given at most a batch and a run of tool results of one time at once, all the messages in
    all, and without -v or a JSON report no loss is built, only counted (fails before: the whole
    input was read, and its messages converted at once, each loss built)."""
    path = _file(tmp_path, SOURCES[source], 200_000)

    def read_whole(name: str) -> Any:
        raise AssertionError(f"{name} read whole")

    given: list[int] = []
    built: list[Any] = []
    real_made = entries_from_phi.EntryMaker.made

    def counting(
        maker: Any, documents: list[Any], texts: Any, start: int, kept: Any, *rest: Any
    ) -> Any:
        given.append(len(documents))
        if kept is not None:  # a list the losses are built into
            built.append(kept)
        return real_made(maker, documents, texts, start, kept, *rest)

    monkeypatch.setattr(phi_wire.convert, "read_input", read_whole)
    monkeypatch.setattr(entries_from_phi.EntryMaker, "made", counting)
    out = tmp_path / "out.jsonl"
    code, _, err = run(
        capsys, "convert", "--from", source, "--to", TARGET, str(path), "-o", str(out)
    )
    assert code == 0, err
    lines = len(path.read_bytes().splitlines())
    assert given and max(given) <= BATCH + RUN, max(given)
    assert sum(given) == lines, (sum(given), lines)
    assert built == []
    assert f"{lines:,} documents" in err


@settings(max_examples=60, deadline=None)
@given(
    source=st.sampled_from(sorted(SOURCES)),
    picks=st.lists(
        st.tuples(st.integers(min_value=0), st.integers(min_value=1, max_value=30)),
        min_size=1,
        max_size=6,
    ),
    batch=st.integers(min_value=1, max_value=8),
    keep=st.booleans(),
    broken=st.one_of(st.none(), st.integers(min_value=0)),
)
def test_any_file_of_messages_streams_as_it_converts_whole(
    source: str, picks: list[tuple[int, int]], batch: int, keep: bool, broken: int | None
) -> None:
    """Generated files (stretches of the lines above, in any order and number), streamed in
    batches of 1 to 8: the same text, losses (kept, or their counts) and documents read as
    converting the file whole; or, when a line is made one that only the models convert
    (phi-core's text otherwise written, a clark-agent row its fast path does not vouch for),
    handed back to be converted whole, and only then."""
    pool = SOURCES[source]
    lines = [pool[(start + n) % len(pool)] for start, length in picks for n in range(length)]
    lines += lines[:2]  # two lines at least: one is read as a JSON document
    if broken is not None:  # valid, but not as phi-core writes it / not vouched for
        lines[broken % len(lines)] = (
            b'{"content":[{"text":"\\u00e9","type":"text"}],"role":"user","timestamp":1}'
            if source == "phi-core"
            else b'{"role":"user","content":"hi","timestamp":1,"extra":{"x":1}}'
        )
    saved = (convert_files.BATCH, convert_files.FAST_MIN_BYTES, session_file_stream.FAST_MIN_BYTES)
    saved_build = fast_whole.BUILD_MIN_BYTES
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "generated.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        convert_files.BATCH = batch
        convert_files.FAST_MIN_BYTES = session_file_stream.FAST_MIN_BYTES = 0
        fast_whole.BUILD_MIN_BYTES = 0
        try:
            stream = convert_stream.streamed(str(path), source, TARGET, None, keep=keep)
            streamed = None
            if stream is not None:
                text = "".join(entry + "\n" for batch in stream.batches() for entry in batch)
                converted = stream.converted()
                streamed = (text, converted.losses, converted.loss_counts(), converted.documents)
            done = convert_files.convert_input(read_input(str(path)), source, TARGET)
        finally:
            convert_files.BATCH, convert_files.FAST_MIN_BYTES = saved[:2]
            session_file_stream.FAST_MIN_BYTES = saved[2]
            fast_whole.BUILD_MIN_BYTES = saved_build
    assert (streamed is None) == (broken is not None)
    if streamed is None:
        return
    text, losses, counts, read = streamed
    assert text == done.text
    assert read == done.documents
    assert list(counts.items()) == list(done.loss_counts().items())
    assert losses == (done.losses if keep else [])


def test_a_line_only_the_models_convert_late_in_the_file_is_converted_whole(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    small: None,
    streams: list[bool],
) -> None:
    """A line past the first batches that is valid but not phi-core's own text: the file is
    handed back before anything is written, and converted whole, as before."""
    lines = PHI * 3
    lines[len(lines) - 3] = b'{"content":[],"role":"user","timestamp":1.0}'
    path = _file(tmp_path, lines, 200_000)
    arguments = ["convert", "--from", "phi-core", "--to", TARGET, str(path), "-v"]
    streamed = command(capsys, tmp_path, arguments, "streamed.jsonl")
    assert streams == [False]
    whole(monkeypatch)
    assert streamed == command(capsys, tmp_path, arguments, "whole.jsonl")


@pytest.mark.parametrize(
    ("source", "least"), [("phi-core", 200_000), ("phi-core", 0), ("clark-agent", 200_000)]
)
def test_a_file_whose_name_is_not_utf8_converts_to_a_session_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, small: None, source: str, least: int
) -> None:
    """The ids a session file invents are seeded by the input's name: a name that is not UTF-8
    (``caf\\xe9.jsonl``) is hashed as its bytes, streamed or read whole (fails before: a
    ``UnicodeEncodeError`` traceback from the uuid5 of its name)."""
    name = os.fsdecode(b"caf\xe9.jsonl")
    try:
        path = _file(tmp_path, SOURCES[source], least, name)
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system takes only UTF-8 names")
    written = []
    for out in ("a.jsonl", "b.jsonl"):
        arguments = [
            "convert",
            "--from",
            source,
            "--to",
            TARGET,
            str(path),
            "-o",
            str(tmp_path / out),
        ]
        code, _, err = run(capsys, *arguments)
        assert code == 0, err
        written.append((tmp_path / out).read_bytes())
    assert written[0] == written[1]  # reproducible
    header = json.loads(written[0].split(b"\n", 1)[0])
    assert header["type"] == "session" and header["id"] != ""
    assert len(operator_use.loads(operator_use.SessionFile, written[0].decode())) > 1
