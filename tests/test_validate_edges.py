"""What ``phi-wire validate`` says at the edges a new user hits (issue 17): the format the summary
names when nothing was judged, empty input, a type that was only guessed, which files a run
reads (``--include``/``--exclude``), JSON that more than one format writes, lone surrogates.
"""

from __future__ import annotations

import json
from itertools import pairwise
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


# --- defect 8: a type judged by guess says so; --include and --exclude ----------------------------

GUESS = "by guess: nothing in the document names a type; --type names one"


def test_a_type_judged_by_guess_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """phi-core's own corpus holds bare ids and ranges, whose type only the manifest knows: judged
    as AgentEvent (phi-core's fallback), each problem says it was a guess and how to name the
    type; with --type they are valid."""
    from corpus import fixtures_root

    folder = fixtures_root() / "phi-core" / "0.8.0" / "valid" / "TurnId"
    code, out, _ = run(capsys, "validate", str(folder))
    problems = out.splitlines()[:-1]
    assert code == 1 and problems, out
    assert all(
        line.endswith(f"(judged as AgentEvent {GUESS}, --exclude leaves out such files)")
        for line in problems
    ), problems
    code, out, _ = run(capsys, "validate", "--version", "0.8", "--type", "TurnId", str(folder))
    assert code == 0, out


