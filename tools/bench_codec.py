"""Benchmark ``loads``/``dumps`` against the standard library on phi-core's own fixtures.

    python tools/bench_codec.py [--repeat 15] [--fixtures PATH] [--only SECTION]
    python tools/bench_codec.py --only phi-core-dumps --beside PYTHON [--rounds 5] [--repeat 15]

Reads the largest fixture files of the corpus (the event stream, one document per line, and the
persisted sessions), then times, side by side in one run and interleaved: ``json.loads`` vs
``loads(T, ...)``, and ``json.dumps`` vs ``dumps(...)``. Prints medians, MB/s and ratios.

Then issue 13's goals for ``loads``, each in interleaved rounds with its ceiling beside it, the
fast path made ready first (``phi_wire.prepare``, as a long-running reader would; a process
otherwise builds it in the background after 10,000 documents of a type):

* canonical events (the stream's lines, as phi-core wrote them), as bytes and as str, each
  against ``json.loads`` of the same input: ``loads(AgentEvent, line)`` (goal: at least 0.55x
  ``json.loads``), the same with the fast path switched off (the exact path every document took
  before), and the ceiling: pydantic's ``validate_json`` into the same models without phi-wire's
  checks;
* the cost of an invalid document: each stream line made invalid by one change (a string field
  given a number; an unknown event type) against the valid lines (goal: at most 5x).

Also times ``from phi_wire import AgentEvent`` in a fresh interpreter and one ``tools/codegen``
run.

Section phi-core (``--only phi-core`` runs it alone): all of the above but the start-up and codegen
times.

Section phi-core-dumps (``--only phi-core-dumps``; also part of phi-core): issue 21's goal 3,
``dumps`` against ``json.dumps`` of the same documents (bytes checked equal) for the stream's
events and the sessions, each compact and pretty; and what one ``SchemaSerializer.to_json`` call
costs with each ``warnings`` argument (``dumps`` passes ``"error"``). With ``--beside PYTHON``
(main's venv) it runs in child processes, one per interpreter taking turns for ``--rounds``
rounds, and prints both trees' medians side by side.

Section clark-agent (``--only clark-agent`` runs it alone): clark-agent 0.4's streams, history rows
and trajectories, one document per line: ``json.loads`` vs ``phi_wire.clark_agent.loads``, its
``dumps``, and ``convert`` of the events and messages to phi-core, interleaved in one run.

Section operator-use (``--only operator-use`` runs it alone): the d0da87a6 session files of its
corpus, each line read with ``json.loads`` vs ``phi_wire.operator_use.loads(SessionFileEntry,
line)``, whole files with ``loads(SessionFile, text)``, ``dumps`` vs ``json.dumps``, and the
conversion of each session to phi-core messages (``convert``) beside the ``json.loads`` of its
lines, all in interleaved rounds.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parent.parent


def corpus(root: Path) -> list[tuple[str, Any, bytes]]:
    """(label, wire type, document) for the stream lines and the session files of 0.8.0."""
    import phi_wire.v0_8 as wire

    base = root / "phi-core" / "0.8.0"
    lines = (base / "streams" / "events.main_session.jsonl").read_bytes().split(b"\n")[:-1]
    documents: list[tuple[str, Any, bytes]] = [("event", wire.AgentEvent, line) for line in lines]
    for path in sorted((base / "sessions").glob("*.json")):
        documents.append(("session", wire.Session, path.read_bytes()))
    return documents


def timed(function: Callable[[], object], clock: Callable[[], float] = time.perf_counter) -> float:
    """Seconds ``function`` takes, started with nothing left for the garbage collector: the
    collections a case sets off are its own cost, not the next case's."""
    gc.collect()
    start = clock()
    function()
    return clock() - start


def compare(
    repeat: int,
    cases: dict[str, Callable[[], object]],
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, float]:
    """Median seconds per case, the cases interleaved in every round."""
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeat):
        for name, function in cases.items():
            samples[name].append(timed(function, clock))
    return {name: statistics.median(values) for name, values in samples.items()}


INVALIDATIONS = {
    "a number for a string (loop_id)": (b'"loop_id":"', b'"loop_id":5,"_":"'),
    "an unknown event type": (b'{"type":"', b'{"type":"X'),
}
"""One change per stream line that makes phi-core reject it (each line has both keys)."""


