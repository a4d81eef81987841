"""tools/bench_convert.py's inputs: what the conversion benchmark times must be real documents.

Each kind of input it makes from the corpora (phi-core messages, events and a session;
clark-agent history and events; Operator-Use messages and a session file) is read by its own
format's public ``loads`` as the type the benchmark converts it as, holds no two equal lines but
those with nothing to vary (the copies' ids and timestamps differ), keeps its references (an
Operator-Use session's entries each the child of the one before), and is made the same way every
time.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections import Counter
from pathlib import Path

import pytest
from corpus import ROOT, fixtures_root

sys.path.insert(0, str(ROOT / "tools"))

import bench_convert

SIZE_MB = 0.3


@pytest.mark.parametrize("name", sorted(bench_convert.KINDS))
def test_each_input_is_valid_in_its_format_and_has_no_repeated_line(
    name: str, tmp_path: Path
) -> None:
    kind = bench_convert.KINDS[name]
    size = 1.2 if kind.layout == "document" else SIZE_MB  # the session: its loops three times
    path = bench_convert.generated(kind, fixtures_root(), tmp_path, size)
    data = path.read_bytes()
    assert len(data) >= size * 1e6
    documents = bench_convert.documents_of(kind, path)
    values = bench_convert.loaded(kind, documents)  # the format's loads; raises if invalid
    if kind.layout == "lines":
        assert len(values) == len(documents) == data.count(b"\n")
    if kind.layout == "session-file":
        assert not values.skipped  # no line Operator-Use's reader would skip
    if kind.layout != "document":
        # a line repeats only if it has no id and no timestamp to vary ({"type":"agent_start"})
        repeated = [line for line, count in Counter(data.splitlines()).items() if count > 1]
        for line in repeated:
            document = json.loads(line)
            assert bench_convert.varied(document, 1) == document, f"not varied: {line[:200]!r}"
        assert len(repeated) < 10
    else:
        loops = json.loads(data)["loops"]
        ids = [loop["loop_id"] for loop in loops]
        assert len(ids) >= 18 and len(set(ids)) == len(ids)


def test_the_operator_use_session_is_one_chain(tmp_path: Path) -> None:
    """Every entry is the child of the one before, so the whole file is the active branch (what
    the command converts), and the entry ids are all different."""
    kind = bench_convert.KINDS["Operator-Use session"]
    path = bench_convert.generated(kind, fixtures_root(), tmp_path, SIZE_MB)
    header, *entries = map(json.loads, path.read_bytes().splitlines())
    assert header["type"] == "session" and "parent_id" not in entries[0]
    assert all(entry["parent_id"] == before["id"] for before, entry in itertools.pairwise(entries))
    assert len({entry["id"] for entry in entries}) == len(entries)


def test_a_copy_varies_ids_and_times_but_keeps_references() -> None:
    """Copy 3 of a tool call and its result: both ids moved alike, the timestamp 3 hours on."""
    call = {"type": "tool_call", "id": "call_1", "timestamp": 1_767_225_600_000}
    result = {"tool_call_id": "call_1", "parent_id": "ec89b7a6", "timestamp": 1763892003.5}
    loop = {"loop_id": "9b2f4c1a-6e3d.1", "started_at": "2026-05-25T09:41:07.386712788Z"}
    assert bench_convert.varied(call, 0) == call
    moved_call, moved_result, moved_loop = (
        bench_convert.varied(v, 3) for v in (call, result, loop)
    )
    assert moved_call["id"] == moved_result["tool_call_id"] == "call_1-3"
    assert moved_call["timestamp"] == 1_767_225_600_000 + 3 * 3_600_000
    assert moved_result["timestamp"] == 1763892003.5 + 3 * 3600
    assert moved_result["parent_id"] != "ec89b7a6" and len(moved_result["parent_id"]) == 8
    assert moved_loop["loop_id"].endswith("-6e3d.1") and moved_loop["loop_id"] != loop["loop_id"]
    assert moved_loop["started_at"] == "2026-05-25T12:41:07.386712788Z"


def test_inputs_are_made_the_same_way_every_time(tmp_path: Path) -> None:
    kind = bench_convert.KINDS["clark-agent events"]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = bench_convert.generated(kind, fixtures_root(), tmp_path / "a", SIZE_MB)
    second = bench_convert.generated(kind, fixtures_root(), tmp_path / "b", SIZE_MB)
    assert first.read_bytes() == second.read_bytes()
