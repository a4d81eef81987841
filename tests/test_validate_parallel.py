"""--jobs (runtime/validate/_parallel.py) through the real command line: never less correct than
one job (a killed worker, a FIFO, a file truncated during the run), never much slower (each byte
of a long line read once, no process per small file)."""

from __future__ import annotations

import builtins
import io
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from command import run

from phi_wire.validate import _parallel

ROOT = Path(__file__).resolve().parent.parent
EVENTS = (ROOT / "examples" / "events.jsonl").read_bytes()
EVENT = EVENTS.splitlines()[1]


def without_timing(out: str) -> list[str]:
    *problems, summary = out.splitlines()
    return [*problems, summary.split(";")[0]]


VICTIM: list[str] = []
REAL_BATCH = _parallel.judge_batch


def killing_batch(names: list[str], *settings: Any) -> Any:
    """A pool task that dies (SIGKILL, as the OOM killer does) on the victim file."""
    if VICTIM and VICTIM[0] in names:
        os.kill(os.getpid(), signal.SIGKILL)
    return REAL_BATCH(names, *settings)


def test_a_killed_pool_worker_is_reported_not_a_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 18: a pool worker killed mid-run (as by the OOM killer) makes its files input errors
    (exit 2), not a BrokenProcessPool traceback; the other files are still judged."""
    folder = tmp_path / "logs"
    folder.mkdir()
    for number in range(6):
        (folder / f"{number}.json").write_bytes((ROOT / "examples" / "session.json").read_bytes())
    victim = str(folder / "3.json")
    monkeypatch.setattr(sys.modules[__name__], "VICTIM", [victim])
    monkeypatch.setattr(_parallel, "judge_batch", killing_batch)  # the forked workers inherit it
    monkeypatch.setattr(_parallel, "PARALLEL_MIN_BYTES", 0, raising=False)
    code, out, err = run(capsys, "validate", "--jobs", "2", str(folder))
    assert code == 2 and "Traceback" not in err and "BrokenProcessPool" not in err, err
    assert f"{victim}: a worker process died" in err
    assert "6 files" in out.splitlines()[-1]


def test_a_long_line_is_read_once_with_jobs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 18: a 24 MB line split over byte ranges: each range inside it reads no further than
    its own end (before, every range re-read the rest of the line: quadratic, 12 times the file
    here). Bytes read are
    counted in every process (workers are forked: they inherit the counting open)."""
    path = tmp_path / "big.jsonl"
    line = b'{"role":"extension","kind":"blob","data":"' + b"x" * 24_000_000 + b'"}'
    path.write_bytes(EVENT + b"\n" + line + b"\n" + EVENT + b"\n")
    log = tmp_path / "reads.log"
    real_open = builtins.open

    class Counted(io.BufferedReader):
        def read(self, size: int | None = -1) -> bytes:
            data = super().read(size)
            _tell(len(data))
            return data

        def readline(self, size: int | None = -1) -> bytes:
            data = super().readline(size)
            _tell(len(data))
            return data

    def _tell(count: int) -> None:
        descriptor = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        os.write(descriptor, f"{count}\n".encode())
        os.close(descriptor)

    def counting_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if mode == "rb" and os.fspath(file) == str(path):
            return Counted(io.FileIO(file, "rb"))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting_open)
    code, out, _ = run(capsys, "validate", "--jobs", "2", str(path))
    monkeypatch.setattr(builtins, "open", real_open)
    read = sum(int(count) for count in log.read_text().split())
    size = path.stat().st_size
    assert code == 0 and "3 documents: 3 valid" in out, out
    # once by the range it starts in, once more in pieces by the ranges inside it, looking for
    # the end of the line (and a block at the start, to see the layout)
    assert read <= 2 * size + 8 * 1024 * 1024, f"read {read:,} bytes of a {size:,} byte file"


def test_many_small_files_with_jobs_start_no_process_per_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 18: 1,000 small .jsonl files with --jobs 2 (1.5 s against 0.16 s with one job: a
    fork per file) start at most a pool's few processes, and report as one job does."""
    folder = tmp_path / "small"
    folder.mkdir()
    for number in range(1000):
        body = EVENT if number % 250 else b'{"type":"TurnStart"}'
        (folder / f"{number:04}.jsonl").write_bytes(body + b"\n")
    forks = []
    real_fork = os.fork

    def fork() -> int:
        forks.append(1)
        return real_fork()

    monkeypatch.setattr(os, "fork", fork)
    single = run(capsys, "validate", str(folder))
    parallel = run(capsys, "validate", "--jobs", "2", str(folder))
    assert len(forks) <= 2, f"{len(forks)} processes started"
    assert single[0] == parallel[0] == 1
    assert without_timing(single[1]) == without_timing(parallel[1])


