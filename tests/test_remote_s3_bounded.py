"""What a part of an ``s3://`` object costs the store, against the S3 server of ``tests/s3.py``:
a part's GET asks for the part's bytes and the line running across its end (``TAIL_BYTES`` past
it, more only for a longer line), not up to the object's end (moto reads what it sends, and a
store bills what leaves it); and a worker that reads objects it was told of (a part's listing)
sets up neither s3fs nor botocore when the environment names the store, keys and region."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from s3 import S3
from test_remote_requests import served

from phi_wire import remote, remote_s3
from phi_wire.validate import validate
from phi_wire.validate.parts import Part, counted, judge, line_offsets, lines_in, split

EVENTS = (Path(__file__).resolve().parent.parent / "examples" / "events.jsonl").read_bytes()
_ASKED = re.compile(r"^GET: (\S+), (\d+)-(\d+)$")
_FETCHED = re.compile(r"^Fetched: (\S+), (\d+)-(\d+)$")


@pytest.fixture
def reader_log(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """The streamed reader's log: a line per GET it asks (its range) and per chunk received."""
    caplog.set_level(logging.DEBUG, logger="phi_wire.remote_s3")
    yield caplog


def spans(caplog: pytest.LogCaptureFixture, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    """The (start, end) of each GET asked or chunk received, as the reader logged them."""
    found = (pattern.match(record.getMessage()) for record in caplog.records)
    return [(int(match[2]), int(match[3])) for match in found if match is not None]


def judged_alone(
    part: Part, run_settings: object, caplog: pytest.LogCaptureFixture
) -> tuple[list[object], list[str], list[tuple[int, int]], list[tuple[int, int]]]:
    """A part judged, with the server's GET lines and the reader's asked and received spans."""
    caplog.clear()
    with served() as requests:
        outcomes = judge(part, run_settings)  # type: ignore[arg-type]
    gets = [line for line in requests if line.startswith("GET ")]
    return outcomes, gets, spans(caplog, _ASKED), spans(caplog, _FETCHED)  # type: ignore[return-value]


def parts_records(parts: list[Part], judged: list[list[object]]) -> list[object]:
    """The records of the parts judged one by one, their lines numbered as in the whole
    object: those of the object judged whole, when no part judged a line twice or missed one."""
    offsets = line_offsets(parts, [lines_in(outcomes) for outcomes in judged])  # type: ignore[arg-type]
    return [
        record
        for part, outcomes, offset in zip(parts, judged, offsets, strict=True)
        for record in counted(part, outcomes, offset).records  # type: ignore[arg-type]
    ]


@pytest.mark.parametrize("tail", [None, 4 * 1024, 256 * 1024])
def test_a_part_asks_its_bytes_and_the_line_across_its_end(
    s3_server: S3,
    reader_log: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    tail: int | None,
) -> None:
    """Each 3 MB part of a 12 MB object is one GET (the server's log) asking from the byte
    before the part (is a line starting there?) to ``TAIL_BYTES`` past its end, and receiving no
    more; on main a part's GET asked up to the object's end and received a read block (4 MB)
    past the part's end. The parts' records are those of the object judged whole.

    One number for the line across a part's end: with ``TAIL_BYTES`` set smaller or larger than
    the reader's own 64 KB first read (phi-core lines here are at most 1.5 KB, so every part's
    last line ends within it), still one GET a part; before, a 4 KB tail cost two GETs a part
    (the reader asked more past the end than the GET held)."""
    if tail is not None:
        monkeypatch.setattr(remote_s3, "TAIL_BYTES", tail)
    bucket = s3_server.bucket()
    url = f"s3://{bucket}/big.jsonl"
    data = EVENTS * (12_000_000 // len(EVENTS))
    s3_server.put(url, data)
    run_ = validate(url)
    parts = split(run_, 3_000_000)
    assert len(parts) >= 4 and all(part.is_range for part in parts)
    judged = []
    for part in parts:
        outcomes, gets, asked, fetched = judged_alone(part, run_.settings, reader_log)
        judged.append(outcomes)
        first = max(0, part.start - 1)
        bound = min(len(data), part.end + remote_s3.TAIL_BYTES)
        assert len(gets) == 1 and asked == [(first, bound)], (part.start, part.end, asked)
        assert fetched and fetched[0][0] == first and max(end for _, end in fetched) <= bound
        received = sum(end - start for start, end in fetched)
        assert received <= (part.end - part.start) + 1 + remote_s3.TAIL_BYTES
    assert parts_records(parts, judged) == list(validate(url))
    assert sum(lines_in(outcomes) for outcomes in judged) == data.count(b"\n")  # type: ignore[arg-type]


def test_a_line_longer_than_the_tail_is_read_on_in_growing_gets(
    s3_server: S3, reader_log: pytest.LogCaptureFixture
) -> None:
    """A line of 1.2 MB (longer than a part) across a part's end: the part's first GET stops
    ``TAIL_BYTES`` past the end, the line is read on by GETs of ``TAIL_BYTES``, then twice as
    much each (a few, not one per read), and the parts' records are those of the object judged
    whole."""
    bucket = s3_server.bucket()
    url = f"s3://{bucket}/long-line.jsonl"
    half = EVENTS * (2_000_000 // len(EVENTS))
    long_line = json.dumps({"type": "note", "text": "x" * 1_200_000}).encode() + b"\n"
    data = half + long_line + half
    s3_server.put(url, data)
    run_ = validate(url)
    parts = split(run_, 1_000_000)
    inside = [part for part in parts if len(half) < part.end < len(half) + len(long_line)]
    assert len(inside) == 1
    judged = []
    for part in parts:
        outcomes, gets, asked, _ = judged_alone(part, run_.settings, reader_log)
        judged.append(outcomes)
        if part is not inside[0]:
            continue
        tail = remote_s3.TAIL_BYTES
        assert asked[0] == (part.start - 1, part.end + tail)
        past = part.end + tail
        for start, end in asked[1:]:  # each GET past the bound starts where the last ended
            assert start == past
            assert end - start == max(tail, min(remote_s3.SPAN_BYTES, start - part.end))
            past = end
        assert len(gets) == len(asked) <= 7 and past >= len(half) + len(long_line)
    assert parts_records(parts, judged) == list(validate(url))


_WORKER = """
import json, sys
from phi_wire import remote
remote.remember(remote.Listed(sys.argv[1], int(sys.argv[2]), sys.argv[3] or None))
with remote.open_url(sys.argv[1]) as opened:
    data = opened.read()
print(json.dumps([len(data), type(opened).__name__, "s3fs" in sys.modules,
                  "botocore.session" in sys.modules]))
"""


def worker_reads(url: str, size: int, etag: str, **environment: str | None) -> list[object]:
    """What a fresh process told of an object (as a Dask worker is, by its part) reads of it,
    and whether it imported s3fs and botocore's session to do so."""
    env = dict(os.environ)
    for name, value in environment.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    done = subprocess.run(
        [sys.executable, "-c", _WORKER, url, str(size), etag],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_a_worker_told_of_an_object_sets_up_no_s3fs_nor_botocore(s3_server: S3) -> None:
    """The environment names the endpoint, keys and region (as ``tests/s3.py``'s does): a
    process reads an object it was told of with obstore alone, importing neither s3fs nor
    botocore's session (on main: both, about 0.5 s of CPU per worker); without the region in
    the environment, botocore resolves the store as before, and the bytes are the same."""
    bucket = s3_server.bucket()
    url = f"s3://{bucket}/events.jsonl"
    s3_server.put(url, EVENTS)
    remote.files_under(f"s3://{bucket}/")
    found = remote.listed(url)
    assert found is not None
    etag = found.etag or ""
    assert worker_reads(url, len(EVENTS), etag) == [len(EVENTS), "S3Stream", False, False]
    resolved = worker_reads(url, len(EVENTS), etag, AWS_DEFAULT_REGION=None)
    assert resolved == [len(EVENTS), "S3Stream", False, True]


def test_reads_of_any_size_and_seeks_give_the_objects_bytes(
    s3_server: S3, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reads of odd sizes in order (each ending inside a chunk, whose rest the next read
    takes), short skips ahead, seeks back into the last read and before it, against the
    object's bytes; reads in order and short skips cost one GET, a seek back before what is
    held another."""
    import random

    monkeypatch.setattr(remote_s3, "CHUNK_BYTES", 64 * 1024)  # many chunks, many cut
    bucket = s3_server.bucket()
    url = f"s3://{bucket}/odd.jsonl"
    data = EVENTS * (3_000_000 // len(EVENTS))
    s3_server.put(url, data)
    remote.files_under(f"s3://{bucket}/")
    picks = random.Random(22)
    with served() as requests, remote.open_url(url) as opened:
        position = 0
        while position < len(data):
            if picks.random() < 0.2:  # a skip ahead of less than a chunk
                position = opened.seek(position + picks.randrange(1, 60_000))
            size = picks.randrange(1, 300_000)
            assert opened.read(size) == data[position : position + size]
            position = min(len(data), position + size)
    assert len([line for line in requests if line.startswith("GET ")]) == 1
    with served() as requests, remote.open_url(url) as opened:
        first = opened.read(200_000)
        opened.seek(150_000)  # back into the last read: held, no GET
        assert first + opened.read(100_000)[50_000:] == data[:250_000]
        opened.seek(10)  # back before what is held: a GET from there
        assert opened.read(1000) == data[10:1010]
    assert len([line for line in requests if line.startswith("GET ")]) == 2
