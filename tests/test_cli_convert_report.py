"""phi-wire convert's report for programs and people (issue 19, section 3): ``--output-format
json`` (one record per loss, per error, per input, then a summary), ``--loss-report FILE`` (the
same records, written whole), and the progress bar on a terminal."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from command import run
from corpus import fixtures_root

import phi_wire.cli._shared as shared

HISTORY = fixtures_root() / "clark-agent" / "0.4.0" / "history" / "history.multi_turn.jsonl"
LOSS_KEYS = ["file", "line", "pointer", "kind", "reason"]


def records(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def places(err: str) -> list[tuple[str, int, str]]:
    """(file, line, pointer) of each loss ``-v`` lists on standard error."""
    found = []
    for line in err.splitlines():
        match = re.fullmatch(r"phi-wire:     (.+):(\d+) (/.*)", line)
        if match is not None:
            pointer = "" if match[3] == "/" else match[3]
            found.append((match[1], int(match[2]), pointer))
    return found


def test_json_has_one_record_per_loss_error_and_input_then_a_summary(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_text("junk\n")
    out_folder = str(tmp_path / "out") + "/"
    code, _, err = run(capsys, "convert", "--to", "phi-core", str(HISTORY), "-o", out_folder, "-v")
    assert code == 0
    code, out, json_err = run(
        capsys,
        "convert",
        "--to",
        "phi-core",
        str(HISTORY),
        str(junk),
        "-o",
        out_folder,
        "--output-format",
        "json",
    )
    assert code == 2 and json_err == ""
    found = records(out)
    losses = [
        record for record in found if record.get("kind") in ("dropped", "invented", "changed")
    ]
    assert losses and all(list(record) == LOSS_KEYS for record in losses)
    # the same losses, at the same places, as the text report lists them
    assert sorted((r["file"], r["line"], r["pointer"]) for r in losses) == sorted(places(err))
    errors = [record for record in found if record.get("kind") == "error"]
    assert errors == [
        {
            "file": str(junk),
            "line": 1,
            "pointer": "",
            "kind": "error",
            "reason": "invalid JSON: expected value at line 1 column 1",
        }
    ]
    (converted,) = [record["file"] for record in found if isinstance(record.get("file"), dict)]
    assert converted["file"] == str(HISTORY) and converted["losses"] == len(losses)
    assert converted["written"] == str(tmp_path / "out" / "history.multi_turn.phi-core.jsonl")
    summary = found[-1]["summary"]
    assert (summary["inputs"], summary["converted"], summary["errors"]) == (2, 1, 1)
    assert summary["losses"] == len(losses) and summary["status"] == code
    assert sum(summary["kinds"].values()) == len(losses)


def test_json_needs_the_converted_data_sent_elsewhere(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "convert", "--to", "phi-core", str(HISTORY), "--output-format", "json"
    )
    assert code == 2 and out == "" and "name where the converted data goes with -o" in err


def test_the_loss_report_holds_the_json_records_and_the_text_report_stays(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = str(tmp_path / "h.jsonl")
    report = tmp_path / "losses.jsonl"
    code, json_out, _ = run(
        capsys, "convert", "--to", "phi-core", str(HISTORY), "-o", out, "--output-format", "json"
    )
    assert code == 0
    code, text_out, err = run(
        capsys, "convert", "--to", "phi-core", str(HISTORY), "-o", out, "--loss-report", str(report)
    )
    assert code == 0 and text_out == "" and re.search(r": \d+ losses\n", err), err

    def without_time(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for record in found:
            if "summary" in record:
                record["summary"].pop("elapsed_s")
        return found

    assert without_time(records(report.read_text())) == without_time(records(json_out))
    assert sorted(path.name for path in tmp_path.iterdir()) == ["h.jsonl", "losses.jsonl"]


def test_a_loss_report_that_cannot_be_written_is_said_before_anything_is(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "h.jsonl"
    report = tmp_path / "absent" / "losses.jsonl"
    code, _, err = run(
        capsys,
        "convert",
        "--to",
        "phi-core",
        str(HISTORY),
        "-o",
        str(out),
        "--loss-report",
        str(report),
    )
    assert code == 2 and err.count("\n") == 1 and f"{report}: cannot write the loss report" in err
    assert not out.exists()
    code, _, err = run(
        capsys,
        "convert",
        "--to",
        "phi-core",
        str(HISTORY),
        "-o",
        str(out),
        "--loss-report",
        str(HISTORY),
    )
    assert code == 2 and "the loss report would overwrite an input or the output" in err


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("quiet", [False, True])
def test_a_progress_bar_shows_on_a_terminal_and_is_cleared_before_a_note(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, quiet: bool
) -> None:
    from phi_wire.cli import main

    monkeypatch.setattr(shared, "PROGRESS_MIN_BYTES", HISTORY.stat().st_size)  # a "large" input
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    extra = ["--quiet"] if quiet else []
    code = main(
        ["convert", "--to", "phi-core", str(HISTORY), "-o", str(tmp_path / "o.jsonl"), *extra]
    )
    assert code == 0
    shown = terminal.getvalue()
    if quiet:
        assert shown == ""
        return
    assert "\r[" + " " * 30 + "]   0%" in shown and "\r[" + "#" * 30 + "] 100%" in shown
    cleared = "\r" + " " * 60 + "\r"
    bar, note = shown.rsplit(cleared, 1)
    assert "\r[" in bar and note.startswith(f"phi-wire: {HISTORY}: clark-agent -> phi-core")


def test_no_progress_bar_for_a_small_input_or_off_a_terminal(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from phi_wire.cli import main

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["convert", "--to", "phi-core", str(HISTORY), "-o", str(tmp_path / "o.jsonl")]) == 0
    assert "\r" not in terminal.getvalue()  # 3 kB: under PROGRESS_MIN_BYTES
