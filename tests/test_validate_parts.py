"""``phi_wire.validate.parts``, the seam a distributed runner builds on, without a cluster: a run
cut into parts of any block size, judged one by one, placed and merged in any grouping, gives the
single-process run's records, files and tally (property-tested: the lines, the block size, the
grouping of the reduction)."""

from __future__ import annotations

import gzip
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from phi_wire.validate import validate
from phi_wire.validate.parts import (
    Totals,
    closed,
    counted,
    judge,
    line_offsets,
    lines_in,
    merged,
    split,
    walked,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
EVENTS = (EXAMPLES / "events.jsonl").read_bytes().splitlines(keepends=True)
POOL = [
    *EVENTS[:6],
    EVENTS[1].replace(b'"timestamp"', b'"timestamp_"', 1),  # invalid
    b"\n",  # blank: not JSON
    b"{not json\n",
    b'{"type":"TurnStart","x":"' + b"y" * 700 + b'"}\n',
]


def grouped(totals: list[Totals], every: int) -> Totals:
    """A tree reduction in groups of ``every``, as a cluster's would run."""
    while len(totals) > 1:
        totals = [merged(totals[i : i + every]) for i in range(0, len(totals), every)]
    return totals[0] if totals else Totals()


@settings(max_examples=25)
@given(
    lines=st.lists(st.sampled_from(POOL), min_size=0, max_size=80),
    block=st.integers(min_value=64, max_value=8192),
    every=st.integers(min_value=2, max_value=5),
)
def test_parts_give_the_local_run(lines: list[bytes], block: int, every: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        data = b"".join(lines)
        (folder / "a.jsonl").write_bytes(data)
        (folder / "b.jsonl.gz").write_bytes(gzip.compress(data))
        (folder / "c.jsonl").write_bytes(b"".join(lines[:3]))
        local = validate(str(folder))
        records = list(local)
        run = validate(str(folder))
        parts = split(run, block)
        judged = [judge(part, run.settings) for part in parts]
        offsets = line_offsets(parts, [lines_in(outcomes) for outcomes in judged])
        counts = [counted(*found) for found in zip(parts, judged, offsets, strict=True)]
        totals = walked(run).merged(grouped([count.totals for count in counts], every))
        closing = closed(totals, run.paths)
        found = list(run.walk.records) + [r for count in counts for r in count.records]
        found += [] if closing is None else [closing]
        assert found == records
        assert totals.summaries() == local.files
        assert totals.tally.as_dict() == local.tally.as_dict()
        assert totals.tally.input_errors == local.tally.input_errors
        if len(data) > 2 * block:
            assert sum(part.is_range for part in parts) >= 2
