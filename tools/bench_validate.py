"""Benchmark ``phi-wire validate`` against ``json.loads`` per line, its --jobs scaling, its memory
and its start-up, side by side in one run.

    python tools/bench_validate.py [--size-mb 100] [--big-mb 1000] [--sessions-mb 20]
                                   [--session-mb 100] [--small-files 1000] [--long-line-mb 200]
                                   [--repeat 5] [--workdir DIR] [--only jobs]
    python tools/bench_validate.py --cjk [--size-mb 20] [--repeat 5]
    python tools/bench_validate.py --strict-session-mb 105 [--repeat 5] [--beside PYTHON]
    python tools/bench_validate.py --only formats [--formats-mb 8] [--no-convert] [--beside PYTHON]

It writes its own input: JSONL of realistic AgentEvents and AgentMessages (the events of
phi-core's recorded main session and the messages they carry, with loop ids varied), ``--size-mb``
for the throughput runs, 10 MB and ``--big-mb`` for the memory runs. Throughput is the median of
``--repeat`` rounds, each round running ``json.loads`` over every line (in this process) and the
command with 1 and 2 jobs (each a fresh process), one after the other so that all see the same
machine. For the command it reports two rates: by wall time (interpreter start-up and imports
included) and by the time the command itself reports (reading and judging). The fast path's
compiled code is cached (see phi_wire/validate/_cache.py): the first, cold run, which builds it, is
reported on its own; the rounds use the cache, as every later run on a machine does. Start-up is
timed on the sample files in examples/ (a JSONL log and a pretty session), with and without the
cache. A folder of pretty session files (``--sessions-mb``, copies of phi-core's recorded ones) is
timed like the JSONL, against ``json.loads`` per file, and one big pretty session
(``--session-mb``, the recorded session's loops repeated) for its time and peak RSS. The exact
path (``loads`` per line, what judges every line the fast path does not vouch for) is timed
in-process on the 10 MB input. Two cases where ``--jobs 2`` must not lose to one job: a folder of
``--small-files`` small JSONL files, and one JSONL line of ``--long-line-mb`` (``--only jobs``
runs just these).

``--only formats`` times every format's file kinds through the same engine
(``phi_wire.validate``, in this process, one job): clark-agent JSONL (history rows, event
streams, trajectories), a JSONL of Operator-Use messages and one Operator-Use session file (a
header and ``--formats-mb`` of chained message entries), pi's (a JSONL of messages, one of
events, one session file), each against ``json.loads`` per line in interleaved rounds, beside
phi-core's exact path (the same engine on phi-core's lines, no fast path: what judges a line the
fast path does not vouch for) and its fast path (the same lines as 0.8, its expression built
first). Each kind's fast path, if it has one, is built by the first (untimed) run, as a run of
that size builds it; pi's events', which only 16 MB of events build, first (alone: such a run
builds phi-core's too).
Then (unless ``--no-convert``) ``phi-wire convert`` as users run it (``phi_wire.cli``: read,
convert, write the file) on the clark-agent history and events and the Operator-Use files, to
phi-core. ``--beside PYTHON`` runs the same cases with another build's package (main's venv) in a
process of its own, on the same inputs, one round of it after each round of this one.

``--strict-session-mb N`` times only one pretty session of N MB (as ``--session-mb`` writes it):
``json.load`` of it, ``validate`` and ``validate --strict``, each in a child process that reports
its own peak RSS (VmHWM), in interleaved rounds (``--repeat``), with medians and their ratios to
``json.load``'s; ``--beside PYTHON`` runs another build's ``phi-wire`` (main's venv) in the same
rounds.

``--cjk`` times non-ASCII text alone: the same stream with its prose (texts, thinking, deltas,
summaries...) in CJK ideographs, three bytes each in UTF-8, against ``json.loads`` per line in
interleaved rounds, and one event holding a 1 MB CJK text, judged in-process by ``validate()``
against ``json.loads``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Peak RSS from VmHWM, this process's own memory: Linux carries ru_maxrss over exec, so after a
# vfork it starts at the benchmark's own peak (which a big json.loads here raises to a gigabyte).
RSS_PROBE = (
    "import re, sys\n"
    "from phi_wire.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "with open('/proc/self/status') as status:\n"
    "    peak = re.search(r'VmHWM:\\s*(\\d+)', status.read())\n"
    "if peak is None:\n"
    "    raise SystemExit('no VmHWM in /proc/self/status: peak RSS cannot be read')\n"
    "print('peak_rss_kb', peak.group(1), file=sys.stderr)\n"
    "raise SystemExit(code)\n"
)


def sample_lines(fixtures: Path) -> list[str]:
    """Events of the recorded session plus the messages inside them, as compact JSON lines."""
    events = (fixtures / "phi-core" / "0.8.0" / "streams" / "events.main_session.jsonl").read_text()
    lines = events.split("\n")[:-1]
    messages = []
    for line in lines:
        message = json.loads(line).get("message")
        if message is not None:
            messages.append(json.dumps(message, separators=(",", ":"), ensure_ascii=False))
    return lines + messages


PROSE_KEYS = frozenset(
    {"text", "thinking", "delta", "summary", "error_message", "reason", "task", "memo"}
    | {"new_string", "old_string"}
)


def cjk(text: str) -> str:
    """``text`` with every letter and digit replaced by a CJK ideograph (U+4E00-U+8DFF)."""
    return "".join(
        chr(0x4E00 + ord(char) * 131 % 0x4000) if char.isalnum() else char for char in text
    )


def in_cjk(value: object, key: str | None = None) -> object:
    """A JSON value with the strings under ``PROSE_KEYS`` written in CJK."""
    if isinstance(value, dict):
        return {name: in_cjk(item, name) for name, item in value.items()}
    if isinstance(value, list):
        return [in_cjk(item, key) for item in value]
    if isinstance(value, str) and key in PROSE_KEYS:
        return cjk(value)
    return value


def cjk_lines(lines: list[str]) -> list[str]:
    return [
        json.dumps(in_cjk(json.loads(line)), separators=(",", ":"), ensure_ascii=False)
        for line in lines
    ]


def write_jsonl(path: Path, lines: list[str], megabytes: int) -> int:
    """Cycle through ``lines`` (loop ids numbered per cycle) until the file has ``megabytes``."""
    target = megabytes * 1_000_000
    written = documents = 0
    cycle = 0
    with path.open("w", encoding="utf-8") as out:
        while written < target:
            block = (
                "\n".join(line.replace("9b2f4c1a-6e3d", f"{cycle:08x}-6e3d") for line in lines)
                + "\n"
            )
            out.write(block)
            written += len(block.encode())
            documents += len(lines)
            cycle += 1
    return documents


def time_json_loads(path: Path) -> float:
    start = time.perf_counter()
    with path.open("rb") as handle:
        for line in handle:
            json.loads(line)
    return time.perf_counter() - start


def time_exact_path(path: Path, version: str) -> tuple[float, float]:
    """Seconds of ``loads`` (as the command calls it) and of ``json.loads`` over every line."""
    from phi_wire.formats import find
    from phi_wire.validate import detect

    wire = find(version).load()
    lines = path.read_bytes().splitlines()
    types = [getattr(wire, detect(line)) for line in lines]  # as the command detects them
    for tp, line in dict(zip(types, lines, strict=True)).items():
        wire.loads(tp, line)  # build each validator before the clock starts
    start = time.perf_counter()
    for tp, line in zip(types, lines, strict=True):
        wire.loads(tp, line)
    exact = time.perf_counter() - start
    start = time.perf_counter()
    for line in lines:
        json.loads(line)
    return exact, time.perf_counter() - start


class Run:
    """One run of ``phi-wire validate``: wall time, time it reports, peak RSS, exit status."""

    def __init__(self, *args: str, python: str = sys.executable) -> None:
        start = time.perf_counter()
        result = subprocess.run(
            [python, "-c", RSS_PROBE, "validate", "--output-format", "json", *args],
            capture_output=True,
            text=True,
            check=False,
        )
        self.wall = time.perf_counter() - start
        if result.returncode != 0:
            raise SystemExit(
                f"phi-wire validate failed ({result.returncode}): "
                f"{result.stdout[-500:]}{result.stderr[-500:]}"
            )
        self.rss_kb = int(result.stderr.split("peak_rss_kb")[-1].split()[0])
        summary = json.loads(result.stdout.strip().splitlines()[-1])["summary"]
        self.reported = float(summary["elapsed_s"])
        self.documents = int(summary["documents"])


def rate_line(name: str, seconds: float, megabytes: float, documents: int) -> str:
    return (
        f"  {name:34s} {seconds:6.2f} s {megabytes / seconds:7.1f} MB/s "
        f"{documents / seconds:9.0f} docs/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=100)
    parser.add_argument("--big-mb", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--sessions-mb", type=int, default=20, help="size of the folder of pretty session files"
    )
    parser.add_argument(
        "--session-mb", type=int, default=100, help="size of the one big pretty session file"
    )
    parser.add_argument(
        "--small-files", type=int, default=1000, help="how many small JSONL files (--jobs case)"
    )
    parser.add_argument(
        "--long-line-mb", type=int, default=200, help="size of the one long line (--jobs case)"
    )
    parser.add_argument(
        "--only", choices=("jobs", "formats"), help="run only the --jobs or the formats cases"
    )
    parser.add_argument(
        "--formats-mb", type=int, default=8, help="size of each --only formats input"
    )
    parser.add_argument(
        "--no-convert", action="store_true", help="--only formats: time validate only"
    )
    parser.add_argument(
        "--strict-session-mb",
        type=int,
        default=None,
        help="time only json.load, validate and validate --strict on one pretty session this big",
    )
    parser.add_argument(
        "--beside",
        default=None,
        help="--strict-session-mb, --only formats: another build's python (main's "
        ".venv/bin/python), timed too",
    )
    parser.add_argument("--version", default="0.8", help="phi-core version to validate against")
    parser.add_argument(
        "--workdir", type=Path, default=None, help="where the inputs go (created; default: TMPDIR)"
    )
    default = os.environ.get("PHI_WIRE_FIXTURES", str(ROOT.parent / "shared" / "fixtures"))
    parser.add_argument("--fixtures", type=Path, default=Path(default))
    parser.add_argument(
        "--cjk", action="store_true", help="time only a stream of CJK prose (see above)"
    )
    parser.add_argument("--serve-formats", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_formats:  # --beside's other process: the inputs are the caller's
        serve_formats(args.workdir, args.fixtures, args.formats_mb, not args.no_convert)
        return

    lines = sample_lines(args.fixtures)
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.workdir) as scratch:
        work = Path(scratch)
        os.environ["PHI_WIRE_CACHE_DIR"] = str(work / "cache")  # starts empty: a cold first run
        common = ("--version", args.version)
        if args.cjk:
            measure_cjk(common, work, lines, args.size_mb, args.repeat)
            return
        if args.strict_session_mb is not None:
            pythons = {"this": sys.executable, **({"beside": args.beside} if args.beside else {})}
            measure_strict_session(
                common, work, args.fixtures, args.strict_session_mb, args.repeat, pythons
            )
            return
        if args.only == "jobs":
            measure_jobs_cases(common, work, lines, args)
            return
        if args.only == "formats":
            measure_formats(
                work,
                args.fixtures,
                lines,
                args.formats_mb,
                args.repeat,
                not args.no_convert,
                args.beside,
            )
            return
        data = work / "events.jsonl"
        documents = write_jsonl(data, lines, args.size_mb)
        size = data.stat().st_size / 1e6
        print(f"input: {size:.0f} MB, {documents} documents (AgentEvents and AgentMessages)")
        cold = Run(*common, "--jobs", "1", str(data))
        print(rate_line("validate, cold (builds its cache)", cold.wall, size, documents))
        measure_sessions(common, work, args.fixtures, args.sessions_mb, args.repeat)
        # Before the big input: writing 1 GB evicts the interpreter's files from the page cache.
        measure_startup(common, work / "cache")
        measure_throughput(common, data, size, documents, args.repeat)
        data.unlink()
        measure_memory(common, work, lines, args.big_mb, args.version)
        measure_big_session(common, work, args.fixtures, args.session_mb)
        measure_jobs_cases(common, work, lines, args)


def cycled(path: Path, header: list[str], lines: list[str], megabytes: int) -> int:
    """``header`` then ``lines`` cycled until ``path`` holds ``megabytes``; the documents."""
    target = megabytes * 1_000_000
    with path.open("w", encoding="utf-8") as out:
        written = out.write("".join(line + "\n" for line in header))
        count = len(header)
        while written < target:
            for line in lines:
                written += out.write(line + "\n")
                count += 1
    return count


def _jsonl_lines(folder: Path) -> list[str]:
    return [
        line
        for path in sorted(folder.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").split("\n")  # not at U+2028 in a string
        if line.strip()
    ]


def _session_file(
    path: Path, header: str, entries: list[dict[str, object]], megabytes: int
) -> None:
    """``header`` then the entries cycled, each made the child of the one before (a session
    file's chain), keys in their order: ``id``, and the parent in ``parent_id`` (Operator-Use:
    none on the first) or ``parentId`` (pi)."""
    with path.open("w", encoding="utf-8") as out:
        written = out.write(header + "\n")
        number = 0
        while written < megabytes * 1_000_000:
            entry = dict(entries[number % len(entries)])
            entry["id"] = f"{number:08x}"
            parent = f"{number - 1:08x}" if number else None
            if "parentId" in entry:
                entry["parentId"] = parent
            elif parent is None:
                entry.pop("parent_id", None)
            else:
                entry["parent_id"] = parent
            written += out.write(json.dumps(entry, ensure_ascii=False, separators=(",", ":")))
            written += out.write("\n")
            number += 1


def format_inputs(
    work: Path, fixtures: Path, megabytes: int, write: bool = True
) -> dict[str, tuple[Path, str]]:
    """The inputs of --only formats: name -> (file, its format): every format's file kinds in
    the corpora (each kind's lines cycled, session files chained), written unless ``write`` is
    false."""
    clark = fixtures / "clark-agent" / "0.4.0"
    clark_lines = {folder: _jsonl_lines(clark / folder) for folder in KINDS_OF_CLARK}
    sessions = sorted((fixtures / "operator-use" / "d0da87a6" / "sessions").glob("*.jsonl"))
    entries = [
        json.loads(line)
        for path in sessions
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    messages = [entry["message"] for entry in entries if entry.get("type") == "message"]
    compact = [json.dumps(message, separators=(",", ":")) for message in messages]
    pi = fixtures / "pi" / "1.5.2"
    pi_session = (pi / "sessions" / "model_thinking.jsonl").read_text(encoding="utf-8")
    pi_entries = [line for line in pi_session.split("\n") if line.strip()]
    pi_messages = [
        json.dumps(json.loads(line)["message"], ensure_ascii=False, separators=(",", ":"))
        for line in _jsonl_lines(pi / "sessions")
        if json.loads(line).get("type") == "message"
    ]
    inputs = {
        "clark-agent history JSONL": (work / "clark-history.jsonl", "clark-agent"),
        "clark-agent events JSONL": (work / "clark-events.jsonl", "clark-agent"),
        "clark-agent trajectories JSONL": (work / "clark-trajectories.jsonl", "clark-agent"),
        "Operator-Use messages JSONL": (work / "ou-messages.jsonl", "operator-use"),
        "Operator-Use session file": (work / "ou-session.jsonl", "operator-use"),
        "pi messages JSONL": (work / "pi-messages.jsonl", "pi"),
        "pi events JSONL": (work / "pi-events.jsonl", "pi"),
        "pi session file": (work / "pi-session.jsonl", "pi"),
    }
    if not write:
        return inputs
    for folder, name in KINDS_OF_CLARK.items():
        cycled(inputs[name][0], [], clark_lines[folder], megabytes)
    cycled(inputs["Operator-Use messages JSONL"][0], [], compact, megabytes)
    cycled(inputs["pi messages JSONL"][0], [], pi_messages, megabytes)
    cycled(inputs["pi events JSONL"][0], [], _jsonl_lines(pi / "streams"), megabytes)
    # one session: the header, then message entries each the child of the one before, their
    # keys in the order Operator-Use writes them (its corpus' sessions)
    header = next(entry for entry in entries if entry.get("type") == "session")
    ou_entries: list[dict[str, object]] = [
        {"id": "", "timestamp": m["timestamp"], "parent_id": "", "type": "message", "message": m}
        for m in messages
    ]
    header_line = json.dumps(header, separators=(",", ":"))
    _session_file(inputs["Operator-Use session file"][0], header_line, ou_entries, megabytes)
    pi_chained = [json.loads(line) for line in pi_entries[1:]]
    pi_chained = [entry for entry in pi_chained if entry.get("type") == "message"]
    _session_file(inputs["pi session file"][0], pi_entries[0], pi_chained, megabytes)
    return inputs


KINDS_OF_CLARK = {
    "history": "clark-agent history JSONL",
    "streams": "clark-agent events JSONL",
    "trajectory": "clark-agent trajectories JSONL",
}


CONVERTED = (
    "clark-agent history JSONL",
    "clark-agent events JSONL",
    "Operator-Use messages JSONL",
    "Operator-Use session file",
)
"""The inputs ``phi-wire convert`` is timed on (to phi-core)."""


PI_EVENT_FILE_TYPES = (
    "AgentEvent",
    "AgentSessionEvent",
    "JsonAgentSessionEvent",
    "AssistantMessageEvent",
    "SessionHeader",
    "RpcResponse",
)
"""The types ``validate`` reads a pi 1.5 event file's lines as (the file's type, the wider ones,
the types pi's recogniser names its other lines): its expression's key in the cache."""


def format_cases(
    work: Path, fixtures: Path, lines: list[str], megabytes: int, convert: bool, write: bool = True
) -> tuple[list[str], dict[str, Callable[[], object]], dict[str, float]]:
    """The --only formats cases (input names, cases by name, input sizes in MB), their inputs
    written (unless ``write`` is false: another process wrote them in ``work``) and every fast
    path they use built into this process's cache."""
    from phi_wire.cli import main as phi_wire_command
    from phi_wire.fastpath import fast_path
    from phi_wire.formats.phi_core.recognise import detected_as
    from phi_wire.validate import validate

    inputs = format_inputs(work, fixtures, megabytes, write)
    phi_core = work / "phi-core.jsonl"
    if write:
        write_jsonl(phi_core, lines, megabytes)  # under 16 MB and no cache: the exact path
    inputs["phi-core JSONL (exact path)"] = (phi_core, "phi-core")
    # the same lines judged as 0.8, whose fast path is built here (the exact case judges 0.10)
    inputs["phi-core JSONL (fast path)"] = (phi_core, "phi-core 0.8")
    # validate's own expression for JSONL (its types and detection), built into the cache
    if fast_path("0.8", ("AgentEvent", "AgentMessage"), detected_as, build=True) is None:
        raise SystemExit("phi-core 0.8's fast path could not be built")
    # pi's event expression is built only by a run of 16 MB of events (seconds of compiling),
    # which would build phi-core's too (the exact case's): built here alone, as such a run does
    if fast_path("1.5", PI_EVENT_FILE_TYPES, None, build=True, format="pi") is None:
        raise SystemExit("pi 1.5's fast path of event files could not be built")

    def judged(path: Path, source: str) -> None:
        version = source.split()[1] if " " in source else None
        run = validate([str(path)], jobs=1, version=version)
        records = [record for record in run if record.kind != "note"]
        if records or run.tally.invalid:
            raise SystemExit(f"{path}: not all valid: {records[:3]}")

    converted_folder = work / f"converted-{os.getpid()}"
    converted_folder.mkdir(exist_ok=True)

    def converted(path: Path, source: str) -> None:
        """``phi-wire convert`` as users run it: read, convert, write the file; losses listed."""
        arguments = ["convert", "--from", source, "--to", "phi-core", str(path)]
        with contextlib.redirect_stderr(io.StringIO()):
            status = phi_wire_command([*arguments, "-o", str(converted_folder)])
        if status != 0:
            raise SystemExit(f"phi-wire {' '.join(arguments)}: exit {status}")

    cases: dict[str, Callable[[], object]] = {}
    sizes: dict[str, float] = {}
    for name, (path, source) in inputs.items():
        sizes[name] = path.stat().st_size / 1e6
        cases[f"json.loads: {name}"] = functools.partial(time_json_loads, path)
        cases[f"validate: {name}"] = functools.partial(judged, path, source)
    for name, (path, source) in inputs.items():
        if convert and name in CONVERTED:
            cases[f"convert: {name}"] = functools.partial(converted, path, source)
    for case in cases.values():
        case()  # every validator and adapter built before the clock starts
    return list(inputs), cases, sizes


def one_round(cases: dict[str, Callable[[], object]]) -> dict[str, tuple[float, float]]:
    """Each case run once, one after the other: its seconds, of wall time and of CPU time (this
    process's: on a machine other work shares, what the wall time's waits leave out)."""
    seconds = {}
    for name, case in cases.items():
        start, cpu = time.perf_counter(), time.process_time()
        case()
        seconds[name] = (time.perf_counter() - start, time.process_time() - cpu)
    return seconds


def serve_formats(work: Path, fixtures: Path, megabytes: int, convert: bool) -> None:
    """--serve-formats (run by --beside): the cases of the inputs another process wrote in
    ``work``, one round per ``round`` line read, its seconds written back as one JSON line."""
    _, cases, _ = format_cases(work, fixtures, sample_lines(fixtures), megabytes, convert, False)
    print("ready", flush=True)
    for request in sys.stdin:
        if request.strip() != "round":
            break
        print(json.dumps(one_round(cases)), flush=True)


def measure_formats(
    work: Path,
    fixtures: Path,
    lines: list[str],
    megabytes: int,
    repeat: int,
    convert: bool = True,
    beside: str | None = None,
) -> None:
    """The other formats through the validator's and the converter's engines, each against
    json.loads per line, in interleaved rounds (see the module docstring); ``beside``: another
    build's python, whose package runs the same cases in its own process, its rounds between
    this one's."""
    names, cases, sizes = format_cases(work, fixtures, lines, megabytes, convert)
    builds = {"this": sys.executable}
    seconds: dict[str, dict[str, list[tuple[float, float]]]] = {"this": {n: [] for n in cases}}
    server = None
    if beside is not None:
        builds["beside"] = beside
        command = [beside, str(Path(__file__).resolve()), "--serve-formats", "--workdir", str(work)]
        command += ["--formats-mb", str(megabytes), "--fixtures", str(fixtures)]
        command += [] if convert else ["--no-convert"]
        environment = {**os.environ, "PHI_WIRE_CACHE_DIR": str(work / "cache-beside")}
        server = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=environment
        )
        assert server.stdin is not None and server.stdout is not None
        if server.stdout.readline().strip() != "ready":
            raise SystemExit(f"{beside}: --serve-formats did not start")
        seconds["beside"] = {name: [] for name in cases}
    for _ in range(repeat):
        for name, both in one_round(cases).items():
            seconds["this"][name].append(both)
        if server is not None:
            assert server.stdin is not None and server.stdout is not None
            server.stdin.write("round\n")
            server.stdin.flush()
            for name, (wall, cpu) in json.loads(server.stdout.readline()).items():
                seconds["beside"][name].append((wall, cpu))
    if server is not None:
        assert server.stdin is not None
        server.stdin.close()
        server.wait()
    for build, python in builds.items():
        median = {n: statistics.median(wall for wall, _ in v) for n, v in seconds[build].items()}
        cpu = {n: statistics.median(cpu for _, cpu in v) for n, v in seconds[build].items()}
        print(
            f"other formats ({build}: {python}), {megabytes} MB inputs, in-process, "
            f"medians of {repeat} rounds (the ratio to json.loads by wall time, then by CPU time):"
        )
        for name in names:
            base = median[f"json.loads: {name}"]
            row = f"  {name:30s} json.loads {sizes[name] / base:6.1f} MB/s"
            for what in ("validate", "convert"):
                taken = median.get(f"{what}: {name}")
                if taken is not None:
                    by_cpu = cpu[f"json.loads: {name}"] / cpu[f"{what}: {name}"]
                    row += f"  {what} {sizes[name] / taken:5.1f} MB/s ({base / taken:.2f}x"
                    row += f", CPU {by_cpu:.2f}x)"
            print(row)


