"""The streamed reader of ``s3://`` objects (``phi_wire.remote_s3``, obstore), against the S3
server of ``tests/s3.py``: a part of an object cut into byte ranges costs one GET (s3fs's reader
asks one per 1-8 MB of read-ahead, and moto reads the whole object for each), and the reader's
errors are the run's usual input errors, one line each: a missing object, an object changed
after it was listed, a server that went away (then s3fs, the fallback, says why)."""

from __future__ import annotations

import logging
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import s3fs
from command import run
from s3 import S3
from test_remote_requests import served

from phi_wire import remote
from phi_wire.validate import INPUT, validate
from phi_wire.validate.parts import judge, lines_in, split

EVENTS = (Path(__file__).resolve().parent.parent / "examples" / "events.jsonl").read_bytes()


@pytest.fixture
def streamed(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """The streamed reader's own log (one line per chunk it receives, one when it hands an
    object to s3fs) and s3fs's (one line per ranged GET), captured."""
    caplog.set_level(logging.DEBUG, logger="phi_wire.remote_s3")
    caplog.set_level(logging.DEBUG, logger="s3fs")
    yield caplog


def fetched_by(caplog: pytest.LogCaptureFixture, library: str, url: str) -> int:
    """How many chunks (the streamed reader) or ranged GETs (s3fs) of ``url`` were logged."""
    key = url.partition("://")[2]
    marker = "Fetched: " if library == "phi_wire.remote_s3" else "Fetch: "
    return sum(
        1
        for record in caplog.records
        if record.name == library
        and record.getMessage().startswith(marker)
        and key in record.getMessage()
    )


def test_each_range_of_an_object_is_one_get(s3_server: S3, streamed: object) -> None:
    """Judging the ranges of a 12 MB object: one GET per range (on main, s3fs's read-ahead
    asked 1, 2, 4, 8 MB... a GET each, several per range), every line judged once."""
    bucket = s3_server.bucket()
    url = f"s3://{bucket}/big.jsonl"
    data = EVENTS * (12_000_000 // len(EVENTS))
    s3_server.put(url, data)
    run_ = validate(url)
    parts = split(run_, 4_000_000)
    assert len(parts) > 2 and all(part.is_range for part in parts)
    with served() as requests:
        judged = [judge(part, run_.settings) for part in parts]
    gets = [line for line in requests if line.startswith("GET ") and "/big.jsonl" in line]
    assert len(gets) == len(parts)
    assert sum(lines_in(outcomes) for outcomes in judged) == data.count(b"\n")


def test_a_missing_object_is_an_input_error(
    s3_server: S3, streamed: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """An object listed, then deleted before it is read: one input error naming it (the
    streamed reader finds it missing, s3fs says so in the usual words); the others read on,
    through the streamed reader."""
    bucket = s3_server.bucket()
    gone, kept = f"s3://{bucket}/in/gone.jsonl", f"s3://{bucket}/in/kept.jsonl"
    s3_server.put(gone, EVENTS)
    s3_server.put(kept, EVENTS)
    run_ = validate(f"s3://{bucket}/in/")
    s3_server.filesystem().rm(gone)
    records = list(run_)
    inputs = [r for r in records if r.kind == INPUT]
    assert [r.file for r in inputs] == [gone]
    assert "\n" not in inputs[0].message and "cannot read" in inputs[0].message
    assert [r.file for r in run_.tally.input_errors] == [gone]
    assert fetched_by(streamed, "phi_wire.remote_s3", kept) >= 1
    assert fetched_by(streamed, "s3fs", kept) == 0


def test_an_object_changed_after_listing_is_an_input_error_here(
    s3_server: S3, streamed: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """An object rewritten (same size, a new ETag) between the listing and the read: the
    streamed reader's ``If-Match`` GET is refused, an input error saying so; no byte of the new
    version is read, by it or by s3fs."""
    bucket = s3_server.bucket()
    url = f"s3://{bucket}/in/events.jsonl"
    s3_server.put(url, EVENTS)
    run_ = validate(f"s3://{bucket}/in/")
    s3_server.put(url, b" " + EVENTS[:-1])
    records = list(run_)
    assert [(r.file, r.kind) for r in records] == [(url, INPUT)]
    assert "the object changed after it was listed" in records[0].message
    assert fetched_by(streamed, "phi_wire.remote_s3", url) == 0
    assert fetched_by(streamed, "s3fs", url) == 0


def test_a_server_gone_is_one_line(
    s3_server: S3,
    streamed: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A store that goes away between the listing and the reads: an input error of one line
    per object (the streamed reader cannot connect, s3fs then cannot either and says why), and
    the command against it: one line, exit 2, no traceback."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://{host}:{port}")
    s3fs.S3FileSystem.clear_instance_cache()  # s3fs's instance for the other server: not reused
    bucket = f"gone-{uuid.uuid4().hex[:12]}"
    fs = s3fs.S3FileSystem(skip_instance_cache=True)
    fs.mkdir(bucket)
    url = f"s3://{bucket}/in/events.jsonl"
    fs.pipe(url, EVENTS)
    try:
        run_ = validate(f"s3://{bucket}/in/")
        assert remote.listed(url) is not None
    finally:
        server.stop()
    records = list(run_)
    assert [(r.file, r.kind) for r in records] == [(url, INPUT)]
    assert "\n" not in records[0].message and "cannot read" in records[0].message
    handed = [r for r in streamed.records if "read through s3fs" in r.getMessage()]
    assert handed and url in handed[0].getMessage()
    code, out, err = run(capsys, "validate", f"s3://{bucket}/in/")
    assert code == 2 and "Traceback" not in err and "Traceback" not in out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"phi-wire: s3://{bucket}/in/: cannot read")
    s3fs.S3FileSystem.clear_instance_cache()


def test_a_long_read_goes_on_from_one_get_to_the_next(
    s3_server: S3, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A GET asks ``SPAN_BYTES`` at most (3 MB here): reading a 10 MB object whole, 4 MB at a
    time, takes 4 GETs one after the other and gives its bytes, none lost at the seams."""
    from phi_wire import remote_s3

    monkeypatch.setattr(remote_s3, "SPAN_BYTES", 3_000_000)
    bucket = s3_server.bucket()
    url = f"s3://{bucket}/long.jsonl"
    data = EVENTS * (10_000_000 // len(EVENTS))
    s3_server.put(url, data)
    remote.files_under(f"s3://{bucket}/")
    with served() as requests, remote.open_url(url) as opened:
        pieces = []
        while piece := opened.read(4_000_000):
            pieces.append(piece)
    assert b"".join(pieces) == data
    assert len([line for line in requests if line.startswith("GET ")]) == 4


def test_without_obstore_s3fs_reads(s3_server: S3, monkeypatch: pytest.MonkeyPatch) -> None:
    """obstore not installed (or ``PHI_WIRE_S3_READER=s3fs``): s3fs's reader serves the same
    bytes, as before the streamed reader."""
    bucket = s3_server.bucket()
    url = f"s3://{bucket}/events.jsonl"
    s3_server.put(url, EVENTS)
    with remote.open_url(url) as opened:
        assert not isinstance(opened, remote.RemoteFile) and opened.read() == EVENTS
    monkeypatch.setenv("PHI_WIRE_S3_READER", "s3fs")
    with remote.open_url(url) as opened:
        assert isinstance(opened, remote.RemoteFile) and opened.read() == EVENTS
    monkeypatch.delenv("PHI_WIRE_S3_READER")
    monkeypatch.setitem(sys.modules, "obstore", None)  # as if not installed
    with remote.open_url(url) as opened:
        assert isinstance(opened, remote.RemoteFile) and opened.read() == EVENTS