def event_goal(repeat: int, wire: Any, lines: list[bytes]) -> dict[str, float]:
    """Median microseconds per canonical event, each line as bytes (read from a file) and as str
    (what an SSE client has): json.loads, loads with and without its fast path, and pydantic's
    validate_json (the ceiling)."""
    from typing import Annotated

    from phi_wire.base import adapter

    validate = adapter(wire.AgentEvent).validate_json
    tp = wire.AgentEvent
    # The same type under another name: only phi-core's own public types have a fast path, so
    # this one is always judged the exact way (the path every document took before).
    exact = Annotated[wire.AgentEvent, "the exact path"]
    texts = [line.decode("utf-8") for line in lines]

    def exact_path() -> None:
        for line in lines:
            wire.loads(exact, line)

    assert wire.prepare(tp) and not wire.prepare(exact)
    seconds = compare(
        repeat,
        {
            "json.loads": lambda: [json.loads(line) for line in lines],
            "loads(AgentEvent)": lambda: [wire.loads(tp, line) for line in lines],
            "loads, exact path": exact_path,
            "validate_json (ceiling)": lambda: [validate(line) for line in lines],
            "json.loads, str": lambda: [json.loads(text) for text in texts],
            "loads(AgentEvent), str": lambda: [wire.loads(tp, text) for text in texts],
            "validate_json (ceiling), str": lambda: [validate(text) for text in texts],
        },
    )
    return {name: value / len(lines) * 1e6 for name, value in seconds.items()}


def invalid_cost(repeat: int, wire: Any, lines: list[bytes]) -> dict[str, float]:
    """Median microseconds per line: the valid lines, then each kind of invalid line."""

    def judge(documents: list[bytes], valid: bool) -> Callable[[], object]:
        def run() -> None:
            for line in documents:
                try:
                    wire.loads(wire.AgentEvent, line)
                except wire.WireError:
                    if valid:
                        raise
                else:
                    if not valid:
                        raise AssertionError(f"accepted {line[:80]!r}")

        return run

    cases = {"valid": judge(lines, True)}  # on the fast path
    for label, (old, new) in INVALIDATIONS.items():
        changed = [line.replace(old, new, 1) for line in lines]
        assert all(a != b for a, b in zip(lines, changed, strict=True)), label
        cases[label] = judge(changed, False)
    seconds = compare(repeat, cases)
    return {name: value / len(lines) * 1e6 for name, value in seconds.items()}


def import_time() -> float:
    # phi_wire loads its names on first use: ask for one, as a program does
    code = (
        "import time; t = time.perf_counter(); from phi_wire import AgentEvent; "
        "print(time.perf_counter() - t)"
    )
    runs = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(5)
    ]
    return statistics.median(runs)


def codegen_time() -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "codegen.py"), "--check"],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start


def clark_corpus(root: Path) -> list[tuple[str, Any, bytes]]:
    """(label, wire type, line) for every line of clark-agent 0.4's JSONL fixtures."""
    import phi_wire.clark_agent as clark

    base = root / "clark-agent" / "0.4.0"
    kinds: tuple[tuple[str, Any], ...] = (
        ("streams", clark.AgentEvent),
        ("history", clark.AgentMessage),
        ("trajectory", clark.TrajectoryRecord),
    )
    return [
        (folder, tp, line)
        for folder, tp in kinds
        for path in sorted((base / folder).glob("*.jsonl"))
        for line in path.read_bytes().split(b"\n")[:-1]
    ]


def clark_section(root: Path, repeat: int) -> None:
    import phi_wire.clark_agent as clark
    from phi_wire.convert import convert

    documents = clark_corpus(root)
    megabytes = sum(len(raw) for _, _, raw in documents) / 1e6
    values = [clark.loads(tp, raw) for _, tp, raw in documents]
    plain = [json.loads(raw) for _, _, raw in documents]
    # the convertible part: events and history rows (trajectory records have no counterpart)
    convertible = [
        value
        for (label, _, _), value in zip(documents, values, strict=True)
        if label != "trajectory"
    ]
    convertible_mb = sum(len(raw) for label, _, raw in documents if label != "trajectory") / 1e6
    results = compare(
        repeat,
        {
            "json.loads": lambda: [json.loads(raw) for _, _, raw in documents],
            "clark.loads": lambda: [clark.loads(tp, raw) for _, tp, raw in documents],
            "json.dumps": lambda: [
                json.dumps(value, ensure_ascii=False, separators=(",", ":")) for value in plain
            ],
            "clark.dumps": lambda: [clark.dumps(value) for value in values],
            "convert": lambda: [convert(value, source="clark-agent") for value in convertible],
        },
    )
    print(
        f"clark-agent corpus: {len(documents)} documents, {megabytes:.3f} MB "
        "(0.4.0 streams + history + trajectories)"
    )
    print(f"median of {repeat} interleaved rounds:")
    for name, seconds in results.items():
        size = convertible_mb if name == "convert" else megabytes
        print(f"  {name:15s} {seconds * 1e3:8.2f} ms  {size / seconds:7.1f} MB/s")
    for ours, theirs in (("clark.loads", "json.loads"), ("clark.dumps", "json.dumps")):
        print(f"  {ours} / {theirs} throughput: {results[theirs] / results[ours]:.2f}x")


