"""Issue 19, section 3: ``phi_wire.convert.convert_file``/``convert_stream``, the conversion of
files and streams for programs: the same documents and losses as the command, typed."""

from __future__ import annotations

from pathlib import Path

import pytest
from command import run
from corpus import fixtures_root

import phi_wire.v0_10 as phi
from phi_wire.convert import ConvertError, Document, Lost, convert_file, convert_stream

HISTORY = fixtures_root() / "clark-agent" / "0.4.0" / "history" / "history.multi_turn.jsonl"


def test_convert_file_gives_what_the_command_writes_and_reports(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    items = list(convert_file(HISTORY, target="phi-core"))
    documents = [item for item in items if isinstance(item, Document)]
    losses = [item for item in items if isinstance(item, Lost)]
    assert len(documents) + len(losses) == len(items)
    out = tmp_path / "out.jsonl"
    code, _, err = run(capsys, "convert", "--to", "phi-core", str(HISTORY), "-o", str(out), "-v")
    assert code == 0
    assert "".join(document.text + "\n" for document in documents) == out.read_text()
    assert {(document.format, document.version) for document in documents} == {("phi-core", "0.10")}
    assert f"{len(losses)} losses" in err
    for lost in losses:
        assert lost.where.startswith(f"{HISTORY}:")
        assert f"{lost.where} {lost.loss.pointer or '/'}" in err
    for document in documents:
        phi.loads(phi.AgentMessage, document.text)


def test_convert_stream_converts_lines_in_memory() -> None:
    lines = HISTORY.read_text(encoding="utf-8").splitlines()
    from_stream = list(convert_stream(lines, target="phi-core", name=str(HISTORY)))
    assert from_stream == list(convert_file(HISTORY, target="phi-core"))
    as_bytes = list(convert_stream((line.encode() for line in lines), target="phi-core"))
    assert [item for item in as_bytes if isinstance(item, Document)] == [
        item for item in from_stream if isinstance(item, Document)
    ]


def test_convert_stream_names_its_input_in_errors() -> None:
    with pytest.raises(ConvertError, match=r"^mine:2: invalid JSON"):
        convert_stream(['{"role":"user","content":"hi"}', '{"role":'], target="phi-core",
                       source="clark-agent", name="mine")  # fmt: skip


def test_a_version_is_written_as_asked() -> None:
    documents = [
        item
        for item in convert_file(HISTORY, target="operator-use", version="d1cdaad8")
        if isinstance(item, Document)
    ]
    assert len(documents) == 1 and documents[0].version == "d1cdaad8"
