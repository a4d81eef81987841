"""A JSONL file's block is let go before the next one is read (``_inputs._lines``,
``_parallel.judged``), whether its lines are valid or not: its buffer is then freed, and the
allocator hands the same memory, its pages already mapped, to the next block (issue 21, goal 1).
Held on to, each 4 MB block came in fresh pages: some 2,000 page faults, 5-7 ms per 8 MB of pi
messages, an eighth of the run.

An invalid line's block too (``_formats.frameless``): the reader's error was raised from a local
variable of the codec's frame, so error, traceback and frames formed a cycle that only Python's
cyclic collector frees, and the frames' callers held the 4 MB block of lines being judged for the
rest of a run (h21n, stop 30). A record keeps what it reports (file, line, pointer, message),
never a frame.

Counted, not timed: the blocks a run's ``read_on`` returned that are still alive when it reads
the next one, over a file of many blocks whose first may hold one invalid line.
"""

from __future__ import annotations

import weakref
from pathlib import Path

import pytest
from corpus import fixtures_root

from phi_wire.validate import _inputs, validate
from phi_wire.validate._inputs import Source

HISTORY = (
    fixtures_root() / "clark-agent" / "0.4.0" / "history" / "history.persistence_contract.jsonl"
)
EVENTS = Path(__file__).resolve().parent.parent / "examples" / "events.jsonl"

CASES: dict[str, tuple[Path, bytes, bytes]] = {
    # phi-core events, every line valid
    "valid": (EVENTS, b"", b""),
    # clark-agent history: a row's timestamp a string (the exact path's error, kept on main)
    "invalid clark-agent": (HISTORY, b'"timestamp":', b'"timestamp":"x","y":'),
    # phi-core events: a timestamp an integer
    "invalid phi-core": (EVENTS, b'"timestamp":"', b'"timestamp":5,"x":"'),
}


class _Watched(bytearray):
    """A block's buffer whose life a test can follow (a ``bytearray`` takes no weak
    reference)."""


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_block_is_freed_before_the_next_is_read(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_inputs, "RAW_BLOCK_BYTES", 64)  # the first read used up at once
    monkeypatch.setattr(_inputs, "BLOCK_BYTES", 4096)
    source, old, new = CASES[case]
    valid = source.read_bytes().splitlines()
    lines = valid * max(2, 300_000 // len(b"\n".join(valid)))
    if old:
        lines[1] = lines[1].replace(old, new, 1)  # in the first block
        assert lines[1] != valid[1]
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
    problems = [(record.line, record.pointer) for record in run if record.kind == "problem"]
    assert problems == ([(2, "/timestamp")] if old else [])
    assert run.tally.documents == len(lines) and run.tally.invalid == len(problems)
    assert len(alive_at_reads) > 20  # many blocks, each read on
    assert alive_at_reads == [0] * len(alive_at_reads)
