"""What ``phi-wire validate`` says at the edges a new user hits (issue 17): the format the summary
names when nothing was judged, empty input, a type that was only guessed, which files a run
reads (``--include``/``--exclude``), JSON that more than one format writes, lone surrogates.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from command import run

CLARK_USER = '{"role":"user","content":"hi","timestamp":1}\n'


# --- defect 12: the summary names the format judged by, even when nothing was judged -----------


@pytest.mark.parametrize(
    ("options", "label"),
    [
        (["--format", "clark-agent"], "clark-agent 0.4"),
        (["--format", "operator-use"], "operator-use d0da87a6"),
        (["--format", "operator-use", "--version", "d1cdaad8"], "operator-use d1cdaad8"),
        (["--format", "phi-core", "--version", "0.8"], "phi-core 0.8"),
        ([], "phi-core 0.10"),
    ],
)
def test_the_summary_names_the_format_given_when_nothing_was_judged(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, options: list[str], label: str
) -> None:
    path = tmp_path / "one.jsonl"
    path.write_text(CLARK_USER, encoding="utf-8")
    code, out, _ = run(capsys, "validate", *options, "--max-document-bytes", "10", str(path))
    summary = out.splitlines()[-1]
    assert code == 2 and "1 not judged" in summary, out
    assert summary.endswith(f" MB/s, {label})"), summary


# --- defect 9: empty input, one rule --------------------------------------------------------------

EVENT = '{"type":"TurnStart"}\n'


@pytest.mark.parametrize("format", ["auto", "phi-core", "clark-agent", "operator-use"])
def test_an_empty_file_is_one_document_that_is_not_json_whatever_its_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, format: str
) -> None:
    """An empty .json and an empty .jsonl (or one of whitespace only, or gzip of nothing) are
    alike: one invalid document, as serde_json rejects an empty text (phi-core's corpus has one
    as a rejected fixture); the message has no empty field where a type would be."""
    import gzip

    files = {
        "empty.json": b"",
        "empty.jsonl": b"",
        "blank.json": b" \n\t\n",
        "blank.jsonl": b"\n\n",
        "empty.json.gz": gzip.compress(b""),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        code, out, err = run(capsys, "validate", "--format", format, str(tmp_path / name))
        assert code == 1, (name, out, err)
        assert out.splitlines()[0] == f"{tmp_path / name}:1: empty file: not a JSON document"
        assert "1 document: 0 valid, 1 invalid" in out.splitlines()[-1], out
        assert "  " not in out + err, out + err


def test_a_blank_line_is_a_document_that_is_not_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Among a JSONL file's documents, a blank line (empty or whitespace) stands where one
    belongs: reported at its line, without an empty field, in text and in JSON."""
    path = tmp_path / "events.jsonl"
    path.write_text(EVENT + "\n" + EVENT + "  \n" + EVENT, encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(path))
    lines = out.splitlines()
    assert code == 1 and "5 documents: 0 valid, 5 invalid" in lines[-1], out
    for number in (2, 4):
        assert f"{path}:{number}: empty line: not a JSON document" in lines, out
    assert not [line for line in lines if "  " in line], out
    code, out, _ = run(capsys, "validate", "--type", "AgentEvent", str(path))
    assert f"{path}:2: AgentEvent /: empty line: not a JSON document" in out.splitlines(), out
    code, out, _ = run(capsys, "validate", "--output-format", "json", str(path))
    records = [json.loads(line) for line in out.splitlines()]
    blank = [r for r in records if r.get("line") == 2]
    assert blank == [
        {
            "file": str(path),
            "line": 2,
            "pointer": "",
            "type": "",
            "variant": "",
            "message": "empty line: not a JSON document",
            "kind": "problem",
            "omitted": 0,
            "format": "phi-core",
            "version": "0.10",
        }
    ], blank


def test_nothing_on_standard_input_is_nothing_to_validate() -> None:
    """Standard input that sends nothing is no input at all (as an empty folder is)."""
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "phi_wire", "validate", "-"], input=b"", capture_output=True
    )
    assert result.returncode == 2, result
    assert result.stderr.startswith(b"phi-wire: -: nothing to validate"), result.stderr
