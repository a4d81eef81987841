"""What reading objects costs in requests: the listing that found them gives their size and ETag,
so an object is read without a HEAD request first (s3fs asks one for the ETag it pins the reads
to, unless told it): validating or converting a prefix of N objects asks ``info`` once (what the
URL named is), not once or twice per object. Counted on s3fs's own ``_info``, against the S3
server of ``tests/s3.py``; for a Dask cluster's workers, in the server's own log of requests.
The reads are pinned to the listing's ETag: an object rewritten since is an input error."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import s3fs
from command import run
from corpus import fixtures_root
from dask_cluster import local_cluster
from distributed import Client
from s3 import S3

from phi_wire import dask as on_dask
from phi_wire import remote
from phi_wire.validate import validate
from phi_wire.validate.parts import split

MESSAGES = fixtures_root() / "clark-agent" / "0.4.0" / "valid" / "AgentMessage"
EVENTS = (Path(__file__).resolve().parent.parent / "examples" / "events.jsonl").read_bytes()
BLOCK = 16 * 1024
"""Small blocks: the big object in many ranges."""


def test_a_listed_object_is_read_without_a_head_request(
    s3_server: S3,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    bucket = s3_server.bucket()
    s3_server.upload(MESSAGES, f"s3://{bucket}/in")
    asked: list[str] = []
    info = s3fs.S3FileSystem._info

    async def counted(self: Any, path: str, *args: Any, **options: Any) -> Any:
        asked.append(path)
        return await info(self, path, *args, **options)

    monkeypatch.setattr(s3fs.S3FileSystem, "_info", counted)
    s3fs.S3FileSystem.clear_instance_cache()  # an instance made before binds the old _info
    run_ = validate(f"s3://{bucket}/in/")
    records = list(run_)
    assert run_.tally.files == len(list(MESSAGES.iterdir())) > 20
    assert not [r for r in records if r.kind == "input"]
    assert asked == [f"{bucket}/in/"] or asked == [f"{bucket}/in"]
    asked.clear()
    code, _, err = run(
        capsys, "convert", "--to", "phi-core", "--quiet", f"s3://{bucket}/in/", "-o", str(tmp_path)
    )
    assert code == 0, err
    assert len(list(tmp_path.iterdir())) == run_.tally.files
    assert len(asked) == 1


@contextmanager
def served() -> Iterator[list[str]]:
    """The request lines (``HEAD /bucket/key HTTP/1.1``...) the S3 server of ``tests/s3.py``
    answers meanwhile, from any process: its web server logs one line per request."""
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            message = record.getMessage()
            if '"' in message:  # a request's line, colored by its status
                lines.append(re.sub(r"\x1b\[[0-9;]*m", "", message.split('"')[1]))

    logger = logging.getLogger("werkzeug")
    level, propagate = logger.level, logger.propagate
    handler = Collect()
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate


@pytest.fixture(scope="module")
def client(s3_server: S3) -> Iterator[Client]:
    """A cluster of 2 worker processes, started after the S3 server (they inherit its address)."""
    with local_cluster() as cluster, Client(cluster) as connected:
        yield connected


def archive(s3_server: S3) -> str:
    """A bucket of many small objects and a JSONL one cut into ranges: the prefix's URL."""
    bucket = s3_server.bucket()
    s3_server.upload(MESSAGES, f"s3://{bucket}/in/small")
    for index in range(3):
        s3_server.put(f"s3://{bucket}/in/events-{index}.jsonl", EVENTS)
    s3_server.put(f"s3://{bucket}/in/big.jsonl", EVENTS * 40)
    return f"s3://{bucket}/in/"


