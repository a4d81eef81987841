"""Issue 19, section 4: a JSONL input whose documents each convert on their own is converted
``BATCH`` documents at a time, holding one batch's models, not the input's, and giving exactly
what converting it whole gives (documents, losses, their order)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from corpus import fixtures_root

import phi_wire.convert._files as convert_files
from phi_wire.convert import read_input

CLARK = fixtures_root() / "clark-agent" / "0.4.0"
PHI = fixtures_root() / "phi-core" / "0.10.0"
CASES = [
    (CLARK / "history" / "history.multi_turn.jsonl", "clark-agent", "phi-core", True),
    (PHI / "streams" / "events.main_session.jsonl", "phi-core", "clark-agent", True),
    (CLARK / "streams" / "events.reasoning_tool_run.jsonl", "clark-agent", "phi-core", False),
]


@pytest.mark.parametrize(("path", "source", "target", "batched"), CASES)
def test_batches_give_what_the_whole_input_gives(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    path: Path,
    source: str,
    target: str,
    batched: bool,
) -> None:
    big = tmp_path / "big.jsonl"
    big.write_bytes(path.read_bytes() * 3)
    monkeypatch.setattr(convert_files, "BATCH", 7)
    # the model path's batches (what holds models); the fast path's: tests/test_convert_fast*.py
    monkeypatch.setattr(convert_files, "FAST_MIN_BYTES", 2**62)
    held: list[int] = []
    real_convert = convert_files.convert

    def counting(value: Any, **options: Any) -> Any:
        held.append(len(value) if isinstance(value, list) else 1)
        return real_convert(value, **options)

    monkeypatch.setattr(convert_files, "convert", counting)
    in_batches = convert_files.convert_input(read_input(str(big)), source, target)
    assert (max(held) <= 7) == batched, held
    monkeypatch.setattr(convert_files, "_convert_batches", lambda *_: None)
    whole = convert_files.convert_input(read_input(str(big)), source, target)
    assert in_batches.text == whole.text
    assert in_batches.losses == whole.losses
    assert in_batches.documents == whole.documents