def test_a_type_named_by_the_document_is_no_guess(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Only the fallback is a guess: a document whose keys name its type (a ``type`` tag, a
    message's ``role``), or a type given with --type, is reported without the note."""
    guessed = tmp_path / "manifest.json"
    guessed.write_text('{"fixtures": []}', encoding="utf-8")
    named = tmp_path / "event.json"
    named.write_text('{"type": "module"}', encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(guessed), str(named))
    lines = out.splitlines()
    assert code == 1 and GUESS in lines[0] and str(guessed) in lines[0], out
    assert [line for line in lines if GUESS in line] == [lines[0]], out
    code, out, _ = run(capsys, "validate", "--type", "AgentEvent", str(guessed))
    assert code == 1 and GUESS not in out, out
    row = tmp_path / "row.jsonl"
    row.write_text('{"foo": 1}\n', encoding="utf-8")
    for format in ("clark-agent", "operator-use"):
        code, out, _ = run(capsys, "validate", "--format", format, str(row))
        assert code == 1 and f"(judged as AgentMessage {GUESS}" in out, out


def tree(base: Path) -> dict[str, str]:
    from corpus import ROOT

    line = (ROOT / "examples" / "events.jsonl").read_text(encoding="utf-8").splitlines()[0] + "\n"
    files = {
        "manifest.json": '{"fixtures": []}',
        "valid/a.json": '"stop"',
        "valid/manifest.json": '{"fixtures": []}',
        "valid/deep/b.jsonl": line,
        "rejected/c.json": '"stop"',
        "streams/d.jsonl": line,
        "streams/old/e.jsonl": line,
    }
    for name, text in files.items():
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        (base / name).write_text(text, encoding="utf-8")
    return files


@pytest.mark.parametrize(
    ("options", "read"),
    [
        (
            [],
            [
                "manifest.json",
                "rejected/c.json",
                "streams/d.jsonl",
                "streams/old/e.jsonl",
                "valid/a.json",
                "valid/deep/b.jsonl",
                "valid/manifest.json",
            ],
        ),
        # a name at any depth
        (
            ["--exclude", "manifest.json"],
            [
                "rejected/c.json",
                "streams/d.jsonl",
                "streams/old/e.jsonl",
                "valid/a.json",
                "valid/deep/b.jsonl",
            ],
        ),
        # a folder, with all it holds; repeatable
        (
            ["--exclude", "rejected", "--exclude", "streams/"],
            ["manifest.json", "valid/a.json", "valid/deep/b.jsonl", "valid/manifest.json"],
        ),
        # a path from the folder named: * within one name, ** any number of folders
        (
            ["--exclude", "*/manifest.json"],
            [
                "manifest.json",
                "rejected/c.json",
                "streams/d.jsonl",
                "streams/old/e.jsonl",
                "valid/a.json",
                "valid/deep/b.jsonl",
            ],
        ),
        (
            ["--include", "**/*.jsonl"],
            ["streams/d.jsonl", "streams/old/e.jsonl", "valid/deep/b.jsonl"],
        ),
        (["--include", "valid"], ["valid/a.json", "valid/deep/b.jsonl", "valid/manifest.json"]),
        (["--include", "streams/*.jsonl"], ["streams/d.jsonl"]),
        # exclusion wins
        (
            ["--include", "valid", "--exclude", "manifest.json"],
            ["valid/a.json", "valid/deep/b.jsonl"],
        ),
        # a pattern ending in / matches folders only
        (
            ["--exclude", "a.json/"],
            [
                "manifest.json",
                "rejected/c.json",
                "streams/d.jsonl",
                "streams/old/e.jsonl",
                "valid/a.json",
                "valid/deep/b.jsonl",
                "valid/manifest.json",
            ],
        ),
    ],
)
def test_include_and_exclude_choose_the_files_under_a_folder(
    tmp_path: Path, options: list[str], read: list[str]
) -> None:
    from phi_wire.validate import validate

    tree(tmp_path)
    include = [value for flag, value in pairwise(options) if flag == "--include"]
    exclude = [value for flag, value in pairwise(options) if flag == "--exclude"]
    run_ = validate([str(tmp_path)], include=include, exclude=exclude)
    list(run_)
    assert [str(Path(f.file).relative_to(tmp_path)) for f in run_.files] == read


def test_include_and_exclude_on_the_command_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The flags repeat; a file named on the command line is always read; a folder whose every
    file is left out is nothing to validate, and says why."""
    tree(tmp_path)
    code, out, _ = run(
        capsys, "validate", str(tmp_path), "--exclude", "manifest.json", "--exclude", "rejected"
    )
    assert code == 0 and "4 files, 4 documents: 4 valid" in out, out
    named = tmp_path / "manifest.json"
    code, out, _ = run(capsys, "validate", str(named), "--exclude", "manifest.json")
    assert code == 1 and out.startswith(f"{named}:1: "), out
    code, _, err = run(capsys, "validate", str(tmp_path), "--include", "nothing*")
    assert code == 2, err
    assert err.startswith(
        f"phi-wire: {tmp_path}: nothing to validate: --include/--exclude left out every file"
    ), err
    code, out, _ = run(capsys, "validate", "--help")
    assert "--include GLOB" in out and "--exclude GLOB" in out and "** any number" in out


def test_convert_takes_a_folder_and_the_same_patterns(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A folder named to convert is walked as validate walks it (with --include/--exclude); each
    output keeps its path under the output folder."""
    source = tmp_path / "in"
    history = '{"role":"user","content":"hi","timestamp":1}\n' * 2
    for name in ("a.jsonl", "deep/b.jsonl", "deep/manifest.json", ".hidden/c.jsonl"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(history if name.endswith("jsonl") else "{}", encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = run(
        capsys,
        "convert",
        "--to",
        "phi-core",
        str(source),
        "-o",
        str(out),
        "--exclude",
        "manifest.json",
    )
    assert code == 0, err
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert written == ["a.phi-core.jsonl", "deep/b.phi-core.jsonl"], written
    code, _, err = run(capsys, "convert", "--to", "phi-core", str(source))
    assert code == 2 and "a folder of inputs needs -o FOLDER" in err, err
    code, _, err = run(
        capsys, "convert", "--to", "phi-core", str(source), "-o", str(out), "--include", "x"
    )
    assert code == 2 and "nothing to convert: --include/--exclude left out every file" in err
    code, out_text, _ = run(capsys, "convert", "--help")
    assert "--include GLOB" in out_text and "--exclude GLOB" in out_text
