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


# --- defect 7: JSON several formats write is named so, and takes its folder's format ------------

CALLED_CLARK_AGENT = [
    "AgentEvent/AgentEvent.agent_start.basic.json",
    "AgentEvent/AgentEvent.turn_start.basic.json",
    "AgentEvent/AgentEvent.message_end.user.json",
    "Message/Message.user.string_content.json",
    "Message/Message.user.empty_string_content.json",
    "AgentToolResult/AgentToolResult.result.echo.ok_2.json",
]
"""The pi fixtures the issue found called "clark-agent 0.4: 1 valid"."""


@pytest.mark.parametrize("version", ["0.73.1", "1.5.2"])
def test_no_pi_document_is_called_clark_agent(
    capsys: pytest.CaptureFixture[str], version: str
) -> None:
    """pi's valid fixtures are pi's: none is judged as clark-agent (JSON clark-agent writes the
    same way takes the format of its folder, pi's); pi is spoken: each is judged by pi's reader,
    valid, the file named pi 0.73 or pi 1.5."""
    from corpus import fixtures_root

    from phi_wire.validate import validate

    base = fixtures_root() / "pi" / version / "valid"
    run_ = validate([str(base)])
    records = list(run_)
    called = {f.file: f for f in run_.files if "clark-agent" in {j.format for j in f.judged}}
    assert not called, sorted(called)
    if version == "0.73.1":
        for name in CALLED_CLARK_AGENT:
            summary = next(f for f in run_.files if f.file == str(base / name))
            assert summary.format == "pi" and summary.valid == 1, (name, summary.label)
            assert "clark-agent" in summary.judged[0].also, (name, summary.judged)
            said = [r.message for r in records if r.file == str(base / name)]
            assert not said, said
    lines = {(j.format, j.version) for f in run_.files for j in f.judged}
    assert lines <= {("pi", "0.73"), ("pi", "1.5")}, lines
    assert all(f.valid == f.documents for f in run_.files), [
        f for f in run_.files if f.valid != f.documents
    ]
    code, out, _ = run(capsys, "validate", str(base))
    assert code == 0 and "clark-agent 0.4:" not in out, out[-2000:]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


AGENT_START = '{"type":"agent_start"}'
PI_EVENT = '{"type":"tool_execution_start","toolCallId":"c","toolName":"echo","args":{"text":"hi"}}'
CLARK_EVENT = (
    '{"type":"tool_execution_start","tool_call_id":"c","tool_name":"echo","args":{"text":"hi"}}'
)