def measure_jobs_cases(
    common: tuple[str, ...], work: Path, lines: list[str], args: argparse.Namespace
) -> None:
    """--jobs 2 against one job where splitting the work cannot pay: many small files (a pool's
    start-up at most), one long line (each byte read once, not once per range)."""
    folder = work / "small-files"
    folder.mkdir()
    for number in range(args.small_files):
        start = number * 5 % len(lines)
        body = "\n".join((lines * 2)[start : start + 5]) + "\n"
        (folder / f"log-{number:05}.jsonl").write_text(body, encoding="utf-8")
    long_line = work / "long-line.jsonl"
    with long_line.open("w", encoding="utf-8") as out:
        out.write(lines[0] + "\n")
        out.write('{"role":"extension","kind":"blob","data":"')
        chunk = "x" * 1_000_000
        for _ in range(args.long_line_mb):
            out.write(chunk)
        out.write('"}\n' + lines[0] + "\n")
    limit = ("--max-document-bytes", f"{args.long_line_mb + 1}M")  # (default: 128M)
    cases = (
        (f"{args.small_files} small JSONL files", folder, ()),
        (f"one {args.long_line_mb} MB line", long_line, limit),
    )
    for label, path, extra in cases:
        Run(*common, *extra, str(path))  # builds what the cache needs first
        walls: dict[str, list[float]] = {"1": [], "2": []}
        for _ in range(args.repeat):
            for jobs in walls:
                walls[jobs].append(Run(*common, *extra, "--jobs", jobs, str(path)).wall)
        one, two = (statistics.median(walls[jobs]) for jobs in ("1", "2"))
        print(
            f"{label}: --jobs 1 {one:.2f} s, --jobs 2 {two:.2f} s wall "
            f"(medians of {args.repeat}; --jobs 2 / 1 = {two / one:.2f})"
        )
    long_line.unlink()


