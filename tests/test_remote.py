"""URLs wherever ``phi-wire validate`` takes paths (``phi_wire.remote``, the ``remote`` extra):
an S3 server on 127.0.0.1 (moto's, started by ``tests/s3.py``), the corpus uploaded to it, and
the same records as the local run: prefixes walked as folders, globs, gzip, byte ranges with
``--jobs``; an object that cannot be read is an input error, and without the extra a URL is one
line naming it."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest
from command import run
from corpus import fixtures_root
from s3 import S3

from phi_wire.remote import MissingExtra
from phi_wire.validate import INPUT, Record, validate

CORPUS = fixtures_root() / "phi-core" / "0.10.0"
EVENTS = (Path(__file__).resolve().parent.parent / "examples" / "events.jsonl").read_bytes()


def as_local(records: list[Record], url: str, local: Path) -> list[Record]:
    """Records read from ``url`` with their file named as the local copy's."""
    return [r._replace(file=r.file.replace(url.rstrip("/"), str(local))) for r in records]


def test_the_corpus_through_s3_gives_the_local_records(s3_server: S3) -> None:
    """The whole phi-core corpus (every folder, layout and verdict) under a prefix: the walk, the
    formats, the records, the files' summaries and the tally are the local run's."""
    url = f"s3://{s3_server.bucket()}/corpus"
    s3_server.upload(CORPUS, url)
    local = validate(str(CORPUS), version="0.10")
    remote = validate(url + "/", version="0.10")
    local_records, remote_records = list(local), list(remote)
    assert remote.complete and len(local_records) > 100
    assert as_local(remote_records, url, CORPUS) == local_records
    assert [f._replace(file=f.file.replace(url, str(CORPUS))) for f in remote.files] == local.files
    assert remote.tally.as_dict() == {
        **local.tally.as_dict(),
        "input_errors": remote.tally.as_dict()["input_errors"],
    }
    assert len(remote.tally.input_errors) == len(local.tally.input_errors)
    for options in (
        {"include": ["**/streams/*.jsonl"], "format": "phi-core", "strict": True},
        {"exclude": ["manifest.json", "rejected", "valid/**"]},
    ):
        here = validate(str(CORPUS), version="0.10", **options)  # type: ignore[arg-type]
        there = validate(url + "/", version="0.10", **options)  # type: ignore[arg-type]
        assert as_local(list(there), url, CORPUS) == list(here)
        assert [f.file.replace(url, str(CORPUS)) for f in there.files] == [
            f.file for f in here.files
        ]
        assert there.tally.as_dict() == here.tally.as_dict() and here.tally.files > 0


def test_hidden_and_vendored_folders_under_a_prefix(s3_server: S3, tmp_path: Path) -> None:
    """Under a prefix, hidden and vendored "folders" and a Python environment's are skipped as on
    disk, and read with ``all_folders``."""
    bucket = s3_server.bucket()
    for key in ("a/events.jsonl", "a/.hidden/x.jsonl", "a/node_modules/y.jsonl", "a/env/z.jsonl"):
        s3_server.put(f"s3://{bucket}/{key}", EVENTS)
        (tmp_path / key).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / key).write_bytes(EVENTS)
    for where in (f"s3://{bucket}/a/env/pyvenv.cfg", str(tmp_path / "a" / "env" / "pyvenv.cfg")):
        if where.startswith("s3://"):
            s3_server.put(where, b"home = /usr\n")
        else:
            Path(where).write_bytes(b"home = /usr\n")
    for all_folders in (False, True):
        here = validate(str(tmp_path / "a"), all_folders=all_folders)
        there = validate(f"s3://{bucket}/a/", all_folders=all_folders)
        local_records, remote_records = list(here), list(there)
        assert as_local(remote_records, f"s3://{bucket}/a", tmp_path / "a") == local_records
        assert [f.file.rpartition("/")[2] for f in there.files] == [
            Path(f.file).name for f in here.files
        ]
        assert there.tally.files == (4 if all_folders else 1)


def test_globs_gzip_and_ranges(s3_server: S3, tmp_path: Path) -> None:
    """A glob stands for what it matches; a gzip object is inflated; a big JSONL object is split
    into byte ranges by ``--jobs 2`` (ranged reads) with the records of one job."""
    bucket = s3_server.bucket()
    bad = EVENTS + b'{"type":"TurnStart"}\n'
    big = EVENTS * (9 * 1024 * 1024 // len(EVENTS) + 1) + b'{"type":"nope"}\n'
    s3_server.put(f"s3://{bucket}/logs/2025-01/a.jsonl.gz", gzip.compress(bad))
    s3_server.put(f"s3://{bucket}/logs/2025-02/b.jsonl", big)
    s3_server.put(f"s3://{bucket}/logs/2025-02/notes.txt", b"not read")
    (tmp_path / "a.jsonl.gz").write_bytes(gzip.compress(bad))
    (tmp_path / "b.jsonl").write_bytes(big)
    pattern = f"s3://{bucket}/logs/2025-*/*.jsonl*"
    one = validate(pattern)
    records = list(one)
    assert list(dict.fromkeys((r.file.rpartition("/")[2], r.line) for r in records)) == [
        ("a.jsonl.gz", 18),
        ("b.jsonl", big.count(b"\n")),
    ]
    assert one.tally.files == 2 and one.files[0].gzip
    two = validate(pattern, jobs=2)
    assert list(two) == records and two.tally.as_dict() == one.tally.as_dict()
    local = validate([str(tmp_path / "a.jsonl.gz"), str(tmp_path / "b.jsonl")])
    assert [r.message for r in local] == [r.message for r in records]


def test_an_unreadable_object_is_an_input_error(
    s3_server: S3, capsys: pytest.CaptureFixture[str]
) -> None:
    """An object gone between the listing and the read, a truncated gzip, a prefix or a glob with
    nothing in it: input errors naming the URL (exit 2), never a traceback."""
    bucket = s3_server.bucket()
    gone = f"s3://{bucket}/data/gone.jsonl"
    s3_server.put(gone, EVENTS)
    s3_server.put(f"s3://{bucket}/data/cut.jsonl.gz", gzip.compress(EVENTS)[:-40])
    run_ = validate(f"s3://{bucket}/data/")
    s3_server.filesystem().rm(gone)  # listed by the walk, missing when read
    records = list(run_)
    inputs = [(r.file.rpartition("/")[2], r.kind) for r in records if r.kind == INPUT]
    assert inputs == [("cut.jsonl.gz", INPUT), ("gone.jsonl", INPUT)]
    assert any("gzip" in r.message for r in records if r.file.endswith("cut.jsonl.gz"))
    for missing in (f"s3://{bucket}/none/", f"s3://{bucket}/data/*.json"):
        code, out, err = run(capsys, "validate", "--output-format", "json", missing)
        assert code == 2 and "Traceback" not in err
        first = json.loads(out.splitlines()[0])
        assert first["file"] == missing and first["kind"] == INPUT


def test_without_the_extra_a_url_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without fsspec a URL names the extra to install, in one line, exit 2; local paths are not
    affected."""
    for name in [name for name in sys.modules if name == "fsspec" or name.startswith("fsspec.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "fsspec", None)
    monkeypatch.setitem(sys.modules, "fsspec.core", None)
    with pytest.raises(MissingExtra, match=r"pip install 'phi-wire\[remote\]'"):
        validate("s3://bucket/logs/")
    code, out, err = run(capsys, "validate", "s3://bucket/logs/")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        "phi-wire: s3://bucket/logs/: reading URLs needs the remote extra: "
        "pip install 'phi-wire[remote]'"
    ]
