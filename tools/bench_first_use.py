"""Benchmark ``loads`` from a fresh process's first document (issue 21, goal 2).

    python tools/bench_first_use.py [--rounds 5] [--documents 50000] [--wait 600] [--fixtures PATH]
                                    [--clock {wall,cpu}] [--python PYTHON ...]

Each round starts a fresh interpreter with an empty private cache (``PHI_WIRE_CACHE_DIR``, a new
folder) and no ``prepare()``: it reads the phi-core 0.8.0 event stream's lines over and over,
``loads(AgentEvent, line)`` for each of ``--documents`` documents, noting the time after every
1,000. Then, in the same process, the same documents with ``json.loads`` and the first 5,000 with
the exact path alone (the same type under another name, which has no fast path), three times each
(medians). A second fresh process then reads the same documents with the cache the first left (a
short process's build kept for the next one). Printed per round and as medians over the rounds:

* first 1,000: ``json.loads``' time for 1,000 documents / ``loads``' for the first 1,000 (goal
  >= 0.25x);
* first N: the same over all ``--documents`` (goal >= 0.45x for 50,000);
* worst later stretch: the slowest 1,000 documents of ``loads`` after the first 1,000 (which
  hold the type's one-time set-up, the exact path's as much as the fast path's) against
  ``json.loads`` and against the exact path alone (goal: never below 1.0x the exact path);
* switched: after how many documents the fast path was on (a stretch 2.5x faster than the
  first);
* steady: the median 1,000 documents of the second half against ``json.loads`` (steady state:
  goal >= 0.6x);
* first document ms: the first ``loads`` alone, the type's one-time set-up (the expression looked
  for and checked, the sources' digest, the validators built), and json.loads 1,000 ms, the
  yardstick of the first 1,000 (the goal of 0.25x leaves 4x that for set-up and documents).

``--python`` (repeatable) compares installations side by side: each round runs every given
interpreter in turn (say main's venv and this one's), and the medians are given per interpreter.
A wheel's shipped expressions (``phi_wire.fastpath._shipped``) are used when they are there: the
"empty cache" is the user's cache, as a fresh installation has it.

The machine is shared: state its load (``uptime``) beside the figures. On a loaded machine
``--clock cpu`` times each process by its own CPU time, which waiting for a core does not count.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ROUND = r"""
import json, sys, time
from typing import Annotated
lines = open(sys.argv[1], "rb").read().split(b"\n")[:-1]
count = int(sys.argv[2])
documents = (lines * (count // len(lines) + 1))[:count]
clock = getattr(time, sys.argv[3])
import phi_wire.v0_8 as wire
tp = wire.AgentEvent
marks = []
start = clock()
wire.loads(tp, documents[0])
first = clock() - start
for index, document in enumerate(documents[1:], 2):
    wire.loads(tp, document)
    if index % 1000 == 0:
        marks.append(clock() - start)
stretches = [marks[0]] + [b - a for a, b in zip(marks, marks[1:])]
def median_of_three(run):
    times = []
    for _ in range(3):
        begin = clock()
        run()
        times.append(clock() - begin)
    return sorted(times)[1]
def json_loop():
    for document in documents:  # each value dropped at once, as the loads loop does
        json.loads(document)
def exact_loop():
    for document in documents[:5000]:
        wire.loads(exact, document)
json_all = median_of_three(json_loop)
exact = Annotated[wire.AgentEvent, "the exact path"]
wire.loads(exact, documents[0])
exact_1000 = median_of_three(exact_loop) / 5
found = {"stretches": stretches, "json_all": json_all, "exact_1000": exact_1000, "first": first}
print(json.dumps(found))
"""


CLOCKS = {"wall": "perf_counter", "cpu": "process_time"}
"""What the rounds time with: the wall clock, or the process's CPU time (every thread of it,
a background build included)."""


def one_round(
    python: str, stream: Path, documents: int, cache: Path, clock: str
) -> dict[str, float]:
    environment = dict(os.environ, PHI_WIRE_CACHE_DIR=str(cache))
    output = subprocess.run(
        [python, "-c", ROUND, str(stream), str(documents), clock],
        capture_output=True,
        text=True,
        check=True,
        env=environment,
    ).stdout
    found = json.loads(output)
    stretches: list[float] = found["stretches"]
    json_1000 = found["json_all"] / len(stretches)
    switched = next(
        (
            (index + 1) * 1000
            for index, seconds in enumerate(stretches)
            if seconds < stretches[0] / 2.5
        ),
        float("nan"),
    )
    return {
        "first 1,000": json_1000 / stretches[0],
        f"first {documents:,}": found["json_all"] / sum(stretches),
        "worst later 1,000 vs json.loads": json_1000 / max(stretches[1:]),
        "vs exact path": found["exact_1000"] / max(stretches[1:]),
        "switched after": switched,
        "steady": json_1000 / statistics.median(stretches[len(stretches) // 2 :]),
        "first document ms": found["first"] * 1000,
        "json.loads 1,000 ms": json_1000 * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--documents", type=int, default=50_000)
    parser.add_argument(
        "--wait", type=float, default=600.0, help="seconds to wait for the first run's cache"
    )
    parser.add_argument("--fixtures", type=Path, default=ROOT.parent / "shared" / "fixtures")
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="cpu: the process's CPU time (all its threads), steadier on a loaded machine",
    )
    parser.add_argument(
        "--python", action="append", help="an interpreter to measure (default: this one)"
    )
    arguments = parser.parse_args()
    pythons: list[str] = arguments.python or [sys.executable]
    stream = arguments.fixtures / "phi-core" / "0.8.0" / "streams" / "events.main_session.jsonl"
    results: dict[tuple[str, str], list[dict[str, float]]] = {}
    for number in range(arguments.rounds):
        for python in pythons:
            fresh, second, found = two_processes(
                python, stream, arguments.documents, arguments.wait, CLOCKS[arguments.clock]
            )
            results.setdefault((python, "empty cache"), []).append(fresh)
            results.setdefault((python, "cache left by it"), []).append(second)
            print(f"round {number + 1} {python}:\n  empty cache {fmt(fresh)}")
            missing = "" if found else " (not found)"
            print(f"  cache left by it{missing} {fmt(second)}")
    print(f"medians of {arguments.rounds} rounds (python {sys.version.split()[0]}):")
    for (python, label), rows in results.items():
        medians = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
        print(f"  {python}\n    {label:17s} {fmt(medians)}")
    print(
        "  goals: first 1,000 >= 0.25x, first 50,000 >= 0.45x, no stretch < 1.0x the exact path,"
        " steady >= 0.6x"
    )


def two_processes(
    python: str, stream: Path, documents: int, wait: float, clock: str
) -> tuple[dict[str, float], dict[str, float], bool]:
    """A fresh process with an empty cache, then one with the cache the first left (waited for,
    if the first one's build is still under way elsewhere); whether that cache was found."""
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder) / "cache"
        fresh = one_round(python, stream, documents, cache, clock)
        waited = subprocess.run(
            [python, "-c", WAIT, "0.8", "AgentEvent", str(wait)],
            env=dict(os.environ, PHI_WIRE_CACHE_DIR=str(cache)),
            check=False,
        )
        second = one_round(python, stream, documents, cache, clock)
    return fresh, second, waited.returncode == 0


WAIT = r"""
import sys, time
from phi_wire.fastpath import document_expression
deadline = time.monotonic() + float(sys.argv[3])
while document_expression(sys.argv[1], sys.argv[2], build=False) is None:
    if time.monotonic() > deadline:
        sys.exit(1)
    time.sleep(0.2)
"""


def fmt(row: dict[str, float]) -> str:
    return "  ".join(
        f"{key} {value:,.0f}"
        if key == "switched after"
        else f"{key} {value:.1f}"
        if key.endswith(" ms")
        else f"{key} {value:.2f}x"
        for key, value in row.items()
    )


if __name__ == "__main__":
    main()