def operator_use_section(root: Path, repeat: int) -> None:
    import phi_wire.operator_use as ou
    from phi_wire.convert import convert

    files = [
        path.read_text(encoding="utf-8")
        for path in sorted((root / "operator-use" / "d0da87a6" / "sessions").glob("*.jsonl"))
    ]
    lines = [line for text in files for line in text.splitlines()]
    megabytes = sum(len(text.encode()) for text in files) / 1e6
    sessions = [ou.loads(ou.SessionFile, text) for text in files]
    entries = [ou.loads(ou.SessionFileEntry, line) for line in lines]
    plain = [json.loads(line) for line in lines]
    results = compare(
        repeat,
        {
            "json.loads": lambda: [json.loads(line) for line in lines],
            "loads(Entry)": lambda: [ou.loads(ou.SessionFileEntry, line) for line in lines],
            "loads(File)": lambda: [ou.loads(ou.SessionFile, text) for text in files],
            "json.dumps": lambda: [
                json.dumps(value, ensure_ascii=False, separators=(",", ":")) for value in plain
            ],
            "dumps(Entry)": lambda: [ou.dumps(entry) for entry in entries],
            "convert": lambda: [convert(session, target="phi-core") for session in sessions],
        },
    )
    print(
        f"Operator-Use d0da87a6: {len(files)} session files, {len(lines)} lines, {megabytes:.3f} MB"
    )
    for name, seconds in results.items():
        print(f"  {name:15s} {seconds * 1e3:8.2f} ms  {megabytes / seconds:7.1f} MB/s")
    base = results["json.loads"]
    for name in ("loads(Entry)", "loads(File)", "convert"):
        print(f"  {name} / json.loads throughput: {base / results[name]:.2f}x")
    print(
        f"  dumps / json.dumps throughput: {results['json.dumps'] / results['dumps(Entry)']:.2f}x"
    )


def json_dumps(value: Any, pretty: bool) -> str:
    """The standard library's text of ``value``: compact as serde_json's ``to_string``, or with
    serde_json's pretty indent."""
    if pretty:
        return json.dumps(value, ensure_ascii=False, indent=2)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _each(function: Callable[[Any], object], values: list[Any]) -> None:
    for value in values:
        function(value)


def dumps_figures(root: Path, repeat: int) -> dict[str, float]:
    """Issue 21's goal 3 in this interpreter: per case (``events compact`` ...), microseconds per
    document of ``json.dumps`` and ``dumps`` and their ratio, the bytes checked equal first.

    Timed in this thread's CPU time (``time.thread_time``): on a machine shared with other work,
    wall-clock samples also count the time the others ran, which the two sides of a round do not
    get alike. Each sample writes the events 8 times over, the sessions 4 times."""
    import phi_wire.v0_8 as wire

    documents = corpus(root)
    figures: dict[str, float] = {}
    for label in ("event", "session"):
        passes = 8 if label == "event" else 4
        raws = [raw for kind, _, raw in documents if kind == label]
        values = [wire.loads(tp, raw) for kind, tp, raw in documents if kind == label] * passes
        plain = [json.loads(raw) for raw in raws] * passes
        for pretty in (False, True):
            for value, document in zip(values, plain, strict=True):
                assert wire.dumps(value, pretty=pretty) == json_dumps(document, pretty), label
            seconds = compare(
                repeat,
                {
                    "json.dumps": partial(_each, partial(json_dumps, pretty=pretty), plain),
                    "dumps": partial(_each, partial(wire.dumps, pretty=pretty), values),
                },
                time.thread_time,
            )
            case = f"{label}s {'pretty' if pretty else 'compact'}"
            figures[f"{case}: json.dumps us"] = seconds["json.dumps"] * 1e6 / len(values)
            figures[f"{case}: dumps us"] = seconds["dumps"] * 1e6 / len(values)
            figures[f"{case}: ratio"] = seconds["json.dumps"] / seconds["dumps"]
    figures.update(warnings_cost(repeat))
    return figures


