"""The command line's output layer (runtime/cli/ ``Output``): standard output or error closed
from the start, and a reader that stops early (issue 17, defects 3 and 11).

Deterministic pipes: a reader that is gone before anything is written (its end closed before the
command starts), or one that reads the first line of an output bigger than a pipe's buffer and
closes, so that the command is still writing when it does.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

import pytest
from corpus import ROOT, fixtures_root

CLARK_HISTORY = fixtures_root() / "clark-agent" / "0.4.0" / "history" / "history.multi_turn.jsonl"
EVENTS = str(ROOT / "examples" / "events.jsonl")
PHI_WIRE = [sys.executable, "-m", "phi_wire"]

# every command that writes standard output, with its exit status when all goes well
COMMANDS: dict[str, tuple[list[str], int]] = {
    "validate": (["validate", EVENTS], 0),
    "convert": (["convert", str(CLARK_HISTORY), "--to", "phi-core"], 0),
    "types": (["types"], 0),
    "schema": (["schema", "Turn"], 0),
    "schema-diff": (["schema-diff", "0.8", "0.10"], 1),
}
LISTINGS = ["types", "schema", "schema-diff"]


def closing(fd: int) -> Callable[[], None]:
    """A ``preexec_fn`` that closes ``fd`` in the child: ``phi-wire ... >&-`` (1) or ``2>&-``."""
    return lambda: os.close(fd)


@pytest.mark.parametrize("name", COMMANDS)
def test_a_closed_standard_output_is_one_line_and_exit_2(name: str) -> None:
    """``phi-wire validate h.jsonl >&-`` printed ``AttributeError: 'NoneType' object has no
    attribute 'write'`` with exit 1 (validate, convert, types, schema, schema-diff alike)."""
    arguments, _ = COMMANDS[name]
    result = subprocess.run(
        [*PHI_WIRE, *arguments], stderr=subprocess.PIPE, text=True, preexec_fn=closing(1)
    )
    lines = [line for line in result.stderr.splitlines() if "standard output is closed" in line]
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert lines[0].startswith("phi-wire: ") and "Traceback" not in result.stderr
    if name != "convert":  # convert also says what it converted, on standard error
        assert result.stderr.count("\n") == 1, result.stderr


def test_convert_to_a_file_needs_no_standard_output(tmp_path: os.PathLike[str]) -> None:
    out = os.path.join(tmp_path, "out.jsonl")
    result = subprocess.run(
        [*PHI_WIRE, "convert", str(CLARK_HISTORY), "--to", "phi-core", "-o", out],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=closing(1),
    )
    assert result.returncode == 0 and os.path.getsize(out) > 0, result.stderr


@pytest.mark.parametrize(
    ("arguments", "status"),
    [*COMMANDS.values(), (["validate", "no-such-file"], 2), (["schema", "NoSuchType"], 2)],
)
def test_a_closed_standard_error_changes_nothing(arguments: list[str], status: int) -> None:
    """``2>&-``: validate crashed (exit 1) on its progress display and its notes."""
    result = subprocess.run([*PHI_WIRE, *arguments], stdout=subprocess.PIPE, preexec_fn=closing(2))
    assert result.returncode == status


def run_to_a_gone_reader(arguments: list[str]) -> subprocess.CompletedProcess[str]:
    """``phi-wire ARGS | head -0``: the reader's end is closed before the command starts."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [*PHI_WIRE, *arguments], stdout=write, stderr=subprocess.PIPE, text=True
        )
    finally:
        os.close(write)


@pytest.mark.parametrize("name", LISTINGS)
def test_a_listing_is_not_failed_by_a_reader_that_stops(name: str) -> None:
    """``phi-wire types | head -1`` exited 2 in most runs: "the output was closed before the run
    ended ... counts as failed". A listing's reader took what it wanted: the command's own exit
    status, nothing on standard error."""
    arguments, status = COMMANDS[name]
    result = run_to_a_gone_reader(arguments)
    assert (result.returncode, result.stderr) == (status, "")


@pytest.mark.parametrize("arguments", [["--help"], ["validate", "--help"]])
def test_help_is_not_failed_by_a_reader_that_stops(arguments: list[str]) -> None:
    result = run_to_a_gone_reader(arguments)
    assert (result.returncode, result.stderr) == (0, "")


@pytest.mark.parametrize("name", ["validate", "convert"])
def test_a_verdict_or_data_cut_short_still_fails(name: str) -> None:
    """validate's verdict and convert's output were not all delivered: exit 2, one line."""
    result = run_to_a_gone_reader(COMMANDS[name][0])
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "broken pipe" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("arguments", "status"),
    [
        (["schema", "Session"], 0),  # 83 KB of JSON Schema
        (["schema-diff", "0.8", "clark-agent/0.4", "--across-formats", "--format", "json"], 1),
    ],
)
def test_a_listing_read_one_line_then_closed(arguments: list[str], status: int) -> None:
    """As ``| head -1`` does, with an output larger than a pipe's buffer (64 KiB), so that the
    command is still writing when the reader closes."""
    process = subprocess.Popen(
        [*PHI_WIRE, *arguments], stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0
    )
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()  # unbuffered: only this line leaves the pipe
    process.stdout.close()
    err = process.stderr.read()
    assert first.strip() and (process.wait(), err) == (status, b"")


def test_converted_data_cut_short_is_never_a_success(tmp_path: os.PathLike[str]) -> None:
    """``phi-wire convert big.jsonl --to phi-core | head -1``: a pipe closed part-way through
    one large write takes part of it, and Python's text layer ignores the short write, so the
    rest was dropped silently and the run said ``written to standard output``, exit 0."""
    history = os.path.join(tmp_path, "big.jsonl")
    with open(history, "w", encoding="utf-8") as out:
        out.write(CLARK_HISTORY.read_text(encoding="utf-8") * 60)  # converts to 195 KiB
    process = subprocess.Popen(
        [*PHI_WIRE, "convert", history, "--to", "phi-core", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
    )
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    process.stdout.close()
    err = process.stderr.read().decode()
    assert first.startswith(b"{") and process.wait() == 2, err
    assert err.count("\n") == 1 and "broken pipe" in err
