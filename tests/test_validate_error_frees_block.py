"""An invalid line's block is freed like any other (``_formats.frameless``): the reader's error
was raised from a local variable of the codec's frame, so error, traceback and frames formed a
cycle that only Python's cyclic collector frees, and the frames' callers held the 4 MB block of
lines being judged for the rest of a run (h21n, stop 30). A record keeps what it reports (file,
line, pointer, message), never a frame.

Counted, not timed, as ``test_validate_block_freed`` counts: the blocks ``read_on`` returned that
are still alive when it reads the next one, over a file whose first block holds an invalid line
and whose other lines are valid.
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

CASES = {
    # clark-agent history: a row's timestamp a string (the exact path's error, kept on main)
    "clark-agent": (HISTORY, b'"timestamp":', b'"timestamp":"x","y":'),
    # phi-core events: a timestamp an integer
    "phi-core": (EVENTS, b'"timestamp":"', b'"timestamp":5,"x":"'),
}


class _Watched(bytearray):
    """A block's buffer whose life a test can follow (a ``bytearray`` takes no weak
    reference)."""


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_invalid_lines_block_is_freed_before_the_next_is_read(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_inputs, "RAW_BLOCK_BYTES", 64)  # the first read used up at once
    monkeypatch.setattr(_inputs, "BLOCK_BYTES", 4096)
    source, old, new = CASES[case]
    valid = source.read_bytes().splitlines()
    lines = valid * max(2, 300_000 // len(b"\n".join(valid)))
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
    problems = [record for record in run if record.kind == "problem"]
    assert [(record.line, record.pointer) for record in problems] == [(2, "/timestamp")]
    assert run.tally.documents == len(lines) and run.tally.invalid == 1
    assert len(alive_at_reads) > 20  # many blocks, each read on
    assert alive_at_reads == [0] * len(alive_at_reads)