CASES = ("events compact", "events pretty", "sessions compact", "sessions pretty")


WARNINGS_MODES: dict[str, bool | Literal["error"]] = {
    "False": False,
    "True": True,
    '"error"': "error",
}
"""pydantic-core's ``warnings`` argument, as ``dumps`` could pass it: a value of the wrong type is
an error for ``dumps``, which passes ``True`` while its filter makes that warning an error
(``phi_wire.serde._written``), else ``"error"``."""


def warnings_cost(repeat: int, calls: int = 20_000) -> dict[str, float]:
    """Microseconds per ``SchemaSerializer.to_json`` call of a two-field phi-core model, for each
    ``warnings`` argument: what ``dumps`` pays per document before any byte is written. A string
    costs more than a bool: pydantic-core tries ``bool`` first and builds that failure's
    exceptions before it reads the string (``WarningsArg``)."""
    import phi_wire.v0_8 as wire

    value = wire.loads(wire.TurnId, b'{"loopId":"l","turnIndex":0}')
    to_json = type(value).__pydantic_serializer__.to_json

    def run(mode: bool | Literal["error"]) -> None:
        for _ in range(calls):
            to_json(value, warnings=mode)

    seconds = compare(
        repeat,
        {name: partial(run, mode) for name, mode in WARNINGS_MODES.items()},
        time.thread_time,
    )
    return {f"to_json(warnings={name}) us/call": s * 1e6 / calls for name, s in seconds.items()}


def dumps_goal(root: Path, repeat: int) -> None:
    """Issue 21's goal 3: ``dumps`` against ``json.dumps`` of the same documents, for the stream's
    events and the sessions, each compact and pretty (``dumps_figures``)."""
    print(
        f"dumps vs json.dumps, thread CPU time, median of {repeat} interleaved rounds "
        "(goal: >= 1.00x):"
    )
    figures = dumps_figures(root, repeat)
    for case in CASES:
        print(
            f"  {case:17s} json.dumps {figures[case + ': json.dumps us']:8.1f} us/doc  "
            f"dumps {figures[case + ': dumps us']:8.1f} us/doc  "
            f"{figures[case + ': ratio']:5.2f}x json.dumps"
        )
    for name, micros in figures.items():
        if name.startswith("to_json("):
            print(f"  {name:36s} {micros:6.3f}")


def dumps_beside(root: Path, repeat: int, rounds: int, beside: str) -> None:
    """``dumps_figures`` of this tree's package and of another interpreter's (``--beside``, e.g.
    main's venv), each round one child process per interpreter in turn; medians over the rounds.
    Each child runs this file (``--figures``), so both measure the same cases the same way."""
    pythons = {"this": sys.executable, "beside": beside}
    samples: dict[str, dict[str, list[float]]] = {name: {} for name in pythons}
    load_before = os.getloadavg()[0]
    for _ in range(rounds):
        for name, python in pythons.items():
            child = subprocess.run(
                [python, __file__, "--figures", "--repeat", str(repeat), "--fixtures", str(root)],
                check=True,
                capture_output=True,
                text=True,
            )
            for case, value in json.loads(child.stdout.splitlines()[-1]).items():
                samples[name].setdefault(case, []).append(value)
    print(
        f"dumps vs json.dumps, {rounds} rounds of one child per interpreter (each: thread CPU "
        f"time, median of {repeat} interleaved samples), medians over the rounds; "
        f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after"
    )
    for name, python in pythons.items():
        print(f"  {name}: {python}")
    print(f"  {'case':50s} {'this':>9s} {'beside':>9s}")
    for case in samples["this"]:
        this = statistics.median(samples["this"][case])
        other = statistics.median(samples["beside"].get(case, [float("nan")]))
        print(f"  {case:50s} {this:9.3f} {other:9.3f}")


