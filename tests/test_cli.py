"""phi-wire (runtime/cli/ over runtime/validate/): exit status, output, messages, help.

The inputs (``test_validate_inputs``), judging (``test_validate_judge``), --jobs
(``test_validate_parallel``) and the Python API (``test_validate_api``) have files of their own.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from command import run
from corpus import fixtures_root

from phi_wire.cli import main

ROOT = Path(__file__).resolve().parent.parent
VERSIONS = {"0.8.0": "0.8", "0.10.0": "0.10"}
EVENT = (ROOT / "examples" / "events.jsonl").read_text(encoding="utf-8").splitlines()[1]


def folders(version: str, kind: str) -> list[Path]:
    return sorted(path for path in (fixtures_root() / "phi-core" / version / kind).iterdir())


@pytest.mark.parametrize("version", VERSIONS)
def test_everything_phi_core_writes_validates(
    capsys: pytest.CaptureFixture[str], version: str
) -> None:
    base = fixtures_root() / "phi-core" / version
    code, out, _ = run(
        capsys,
        "validate",
        "--version",
        VERSIONS[version],
        str(base / "sessions"),
        str(base / "streams"),
    )
    assert code == 0, out
    for folder in folders(version, "valid"):
        code, out, _ = run(
            capsys, "validate", "--version", VERSIONS[version], "--type", folder.name, str(folder)
        )
        assert code == 0, out


@pytest.mark.parametrize("version", VERSIONS)
def test_every_rejected_fixture_is_reported_with_line_and_pointer(
    capsys: pytest.CaptureFixture[str], version: str
) -> None:
    for folder in folders(version, "rejected"):
        code, out, _ = run(
            capsys, "validate", "--version", VERSIONS[version], "--type", folder.name, str(folder)
        )
        assert code == 1, f"{folder.name}: {out}"
        for path in folder.iterdir():
            lines = [line for line in out.splitlines() if line.startswith(f"{path}:")]
            assert lines, f"no report for {path.name}"
            shape = re.escape(f"{path}:") + r"\d+: " + re.escape(folder.name) + r"( \S+)* /\S*: \S"
            assert re.match(shape, lines[0]), lines[0]


def test_sample_data_and_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", str(ROOT / "examples"))
    assert code == 0 and "2 files, 18 documents: 18 valid, 0 invalid" in out
    code, out, _ = run(capsys, "validate", str(ROOT / "examples" / "session.json"))
    assert code == 0 and out.startswith("1 file, 1 document: 1 valid, 0 invalid;"), out


BAD_LINES = {
    "invalid JSON": ('{"type": "TurnStart", loop_id}', "invalid JSON"),
    "empty line": ("", "empty line"),
    "BOM": ("\ufeff" + EVENT, "byte order mark"),
    "deep nesting": (
        '{"type":"ToolExecutionStart","loop_id":"l","tool_call_id":"t","tool_name":"n","args":'
        + "[" * 50_000
        + "]" * 50_000
        + "}",
        "invalid JSON",
    ),
    "duplicate keys": (
        '{"type":"InputRejected","loop_id":"l","reason":"a","reason":"b"}',
        "duplicate field `reason`",
    ),
    "integer past u64": (
        '{"type":"TurnStart","loop_id":"l","turn_index":18446744073709551616,"timestamp":"2026-05-25T09:41:07Z","triggered_by":"User"}',
        "/turn_index",
    ),
    "lone surrogate": ('{"type":"InputRejected","loop_id":"l","reason":"\\ud800"}', "invalid JSON"),
    "bad variant": (
        '{"type":"MessageEnd","loop_id":"l","message":{"role":"assistant","content":[],'
        '"stopReason":"bogus","model":"m","provider":"p","usage":{"input":0,"output":0},"timestamp":1}}',
        "AgentEvent MessageEnd assistant /message/stopReason: expected one of 'stop'",
    ),
}


def test_each_bad_line_gets_its_own_error_and_the_run_goes_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lines = [EVENT]
    for text, _ in BAD_LINES.values():
        lines += [text, EVENT]
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        "\n".join(lines) + "\n" + '{"type":"TurnStart","loop_id":"l","turn_in', encoding="utf-8"
    )
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 1
    reports = out.splitlines()
    for number, (name, (_, expected)) in enumerate(BAD_LINES.items()):
        line = 2 + 2 * number
        assert any(
            report.startswith(f"{path}:{line}: ") and expected in report for report in reports
        ), name
    truncated = len(lines) + 1
    assert any(report.startswith(f"{path}:{truncated}: ") for report in reports), (
        "truncated last line"
    )
    assert (
        f"{len(lines) + 1} documents: {len(BAD_LINES) + 2} valid, {len(BAD_LINES) - 1 + 1} invalid"
        not in out
    )
    assert (
        f"{len(lines) + 1} documents: {len(BAD_LINES) + 1} valid, {len(BAD_LINES) + 1} invalid"
        in out
    )


def test_a_pretty_file_reports_the_line_of_the_pointer(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    session = (ROOT / "examples" / "session.json").read_text(encoding="utf-8")
    broken = session.replace('"status": "Completed"', '"status": "completed"')
    path = tmp_path / "session.json"
    path.write_text(broken, encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(path))
    expected_line = broken[: broken.index('"status": "completed"')].count("\n") + 1
    assert code == 1 and out.startswith(f"{path}:{expected_line}: Session /loops/0/status:"), out


def test_a_100_mb_single_document(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    blob = "x" * 100_000_000
    path.write_text(f'{{"role":"extension","kind":"blob","data":"{blob}"}}', encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 0 and "1 document: 1 valid" in out


def test_gzip_stdin_and_input_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    packed = tmp_path / "events.jsonl.gz"
    packed.write_bytes(gzip.compress((ROOT / "examples" / "events.jsonl").read_bytes()))
    assert run(capsys, "validate", str(packed))[0] == 0
    truncated = tmp_path / "cut.jsonl.gz"
    truncated.write_bytes(packed.read_bytes()[:-20])
    code, _, err = run(capsys, "validate", str(truncated))
    assert code == 2 and "truncated gzip" in err
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"type":"InputRejected","loop_id":"l","reason":"caf\xe9"}\n')
    code, out, err = run(capsys, "validate", str(latin))  # loads decides: invalid, not unreadable
    assert code == 1 and err == "" and "1 invalid" in out
    assert f"{latin}:1: AgentEvent /: invalid JSON: invalid unicode code point" in out
    assert "(the text is not UTF-8 there)" in out
    assert run(capsys, "validate", str(tmp_path / "missing.json"))[0] == 2
    assert run(capsys, "validate", "--type", "Nope", str(ROOT / "examples"))[0] == 2
    assert run(capsys, "validate", "--version", "9.9", str(ROOT / "examples"))[0] == 2
    assert run(capsys, "validate")[0] == 2  # usage: a path is required
    result = subprocess.run(
        [sys.executable, "-m", "phi_wire.cli", "validate", "-"],
        input=(ROOT / "examples" / "events.jsonl").read_bytes(),
        capture_output=True,
        check=False,
    )
    count = len((ROOT / "examples" / "events.jsonl").read_text(encoding="utf-8").splitlines())
    assert result.returncode == 0 and f"{count} documents: {count} valid".encode() in result.stdout
    assert b"Traceback" not in result.stderr


def test_json_format_max_errors_and_quiet(capsys: pytest.CaptureFixture[str]) -> None:
    folder = fixtures_root() / "phi-core" / "0.8.0" / "rejected" / "AgentEvent"
    code, out, _ = run(
        capsys,
        "validate",
        "--version",
        "0.8",
        "--output-format",
        "json",
        "--max-errors",
        "3",
        str(folder),
    )
    records = [json.loads(line) for line in out.splitlines()]
    records = [record for record in records if "file" not in record or "kind" in record]
    assert code == 1 and len(records) == 4 and records[-1]["summary"]["stopped_after_max_errors"]
    assert set(records[0]) == {
        "file",
        "line",
        "pointer",
        "type",
        "variant",
        "message",
        "kind",
        "omitted",
        "format",
        "version",
    }
    assert records[0]["kind"] == "problem"
    code, out, _ = run(capsys, "validate", "--quiet", str(ROOT / "examples"))
    assert code == 0 and out == ""


def test_strict_flags_what_phi_core_never_writes(capsys: pytest.CaptureFixture[str]) -> None:
    base = fixtures_root() / "phi-core" / "0.8.0" / "accepted" / "Usage"
    for input_file in base.glob("*.input.json"):
        assert (
            run(capsys, "validate", "--version", "0.8", "--type", "Usage", str(input_file))[0] == 0
        )
        code, out, _ = run(
            capsys, "validate", "--strict", "--version", "0.8", "--type", "Usage", str(input_file)
        )
        assert code == 1 and "phi-core" in out
    canonical = fixtures_root() / "phi-core" / "0.8.0" / "sessions"
    assert run(capsys, "validate", "--strict", "--version", "0.8", str(canonical))[0] == 0


def test_jobs_give_the_same_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    bad = '{"type":"TurnStart","loop_id":"l"}'
    path.write_text("\n".join([EVENT] * 2000 + [bad] + [EVENT] * 2000) + "\n", encoding="utf-8")
    single = run(capsys, "validate", str(path))[1].splitlines()[:-1]
    parallel = run(capsys, "validate", "--jobs", "2", str(path))[1].splitlines()[:-1]
    assert single == parallel and single[0].startswith(f"{path}:2001: ")


def session_folder(tmp_path: Path) -> Path:
    """Copies of phi-core's session files, two of them broken, beside a JSONL log and an
    unreadable (truncated) gzip file: what a folder of stored transcripts may hold."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    sources = sorted((fixtures_root() / "phi-core" / "0.8.0" / "sessions").glob("*.json"))
    for number in range(12):
        source = sources[number % len(sources)].read_bytes()
        if number == 4:
            source = source.replace(b'"stop"', b'"bogus"', 1)
        if number == 9:
            source = source.replace(b": 0", b": 0 0", 1)
        (folder / f"{number:02}.json").write_bytes(source)
    (folder / "05.jsonl").write_text(f"{EVENT}\n{{}}\n", encoding="utf-8")
    (folder / "07.jsonl.gz").write_bytes(gzip.compress(b"{}\n" * 100)[:-12])
    return folder


