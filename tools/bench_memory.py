"""Measure the memory a decoded phi-core event holds, beside a dict of the same event (issue 21,
goal 5: programs that keep a session in memory).

    python tools/bench_memory.py [--copies 20] [--fixtures PATH]

Decodes the phi-core 0.8.0 event stream's lines (``--copies`` times over, each line decoded
afresh) and the persisted sessions' messages, and counts with ``tracemalloc`` the bytes the kept
values hold: ``loads(AgentEvent, line)`` (pydantic models, the fast path prepared) against
``json.loads(line)`` (dicts), and ``loads(Session, file)`` against ``json.load``. Strings shared
by both (interned keys) count once in each; what is measured is what the list of values adds.
Deterministic: no timing.

Then where a decoded event's extra bytes lie, by a ``sys.getsizeof`` walk of the kept values: the
model instances themselves, their ``__dict__``s, and the ``__pydantic_fields_set__`` set each one
carries (pydantic makes one per instance), against the dicts' own containers (issue 21, goal 5:
what a slotted or lazy representation could save).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def held(make: Callable[[], list[Any]]) -> tuple[int, int]:
    """(bytes the values ``make`` returns hold, how many values)."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    values = make()
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    count = len(values)
    del values
    return after - before, count


def parts(value: Any, found: dict[str, int], seen: set[int]) -> None:
    """Add to ``found`` the bytes of each kind of container under ``value`` (each object once)."""
    if id(value) in seen:
        return
    seen.add(id(value))
    fields_set = getattr(value, "__pydantic_fields_set__", None)
    if isinstance(fields_set, set):  # a model instance
        found["model objects"] = found.get("model objects", 0) + sys.getsizeof(value)
        found["model __dict__s"] = found.get("model __dict__s", 0) + sys.getsizeof(value.__dict__)
        found["fields-set sets"] = found.get("fields-set sets", 0) + sys.getsizeof(fields_set)
        children: Any = value.__dict__.values()
    elif isinstance(value, dict):
        found["dicts"] = found.get("dicts", 0) + sys.getsizeof(value)
        children = value.values()
    elif isinstance(value, list):
        found["lists"] = found.get("lists", 0) + sys.getsizeof(value)
        children = value
    else:
        found["leaves"] = found.get("leaves", 0) + sys.getsizeof(value)
        return
    for child in children:
        parts(child, found, seen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--fixtures", type=Path, default=ROOT.parent / "shared" / "fixtures")
    arguments = parser.parse_args()
    import phi_wire.v0_8 as wire

    base = arguments.fixtures / "phi-core" / "0.8.0"
    lines = (base / "streams" / "events.main_session.jsonl").read_bytes().split(b"\n")[:-1]
    sessions = [path.read_bytes() for path in sorted((base / "sessions").glob("*.json"))]
    wire.prepare(wire.AgentEvent)
    wire.prepare(wire.Session)
    for line in lines:  # every type's validator and serializer built before measuring
        wire.loads(wire.AgentEvent, line)
    documents = [bytes(line) for _ in range(arguments.copies) for line in lines]
    size = sum(len(line) for line in documents)
    cases: dict[str, Callable[[], list[Any]]] = {
        "loads(AgentEvent)": lambda: [wire.loads(wire.AgentEvent, line) for line in documents],
        "json.loads": lambda: [json.loads(line) for line in documents],
        "loads(Session)": lambda: [wire.loads(wire.Session, text) for text in sessions],
        "json.load (session)": lambda: [json.loads(text) for text in sessions],
    }
    results = {name: held(make) for name, make in cases.items()}
    print(
        f"{len(documents)} events ({len(lines)} stream lines x {arguments.copies}), "
        f"{size / len(documents):.0f} bytes of JSON each on average; "
        f"{len(sessions)} sessions, {sum(map(len, sessions)) / 1e6:.3f} MB"
    )
    for name, (total, count) in results.items():
        print(f"  {name:20s} {total / 1e6:8.3f} MB held  {total / count:10.0f} bytes per value")
    events, dicts = results["loads(AgentEvent)"][0], results["json.loads"][0]
    models, plain = results["loads(Session)"][0], results["json.load (session)"][0]
    print(f"  a decoded event holds {events / dicts:.2f}x the memory of its dict")
    print(f"  a decoded session holds {models / plain:.2f}x the memory of its dicts")
    for name, make in (
        ("loads(AgentEvent)", cases["loads(AgentEvent)"]),
        ("json.loads", cases["json.loads"]),
    ):
        found: dict[str, int] = {}
        seen: set[int] = set()
        values = make()
        for value in values:
            parts(value, found, seen)
        shares = ", ".join(
            f"{kind} {size / len(values):.0f}" for kind, size in sorted(found.items())
        )
        print(f"  {name}: bytes per event by kind (getsizeof walk): {shares}")


if __name__ == "__main__":
    main()
