"""The validator's inputs (runtime/validate/_walk.py, _inputs.py) through the real command line:
which files a folder yields, gzip, layouts, size limits, bounded memory, damaged files."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from command import run

from phi_wire.validate import validate

ROOT = Path(__file__).resolve().parent.parent
EVENTS = (ROOT / "examples" / "events.jsonl").read_bytes()
EVENT = EVENTS.splitlines()[1].decode()
SESSION = (ROOT / "examples" / "session.json").read_bytes()


def summary(out: str) -> str:
    return out.splitlines()[-1].split(";")[0]


# --- item 13: folders -----------------------------------------------------------------------------


def repository_like(tmp_path: Path) -> Path:
    """A project folder: its own transcripts, and what the README's `validate .` walked into."""
    root = tmp_path / "project"
    for folder in (
        "transcripts",
        ".venv/lib/site-packages/pkg",
        ".hypothesis/examples",
        "node_modules/pkg",
        "env/lib",
        "sub/__pycache__",
    ):
        (root / folder).mkdir(parents=True)
    (root / "transcripts" / "events.jsonl").write_bytes(EVENTS)
    (root / "transcripts" / "session.json").write_bytes(SESSION)
    for junk in (
        ".venv/lib/site-packages/pkg/data.json",
        ".hypothesis/examples/x.json",
        "node_modules/pkg/package.json",
        "env/lib/conf.json",
        "sub/__pycache__/c.json",
        ".prettierrc.json",
    ):
        (root / junk).write_text('{"not": "a wire document"}', encoding="utf-8")
    (root / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    return root


def test_hidden_and_vendored_folders_are_skipped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Item 13: `validate .` in a project reads its transcripts, not .venv, .hypothesis,
    node_modules, a virtual environment of any name, __pycache__ or hidden files; --all-folders
    reads them all; a hidden folder named explicitly is read."""
    root = repository_like(tmp_path)
    code, out, err = run(capsys, "validate", str(root))
    assert code == 0, out + err
    assert summary(out) == "2 files, 18 documents: 18 valid, 0 invalid"
    code, out, _ = run(capsys, "validate", "--all-folders", str(root))
    assert code == 1 and summary(out).startswith("8 files, 24 documents: 18 valid, 6 invalid")
    code, out, _ = run(capsys, "validate", str(root / ".hypothesis"))
    assert code == 1 and summary(out).startswith("1 file, 1 document")


def test_extensions_are_matched_in_any_letter_case(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Item 13: UPPER.JSON, Events.JSONL.GZ and log.NDJSON are read from a folder."""
    (tmp_path / "UPPER.JSON").write_bytes(SESSION)
    (tmp_path / "Events.JSONL.GZ").write_bytes(gzip.compress(EVENTS))
    (tmp_path / "log.NDJSON").write_bytes(EVENTS)
    (tmp_path / "notes.TXT").write_text("{", encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(tmp_path))
    assert code == 0 and summary(out) == "3 files, 35 documents: 35 valid, 0 invalid", out


def test_an_unreadable_folder_is_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 13: a sub-folder that cannot be listed is an input error (exit 2), not skipped.
    (Listing is refused by a patched os.scandir: the tests may run as root, whom chmod does not
    stop.)"""
    (tmp_path / "ok.jsonl").write_bytes(EVENTS)
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "hidden.jsonl").write_bytes(EVENTS)
    real_scandir = os.scandir

    def scandir(path: str) -> object:
        if os.fspath(path) == str(locked):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code, out, err = run(capsys, "validate", str(tmp_path))
    assert code == 2 and f"{locked}: cannot read folder (Permission denied)" in err
    assert summary(out).startswith("1 file, 17 documents: 17 valid, 0 invalid, 1 input error")


def test_a_symbolic_link_loop_is_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Item 13: a link back to a parent folder is reported (exit 2) and not followed forever;
    the files are read once."""
    data = tmp_path / "data"
    (data / "inner").mkdir(parents=True)
    (data / "inner" / "events.jsonl").write_bytes(EVENTS)
    (data / "inner" / "loop").symlink_to(data)
    code, out, err = run(capsys, "validate", str(data))
    assert code == 2 and "symbolic link loop" in err and str(data / "inner" / "loop") in err
    assert summary(out).startswith("1 file, 17 documents: 17 valid")


def test_a_broken_link_is_reported(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Item 13: what cannot be read is said, never skipped in silence."""
    (tmp_path / "ok.jsonl").write_bytes(EVENTS)
    (tmp_path / "gone.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    code, _, err = run(capsys, "validate", str(tmp_path))
    assert code == 2 and f"{tmp_path / 'gone.jsonl'}: cannot read (No such file" in err


# --- item 16: gzip --------------------------------------------------------------------------------


def test_gzip_on_stdin_and_under_any_name_is_recognised(tmp_path: Path) -> None:
    """Item 16: `cat x.jsonl.gz | phi-wire validate -`, and a gzip file named .jsonl."""
    packed = gzip.compress(EVENTS)
    result = subprocess.run(
        [sys.executable, "-m", "phi_wire", "validate", "-"], input=packed, capture_output=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert b"1 file, 17 documents: 17 valid, 0 invalid" in result.stdout
    misnamed = tmp_path / "events.jsonl"
    misnamed.write_bytes(packed + gzip.compress(b'{"type":"TurnStart"}\n'))  # two members
    result = subprocess.run(
        [sys.executable, "-m", "phi_wire", "validate", str(misnamed)], capture_output=True
    )
    assert result.returncode == 1 and b"18 documents: 17 valid, 1 invalid" in result.stdout


def test_a_truncated_gzip_file_reports_what_was_readable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Item 16: the lines before the cut are judged, then the truncation is reported (exit 2),
    naming the line where the data stops."""
    lines = (EVENTS * 200).splitlines(keepends=True)
    packed = gzip.compress(b"".join(lines))
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    code, out, err = run(capsys, "validate", str(cut))
    documents = int(summary(out).split(", ")[1].split()[0].replace(",", ""))
    assert code == 2 and 100 < documents < len(lines), out
    assert f"{cut}:{documents + 1}: truncated gzip file" in err, err
    assert "0 invalid" in out  # the half line at the cut is not judged as a broken document


def test_corrupt_gzip_data_is_an_input_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    packed = bytearray(gzip.compress(EVENTS * 50))
    packed[len(packed) // 2] ^= 0xFF
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(bytes(packed))
    code, _, err = run(capsys, "validate", str(broken))
    assert code == 2 and "corrupt gzip data" in err and "Traceback" not in err


# --- item 17: layouts -----------------------------------------------------------------------------


def test_a_pretty_document_saved_as_jsonl_is_read_as_one_document(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Item 17: a pretty session saved as .jsonl is judged as the one document it is (valid),
    with a note that the name says otherwise, not as hundreds of broken lines."""
    misnamed = tmp_path / "session.jsonl"
    misnamed.write_bytes(SESSION)
    code, out, err = run(capsys, "validate", str(misnamed))
    assert code == 0 and summary(out) == "1 file, 1 document: 1 valid, 0 invalid", out
    assert "one (pretty) JSON document, not one document per line" in err
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(SESSION.replace(b'"status": "Completed"', b'"status": "completed"'))
    code, out, _ = run(capsys, "validate", str(broken))
    assert code == 1 and len(out.splitlines()) == 2 and "/loops/0/status" in out


def test_jsonl_saved_as_json_is_read_line_by_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Item 17: JSONL saved as .json (gzipped too) is judged line by line, not as "trailing
    characters"."""
    misnamed = tmp_path / "events.json"
    misnamed.write_bytes(EVENTS)
    code, out, err = run(capsys, "validate", str(misnamed))
    assert code == 0 and summary(out) == "1 file, 17 documents: 17 valid, 0 invalid", out
    assert "one document per line (JSONL), not one (pretty) JSON document" in err
    packed = tmp_path / "events.json.gz"
    packed.write_bytes(gzip.compress(EVENTS.replace(b'"TurnStart"', b'"TurnBegin"', 1)))
    code, out, _ = run(capsys, "validate", str(packed))
    assert code == 1 and summary(out) == "1 file, 17 documents: 16 valid, 1 invalid", out


# --- item 9: bounded memory, size limits ----------------------------------------------------------


def test_a_document_of_nuls_is_rejected_at_its_first_byte(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Item 9: a sparse 256 MB .json of NULs (over the default size limit too) is rejected as
    not JSON from its first byte, without being read."""
    sparse = tmp_path / "zeros.json"
    with sparse.open("wb") as out:
        out.truncate(256 * 1024 * 1024)
    code, out, _ = run(capsys, "validate", str(sparse))
    assert code == 1 and "0x00, which cannot start a JSON text" in out, out
    read = int(out.splitlines()[-1].split("; ")[1].split()[0].replace(",", ""))
    assert "1 document: 0 valid, 1 invalid;" in out and read <= 4 * 1024 * 1024  # a block


def test_the_default_path_stays_in_bounded_memory(tmp_path: Path) -> None:
    """Item 9: a 4 MB-scale gzip bomb (64 MB of NULs in 64 kB) as .json.gz and as .jsonl.gz, and a
    line longer than the default limit, through the default settings: Python's own allocations
    stay a few blocks, whatever the input expands to."""
    bomb = gzip.compress(b"\0" * (64 * 1024 * 1024), compresslevel=9)
    (tmp_path / "bomb.json.gz").write_bytes(bomb)
    (tmp_path / "bomb.jsonl.gz").write_bytes(bomb)
    tracemalloc.start()
    try:
        run = validate([str(tmp_path)])
        records = list(run)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 24 * 1024 * 1024, f"peak {peak / 1e6:.0f} MB"
    assert [record.kind for record in records] == ["problem", "problem"], records
    assert all("0x00" in record.message for record in records)
    assert run.tally.invalid == 2


def test_documents_over_the_size_limit_are_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Item 9: --max-document-bytes: a longer line, a longer .json, a gzip expanding past it are
    not judged (exit 2, "over the size limit"); the other lines are."""
    events = tmp_path / "events.jsonl"
    long_line = '{"type":"InputRejected","loop_id":"l","reason":"' + "x" * 5000 + '"}'
    events.write_text(f"{EVENT}\n{long_line}\n{EVENT}\n", encoding="utf-8")
    code, out, err = run(capsys, "validate", "--max-document-bytes", "2K", str(events))
    assert code == 2 and f"{events}:2: document over the size limit of 2,048 bytes" in err
    assert summary(out).startswith("1 file, 3 documents: 2 valid, 0 invalid, 1 not judged")
    assert run(capsys, "validate", "--max-document-bytes", "8K", str(events))[0] == 0
    session = tmp_path / "session.json"
    session.write_bytes(SESSION)
    code, out, err = run(capsys, "validate", "--max-document-bytes", "4k", str(session))
    assert code == 2 and "over the size limit" in err and "1 not judged" in out
    packed = tmp_path / "session.json.gz"
    packed.write_bytes(gzip.compress(SESSION))
    code, _, err = run(capsys, "validate", "--max-document-bytes", "4k", str(packed))
    assert code == 2 and "over the size limit" in err
    code, _, err = run(capsys, "validate", "--max-document-bytes", "lots", str(session))
    assert code == 2 and "expected a size" in err


def test_a_long_line_that_cannot_be_json_is_dropped_as_it_is_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Item 9: a line of NULs ten times the size limit is rejected at its first byte and skipped
    to its end; the lines after it are judged."""
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(EVENT.encode() + b"\n" + b"\0" * 20_000 + b"\n" + EVENT.encode() + b"\n")
    code, out, _ = run(capsys, "validate", "--max-document-bytes", "2K", str(path))
    assert code == 1 and f"{path}:2: AgentEvent /: invalid JSON" in out and "0x00" in out
    assert summary(out) == "1 file, 3 documents: 2 valid, 1 invalid"


def test_a_file_that_shrinks_while_read_is_reported(tmp_path: Path) -> None:
    """Item 18 (also without --jobs): a file truncated during the run is an input error naming
    where it stopped, not a silent half."""
    from phi_wire.validate._inputs import Source
    from phi_wire.validate._records import InputError

    path = tmp_path / "log.jsonl"
    path.write_bytes(EVENTS * 300)  # several blocks
    with Source(str(path)) as source:
        source.read(1024)
        os.truncate(path, len(EVENTS) * 200)
        with pytest.raises(InputError, match="shrank while being read"):
            while source.read(1024 * 1024):
                pass


def test_json_records_carry_the_input_errors_with_their_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Input errors are structured records (kind "input", file, line), in text and JSON."""
    missing = tmp_path / "missing.jsonl"
    code, out, _ = run(capsys, "validate", "--output-format", "json", str(missing))
    first = json.loads(out.splitlines()[0])
    assert code == 2 and first["kind"] == "input" and first["file"] == str(missing)
    assert first["message"] == "no such file or folder"