def report(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str, str]:
    """Exit status, problems, summary without its timing, stderr."""
    code, out, err = run(capsys, "validate", "--version", "0.8", *args)
    *problems, summary = out.splitlines()
    return code, problems, summary.split(";")[0], err


def test_jobs_give_the_same_report_over_a_folder_of_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = session_folder(tmp_path)
    single = report(capsys, str(folder))
    assert single[0] == 2 and "12 valid" not in single[2] and "14 files" in single[2]
    assert [line.split(":")[0] for line in single[1]] == sorted(
        line.split(":")[0] for line in single[1]
    )
    assert report(capsys, "--jobs", "2", str(folder)) == single
    # stdin among the files: only this process reads it, its chunks still go to the pool
    command = [sys.executable, "-m", "phi_wire.cli", "validate", "--version", "0.8"]
    piped = f"{EVENT}\n{{}}\n".encode()
    outputs = []
    for jobs in ("1", "2"):
        arguments = [
            *command,
            "--jobs",
            jobs,
            str(folder / "00.json"),
            "-",
            str(folder / "04.json"),
        ]
        result = subprocess.run(arguments, input=piped, capture_output=True, check=False)
        outputs.append((result.returncode, result.stdout.splitlines()[:-1], result.stderr))
    assert outputs[0] == outputs[1] and outputs[0][0] == 1
    assert [line.split(b":")[0] for line in outputs[0][1]] == [
        b"-",
        str(folder / "04.json").encode(),
    ]