def write_sessions(folder: Path, fixtures: Path, megabytes: int) -> tuple[int, float]:
    """Copies of phi-core's recorded session files (pretty, as save_session writes them), each
    with its own session id, until the folder holds ``megabytes``: (files, MB)."""
    sources = sorted((fixtures / "phi-core" / "0.8.0" / "sessions").glob("*.json"))
    folder.mkdir()
    written = files = 0
    while written < megabytes * 1_000_000:
        source = json.loads(sources[files % len(sources)].read_bytes())["session_id"]
        text = sources[files % len(sources)].read_text(encoding="utf-8")
        text = text.replace(source, f"{source[:-8]}{files:08x}")
        (folder / f"session-{files:05}.json").write_text(text, encoding="utf-8")
        written += len(text.encode())
        files += 1
    return files, written / 1e6


def measure_sessions(
    common: tuple[str, ...], work: Path, fixtures: Path, megabytes: int, repeat: int
) -> None:
    """A folder of pretty session files: json.loads per file against the command with 1 and 2
    jobs, in interleaved rounds, after a cold run that builds the cache for whole documents."""
    folder = work / "sessions"
    files, size = write_sessions(folder, fixtures, megabytes)
    paths = sorted(folder.iterdir())
    cold = Run(*common, "--jobs", "1", str(folder))
    print(f"sessions: {files} pretty session files, {size:.0f} MB")
    print(rate_line("validate, cold (builds its cache)", cold.wall, size, files))
    loads: list[float] = []
    runs: dict[str, list[Run]] = {"1": [], "2": []}
    for _ in range(repeat):
        start = time.perf_counter()
        for path in paths:
            json.loads(path.read_bytes())
        loads.append(time.perf_counter() - start)
        for jobs in runs:
            runs[jobs].append(Run(*common, "--jobs", jobs, str(folder)))
    base = statistics.median(loads)
    print(f"  medians of {repeat} rounds:")
    print(rate_line("json.loads per file (in-process)", base, size, files))
    for jobs in runs:
        wall = statistics.median(r.wall for r in runs[jobs])
        inner = statistics.median(r.reported for r in runs[jobs])
        print(rate_line(f"validate --jobs {jobs}, wall", wall, size, files))
        print(rate_line(f"validate --jobs {jobs}, reported", inner, size, files))
    start = time.perf_counter()
    Run(*common, "--jobs", "1", "--strict", str(folder))  # --strict: every file by loads
    print(
        rate_line(
            "validate --strict (no fast path), wall", time.perf_counter() - start, size, files
        )
    )