def phi_core_section(root: Path, repeat: int) -> None:
    import phi_wire.v0_8 as wire

    wire.prepare(wire.AgentEvent)  # loaded from the cache, or built now (once)
    documents = corpus(root)
    megabytes = sum(len(raw) for _, _, raw in documents) / 1e6
    values = [wire.loads(tp, raw) for _, tp, raw in documents]
    plain = [json.loads(raw) for _, _, raw in documents]
    pretty = [label == "session" for label, _, _ in documents]

    results = compare(
        repeat,
        {
            "json.loads": lambda: [json.loads(raw) for _, _, raw in documents],
            "phi_wire.loads": lambda: [wire.loads(tp, raw) for _, tp, raw in documents],
            "json.dumps": lambda: [
                json.dumps(
                    value,
                    ensure_ascii=False,
                    indent=2 if nice else None,
                    separators=None if nice else (",", ":"),
                )
                for value, nice in zip(plain, pretty, strict=True)
            ],
            "phi_wire.dumps": lambda: [
                wire.dumps(value, pretty=nice) for value, nice in zip(values, pretty, strict=True)
            ],
        },
    )
    print(f"corpus: {len(documents)} documents, {megabytes:.3f} MB (0.8.0 stream + sessions)")
    print(f"median of {repeat} interleaved rounds:")
    for name, seconds in results.items():
        rate = f"{megabytes / seconds:7.1f} MB/s  {len(documents) / seconds:9.0f} docs/s"
        print(f"  {name:15s} {seconds * 1e3:8.2f} ms  {rate}")
    print(
        f"  loads / json.loads throughput: {results['json.loads'] / results['phi_wire.loads']:.2f}x"
    )
    print(
        f"  dumps / json.dumps throughput: {results['json.dumps'] / results['phi_wire.dumps']:.2f}x"
    )
    dumps_goal(root, repeat)
    lines = [raw for label, _, raw in documents if label == "event"]
    passes = 8  # each sample reads the stream 8 times: some 20-40 ms, long enough to be steady
    goal = event_goal(repeat, wire, lines * passes)
    print(
        f"canonical events: {len(lines)} stream lines x {passes} per sample, fast path prepared, "
        f"median of {repeat} interleaved rounds:"
    )
    for name, micros in goal.items():
        base = goal["json.loads, str" if name.endswith("str") else "json.loads"]
        print(f"  {name:34s} {micros:7.1f} us/line  {base / micros:5.2f}x json.loads")
    print("  goal: loads(AgentEvent) >= 0.55x json.loads; the ceiling is validate_json's")
    costs = invalid_cost(repeat, wire, lines * passes)
    print(
        f"invalid documents: {len(lines)} stream lines x {passes} per sample, "
        f"median of {repeat} interleaved rounds:"
    )
    for name, micros in costs.items():
        ratio = "" if name == "valid" else f"  {micros / costs['valid']:5.1f}x a valid line"
        print(f"  {name:34s} {micros:7.1f} us/line{ratio}")
    print("  goal: an invalid line costs at most 5x a valid one (valid lines on the fast path)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    default = os.environ.get("PHI_WIRE_FIXTURES", str(ROOT.parent / "shared" / "fixtures"))
    parser.add_argument("--fixtures", type=Path, default=Path(default))
    sections = {
        "phi-core": phi_core_section,
        "clark-agent": clark_section,
        "operator-use": operator_use_section,
        "phi-core-dumps": dumps_goal,
    }
    parser.add_argument("--only", choices=sorted(sections), help="run one format's section alone")
    parser.add_argument(
        "--beside",
        metavar="PYTHON",
        help="with --only phi-core-dumps: also measure this interpreter's phi_wire (main's venv), "
        "in child processes taking turns",
    )
    parser.add_argument("--rounds", type=int, default=5, help="rounds of children (--beside)")
    parser.add_argument("--figures", action="store_true", help=argparse.SUPPRESS)  # a child
    args = parser.parse_args()
    if args.figures:
        print(json.dumps(dumps_figures(args.fixtures, args.repeat)))
        return
    if args.beside is not None:
        if args.only != "phi-core-dumps":
            parser.error("--beside compares the phi-core-dumps section only")
        dumps_beside(args.fixtures, args.repeat, args.rounds, args.beside)
        return
    if args.only is not None:
        sections[args.only](args.fixtures, args.repeat)
        return
    phi_core_section(args.fixtures, args.repeat)
    print(
        f"from phi_wire import AgentEvent (fresh interpreter, median of 5): "
        f"{import_time() * 1e3:.0f} ms"
    )
    print(f"tools/codegen --check (one run, every generator pass): {codegen_time():.2f} s")
    print()
    clark_section(args.fixtures, args.repeat)
    print()
    operator_use_section(args.fixtures, args.repeat)


if __name__ == "__main__":
    main()