def test_the_document_fast_path_gives_the_same_report_as_loads_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phi_wire.validate import _fastpath

    folder = session_folder(tmp_path)
    monkeypatch.setattr(_fastpath, "_FAST", {})
    assert _fastpath.fast_path_for("0.8", None, build=True, lines=False) is not None
    fast = report(capsys, str(folder))
    monkeypatch.setattr(_fastpath, "_FAST", {})
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", "")
    assert report(capsys, str(folder)) == fast
    assert any("/04.json:" in line and "bogus" in line for line in fast[1])
    assert any("/09.json:" in line for line in fast[1])


def test_schema_and_types(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema", "Usage", "--version", "0.8")
    assert code == 0 and json.loads(out)["$ref"] == "#/$defs/Usage"
    code, out, _ = run(capsys, "types")
    assert code == 0 and {"AgentEvent", "Session", "TurnRequest", "Usage"} <= set(out.split())
    assert run(capsys, "schema", "Nope")[0] == 2


def test_pre_commit_hook_definition() -> None:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert "id: phi-wire-validate" in text and "entry: phi-wire validate" in text
    files = re.search(r"^  files: (.+)$", text, re.MULTILINE)
    assert files is not None
    pattern = re.compile(files[1])  # pre-commit matches it with re.search, as here
    for name in ("a.json", "b/LOG.JSONL", "c.ndjson.gz", "UPPER.JSON.GZ"):
        assert pattern.search(name), name
    for name in ("a.txt", "a.json.bak", "jsonl"):
        assert not pattern.search(name), name


def test_the_fast_path_gives_the_same_report_as_loads_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phi_wire.validate import _fastpath

    stream = fixtures_root() / "phi-core" / "0.8.0" / "streams" / "events.main_session.jsonl"
    lines = stream.read_text(encoding="utf-8").splitlines()
    for text, _ in BAD_LINES.values():
        lines.insert(len(lines) // 2, text)
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n" + lines[0][:40], encoding="utf-8")
    reports = {}
    for mode in ("loads", "fast"):
        monkeypatch.setattr(_fastpath, "_FAST", {})
        if mode == "fast":
            for forced in (None, "AgentEvent"):
                assert _fastpath.fast_path_for("0.8", forced, build=True) is not None
        else:
            monkeypatch.setenv("PHI_WIRE_CACHE_DIR", "")
        for args in ((), ("--type", "AgentEvent"), ("--jobs", "2")):
            code, out, _ = run(capsys, "validate", "--version", "0.8", *args, str(path))
            reports[mode, args] = (code, out.splitlines()[:-1], out.splitlines()[-1].split(";")[0])
    for args in ((), ("--type", "AgentEvent"), ("--jobs", "2")):
        assert reports["fast", args] == reports["loads", args]
        assert reports["fast", args][0] == 1 and len(reports["fast", args][1]) >= len(BAD_LINES)


def test_the_size_of_a_gzipped_input_is_its_uncompressed_size(tmp_path: Path) -> None:
    from phi_wire.validate._inputs import input_size as _input_size

    data = (ROOT / "examples" / "events.jsonl").read_bytes() * 50
    packed = tmp_path / "events.jsonl.gz"
    packed.write_bytes(gzip.compress(data))
    assert _input_size(str(packed)) == len(data) > packed.stat().st_size


def test_version_and_module_entry_points() -> None:
    """`phi-wire --version`, `python -m phi_wire` and `--version 0.8.0` as well as `0.8`."""
    import phi_wire

    result = subprocess.run(
        [sys.executable, "-m", "phi_wire", "--version"], capture_output=True, text=True
    )
    assert result.returncode == 0 and result.stdout.strip() == f"phi-wire {phi_wire.__version__}"
    for spelling in ("0.8", "0.8.0"):
        result = subprocess.run(
            [sys.executable, "-m", "phi_wire", "schema", "Session", "--version", spelling],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["$id"].endswith("/phi-core/0.8/bundled/Session.json")


def test_the_readme_usage_snippet_runs() -> None:
    """The README's Python example works as printed (it broke on the installed wheel once)."""
    text = (ROOT / "README.md").read_text("utf-8")
    block = text.split("## Usage\n", 1)[1].split("```python\n", 1)[1].split("```\n", 1)[0]
    exec(compile(block, "README.md", "exec"), {})


# --- issue 10: help, plurals, types, nothing to validate, output errors ---------------------------


def test_help_is_plain_words(capsys: pytest.CaptureFixture[str]) -> None:
    """Item 19: no reST double backticks, no private module names in any help text."""
    texts = []
    for args in (["--help"], ["validate", "--help"], ["types", "--help"], ["schema", "--help"]):
        assert main(args) == 0
        texts.append(capsys.readouterr().out)
    for text in texts:
        assert "``" not in text and "_fastpath" not in text and "_pattern" not in text, text
        assert not re.search(r"\b_[a-z]+\b", text), text
    assert "--max-document-bytes" in texts[1] and "--all-folders" in texts[1]
    assert "hidden" in texts[1] and "node_modules" in texts[1]


def test_one_file_one_document_in_the_summary(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Item 19: "1 file, 1 document", not "1 files, 1 documents"."""
    path = tmp_path / "one.jsonl"
    path.write_text(EVENT + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 0 and out.startswith("1 file, 1 document: 1 valid, 0 invalid;"), out


NOT_WIRE_TYPES = ("CostRates", "MessageAccumulator", "Problem", "Timestamp", "WireError")


def test_types_are_the_wire_types_only(capsys: pytest.CaptureFixture[str]) -> None:
    """Item 11: `types` lists the schemas' types, not the API's helper classes; --type takes a
    wire type only, with a one-line error (never a traceback, never a wrong verdict)."""
    for version in ("0.8", "0.10"):
        code, out, _ = run(capsys, "types", "--version", version)
        listed = set(out.split())
        assert code == 0 and {"AgentEvent", "Session", "Usage", "LoopRecord"} <= listed
        assert not listed & set(NOT_WIRE_TYPES), listed & set(NOT_WIRE_TYPES)
        assert "WIRE_TYPES" not in listed
    events = str(ROOT / "examples" / "events.jsonl")
    for name in NOT_WIRE_TYPES:
        code, out, err = run(capsys, "validate", "--type", name, events)
        assert code == 2 and out == "", (name, out)
        assert err.count("\n") == 1 and "not a wire type" in err and "Traceback" not in err


def test_nothing_to_validate_is_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Item 14: an empty folder, a folder without JSON, empty stdin: exit 2 and a clear reason."""
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(capsys, "validate", str(empty))
    assert code == 2 and f"{empty}: nothing to validate" in err
    texts = tmp_path / "texts"
    texts.mkdir()
    (texts / "notes.txt").write_text("{}", encoding="utf-8")
    code, _, err = run(capsys, "validate", str(texts))
    assert code == 2 and "no .json, .jsonl or .ndjson files" in err
    # beside a folder that has files, the empty one is still reported
    code, _, err = run(capsys, "validate", str(ROOT / "examples"), str(empty))
    assert code == 2 and f"{empty}: nothing to validate" in err
    result = subprocess.run(
        [sys.executable, "-m", "phi_wire", "validate", "-"], input=b"", capture_output=True
    )
    assert result.returncode == 2 and b"nothing to validate" in result.stderr


def many_invalid_lines(tmp_path: Path, count: int = 5000) -> Path:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"type":"TurnStart","loop_id":"l"}\n' * count, encoding="utf-8")
    return path


def test_a_closed_pipe_is_an_error_not_success(tmp_path: Path) -> None:
    """Item 15: `phi-wire validate bad.jsonl | head -1` exits 2 (invalid data was seen and not all
    of it reported), with one line on stderr and no traceback."""
    path = many_invalid_lines(tmp_path)
    process = subprocess.Popen(
        [sys.executable, "-m", "phi_wire", "validate", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    process.stdout.close()  # as `head -1` does: the output is far bigger than a pipe's buffer
    err = process.stderr.read().decode()
    code = process.wait()
    assert first.startswith(str(path).encode()) and code == 2, (code, err)
    assert err.count("\n") == 1 and "broken pipe" in err and "Traceback" not in err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("valid", [True, False])
def test_a_full_disk_is_an_error_not_success(tmp_path: Path, valid: bool) -> None:
    """Item 15: `> /dev/full`: exit 2 and one line on stderr, never a traceback, never 0."""
    path = ROOT / "examples" / "events.jsonl" if valid else many_invalid_lines(tmp_path, 10)
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "phi_wire", "validate", str(path)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "No space left" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_file_name_that_is_not_utf8_is_printed_safely(tmp_path: Path) -> None:
    """Item 15: a file name with a Latin-1 byte, printed under PYTHONIOENCODING=utf-8, in text and
    JSON: escaped as \\xe9, the run goes on and its verdict stands."""
    folder = os.fsencode(tmp_path)
    bad = os.path.join(folder, b"caf\xe9.jsonl")
    with open(bad, "wb") as out:
        out.write(b'{"type":"TurnStart","loop_id":"l"}\n')
    good = tmp_path / "good.jsonl"
    good.write_text(EVENT + "\n", encoding="utf-8")
    environment = dict(os.environ, PYTHONIOENCODING="utf-8")
    for extra in ([], ["--output-format", "json"]):
        result = subprocess.run(
            [sys.executable, "-m", "phi_wire", "validate", *extra, str(tmp_path)],
            capture_output=True,
            env=environment,
        )
        assert result.returncode == 1, result.stderr
        assert b"Traceback" not in result.stderr and b"UnicodeEncodeError" not in result.stderr
        if extra:
            *records, summary = (json.loads(line) for line in result.stdout.splitlines())
            assert records[0]["file"].endswith("caf\\xe9.jsonl")
            assert summary["summary"]["files"] == 2 and summary["summary"]["invalid"] == 1
        else:
            assert b"caf\\xe9.jsonl:1: AgentEvent" in result.stdout
            assert b"2 files, 2 documents" in result.stdout
