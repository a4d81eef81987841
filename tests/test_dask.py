"""``phi_wire.dask`` and ``phi-wire validate --dask``: on a ``LocalCluster`` of 2 worker
processes, the records, the files' summaries and the tally are exactly the single-machine run's:
on the whole phi-core corpus, on generated data cut into many byte ranges (gzip and whole
documents in one task each), through the S3 server, and with a worker killed mid-run."""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from command import run
from corpus import fixtures_root
from dask_cluster import KillOnce, local_cluster
from distributed import Client
from s3 import S3

from phi_wire import dask as on_dask
from phi_wire.remote import MissingExtra
from phi_wire.validate import Record, Validation, validate

CORPUS = fixtures_root() / "phi-core" / "0.10.0"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
EVENTS = (EXAMPLES / "events.jsonl").read_bytes()
SESSION = (EXAMPLES / "session.json").read_bytes()
BLOCK = 16 * 1024
"""Small blocks: many ranges per file on little data."""


def generated(folder: Path) -> Path:
    """An archive of phi-core logs: a big JSONL file with invalid, blank and over-long lines
    spread through it (many ranges), a gzip copy, a pretty session, a session under a JSONL name,
    a file that is not JSON, small files to batch."""
    lines = EVENTS.splitlines(keepends=True)
    body = []
    for index in range(1200):
        line = lines[index % len(lines)]
        if index % 97 == 5:
            line = line.replace(b'"timestamp"', b'"timestamp_"', 1)  # a missing field
        elif index % 211 == 7:
            line = b"\n"  # a blank line: not JSON
        elif index % 307 == 11:
            line = b'{"type":"TurnStart","note":"' + b"x" * 3000 + b'"}\n'
        body.append(line)
    data = b"".join(body)
    archive = folder / "archive"
    (archive / "2025-01").mkdir(parents=True)
    (archive / "2025-02").mkdir()
    (archive / "2025-01" / "events.jsonl").write_bytes(data)
    (archive / "2025-01" / "events.jsonl.gz").write_bytes(gzip.compress(data))
    (archive / "2025-02" / "session.json").write_bytes(SESSION)
    (archive / "2025-02" / "session-as-lines.jsonl").write_bytes(SESSION)
    (archive / "2025-02" / "broken.json").write_bytes(b"\xff\xfe{}")
    for index in range(5):
        (archive / "2025-02" / f"small-{index}.jsonl").write_bytes(b"".join(lines[index:]))
    return archive


@pytest.fixture(scope="module")
def client(s3_server: S3) -> Iterator[Client]:
    """The module's cluster, started after the S3 server (its workers inherit its address)."""
    with local_cluster() as cluster, Client(cluster) as connected:
        yield connected


def local_and_dask(
    paths: list[str], client: Client, **options: object
) -> tuple[list[Record], Validation, list[Record], on_dask.Summary, on_dask.DaskValidation]:
    local = validate(paths, **options)  # type: ignore[arg-type]
    records = list(local)
    distributed = on_dask.validate(paths, client=client, block_bytes=BLOCK, **options)  # type: ignore[arg-type]
    computed, summary = distributed.compute()
    return records, local, computed, summary, distributed


def assert_same(
    local: Validation, records: list[Record], computed: list[Record], summary: on_dask.Summary
) -> None:
    assert computed == records
    assert summary.files == local.files
    assert summary.tally.as_dict() == local.tally.as_dict()
    assert summary.tally.input_errors == local.tally.input_errors
    assert summary.tally.notes == local.tally.notes


def test_the_corpus_on_the_cluster(client: Client) -> None:
    """Every file of the phi-core corpus (each kind of document, accepted, rejected, streams,
    sessions): the local run's records and summary."""
    records, local, computed, summary, _ = local_and_dask([str(CORPUS)], client, version="0.10")
    assert len(records) > 100 and summary.tally.files > 400
    assert_same(local, records, computed, summary)


def test_generated_data_cut_into_ranges(client: Client, tmp_path: Path) -> None:
    """A big JSONL file in many ranges (lines numbered from its start), gzip and whole-document
    files one task each, small files batched; the same with --strict, a forced type and a
    document size limit."""
    archive = generated(tmp_path)
    records, local, computed, summary, distributed = local_and_dask([str(archive)], client)
    ranges = [part for part in distributed.parts if part.is_range]
    assert len(ranges) > 10 and {part.names[0] for part in ranges} == {
        str(archive / "2025-01" / "events.jsonl")
    }
    gz = [part for part in distributed.parts if any(n.endswith(".gz") for n in part.names)]
    assert len(gz) == 1 and not gz[0].is_range
    assert len({record.line for record in records}) > 20
    assert_same(local, records, computed, summary)
    for options in (
        {"strict": True},
        {"type": "AgentEvent", "max_problems": 1},
        {"max_document_bytes": 2000},
    ):
        records, local, computed, summary, _ = local_and_dask([str(archive)], client, **options)
        assert_same(local, records, computed, summary)