def write_big_session(fixtures: Path, path: Path, megabytes: int) -> int:
    """One pretty session of about ``megabytes`` (the recorded session's loops repeated), as
    ``save_session`` writes it: its number of loops."""
    source = fixtures / "phi-core" / "0.8.0" / "sessions" / "session.main.json"
    session = json.loads(source.read_bytes())
    loops = session["loops"]
    copies = max(1, megabytes * 1_000_000 // len(json.dumps(loops, indent=2).encode()))
    session["loops"] = loops * copies
    path.write_text(json.dumps(session, indent=2, ensure_ascii=False), encoding="utf-8")
    return len(session["loops"])


JSON_LOAD_PROBE = (
    "import json, re, sys\n"
    "with open(sys.argv[1], 'rb') as file:\n"
    "    json.load(file)\n"
    "with open('/proc/self/status') as status:\n"
    "    print('peak_rss_kb', re.search(r'VmHWM:\\s*(\\d+)', status.read()).group(1))\n"
)
"""``json.load`` of a file in a child process, which prints its own peak RSS."""


def measure_strict_session(
    common: tuple[str, ...],
    work: Path,
    fixtures: Path,
    megabytes: int,
    repeat: int,
    pythons: dict[str, str],
) -> None:
    """``json.load``, ``validate`` and ``validate --strict`` on one pretty session, each a child
    process with its own peak RSS, in ``repeat`` interleaved rounds after one untimed run of
    each command (which builds its cache); medians and ratios to ``json.load``'s."""
    path = work / "big-session.json"
    loops = write_big_session(fixtures, path, megabytes)
    size = path.stat().st_size / 1e6
    print(f"one pretty session of {size:.0f} MB ({loops} loops), {repeat} interleaved rounds")
    print(f"  load average before: {os.getloadavg()[0]:.2f}")
    commands = {
        f"{label} {name}": (python, extra)
        for label, python in pythons.items()
        for name, extra in (("validate", ()), ("validate --strict", ("--strict",)))
    }
    for python, extra in commands.values():
        Run(*common, *extra, str(path), python=python)
    times: dict[str, list[float]] = {"json.load": []}
    peaks: dict[str, list[int]] = {"json.load": []}
    for _ in range(repeat):
        start = time.perf_counter()
        loaded = subprocess.run(
            [sys.executable, "-c", JSON_LOAD_PROBE, str(path)],
            capture_output=True,
            text=True,
            check=True,
        )
        times["json.load"].append(time.perf_counter() - start)
        peaks["json.load"].append(int(loaded.stdout.split()[-1]))
        for label, (python, extra) in commands.items():
            run = Run(*common, *extra, str(path), python=python)
            if run.documents != 1:
                raise SystemExit(f"{label}: {run.documents} documents judged, not 1")
            times.setdefault(label, []).append(run.wall)
            peaks.setdefault(label, []).append(run.rss_kb)
    base_time = statistics.median(times["json.load"])
    base_peak = statistics.median(peaks["json.load"])
    columns = ("wall", "speed vs json.load", "peak RSS", "vs json.load")
    print(f"  {'':30s} {columns[0]:>8s} {columns[1]:>19s} {columns[2]:>10s} {columns[3]:>13s}")
    for label in times:
        wall = statistics.median(times[label])
        peak = statistics.median(peaks[label])
        print(
            f"  {label:30s} {wall:6.2f} s {base_time / wall:18.2f}x {peak / 1024:7.0f} MB "
            f"{peak / base_peak:12.2f}x"
        )
    print(f"  load average after: {os.getloadavg()[0]:.2f}")
    path.unlink()


def measure_big_session(
    common: tuple[str, ...], work: Path, fixtures: Path, megabytes: int
) -> None:
    """One pretty session of ``megabytes`` (the recorded session's loops repeated): json.loads
    in-process, the command (after a run that makes sure its cache is built) and the command
    under --strict, each with its peak RSS."""
    path = work / "big-session.json"
    write_big_session(fixtures, path, megabytes)
    session = json.loads(path.read_bytes())
    size = path.stat().st_size / 1e6
    start = time.perf_counter()
    json.loads(path.read_bytes())
    print(f"one pretty session of {size:.0f} MB ({len(session['loops'])} loops):")
    print(f"  json.loads (in-process)  {time.perf_counter() - start:6.2f} s")
    Run(*common, str(path))  # builds the cache for whole documents if the folder was too small
    for label, extra in (("validate", ()), ("validate --strict", ("--strict",))):
        run = Run(*common, *extra, str(path))
        print(
            f"  {label:24s} {run.wall:6.2f} s wall, {size / run.wall:5.1f} MB/s, "
            f"peak RSS {run.rss_kb / 1024:.0f} MB"
        )
    path.unlink()


def measure_cjk(
    common: tuple[str, ...], work: Path, lines: list[str], megabytes: int, repeat: int
) -> None:
    """A stream of CJK prose: json.loads per line against the command (1 job) in interleaved
    rounds; then one event with a 1 MB CJK text, json.loads against validate() in-process."""
    data = work / "cjk.jsonl"
    documents = write_jsonl(data, cjk_lines(lines), megabytes)
    raw = data.read_bytes()
    size = len(raw) / 1e6
    share = sum(byte >= 0x80 for byte in raw[:1_000_000]) / min(len(raw), 1_000_000)
    print(f"CJK input: {size:.0f} MB, {documents} documents, {share:.0%} of bytes non-ASCII")
    cold = Run(*common, "--jobs", "1", str(data))
    print(rate_line("validate, cold (builds its cache)", cold.wall, size, documents))
    loads: list[float] = []
    runs: list[Run] = []
    for _ in range(repeat):
        loads.append(time_json_loads(data))
        runs.append(Run(*common, "--jobs", "1", str(data)))
    base = statistics.median(loads)
    wall = statistics.median(run.wall for run in runs)
    inner = statistics.median(run.reported for run in runs)
    print(f"  medians of {repeat} rounds:")
    print(rate_line("json.loads per line (in-process)", base, size, documents))
    print(rate_line("validate --jobs 1, wall", wall, size, documents))
    print(rate_line("validate --jobs 1, reported", inner, size, documents))
    print(
        f"  single process / json.loads: {base / wall:.2f}x by wall time, "
        f"{base / inner:.2f}x by reported time"
    )
    data.unlink()
    measure_big_string(common[1], work, lines, repeat)


def measure_big_string(version: str, work: Path, lines: list[str], repeat: int) -> None:
    """One event whose text is 1 MB of CJK: json.loads against validate() in this process (its
    fast path loaded from the cache beforehand), medians of interleaved rounds."""
    from phi_wire.validate import validate

    events = [json.loads(line) for line in lines]
    event = next(e for e in events if e.get("type") == "MessageEnd" and "content" in e["message"])
    prose = cjk(" ".join(block["text"] for block in event["message"]["content"] if "text" in block))
    text = (prose * (1 + 1_000_000 // len(prose))).encode()[:1_000_000].decode("utf-8", "ignore")
    event["message"]["content"] = [{"text": text, "type": "text"}]
    path = work / "cjk-1mb.jsonl"
    path.write_text(json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n")
    raw = path.read_bytes()
    records = list(validate([str(path)], version=version))  # loads the fast path
    if records:
        raise SystemExit(f"the 1 MB CJK event is not valid: {records[0].text()}")
    loads: list[float] = []
    judged: list[float] = []
    for _ in range(repeat * 4):
        start = time.perf_counter()
        json.loads(raw)
        loads.append(time.perf_counter() - start)
        start = time.perf_counter()
        list(validate([str(path)], version=version))
        judged.append(time.perf_counter() - start)
    print(f"one event with a {len(raw) / 1e6:.1f} MB CJK text (medians of {repeat * 4} rounds):")
    print(f"  json.loads          {statistics.median(loads) * 1000:7.2f} ms")
    print(f"  validate() in-proc  {statistics.median(judged) * 1000:7.2f} ms")


def measure_startup(common: tuple[str, ...], cache: Path) -> None:
    """One small file of each kind, with the fast path's cache (for this version) and without."""
    small_files = [ROOT / "examples" / "events.jsonl", ROOT / "examples" / "session.json"]
    command = [sys.executable, "-m", "phi_wire.cli", "validate", *common]
    for label, folder in (("cached fast path", str(cache)), ("no cache", "")):
        os.environ["PHI_WIRE_CACHE_DIR"] = folder
        for one_file in small_files:
            startups = []
            for _ in range(7):
                start = time.perf_counter()
                subprocess.run([*command, str(one_file)], capture_output=True, check=True)
                startups.append(time.perf_counter() - start)
            print(
                f"start-up ({label}): validate examples/{one_file.name} in "
                f"{statistics.median(startups):.2f} s (median of 7; goal < 0.5 s)"
            )
    os.environ["PHI_WIRE_CACHE_DIR"] = str(cache)


def measure_throughput(
    common: tuple[str, ...], data: Path, size: float, documents: int, repeat: int
) -> None:
    """json.loads per line against the command with 1 and 2 jobs, in interleaved rounds."""
    loads: list[float] = []
    runs: dict[str, list[Run]] = {"1": [], "2": []}
    for _ in range(repeat):
        loads.append(time_json_loads(data))
        for jobs in runs:
            runs[jobs].append(Run(*common, "--jobs", jobs, str(data)))
    base = statistics.median(loads)
    wall = {jobs: statistics.median(r.wall for r in runs[jobs]) for jobs in runs}
    inner = {jobs: statistics.median(r.reported for r in runs[jobs]) for jobs in runs}
    print(f"medians of {repeat} rounds:")
    print(rate_line("json.loads per line (in-process)", base, size, documents))
    for jobs in runs:
        print(rate_line(f"validate --jobs {jobs}, wall", wall[jobs], size, documents))
        print(rate_line(f"validate --jobs {jobs}, reported", inner[jobs], size, documents))
    print(
        f"  single process / json.loads: {base / wall['1']:.2f}x by wall time, "
        f"{base / inner['1']:.2f}x by reported time (goal >= 1.5x)"
    )
    print(
        f"  --jobs 2 / single process: {wall['1'] / wall['2']:.2f}x by wall time, "
        f"{inner['1'] / inner['2']:.2f}x by reported time (goal >= 1.8x)"
    )
    print(f"  the machine itself: {machine_scaling(repeat)}")


def machine_scaling(repeat: int) -> str:
    """What two processes get out of this machine: a CPU-bound loop run alone, then two copies
    side by side, in interleaved rounds (the ceiling of any --jobs 2 speed-up here)."""
    loop = [sys.executable, "-c", "x = 0\nfor i in range(10_000_000): x += i"]
    ratios = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(loop, check=True)
        alone = time.perf_counter() - start
        start = time.perf_counter()
        pair = [subprocess.Popen(loop) for _ in range(2)]
        for process in pair:
            process.wait()
        ratios.append(2 * alone / (time.perf_counter() - start))
    return (
        f"two CPU-bound processes do {statistics.median(ratios):.2f}x the work of one "
        f"(median of {repeat}; {min(ratios):.2f}-{max(ratios):.2f})"
    )


def measure_memory(
    common: tuple[str, ...], work: Path, lines: list[str], big_mb: int, version: str
) -> None:
    """Peak RSS for 10 MB and ``big_mb`` of input; the exact path's rate on the 10 MB."""
    small = work / "small.jsonl"
    write_jsonl(small, lines, 10)
    small_rss = Run(*common, "--jobs", "1", str(small)).rss_kb
    exact, plain = time_exact_path(small, version)
    print(
        f"exact path (loads per line, what the fast path does not vouch for), 10 MB: "
        f"{10 / exact:.1f} MB/s = {plain / exact:.2f}x json.loads ({10 / plain:.1f} MB/s)"
    )
    big = work / "big.jsonl"
    write_jsonl(big, lines, big_mb)
    big_run = Run(*common, "--jobs", "1", str(big))
    print(
        f"peak RSS: 10 MB input {small_rss / 1024:.0f} MB, {big_mb} MB input "
        f"{big_run.rss_kb / 1024:.0f} MB, growth {(big_run.rss_kb - small_rss) / 1024:.0f} MB "
        f"(goal < 50 MB); the big input at {big_mb / big_run.wall:.0f} MB/s wall"
    )


if __name__ == "__main__":
    main()