def test_the_workers_read_listed_objects_without_a_head_request(
    s3_server: S3, client: Client
) -> None:
    """``phi_wire.dask.validate``'s parts carry what the listing said of their objects (size,
    ETag): the workers open each object with ranged GETs only, no HEAD request (on main, one
    HEAD per object and part: the workers had not seen the listing)."""
    prefix = archive(s3_server)
    distributed = on_dask.validate(prefix, client=client, block_bytes=BLOCK)
    assert sum(part.is_range for part in distributed.parts) > 4
    with served() as requests:
        computed, summary = distributed.compute()
    assert summary.tally.files == len(list(MESSAGES.iterdir())) + 4
    assert not summary.tally.input_errors
    local = validate(prefix)
    assert computed == list(local)
    gets = [line for line in requests if line.startswith("GET ") and "/in/" in line]
    assert len(gets) >= summary.tally.files  # the server did see the workers' reads
    assert [line for line in requests if line.startswith("HEAD ")] == []


def test_an_object_changed_after_listing_is_an_input_error(s3_server: S3, client: Client) -> None:
    """An object rewritten between the listing and a worker's read (same size, other bytes: a
    new ETag) is an input error naming it, never judged as a mix of versions or silently as its
    new bytes (on main, its new bytes were judged as if listed)."""
    prefix = archive(s3_server)
    distributed = on_dask.validate(prefix, client=client, block_bytes=BLOCK)
    big = prefix + "big.jsonl"
    small = prefix + "events-1.jsonl"
    fs = s3_server.filesystem()
    for url in (big, small):
        data = fs.cat_file(url)
        assert data.endswith(b"\n")
        fs.pipe(url, b" " + data[:-1])  # still valid JSONL, and as long
    computed, summary = distributed.compute()
    changed = [r for r in computed if r.kind == "input"]
    assert sorted({r.file for r in changed}) == sorted([big, small])
    assert all("the object changed after it was listed" in r.message for r in changed)
    assert [r.file for r in summary.tally.input_errors] == [r.file for r in changed]


@contextmanager
def fetched() -> Iterator[list[int]]:
    """The bytes this process fetches meanwhile: each ranged GET's of s3fs, each chunk of
    ``phi_wire.remote_s3``'s streamed GETs (each library logs one line per request or chunk)."""
    sizes: list[int] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            found = re.search(r"^Fetch(?:ed)?: \S+, (\d+)-(\d+)$", record.getMessage())
            if found:
                sizes.append(int(found[2]) - int(found[1]))

    loggers = [logging.getLogger(name) for name in ("s3fs", "phi_wire.remote_s3")]
    levels = [logger.level for logger in loggers]
    handler = Collect()
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    try:
        yield sizes
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)


def test_a_look_at_an_objects_first_lines_fetches_little_more(s3_server: S3) -> None:
    """Splitting a run peeks at each big object's first lines (its layout, its format): about
    ``FIRST_READ_AHEAD_BYTES`` fetched per object, not a full read-ahead of 8 MB more (on
    main, 9 MB of each 20 MB object were fetched before any worker started). Reads at any
    offset, in any order, give the object's bytes."""
    bucket = s3_server.bucket()
    data = EVENTS * (20_000_000 // len(EVENTS))
    for index in range(3):
        s3_server.put(f"s3://{bucket}/big-{index}.jsonl", data)
    run_ = validate(f"s3://{bucket}/")
    with fetched() as sizes:
        parts = split(run_, 4_000_000)
    assert sum(part.is_range for part in parts) == 3 * 5
    assert len(sizes) == 3 and sum(sizes) <= 3 * 2 * remote.FIRST_READ_AHEAD_BYTES
    url = f"s3://{bucket}/big-1.jsonl"
    with remote.open_url(url) as opened, fetched() as sizes:
        assert opened.read(10) == data[:10]
        for offset, size in ((7_000_000, 5), (100, 3_000_000), (len(data) - 7, 100), (0, 0)):
            opened.seek(offset)
            assert opened.read(size) == data[offset : offset + size]
        opened.seek(-50, os.SEEK_END)
        assert opened.read() == data[-50:]
        opened.seek(len(data) + 5)
        assert opened.read(1) == b""
    assert max(sizes) <= 3_000_000
