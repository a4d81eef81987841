"""A whole-file document is parsed once to be read and recognised (issue 19, "Fast and flat"):
``input_of`` parses it to tell it is one JSON value, and recognising it takes that value
(``Input.take_value``) instead of parsing its text again: 0.3 s of a 30 MB phi-core Session's
conversion. The value is taken once, and is not held by an input that a session-file writer
parses its own way."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from corpus import ROOT, fixtures_root

from phi_wire.convert import _documents, _inputs, convert_file, read_input
from phi_wire.convert._fast import FAST_MIN_BYTES

sys.path.insert(0, str(ROOT / "tools"))

import bench_convert


def _session(tmp_path: Path) -> Path:
    """phi-core's recorded Session, its loops copied (varied) past ``FAST_MIN_BYTES``, pretty as
    ``save_session`` writes it (the benchmark's input: ``tools/bench_convert.py``)."""
    path = tmp_path / "session.json"
    bench_convert.phi_core_session(fixtures_root(), path, 2 * FAST_MIN_BYTES / 1e6)
    return path


def _counting_whole_parses(monkeypatch: pytest.MonkeyPatch, data: bytes) -> Counter[str]:
    calls: Counter[str] = Counter()
    for module in (_inputs, _documents):
        real = module.parse

        def counted(text: Any, real: Any = real) -> Any:
            if len(text) == len(data):
                calls["whole"] += 1
            return real(text)

        monkeypatch.setattr(module, "parse", counted)
    return calls


@pytest.mark.parametrize("given", [None, "phi-core"])
def test_a_session_is_parsed_once_to_be_recognised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str | None
) -> None:
    path = _session(tmp_path)
    expected = list(convert_file(path, target="clark-agent", source=given))
    calls = _counting_whole_parses(monkeypatch, path.read_bytes())
    assert list(convert_file(path, target="clark-agent", source=given)) == expected
    assert calls["whole"] == 1


def test_the_value_is_taken_once() -> None:
    source = _inputs.input_of("x.json", b'{"role":"user","content":"hi","timestamp":1}')
    assert source.take_value() == ({"role": "user", "content": "hi", "timestamp": 1},)
    assert source.take_value() is None
    assert _inputs.input_of("n.json", b"null").take_value() == (None,)
    assert _inputs.input_of("l.jsonl", b"{}\n{}\n").take_value() is None  # lines: not parsed whole


def test_a_session_file_writer_does_not_hold_it(tmp_path: Path) -> None:
    """phi-core to Operator-Use: the writer parses the text its own way, so the value read to
    tell it is one document is dropped before (one tree of the document in memory at a time)."""
    path = _session(tmp_path)
    source = read_input(str(path))
    assert source.value is not None
    from phi_wire.convert import convert_input

    convert_input(source, "phi-core", "operator-use", None)
    assert source.value is None
