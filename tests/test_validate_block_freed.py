"""A JSONL file's block is let go before the next one is read (``_inputs._lines``,
``_parallel.judged``): its buffer is then freed, and the allocator hands the same memory, its
pages already mapped, to the next block (issue 21, goal 1). Held on to, each 4 MB block came in
fresh pages: some 2,000 page faults, 5-7 ms per 8 MB of pi messages, an eighth of the run.

Counted, not timed: the blocks a run's ``read_on`` returned that are still alive when it reads
the next one, over a file of many blocks of valid lines (an invalid line's block:
``test_validate_error_frees_block``).
"""

from __future__ import annotations

import weakref
from pathlib import Path

import pytest

from phi_wire.validate import _inputs, validate
from phi_wire.validate._inputs import Source

EVENTS = (Path(__file__).resolve().parent.parent / "examples" / "events.jsonl").read_bytes()


class _Watched(bytearray):
    """A block's buffer whose life a test can follow (a ``bytearray`` takes no weak
    reference)."""


def test_a_block_is_freed_before_the_next_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_inputs, "RAW_BLOCK_BYTES", 64)  # the first read used up at once
    monkeypatch.setattr(_inputs, "BLOCK_BYTES", 4096)
    lines = EVENTS.splitlines() * 120  # phi-core's events, some 500 kB, valid
    path = tmp_path / "lines.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    read_on = Source.read_on
    blocks: list[weakref.ref[_Watched]] = []
    alive_at_reads: list[int] = []

    def watched(source: Source, carried: bytes, size: int) -> bytearray:
        alive_at_reads.append(sum(block() is not None for block in blocks))
        buffer = _Watched(read_on(source, carried, size))
        blocks.append(weakref.ref(buffer))
        return buffer

    monkeypatch.setattr(Source, "read_on", watched)
    run = validate([str(path)])
    assert [record for record in run if record.kind != "note"] == []
    assert run.tally.documents == len(lines) and run.tally.invalid == 0
    assert len(alive_at_reads) > 20  # many blocks, each read on
    assert alive_at_reads == [0] * len(alive_at_reads)