def test_a_file_several_formats_could_have_written_says_which(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Alone in its folder, pi-agent-core's and clark-agent's ``{"type":"agent_start"}`` is judged
    as clark-agent (the order), and the summary and the JSON records say pi fits too."""
    path = write(tmp_path / "alone" / "start.json", AGENT_START)
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 0 and out.splitlines()[-1].endswith("clark-agent 0.4 (also fits pi))"), out
    code, out, _ = run(capsys, "validate", "--output-format", "json", str(path))
    records = [json.loads(line) for line in out.splitlines()]
    (file,) = [r["file"] for r in records if "file" in r and isinstance(r["file"], dict)]
    assert file["format"] == "clark-agent" and file["formats"][0]["also"] == ["pi"], file
    assert records[-1]["summary"]["formats"] == {"clark-agent 0.4 (also fits pi)": 1}


def test_a_file_several_formats_could_have_written_takes_its_folders_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Beside files that are certainly pi's, the same file is pi's (judged by pi's reader);
    beside clark-agent's, clark-agent's; a JSONL file of such lines likewise. Files named one by
    one are weighed by their folder too."""
    pi_start = write(tmp_path / "pi" / "start.json", AGENT_START)
    write(tmp_path / "pi" / "tool.json", PI_EVENT)
    pi_lines = write(tmp_path / "pi" / "starts.jsonl", AGENT_START + "\n" + AGENT_START + "\n")
    clark_start = write(tmp_path / "clark" / "start.json", AGENT_START)
    write(tmp_path / "clark" / "tool.json", CLARK_EVENT)
    for paths in ([tmp_path], [pi_start, pi_lines, clark_start]):
        from phi_wire.validate import validate

        run_ = validate([str(path) for path in paths])
        list(run_)
        files = {f.file: f for f in run_.files}
        for ambiguous in (pi_start, pi_lines):
            judged = files[str(ambiguous)].judged
            assert [(j.format, j.also) for j in judged] == [("pi", ("clark-agent",))], judged
            assert files[str(ambiguous)].valid == files[str(ambiguous)].documents
        judged = files[str(clark_start)].judged
        assert [(j.format, j.also) for j in judged] == [("clark-agent", ("pi",))], judged
        assert files[str(clark_start)].valid == 1
    code, out, err = run(capsys, "validate", str(pi_start))
    assert code == 0 and not err, err
    assert out.splitlines()[-1].endswith("pi 0.73 (also fits clark-agent))"), out


# --- defect 7: a lone surrogate escape is named -------------------------------------------------


def test_a_lone_surrogate_is_named_with_serde_jsons_words(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """pi writes JavaScript strings, lone surrogate escapes included: phi-core's serde rejects
    them in its words ("unexpected end of hex escape", at the byte after the escape), which the
    report keeps, after naming the escape and where it starts. A pair, or an escaped backslash
    before ``ud800``, is no lone surrogate."""
    from corpus import fixtures_root

    special = fixtures_root() / "pi/0.73.1/valid/Content/Content.text.special_chars.json"
    code, out, _ = run(capsys, "validate", "--format", "phi-core", str(special))
    assert code == 1 and out.splitlines()[0] == (
        f"{special}:1: AgentEvent /: invalid JSON: lone surrogate \\ud800 at line 1 column 139: "
        "a UTF-16 surrogate escape must be one of a pair (serde_json: unexpected end of hex "
        "escape at line 1 column 145)"
    ), out
    event = '{"type":"InputRejected","loop_id":"l","reason":"%s"}'
    path = write(
        tmp_path / "surrogates.jsonl",
        "\n".join(
            event % reason
            for reason in (
                "\\ud83d\\ude00 a pair, then a lone low half: \\udc00",
                "\\\\ud800 is text; \\ud800\\u0041 a high half before another escape",
                "\\ud83d\\ude00 a pair only",
            )
        )
        + "\n",
    )
    code, out, _ = run(capsys, "validate", "--type", "AgentEvent", str(path))
    lines = out.splitlines()
    assert code == 1 and "3 documents: 1 valid, 2 invalid" in lines[-1], out
    first = event % "\\ud83d\\ude00 a pair, then a lone low half: \\udc00"
    column = first.index("\\udc00") + 1
    assert lines[0] == (
        f"{path}:1: AgentEvent /: invalid JSON: lone surrogate \\udc00 at line 1 column "
        f"{column}: a UTF-16 surrogate escape must be one of a pair (serde_json: lone leading "
        f"surrogate in hex escape at line 1 column {column + 5})"
    ), out
    second = event % "\\\\ud800 is text; \\ud800\\u0041 a high half before another escape"
    column = second.index("\\ud800\\u0041") + 1
    assert f"lone surrogate \\ud800 at line 1 column {column}: " in lines[1], out


def test_a_folder_is_looked_at_once_per_run_and_boundedly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder rule's work is bounded: a folder's files are looked at once per run, however
    many ambiguous files it holds, and at most ``FOLDER_FILES`` of them (counted, not timed); a
    new run looks again (the files may have changed)."""
    import phi_wire.validate._folder as folder_rule
    from phi_wire.validate import validate

    for index in range(folder_rule.FOLDER_FILES + 40):
        write(tmp_path / f"tool{index:03}.json", PI_EVENT)
    for index in range(3):
        write(tmp_path / f"start{index}.json", AGENT_START)
    looked_at: list[str] = []
    claim = folder_rule._file_claim

    def counted(path: str) -> object:
        looked_at.append(path)
        return claim(path)

    monkeypatch.setattr(folder_rule, "_file_claim", counted)
    for _ in range(2):
        looked_at.clear()
        run_ = validate([str(tmp_path)])
        list(run_)
        starts = [f for f in run_.files if Path(f.file).name.startswith("start")]
        assert [f.format for f in starts] == ["pi"] * 3
        assert len(looked_at) == len(set(looked_at)) == folder_rule.FOLDER_FILES