def test_a_fifo_is_read_with_jobs(tmp_path: Path) -> None:
    """Item 18: a FIFO named .jsonl (not seekable: no byte ranges) is read like stdin. (In a
    process of its own, with a time limit: before, it failed as "not seekable", or hung.)"""
    fifo = tmp_path / "stream.jsonl"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as out:
            out.write(EVENTS * 10)

    writer = threading.Thread(target=write, daemon=True)  # blocks until a reader opens it
    writer.start()
    result = subprocess.run(
        [sys.executable, "-m", "phi_wire", "validate", "--jobs", "2", str(fifo)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 file, 170 documents: 170 valid" in result.stdout


def test_a_file_truncated_during_a_parallel_run_is_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 18: a JSONL file that is shorter when read than when it was sized (truncated during
    the run) is an input error (exit 2), not a success with half its documents."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(EVENTS * 200)
    real_getsize = os.path.getsize

    def getsize(name: Any) -> int:
        size = real_getsize(name)
        return size + 200_000 if os.fspath(name) == str(path) else size

    monkeypatch.setattr(_parallel, "RANGES_MIN_BYTES", 0, raising=False)
    monkeypatch.setattr(_parallel, "PARALLEL_MIN_BYTES", 0, raising=False)
    monkeypatch.setattr(os.path, "getsize", getsize)
    code, _, err = run(capsys, "validate", "--jobs", "2", str(path))
    assert code == 2 and "shrank while being read" in err, err


def test_jobs_report_as_one_job_does_with_rejected_and_refused_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Byte ranges number lines as one job does around lines refused or rejected while read."""
    path = tmp_path / "mixed.jsonl"
    lines = [EVENT] * 3000
    lines[500] = b"\0" * 50_000
    lines[1500] = b'{"type":"InputRejected","reason":"' + b"y" * 50_000 + b'"}'
    lines[2500] = b'{"type":"TurnStart"}'
    path.write_bytes(b"\n".join(lines) + b"\n")
    monkeypatch.setattr(_parallel, "RANGES_MIN_BYTES", 0, raising=False)
    monkeypatch.setattr(_parallel, "PARALLEL_MIN_BYTES", 0, raising=False)
    monkeypatch.setattr(_parallel, "RANGE_BYTES", 64 * 1024, raising=False)
    args = ("validate", "--max-document-bytes", "20K", str(path))
    single = run(capsys, *args)
    parallel = run(capsys, "validate", "--jobs", "2", *args[1:])
    assert single[0] == parallel[0] == 2
    assert without_timing(single[1]) == without_timing(parallel[1])
    assert single[2] == parallel[2] and f"{path}:1501: document over the size limit" in single[2]
    assert f"{path}:501: AgentEvent /: invalid JSON" in single[1]
    assert f"{path}:2501: AgentEvent TurnStart" in single[1]


def small_files(folder: Path, count: int, size: int) -> None:
    """``count`` JSONL files of about ``size`` bytes each, valid events."""
    folder.mkdir(exist_ok=True)
    body = EVENT + b"\n"
    for number in range(count):
        (folder / f"{number:05}.jsonl").write_bytes(body * max(1, size // len(body)))


@pytest.mark.parametrize("jobs", ["2", "8"])
def test_a_small_tree_starts_no_process_whatever_jobs_says(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    jobs: str,
) -> None:
    """Issue 17: on a 3.3 MB tree of 1,771 small files ``--jobs 2`` was slower than one job (1.96
    s against 1.56 s): a worker's start was not repaid. The number of processes now follows the
    input's size (one per ``PARALLEL_MIN_BYTES``): such a tree is judged by this process alone,
    and a tree of 5 MB by two processes even with ``--jobs 8``. Processes are counted, not
    timed."""
    forks: list[int] = []
    real_fork = os.fork

    def fork() -> int:
        forks.append(1)
        return real_fork()

    monkeypatch.setattr(os, "fork", fork)
    folder = tmp_path / "tree"
    small_files(folder, 1771, 1900)  # 3.3 MB
    single = run(capsys, "validate", str(folder))
    parallel = run(capsys, "validate", "--jobs", jobs, str(folder))
    assert forks == [], f"{len(forks)} processes started for 3.3 MB"
    assert single[0] == parallel[0] == 0
    assert without_timing(single[1]) == without_timing(parallel[1])
    small_files(tmp_path / "tree", 2700, 1900)  # 5.1 MB: two processes' worth
    code, out, _ = run(capsys, "validate", "--jobs", jobs, str(folder))
    assert len(forks) == 2, f"{len(forks)} processes started for 5.1 MB with --jobs {jobs}"
    assert code == 0 and "2,700 files" in out.splitlines()[-1]
