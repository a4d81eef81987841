"""The validator as a library (phi_wire.validate.validate): what another program, or a runner
spread over many machines, gets from it without the command line."""

from __future__ import annotations

import gzip
import os
import sys
from pathlib import Path

import pytest
from corpus import fixtures_root

from phi_wire.validate import (
    DEFAULT_MAX_DOCUMENT_BYTES,
    DEFAULT_MAX_PROBLEMS,
    DOCUMENT,
    INPUT,
    LINES,
    MORE,
    NOTE,
    PROBLEM,
    UnknownType,
    validate,
    wire_types,
)

ROOT = Path(__file__).resolve().parent.parent
EVENTS = (ROOT / "examples" / "events.jsonl").read_bytes()
SESSION = (ROOT / "examples" / "session.json").read_bytes()


def test_records_files_and_tally(tmp_path: Path) -> None:
    """Every record names its file; input errors are records too (with their file and line),
    each file has a summary with the layout and compression recognised."""
    (tmp_path / "a.jsonl.gz").write_bytes(gzip.compress(EVENTS + b'{"type":"TurnStart"}\n'))
    (tmp_path / "b.jsonl").write_bytes(SESSION)  # a pretty document under a JSONL name
    (tmp_path / "c.json").write_bytes(b"\xff\xfe{}")
    missing = str(tmp_path / "missing.json")
    run = validate([str(tmp_path), missing], version="0.10")
    records = list(run)
    assert run.complete
    by_kind = {kind: [r for r in records if r.kind == kind] for kind in (PROBLEM, INPUT, NOTE)}
    assert {(r.file, r.line) for r in by_kind[PROBLEM]} == {
        (str(tmp_path / "a.jsonl.gz"), 18),
        (str(tmp_path / "c.json"), 1),  # not UTF-8, nor JSON: loads rejects it, as phi-core does
    }
    assert [(r.file, r.message) for r in by_kind[INPUT]] == [(missing, "no such file or folder")]
    assert [r.file for r in by_kind[NOTE]] == [str(tmp_path / "b.jsonl")]
    summaries = {Path(f.file).name: f for f in run.files}
    assert summaries["a.jsonl.gz"].gzip and summaries["a.jsonl.gz"].layout == LINES
    assert (summaries["a.jsonl.gz"].documents, summaries["a.jsonl.gz"].invalid) == (18, 1)
    assert summaries["b.jsonl"].layout == DOCUMENT and summaries["b.jsonl"].named == LINES
    assert summaries["b.jsonl"].valid == 1 and summaries["c.json"].invalid == 1
    tally = run.tally
    assert (tally.files, tally.documents, tally.valid, tally.invalid) == (3, 20, 18, 2)
    assert len(tally.input_errors) == 1 and tally.problems == len(by_kind[PROBLEM]) > 1


def test_limits_are_parameters(tmp_path: Path) -> None:
    loops = SESSION.replace(b'"loops": [', b'"loops": [{}, {}, {}, ', 1)
    path = tmp_path / "s.json"
    path.write_bytes(loops)
    records = list(validate([str(path)], max_problems=2))
    assert [r.kind for r in records] == [PROBLEM, PROBLEM, MORE]
    assert records[-1].omitted > 0
    run = validate([str(path)], max_document_bytes=1000)
    refused = list(run)
    assert [r.kind for r in refused] == [INPUT] and run.tally.unjudged == 1
    assert run.tally.valid == 0 and run.tally.invalid == 0
    assert DEFAULT_MAX_PROBLEMS == 100 and DEFAULT_MAX_DOCUMENT_BYTES == 128 * 1024 * 1024


def test_bad_arguments_raise_value_errors() -> None:
    """Only wire types are types (item 11); counts must be positive; the version must exist."""
    assert "AgentEvent" in wire_types("0.10") and "CostRates" not in wire_types("0.10")
    for name in ("CostRates", "MessageAccumulator", "WireError", "Nope"):
        with pytest.raises(UnknownType):
            validate(["x"], type=name)
    with pytest.raises(ValueError):
        validate(["x"], max_problems=0)
    with pytest.raises(ValueError):
        validate(["x"], version="9.9")


def test_stopping_early_leaves_the_run_incomplete(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"type":"TurnStart"}\n' * 10)
    run = validate([str(path)])
    for _ in run:
        break
    assert not run.complete


def test_a_bare_path_is_one_path(tmp_path: Path) -> None:
    """Issue 17, defect 5: ``validate("some/dir")`` read each character of the string as a path
    (``validate("/")`` walked the whole file system). A bare ``str`` or ``os.PathLike`` is one
    path, any iterable of them many; paths that are not text raise ``TypeError``."""
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "events.jsonl").write_bytes(EVENTS)
    for paths in (str(folder), folder, [folder], (str(folder),), iter([folder])):
        run = validate(paths)
        assert list(run) == [] and run.complete, paths
        assert {summary.file for summary in run.files} == {str(folder / "events.jsonl")}
        assert run.tally.input_errors == [] and run.tally.valid == EVENTS.count(b"\n")
    for not_text in (os.fsencode(folder), [os.fsencode(folder)], [1]):
        with pytest.raises(TypeError, match=r"paths are str or os\.PathLike"):
            validate(not_text)  # type: ignore[arg-type]


PATHS_SNIPPET = """
from pathlib import Path

from phi_wire.validate import validate

validate("sessions/")
validate(Path("sessions/"))
validate(["a.jsonl", Path("b.jsonl")])
validate(path for path in [Path("c.jsonl")])
validate(b"sessions/")
validate([1])
"""


def test_the_signature_says_what_validate_takes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mypy --strict (as tools/typecheck runs it) accepts one path or an iterable of str and
    PathLike paths, and rejects bytes and numbers: it accepted ``validate("dir")`` while it
    meant characters, and refused ``validate(Path("dir"))``, which works."""
    api = pytest.importorskip("mypy.api")
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from stage_package import stage
    finally:
        sys.path.pop(0)
    stage(tmp_path / "staged")
    snippet = tmp_path / "snippet.py"
    snippet.write_text(PATHS_SNIPPET, encoding="utf-8")
    monkeypatch.setenv("MYPYPATH", str(tmp_path / "staged"))
    out, _, status = api.run(
        [
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(ROOT / "build" / "mypy-cache-tests"),
            str(snippet),
        ]
    )
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert status == 1 and [line.split(":")[1] for line in errors] == ["10", "11"], out


@pytest.mark.parametrize("version", ["0.8.0", "0.10.0"])
def test_format_phi_core_judges_phi_cores_documents_as_recognition_does(version: str) -> None:
    """``--format phi-core`` on documents of their own (one per file) gives the verdicts of a
    run without it: a content block (``{"type":"text",...}``), whose ``type`` key phi-core's key
    detection takes for an event's, is read as the ``Content`` its shape is, as recognition
    reads it. (Before: 50 of phi-core 0.10's valid fixtures were invalid AgentEvents with
    ``--format phi-core`` and valid without it.)"""
    folder = str(fixtures_root() / "phi-core" / version / "valid")
    given = validate([folder], format="phi-core")
    given_records = [(r.file, r.line, r.pointer, r.message) for r in given]
    auto = validate([folder])
    auto_records = [(r.file, r.line, r.pointer, r.message) for r in auto]
    assert given.tally.documents == auto.tally.documents > 100
    assert given.tally.valid == auto.tally.valid, (given.tally.as_dict(), auto.tally.as_dict())
    assert given_records == auto_records
