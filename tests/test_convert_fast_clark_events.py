"""clark-agent event streams -> phi-core by the dict converter
(``phi_wire.formats.clark_agent._fast_events_to_phi``, through
``EventStreamToPhi.convert_dicts``): a streamed file's events convert dict to dict where
clark-agent's fast path vouches for them, the model path elsewhere, both sharing the run's state
(its identity, turns, latest timestamp). For every stream of the corpus, in small batches, and
for each of it with one line corrupted, the documents and losses equal the model path's exactly,
and the fast path is taken."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from corpus import fixtures_root
from test_convert_fast import corruptions

from phi_wire.convert import ConvertError, NotStreamed, _batches, streamed
from phi_wire.convert import _files as convert_files
from phi_wire.convert import _stream as convert_stream

STREAMS = sorted((fixtures_root() / "clark-agent" / "0.4.0" / "streams").glob("*.jsonl"))


def _converted(path: Path) -> Any:
    stream = streamed(str(path), "clark-agent", "phi-core", None, keep=True)
    assert stream is not None
    try:
        written = [document for batch in stream.batches() for document in batch]
    except (ConvertError, NotStreamed) as error:
        return type(error).__name__, str(error)
    converted = stream.converted()
    return written, converted.losses


def _both(monkeypatch: pytest.MonkeyPatch, path: Path) -> tuple[Any, Any, int]:
    """The stream converted by the model path alone, then with the fast path; and the events
    the dict converter took."""
    monkeypatch.setattr(convert_stream, "FAST_MIN_BYTES", 0)
    monkeypatch.setattr(convert_files, "BATCH", 7)
    real = _batches.line_path
    monkeypatch.setattr(_batches, "line_path", lambda *_: None)
    model = _converted(path)
    monkeypatch.setattr(_batches, "line_path", real)
    taken = 0
    original = _batches.Batches._fast_run

    def counted(self: Any, run: Any, done: Any) -> bool:
        nonlocal taken
        went = original(self, run, done)
        taken += len(run) if went else 0
        return went

    monkeypatch.setattr(_batches.Batches, "_fast_run", counted)
    fast = _converted(path)
    monkeypatch.setattr(_batches.Batches, "_fast_run", original)
    return model, fast, taken


@pytest.mark.parametrize("path", STREAMS, ids=lambda path: path.name)
def test_corpus_streams_convert_alike_and_by_the_fast_path(
    monkeypatch: pytest.MonkeyPatch, path: Path
) -> None:
    model, fast, taken = _both(monkeypatch, path)
    assert fast == model
    lines = [line for line in path.read_bytes().splitlines() if line.strip()]
    assert taken >= len(lines) * 0.8, (taken, len(lines))


@pytest.mark.parametrize("path", STREAMS, ids=lambda path: path.name)
def test_streams_with_a_corrupted_line_convert_alike(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, path: Path
) -> None:
    """Each variant of each line, alone in its stream: the state carried across the line the
    model path takes (or the fast path hands back) is the same."""
    lines = [line for line in path.read_bytes().splitlines() if line.strip()]
    checked = 0
    for index, line in enumerate(lines):
        for variant in corruptions(line, index)[:6]:
            changed = tmp_path / "changed.jsonl"
            changed.write_bytes(b"\n".join([*lines[:index], variant, *lines[index + 1 :]]) + b"\n")
            model, fast, _ = _both(monkeypatch, changed)
            if "the time of reading" in repr(model):  # a message of an event phi-core drops
                continue  # whole: the model path names its read-time timestamp, the fast not
            assert fast == model, (index, variant)
            checked += 1
    assert checked > len(lines) * 3