def test_through_s3(client: Client, s3_server: S3, tmp_path: Path) -> None:
    """The corpus and the generated archive in a bucket, read by the workers (the ranges by
    ranged reads): the records of the local run on the local files, named by their URLs; an
    object gone before a worker reads it is an input error naming it."""
    archive = generated(tmp_path)
    bucket = s3_server.bucket()
    s3_server.upload(CORPUS, f"s3://{bucket}/corpus")
    s3_server.upload(archive, f"s3://{bucket}/archive")
    for local_root, url in ((CORPUS, f"s3://{bucket}/corpus"), (archive, f"s3://{bucket}/archive")):
        local = validate(str(local_root), version="0.10")
        records = [r._replace(file=r.file.replace(str(local_root), url)) for r in local]
        distributed = on_dask.validate(url + "/", version="0.10", client=client, block_bytes=BLOCK)
        computed, summary = distributed.compute()
        assert computed == records
        assert [f.file.replace(url, str(local_root)) for f in summary.files] == [
            f.file for f in local.files
        ]
        assert summary.tally.as_dict() == local.tally.as_dict()
    gone = f"s3://{bucket}/archive/2025-02/small-0.jsonl"
    distributed = on_dask.validate(f"s3://{bucket}/archive/", client=client, block_bytes=BLOCK)
    s3_server.filesystem().rm(gone)  # listed, then gone before a worker reads it
    computed, summary = distributed.compute()
    assert [r.file for r in summary.tally.input_errors] == [gone]
    assert [r.file for r in computed if r.kind == "input"] == [gone]


def test_a_worker_killed_mid_run_loses_nothing(tmp_path: Path) -> None:
    """A worker process killed as it finishes judging a part (its result never reported): the
    scheduler judges the part again elsewhere; the records are the local run's, none lost, none
    twice."""
    archive = generated(tmp_path / "data")
    local = validate(str(archive))
    records = list(local)
    faults = tmp_path / "faults"
    faults.mkdir()
    with local_cluster() as cluster, Client(cluster) as fresh:
        distributed = on_dask.validate(str(archive), client=fresh, block_bytes=BLOCK)
        fresh.register_plugin(KillOnce(faults, "judge-"))
        computed, summary = distributed.compute()
    assert (faults / "killed").exists()
    judged = (faults / "finished").read_text().splitlines()
    assert len(judged) > len(distributed.parts)  # the killed worker's part was judged again
    assert_same(local, records, computed, summary)


def json_lines(out: str) -> list[dict[str, object]]:
    """The JSON report's lines, the summary's timing left out."""
    lines = [json.loads(line) for line in out.splitlines()]
    for line in lines:
        if "summary" in line:
            line["summary"].pop("elapsed_s")  # type: ignore[union-attr]
    return lines


def test_the_command_on_the_cluster(
    client: Client, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``--dask ADDRESS``, and ``--dask`` alone (a LocalCluster of its own): the local run's
    report and exit status, in text and in JSON; standard input, and an address that no
    scheduler answers, are one line, exit 2."""
    archive = str(generated(tmp_path))
    address = client.scheduler.address
    for args in (["--output-format", "json"], ["--strict"], ["--quiet", "--max-errors", "3"]):
        code, out, err = run(capsys, "validate", *args, archive)
        on_cluster = run(capsys, "validate", *args, "--dask", address, archive)
        assert on_cluster[0] == code == 1  # invalid documents, no input error
        if "json" in args:
            assert json_lines(on_cluster[1]) == json_lines(out)
        elif "--quiet" in args:  # no summary: every line
            assert on_cluster[1] == out and len(out.splitlines()) == 3
        else:  # the summary's timing aside
            assert on_cluster[1].splitlines()[:-1] == out.splitlines()[:-1]
        assert on_cluster[2] == err
    local = run(capsys, "validate", "--quiet", archive)
    assert run(capsys, "validate", "--quiet", "--dask", archive) == local  # its own LocalCluster
    code, out, err = run(capsys, "validate", "--dask", address, "-")
    assert (code, out) == (2, "") and "standard input (-) cannot be read" in err
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        code, out, err = run(capsys, "validate", "--dask", "tcp://127.0.0.1:9", archive)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith("phi-wire: cannot reach the Dask scheduler at tcp://127.0.0.1:9: ")


def test_without_the_extra_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without dask, ``phi_wire.dask`` imports and its use is one line naming the extra;
    ``--dask`` says the same and exits 2."""
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(MissingExtra, match=r"pip install 'phi-wire\[dask\]'"):
        on_dask.validate(str(CORPUS))
    code, out, err = run(capsys, "validate", "--dask", str(CORPUS))
    assert code == 2 and out == ""
    assert err.splitlines() == [
        "phi-wire: phi_wire.dask needs the dask extra: pip install 'phi-wire[dask]'"
    ]
