"""``phi-wire convert`` past one machine: URLs wherever it takes paths (inputs: prefixes, globs,
objects; ``-o`` and ``--loss-report`` a URL, written atomically), ``phi_wire.dask.convert`` and
``phi-wire convert --dask``: on the S3 server of ``tests/s3.py`` and a ``LocalCluster`` of 2
worker processes, the same outputs (byte for byte) and the same report and exit status as the
single-machine command on the same names, also with a worker killed mid-run.

No value depends on when a run reads (a key a reader stamps with the time of reading is read as
0: ``phi_wire.convert._filled``), so two runs are compared byte for byte."""

from __future__ import annotations

import gzip
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from command import run
from corpus import fixtures_root
from dask_cluster import KillOnce, local_cluster
from distributed import Client
from distributed.diagnostics.plugin import WorkerPlugin
from s3 import S3

from phi_wire import dask as on_dask
from phi_wire.convert import write_atomically
from phi_wire.remote import MissingExtra

CLARK = fixtures_root() / "clark-agent" / "0.4.0"
PHI_CORE = fixtures_root() / "phi-core" / "0.10.0"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def local_files(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def objects(s3: S3, url: str) -> dict[str, bytes]:
    fs = s3.filesystem()
    base = url.removeprefix("s3://").rstrip("/") + "/"
    return {key.removeprefix(base): fs.cat(key) for key in sorted(fs.find(base))}


def report_lines(out: str) -> list[dict[str, object]]:
    """The JSON report's lines, the summary's timing left out."""
    lines = [json.loads(line) for line in out.splitlines()]
    for line in lines:
        if "summary" in line:
            line["summary"].pop("elapsed_s")  # type: ignore[union-attr]
    return lines


@pytest.fixture(scope="module")
def client(s3_server: S3) -> Iterator[Client]:
    """The module's cluster, started after the S3 server (its workers inherit its address)."""
    with local_cluster() as cluster, Client(cluster) as connected:
        yield connected


def test_urls_on_one_machine(s3_server: S3, capsys: pytest.CaptureFixture[str]) -> None:
    """A prefix converted into a prefix (``-o s3://.../out/``, ``--loss-report s3://...``):
    an object per input converted, at its key under the prefix, named in the report, the loss
    report the records printed; no temporary key left; a glob's matches keep their keys under
    its fixed part; one object into one ``.gz`` object: the bytes printed for it, gzipped."""
    bucket = s3_server.bucket()
    s3_server.upload(CLARK / "valid", f"s3://{bucket}/corpus/valid")
    code, out, err = run(
        capsys,
        "convert",
        "--to",
        "phi-core",
        "--output-format",
        "json",
        f"s3://{bucket}/corpus/",
        "-o",
        f"s3://{bucket}/out/",
        "--loss-report",
        f"s3://{bucket}/losses.jsonl",
    )
    assert code == 2 and "Traceback" not in err  # the corpus holds inputs that cannot convert
    written = objects(s3_server, f"s3://{bucket}/out/")
    records = report_lines(out)
    files = [r["file"] for r in records if "file" in r and isinstance(r["file"], dict)]
    assert len(written) == len(files) > 50
    assert {f["written"] for f in files} == {f"s3://{bucket}/out/{key}" for key in written}
    stored = report_lines(s3_server.filesystem().cat(f"{bucket}/losses.jsonl").decode())
    assert stored == records
    assert not [key for key in s3_server.filesystem().find(bucket) if key.endswith(".tmp")]
    pattern = f"s3://{bucket}/corpus/valid/AgentM*/*.json"
    code, out, err = run(capsys, "convert", "--to", "phi-core", pattern, "-o", f"s3://{bucket}/g/")
    assert code == 0, err
    matched = objects(s3_server, f"s3://{bucket}/g/")
    assert matched and all(key.startswith("AgentMessage/") for key in matched)
    one = f"s3://{bucket}/corpus/valid/AgentMessage/" + next(iter(matched)).rpartition("/")[2]
    one = one.replace(".phi-core.json", ".json")
    code, out, err = run(capsys, "convert", "--to", "phi-core", one, "-o", f"s3://{bucket}/one.gz")
    assert code == 0, err
    here = run(capsys, "convert", "--to", "phi-core", one)
    assert gzip.decompress(s3_server.filesystem().cat(f"{bucket}/one.gz")) == here[1].encode()


def test_a_streamed_local_input_into_an_object(
    s3_server: S3, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A local JSONL file that converts batch by batch (clark-agent history -> phi-core) into
    ``-o s3://...``: the object holds what the local output file holds (the streamed writer
    writes files only; an object is uploaded whole)."""
    bucket = s3_server.bucket()
    source = CLARK / "history" / "history.multi_turn.jsonl"
    code, _, err = run(
        capsys, "convert", "--to", "phi-core", str(source), "-o", f"s3://{bucket}/h.jsonl"
    )
    assert code == 0 and "Traceback" not in err, err
    local = tmp_path / "h.jsonl"
    code, _, err = run(capsys, "convert", "--to", "phi-core", str(source), "-o", str(local))
    assert code == 0, err
    assert s3_server.filesystem().cat(f"{bucket}/h.jsonl") == local.read_bytes()


def test_an_upload_cut_short_leaves_no_object(s3_server: S3) -> None:
    """Whole or nothing on an object store: a write that fails on the way (the text's producer
    raises) or cannot be stored (no such bucket) leaves nothing under the final name, nor under a
    temporary one; an object written over is replaced whole."""
    bucket = s3_server.bucket()
    url = f"s3://{bucket}/out/a.jsonl"
    write_atomically(url, ["old\n"])

    def failing() -> Iterator[str]:
        yield "new\n"
        raise OSError(5, "the producer failed")

    with pytest.raises(OSError, match="the producer failed"):
        write_atomically(url, failing())
    fs = s3_server.filesystem()
    assert fs.cat(f"{bucket}/out/a.jsonl") == b"old\n"
    with pytest.raises(OSError):
        write_atomically(f"s3://{bucket}-none/a.jsonl", ["x\n"])
    write_atomically(url, ["new\n" * 3])
    assert fs.cat(f"{bucket}/out/a.jsonl") == b"new\n" * 3
    assert fs.find(bucket) == [f"{bucket}/out/a.jsonl"]


@pytest.mark.parametrize(
    ("corpus", "target"),
    [
        ([CLARK], "phi-core"),
        ([PHI_CORE / "streams", PHI_CORE / "sessions", PHI_CORE / "valid"], "clark-agent"),
    ],
    ids=["clark-agent corpus", "phi-core streams, sessions, valid"],
)
def test_dask_convert_writes_what_the_command_writes(
    client: Client,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    corpus: list[Path],
    target: str,
) -> None:
    """A corpus (conversions, losses, inputs that cannot convert): ``--dask ADDRESS``
    writes the files the local command writes, byte for byte, with the same JSON report, loss
    report and exit status; ``phi_wire.dask.convert`` the same files, its totals the report's."""
    args = ["convert", "--to", target, "--output-format", "json"]
    here = run(
        capsys,
        *args,
        *map(str, corpus),
        "-o",
        str(tmp_path / "here"),
        "--loss-report",
        str(tmp_path / "here.jsonl"),
    )
    there = run(
        capsys,
        *args,
        "--dask",
        client.scheduler.address,
        *map(str, corpus),
        "-o",
        str(tmp_path / "there"),
        "--loss-report",
        str(tmp_path / "there.jsonl"),
    )
    assert there[0] == here[0] == 2 and there[2] == here[2] == ""
    swap = str(tmp_path / "there"), str(tmp_path / "here")
    assert report_lines(there[1].replace(*swap)) == report_lines(here[1])
    assert local_files(tmp_path / "there") == local_files(tmp_path / "here")
    assert len(local_files(tmp_path / "here")) > 50
    assert report_lines((tmp_path / "there.jsonl").read_text().replace(*swap)) == report_lines(
        (tmp_path / "here.jsonl").read_text()
    )
    text = run(capsys, "convert", "--to", target, *map(str, corpus), "-o", str(tmp_path / "t1"))
    text_there = run(
        capsys,
        "convert",
        "--to",
        target,
        "--dask",
        client.scheduler.address,
        *map(str, corpus),
        "-o",
        str(tmp_path / "t2"),
    )
    assert text_there[0] == text[0]
    assert text_there[2].replace(str(tmp_path / "t2"), "OUT") == text[2].replace(
        str(tmp_path / "t1"), "OUT"
    )
    distributed = on_dask.convert(
        [str(p) for p in corpus],
        target=target,
        out=str(tmp_path / "lib"),
        loss_report=str(tmp_path / "lib.jsonl"),
        client=client,
    )
    outcomes, totals = distributed.compute()
    assert local_files(tmp_path / "lib") == local_files(tmp_path / "here")
    summary = report_lines(here[1])[-1]["summary"]
    assert isinstance(summary, dict)
    assert (totals.inputs, totals.converted, totals.errors, totals.losses, totals.kinds) == (
        summary["inputs"],
        summary["converted"],
        summary["errors"],
        summary["losses"],
        summary["kinds"],
    )
    assert [o.name for o in outcomes] == [named.name for named in distributed.inputs]  # input order
    reported = [json.loads(line) for line in (tmp_path / "lib.jsonl").read_text().splitlines()]
    assert sum(r.get("kind") in ("dropped", "invented", "changed") for r in reported) == (
        totals.losses
    )


def test_dask_convert_through_s3(
    client: Client, s3_server: S3, capsys: pytest.CaptureFixture[str]
) -> None:
    """From a bucket to a bucket on the cluster: the objects and report of the local command on
    the same URLs; an object gone before its worker reads it is an input error naming it
    (exit 2), the other inputs converted."""
    bucket = s3_server.bucket()
    s3_server.upload(CLARK / "valid" / "AgentEvent", f"s3://{bucket}/in")
    source = f"s3://{bucket}/in/"
    args = ["convert", "--to", "phi-core", "--output-format", "json", source]
    here = run(capsys, *args, "-o", f"s3://{bucket}/here/")
    there = run(capsys, *args, "-o", f"s3://{bucket}/there/", "--dask", client.scheduler.address)
    assert there[0] == here[0]
    swap = f"s3://{bucket}/there/", f"s3://{bucket}/here/"
    assert report_lines(there[1].replace(*swap)) == report_lines(here[1])
    assert objects(s3_server, swap[0]) == objects(s3_server, swap[1])
    assert len(objects(s3_server, swap[1])) > 5
    distributed = on_dask.convert(
        source,
        target="phi-core",
        out=f"s3://{bucket}/lib",
        loss_report=f"s3://{bucket}/lib.jsonl",
        client=client,
    )
    gone = distributed.inputs[0].name
    s3_server.filesystem().rm(gone)  # listed, then gone before a worker reads it
    outcomes, totals = distributed.compute()
    assert outcomes[0].converted is None and outcomes[0].error.startswith(f"{gone}: cannot read")
    converted_here = {
        r["file"]["file"] for r in report_lines(here[1]) if isinstance(r.get("file"), dict)
    }
    summary = report_lines(here[1])[-1]["summary"]
    assert isinstance(summary, dict) and gone in converted_here
    assert (totals.errors, totals.converted) == (summary["errors"] + 1, summary["converted"] - 1)
    stored = s3_server.filesystem().cat(f"{bucket}/lib.jsonl").decode()
    assert json.loads(stored.splitlines()[0])["file"] == gone


class LogReads(WorkerPlugin):
    """Logs each input a worker's conversion reads (one line each), to count the conversions."""

    name = "log-reads"

    def __init__(self, log: Path) -> None:
        self.log = str(log)

    def setup(self, worker: Any) -> None:
        from phi_wire.dask import _convert

        read = _convert.read_input
        log = self.log

        def logged(name: str, size: int | None = None) -> Any:
            with open(log, "a", encoding="utf-8") as lines:
                lines.write(name + "\n")
            return read(name, size)

        _convert.read_input = logged  # type: ignore[assignment]


def test_a_worker_killed_mid_run_loses_no_output(tmp_path: Path) -> None:
    """A worker process killed as it finishes converting an input (its output written, its
    result never reported): the scheduler converts it again elsewhere; the outputs and outcomes
    are the local command's, none lost, none twice, no temporary file left; every other input
    is converted at least once (not again by the totals' tasks: the graph is computed
    unoptimised). Inputs whose results were held by the killed worker when it died are converted
    again as well: how many depends on timing (on a loaded machine, one or two more), so the
    count of conversions is bounded below; the outputs and outcomes are exact."""
    faults = tmp_path / "faults"
    faults.mkdir()
    here = tmp_path / "here"
    archive = str(CLARK / "valid" / "AgentMessage")
    assert run_quiet("convert", "--to", "phi-core", "--quiet", archive, "-o", str(here)) == 0
    with local_cluster() as cluster, Client(cluster) as fresh:
        distributed = on_dask.convert(
            archive, target="phi-core", out=str(tmp_path / "there"), client=fresh
        )
        fresh.register_plugin(LogReads(faults / "read"))
        fresh.register_plugin(KillOnce(faults, "convert-"))
        outcomes, _ = distributed.compute()
    assert (faults / "killed").exists()
    finished = (faults / "finished").read_text().splitlines()
    assert len(finished) > len(set(finished))  # the killed worker's input converted again
    read = (faults / "read").read_text().splitlines()  # each input converted, one more than once
    assert sorted(set(read)) == sorted(n.name for n in distributed.inputs)
    assert len(read) > len(distributed.inputs)
    assert len(outcomes) == len(distributed.inputs) == len(set(o.name for o in outcomes))
    assert local_files(tmp_path / "there") == local_files(here)
    assert not list((tmp_path / "there").rglob("*.tmp"))


class KillMidWrite(WorkerPlugin):
    """Kills the worker process (``os._exit``) the first time any worker is about to put a
    finished temporary in place: a local file's rename (``os.replace``, ``at="rename"``), or an
    object's copy from its temporary key (``at="copy"``); logs the temporary (and, for an
    object, the local folders staging uploads)."""

    name = "kill-mid-write"

    def __init__(self, folder: Path, at: str) -> None:
        self.flag = str(folder / "killed")
        self.log = str(folder / "temporaries")
        self.at = at

    def _kill_once(self, *temporaries: str) -> None:
        try:
            descriptor = os.open(self.flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return  # killed once already
        os.close(descriptor)
        with open(self.log, "w", encoding="utf-8") as log:
            log.write("\n".join(temporaries) + "\n")
        os._exit(1)

    def setup(self, worker: Any) -> None:
        import s3fs

        replace, copy = os.replace, s3fs.S3FileSystem.copy
        kill_once = self._kill_once

        def replacing(source: Any, target: Any, **options: Any) -> None:
            if str(source).endswith(".tmp"):
                kill_once(str(source))
            replace(source, target, **options)

        def copying(fs: Any, source: str, target: str, **options: Any) -> Any:
            staged = [str(path) for path in Path(tempfile.gettempdir()).glob("phi-wire-upload-*")]
            kill_once(source, *staged)
            return copy(fs, source, target, **options)

        if self.at == "rename":
            os.replace = replacing  # type: ignore[assignment]
        else:
            s3fs.S3FileSystem.copy = copying  # type: ignore[method-assign]


def test_a_worker_killed_mid_write_leaves_no_temporary(tmp_path: Path, s3_server: S3) -> None:
    """A worker process killed with its output written to a temporary, before the rename (or,
    for an object, before the copy from its temporary key): its input is converted again
    elsewhere, and when the run ends the run's temporaries are gone (beside the outputs, under
    the prefix, and the worker's staging folder), while a user's file named like a temporary,
    and another run's, stay. On main, the killed worker's temporary stayed."""
    archive = str(CLARK / "valid" / "AgentMessage")
    here = tmp_path / "here"
    assert run_quiet("convert", "--to", "phi-core", "--quiet", archive, "-o", str(here)) == 0
    there = tmp_path / "there"
    there.mkdir()
    users = [there / ".notes.json.0123456789ab.tmp", there / ".a.phi-wire-other.0123456789ab.tmp"]
    for path in users:
        path.write_bytes(b"mine")
    bucket = s3_server.bucket()
    s3_server.put(f"s3://{bucket}/out/.notes.json.0123456789ab.tmp", b"mine")
    with local_cluster() as cluster, Client(cluster) as fresh:
        for out, at in ((str(there), "rename"), (f"s3://{bucket}/out/", "copy")):
            faults = tmp_path / at
            faults.mkdir()
            distributed = on_dask.convert(archive, target="phi-core", out=out, client=fresh)
            fresh.register_plugin(KillMidWrite(faults, at))
            outcomes, _ = distributed.compute()
            assert (faults / "killed").exists()
            assert len(outcomes) == len(distributed.inputs)
            assert all(outcome.converted is not None for outcome in outcomes)
            left = (faults / "temporaries").read_text().splitlines()
            ours = [name for name in left if distributed.tag in name]
            assert ours[0] == left[0] and ours[0].endswith(".tmp")  # the temporary, then staging
            assert len(ours) >= (2 if at == "copy" else 1)
            assert not [name for name in ours if os.path.exists(name)]
    assert local_files(there) == {**local_files(here), **{p.name: b"mine" for p in users}}
    keys = [key.rpartition("/")[2] for key in s3_server.filesystem().find(f"{bucket}/out/")]
    assert [key for key in keys if key.endswith(".tmp")] == [".notes.json.0123456789ab.tmp"]
    assert len(keys) == len(local_files(here)) + 1


def run_quiet(*args: str) -> int:
    from phi_wire.cli import main

    return main(list(args))


def test_the_command_says_one_line(
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    """A scheduler no one answers, standard input under --dask, and a URL or --dask without
    their extra: one line each, exit 2."""
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        code, out, err = run(
            capsys,
            "convert",
            "--to",
            "phi-core",
            "--dask",
            "tcp://127.0.0.1:9",
            str(CLARK / "valid"),
            "-o",
            str(tmp_path / "o"),
        )
    assert (code, out) == (2, "") and len(err.splitlines()) == 1
    assert err.startswith("phi-wire: cannot reach the Dask scheduler at tcp://127.0.0.1:9: ")
    code, out, err = run(capsys, "convert", "--to", "phi-core", "--dask", "-")
    assert (code, out) == (2, "") and "standard input (-) cannot be read" in err
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(MissingExtra, match=r"pip install 'phi-wire\[dask\]'"):
        on_dask.convert(str(CLARK), target="phi-core", out=str(tmp_path / "x"))
    code, out, err = run(
        capsys,
        "convert",
        "--to",
        "phi-core",
        "--dask",
        str(CLARK / "valid"),
        "-o",
        str(tmp_path / "y"),
    )
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "phi-wire: phi_wire.dask needs the dask extra: pip install 'phi-wire[dask]'"
    ]
    for name in [name for name in sys.modules if name == "fsspec" or name.startswith("fsspec.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "fsspec", None)
    monkeypatch.setitem(sys.modules, "fsspec.core", None)
    for args in (
        ["s3://bucket/logs/", "-o", str(tmp_path / "z")],
        [str(EXAMPLES / "events.jsonl"), "-o", "s3://bucket/out/"],
    ):
        code, out, err = run(capsys, "convert", "--to", "clark-agent", *args)
        assert (code, out) == (2, "")
        assert len(err.splitlines()) == 1 and "pip install 'phi-wire[remote]'" in err
