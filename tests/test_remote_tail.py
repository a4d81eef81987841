"""One number for the line that runs across a part's end: a part's reader first asks
``remote_s3.TAIL_BYTES`` past the end, which is what the part's GET holds past it, so a part
whose last line ends within it costs one GET (were the reader to ask more than the GET holds,
every part would cost a second GET for the few bytes of its last line)."""

from __future__ import annotations

import pytest
from s3 import S3
from test_remote_s3_bounded import EVENTS, judged_alone, reader_log  # noqa: F401 (a fixture)

from phi_wire import remote_s3
from phi_wire.validate import validate
from phi_wire.validate.parts import counted, line_offsets, lines_in, split


@pytest.mark.parametrize("tail", [4 * 1024, 256 * 1024])
def test_a_part_reads_past_its_end_what_its_get_holds(
    s3_server: S3,
    reader_log: pytest.LogCaptureFixture,  # noqa: F811 (the fixture imported above)
    monkeypatch: pytest.MonkeyPatch,
    tail: int,
) -> None:
    """With the tail set smaller or larger than its 64 KB (phi-core lines here are at most
    1.5 KB, so every part's last line ends within it), each part of a 12 MB object is one GET;
    on main the reader's own 64 KB first read past the end outran a 4 KB tail: two GETs a
    part. The parts' records are those of the object judged whole."""
    monkeypatch.setattr(remote_s3, "TAIL_BYTES", tail)
    bucket = s3_server.bucket()
    url = f"s3://{bucket}/tail.jsonl"
    data = EVENTS * (12_000_000 // len(EVENTS))
    s3_server.put(url, data)
    run_ = validate(url)
    parts = split(run_, 3_000_000)
    assert len(parts) >= 4 and all(part.is_range for part in parts)
    judged = []
    for part in parts:
        outcomes, gets, asked, _ = judged_alone(part, run_.settings, reader_log)
        judged.append(outcomes)
        assert len(gets) == 1, (part.start, part.end, asked)
        assert asked == [(max(0, part.start - 1), min(len(data), part.end + tail))]
    offsets = line_offsets(parts, [lines_in(outcomes) for outcomes in judged])  # type: ignore[arg-type]
    records = [
        record
        for part, outcomes, offset in zip(parts, judged, offsets, strict=True)
        for record in counted(part, outcomes, offset).records  # type: ignore[arg-type]
    ]
    assert records == list(validate(url))
    assert sum(lines_in(outcomes) for outcomes in judged) == data.count(b"\n")  # type: ignore[arg-type]
