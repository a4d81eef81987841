"""A phi-core Session file -> clark-agent by the fast path (``phi_wire.convert._fast_session``):
the whole document vouched for, its loops' messages converted dict to dict, the session's and
loops' other keys named as ``from_session`` names them. For every session of the corpora, its
corruptions (each alone) and its pretty form, the text and losses equal the model path's
exactly, and the fast path is taken on the corpus."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_convert_fast import corpus_lines, corruptions

from phi_wire.convert import ConvertError, _fast_session, read_input
from phi_wire.convert import _files as convert_files

SESSIONS = corpus_lines("phi-core", ("0.10.0", "0.8.0"), {"Session"})


def _converted(path: Path) -> Any:
    try:
        done = convert_files.convert_input(read_input(str(path)), "phi-core", "clark-agent")
    except ConvertError as error:
        return "error", str(error)
    return done.text, done.losses, done.documents, done.lines


def _both(monkeypatch: pytest.MonkeyPatch, path: Path) -> tuple[Any, Any, bool]:
    monkeypatch.setattr(convert_files, "FAST_MIN_BYTES", 0)
    taken = False
    real = _fast_session.session_converted

    def counted(*arguments: Any) -> Any:
        nonlocal taken
        done = real(*arguments)
        taken = done is not None
        return done

    monkeypatch.setattr(convert_files, "session_converted", lambda *_: None)
    model = _converted(path)
    monkeypatch.setattr(convert_files, "session_converted", counted)
    fast = _converted(path)
    return model, fast, taken


def test_the_corpus_sessions_convert_alike_and_by_the_fast_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert len(SESSIONS) >= 2
    taken = 0
    for number, line in enumerate(SESSIONS):
        for text in (line, json.dumps(json.loads(line), indent=2, ensure_ascii=False).encode()):
            path = tmp_path / f"session{number}.json"
            path.write_bytes(text)
            model, fast, went = _both(monkeypatch, path)
            assert fast == model
            taken += went
    assert taken >= 2


def test_corrupted_sessions_convert_alike(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    checked = 0
    for number, line in enumerate(SESSIONS):
        for seed in range(3):
            for variant in corruptions(line, number * 10 + seed):
                path = tmp_path / "session.json"
                path.write_bytes(variant)
                model, fast, _ = _both(monkeypatch, path)
                assert fast == model, variant[:300]
                checked += 1
    assert checked > 50


def test_a_session_to_phi_core_itself_takes_the_model_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """phi-core to phi-core has no dict converter (``export-otel`` reads a session so)."""
    monkeypatch.setattr(convert_files, "FAST_MIN_BYTES", 0)
    path = tmp_path / "session.json"
    path.write_bytes(SESSIONS[0])
    done = convert_files.convert_input(read_input(str(path)), "phi-core", "phi-core")
    assert done.documents == 1 and done.text
