"""Benchmark ``phi-wire convert`` in every direction against a plain JSON round trip
(``json.loads`` + ``json.dumps`` per line) of the same input, and its peak memory.

    python tools/bench_convert.py [--size-mb 30] [--repeat 5] [--library-mb 2] [--workdir DIR]
                                  [--only TEXT]... [--memory] [--memory-only]
                                  [--memory-mb 20 200] [--compare PYTHON]

Inputs. It writes its own, ``--size-mb`` of each kind, from the real documents of the fixture
corpora (found through their manifests): phi-core message lists (JSONL of the AgentMessages of
phi-core's recorded sessions), phi-core AgentEvent streams, one phi-core Session file (the
recorded session's loops repeated, pretty as ``save_session`` writes it); clark-agent histories
and event streams; Operator-Use message lines and one Operator-Use session file (a header, then
the corpus's message, model and thinking-level entries chained one after the other). The corpus
is repeated as often as the size needs, each copy with its ids and timestamps varied (an id's
first eight hex digits moved, else the copy's number appended; timestamps one hour later per
copy), so that no two lines are the same (but those with neither, ``{"type":"agent_start"}``)
and every reference (a tool result's call id, a parent id) still holds. The inputs go into
``--workdir`` (default: a temporary folder, removed at the end); there they are kept and reused
by later runs of the same sizes. Each kind's ``--library-mb`` sample must pass ``phi-wire
validate``.

Cases. Every direction between phi-core, clark-agent and Operator-Use for every kind above
(``phi-core messages -> clark-agent``...): the command as users run it, ``phi-wire convert --from
X --to Y IN -o OUT`` in a fresh process (the installed ``phi-wire`` entry point), beside the
baseline, a fresh Python process reading the same file line by line (one document: whole) with
``json.loads`` and writing each ``json.dumps`` to a file (flushed to disk, as the command's output
is), so that both pay start-up and writing. The cases run in interleaved rounds (every case's
baseline and command in each round, ``gc.collect()`` before each), and each figure is the median
of ``--repeat`` rounds; ratio = baseline time / command time (issue 19's goal: >= 0.5x). Before
the rounds each direction is tried on the small ``--library-mb`` sample, which builds the caches
and finds what the converter refuses today: those are listed as "unsupported today" with the
command's own words, and not timed. The peak RSS of each process is its own VmHWM (read in the
child before it exits: Linux carries ``ru_maxrss`` over exec, so ``wait4`` would report at least
the benchmark's own peak). The machine's load average is printed with each round.

Library path. ``phi_wire.convert.convert`` on models already loaded (no file I/O; a phi-core
message list to Operator-Use: ``to_session_file``, as the command writes it), on the
``--library-mb`` sample of each input, in this process, beside the source format's ``loads`` per
document, the target's ``dumps`` and ``json.loads`` + ``json.dumps`` per line, medians of
interleaved rounds: where the command's time goes.

Memory (``--memory``: after the rest; ``--memory-only``: alone). The command's peak RSS on a small
and a big input of one kind (``--memory-mb``, default 20 and 200 MB), for the directions of
``MEMORY_CASES`` that ``--only`` keeps: the streamed ones (clark-agent history -> phi-core,
phi-core messages and events -> clark-agent, Operator-Use messages -> phi-core and clark-agent,
phi-core messages and clark-agent history -> Operator-Use, their session file's entries spooled)
and one read whole (clark-agent events -> phi-core) (issue 19's goal: the big input's peak under
2x the small one's). The peak is the child's VmHWM, not
``getrusage(RUSAGE_CHILDREN)``: Linux carries ``ru_maxrss`` over ``exec``, so a child would
report at least the benchmark's own peak.

``--compare PYTHON``: another install's command (its interpreter, such as a worktree of main's
``.venv/bin/python``) timed in the same interleaved rounds, a ``compared`` line under each case:
two versions side by side on the same loaded machine.

``--only TEXT`` (repeatable) keeps the cases whose name contains TEXT (``--only 'clark-agent
history'``).
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from importlib import import_module
from importlib.metadata import version as distribution_version
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parent.parent
GENERATION = "v1"
"""The generator's version: inputs kept in a work folder are reused only by the same one."""

CORPORA = {
    "phi-core": "phi-core/0.10.0",
    "clark-agent": "clark-agent/0.4.0",
    "operator-use": "operator-use/d0da87a6",
}
"""The corpus each format's inputs are made from: the versions the converters read and write."""

PEAK_RSS = (
    "def _peak_rss():\n"
    "    import re, sys\n"
    "    with open('/proc/self/status') as status:\n"
    "        peak = re.search(r'VmHWM:\\s*(\\d+)', status.read())\n"
    "    if peak is None:\n"
    "        raise SystemExit('no VmHWM in /proc/self/status: peak RSS cannot be read')\n"
    "    print('peak_rss_kb', peak.group(1), file=sys.stderr)\n"
)
"""Prints this process's peak RSS on standard error, for ``Run`` to read."""

COMMAND = PEAK_RSS + (
    "import sys\n"
    "from importlib.metadata import entry_points\n"
    "(script,) = entry_points(group='console_scripts', name='phi-wire')\n"
    "sys.argv = ['phi-wire', *sys.argv[1:]]\n"
    "try:\n"
    "    code = script.load()()\n"
    "except SystemExit as exit_:\n"
    "    code = exit_.code\n"
    "_peak_rss()\n"
    "raise SystemExit(code)\n"
)
"""The installed ``phi-wire`` command (its console-script entry point), then its peak RSS."""

JSON_ROUND_TRIP = PEAK_RSS + (
    "import json, os, sys\n"
    "source, target, layout = sys.argv[1:4]\n"
    "with open(source, 'rb') as handle, open(target, 'w', encoding='utf-8') as out:\n"
    "    if layout == 'document':\n"
    "        value = json.loads(handle.read())\n"
    "        out.write(json.dumps(value, ensure_ascii=False, separators=(',', ':')) + '\\n')\n"
    "    else:\n"
    "        for line in handle:\n"
    "            if line.strip():\n"
    "                value = json.loads(line)\n"
    "                out.write(json.dumps(value, ensure_ascii=False, separators=(',', ':')))\n"
    "                out.write('\\n')\n"
    "    out.flush()\n"
    "    os.fsync(out.fileno())\n"
    "_peak_rss()\n"
)
"""The baseline: ``json.loads`` + ``json.dumps`` per line (per document for a whole-file one)."""


# --- the inputs ------------------------------------------------------------------------------

HOUR_MS = 3_600_000
MIXER = 0x9E3779B1  # odd: adding multiples of it moves an 8-hex-digit id to another one
HEX_PREFIX = re.compile(r"[0-9a-f]{8}")
ISO_TIME = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(.*)", re.DOTALL)
TIME_KEYS = frozenset(
    {"timestamp", "created_at", "started_at", "ended_at", "last_active_at", "pruned_timestamps"}
)
NOT_IDS = frozenset({"model_id", "provider_id", "config_id"})
"""Keys named like ids that name a model or a configuration, the same in every copy."""


def is_id_key(key: str) -> bool:
    return key not in NOT_IDS and (key in ("id", "id_delta") or key.endswith(("_id", "Id", "_ids")))


def varied_id(text: str, copy: int) -> str:
    """Copy ``copy`` of an id: its first eight hex digits moved (a UUID stays a UUID, an
    Operator-Use entry id eight hex digits), else the copy's number appended."""
    if copy == 0:
        return text
    if HEX_PREFIX.match(text):
        return f"{(int(text[:8], 16) + copy * MIXER) % 2**32:08x}{text[8:]}"
    return f"{text}-{copy:x}"


def shifted_time(value: Any, copy: int) -> Any:
    """A timestamp ``copy`` hours later: milliseconds (phi-core, clark-agent), seconds
    (Operator-Use's floats) or RFC 3339 text (phi-core's events and loops), in its own form."""
    if copy == 0 or isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        hour = HOUR_MS if abs(value) >= 1e11 else 3600
        return value + copy * (hour if isinstance(value, int) else float(hour))
    if isinstance(value, str) and (match := ISO_TIME.fullmatch(value)):
        moved = datetime.strptime(match[1], "%Y-%m-%dT%H:%M:%S") + timedelta(hours=copy)
        return moved.strftime("%Y-%m-%dT%H:%M:%S") + match[2]
    return value


def varied(
    value: Any, copy: int, key: str | None = None, keep: frozenset[str] = frozenset()
) -> Any:
    """Copy ``copy`` of a JSON value: every id and timestamp varied (``keep``: keys left as
    they are), key order kept."""
    if isinstance(value, dict):
        return {name: varied(item, copy, name, keep) for name, item in value.items()}
    if isinstance(value, list):
        return [varied(item, copy, key, keep) for item in value]
    if key is None or key in keep:
        return value
    if isinstance(value, str) and is_id_key(key):
        return varied_id(value, copy)
    if key in TIME_KEYS:
        return shifted_time(value, copy)
    return value


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def corpus_files(fixtures: Path, format: str, folder: str, wire_type: str) -> list[Path]:
    """The corpus files of one type under one folder, as the corpus's manifest lists them."""
    base = fixtures / CORPORA[format]
    entries = json.loads((base / "manifest.json").read_text(encoding="utf-8"))["fixtures"]
    found = sorted(
        base / entry["file"]
        for entry in entries
        if str(entry.get("file", "")).startswith(f"{folder}/") and entry.get("type") == wire_type
    )
    if not found:
        raise SystemExit(f"{base}/manifest.json lists no {wire_type} under {folder}/")
    return found


def jsonl_documents(paths: Iterable[Path]) -> list[Any]:
    return [
        json.loads(line)
        for path in paths
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def distinct(documents: Iterable[Any], ignored: tuple[str, ...] = ()) -> list[Any]:
    """Each document once (the corpora repeat some: a forked session copies its source's
    entries), compared without the keys ``ignored``, in their order."""
    seen: dict[str, Any] = {}
    for document in documents:
        same = {k: v for k, v in document.items() if k not in ignored}
        seen.setdefault(compact(same), document)
    return list(seen.values())


def write_copies(path: Path, documents: list[Any], megabytes: float) -> int:
    """JSONL: ``documents`` copied (each copy varied) until ``path`` holds ``megabytes``; whole
    copies only. The number of lines."""
    documents = distinct(documents)
    target = megabytes * 1e6
    written = lines = copy = 0
    with path.open("wb") as out:
        while written < target:
            block = "".join(compact(varied(document, copy)) + "\n" for document in documents)
            written += out.write(block.encode())
            lines += len(documents)
            copy += 1
    return lines


def phi_core_messages(fixtures: Path, path: Path, megabytes: float) -> int:
    sessions = corpus_files(fixtures, "phi-core", "sessions", "Session")
    messages = [
        message
        for session in sessions
        for loop in json.loads(session.read_bytes())["loops"]
        for message in loop["messages"]
    ]
    return write_copies(path, messages, megabytes)


def phi_core_events(fixtures: Path, path: Path, megabytes: float) -> int:
    streams = corpus_files(fixtures, "phi-core", "streams", "AgentEvent")
    return write_copies(path, jsonl_documents(streams), megabytes)


def phi_core_session(fixtures: Path, path: Path, megabytes: float) -> int:
    """One session as ``save_session`` writes it (pretty, 2-space indent, no final newline): the
    biggest recorded session, its loops copied (varied; the session's own ids kept in each loop)
    until the file holds ``megabytes``."""
    sessions = corpus_files(fixtures, "phi-core", "sessions", "Session")
    session = json.loads(max(sessions, key=lambda p: p.stat().st_size).read_bytes())
    loops = session["loops"]

    def size(copies: int) -> int:
        text = json.dumps({**session, "loops": loops * copies}, indent=2, ensure_ascii=False)
        return len(text.encode())

    per_copy = size(2) - size(1)
    copies = max(1, math.ceil((megabytes * 1e6 - (size(1) - per_copy)) / per_copy))
    own = frozenset({"session_id", "agent_id"})
    session["loops"] = [varied(loop, copy, keep=own) for copy in range(copies) for loop in loops]
    session["last_active_at"] = shifted_time(session["last_active_at"], copies - 1)
    path.write_text(json.dumps(session, indent=2, ensure_ascii=False), encoding="utf-8")
    return 1


def clark_agent_history(fixtures: Path, path: Path, megabytes: float) -> int:
    rows = jsonl_documents(corpus_files(fixtures, "clark-agent", "history", "AgentMessage"))
    return write_copies(path, rows, megabytes)


def clark_agent_events(fixtures: Path, path: Path, megabytes: float) -> int:
    events = jsonl_documents(corpus_files(fixtures, "clark-agent", "streams", "AgentEvent"))
    return write_copies(path, events, megabytes)


CHAINED = frozenset({"message", "model_change", "thinking_level_change"})
"""The Operator-Use entries a long linear session is made of (branches, labels and compactions
would leave most of the file off the active branch, which is what is converted)."""


def operator_use_entries(fixtures: Path) -> tuple[Any, list[Any]]:
    """The first session's header, and the chainable entries of every session file."""
    sessions = corpus_files(fixtures, "operator-use", "sessions", "SessionFile")
    files = [jsonl_documents([session]) for session in sessions]
    entries = [entry for entries in files for entry in entries if entry.get("type") in CHAINED]
    return files[0][0], distinct(entries, ignored=("id", "parent_id", "timestamp"))


def operator_use_messages(fixtures: Path, path: Path, megabytes: float) -> int:
    _, entries = operator_use_entries(fixtures)
    messages = [entry["message"] for entry in entries if entry["type"] == "message"]
    return write_copies(path, messages, megabytes)


def operator_use_session(fixtures: Path, path: Path, megabytes: float) -> int:
    """One session file: the header, then the corpus's entries copied (varied), each the child
    of the one before, with fresh entry ids (eight hex digits, all different)."""
    header, entries = operator_use_entries(fixtures)
    target = megabytes * 1e6
    number = copy = 0
    with path.open("wb") as out:
        written = out.write(compact(header).encode() + b"\n")
        while written < target:
            for entry in entries:
                copied = varied(entry, copy)
                chained = {"id": f"{number * MIXER % 2**32:08x}", "timestamp": copied["timestamp"]}
                if number:
                    chained["parent_id"] = f"{(number - 1) * MIXER % 2**32:08x}"
                skip = ("id", "timestamp", "parent_id")
                chained.update((k, v) for k, v in copied.items() if k not in skip)
                written += out.write(compact(chained).encode() + b"\n")
                number += 1
            copy += 1
    return number + 1


Layout = Literal["lines", "session-file", "document"]


@dataclass(frozen=True)
class Kind:
    """One kind of input: what it is, how it is laid out, how to make it."""

    name: str
    format: str
    wire_type: str
    """The format's type of each document (of the whole file, for a session file)."""
    layout: Layout
    """``lines``: JSONL, one document per line; ``session-file``: JSONL read whole as one
    document (the baseline still goes line by line); ``document``: one JSON document."""
    make: Callable[[Path, Path, float], int]
    """(fixtures, path, megabytes) -> the documents (lines) written."""

    @property
    def slug(self) -> str:
        return self.name.lower().replace(" ", "-")

    @property
    def suffix(self) -> str:
        return ".json" if self.layout == "document" else ".jsonl"


KINDS = {
    kind.name: kind
    for kind in (
        Kind("phi-core messages", "phi-core", "AgentMessage", "lines", phi_core_messages),
        Kind("phi-core events", "phi-core", "AgentEvent", "lines", phi_core_events),
        Kind("phi-core session", "phi-core", "Session", "document", phi_core_session),
        Kind("clark-agent history", "clark-agent", "AgentMessage", "lines", clark_agent_history),
        Kind("clark-agent events", "clark-agent", "AgentEvent", "lines", clark_agent_events),
        Kind(
            "Operator-Use messages", "operator-use", "AgentMessage", "lines", operator_use_messages
        ),
        Kind(
            "Operator-Use session",
            "operator-use",
            "SessionFile",
            "session-file",
            operator_use_session,
        ),
    )
}
FORMATS = ("phi-core", "clark-agent", "operator-use")
MEMORY_CASES = (
    ("clark-agent history", "phi-core"),
    ("phi-core messages", "clark-agent"),
    ("phi-core events", "clark-agent"),
    ("phi-core messages", "operator-use"),
    ("clark-agent history", "operator-use"),
    ("clark-agent events", "phi-core"),
    ("Operator-Use messages", "phi-core"),
    ("Operator-Use messages", "clark-agent"),
)
"""The directions whose peak RSS is measured at two sizes: the three streamed ones (each document
converts alone), three whose documents need each other (a session file written, its entries
spooled: from phi-core messages and from clark-agent history; a stream's run identity), and
Operator-Use messages, streamed with the tool names carried."""


def generated(kind: Kind, fixtures: Path, folder: Path, megabytes: float) -> Path:
    """The input of ``kind`` and size in ``folder``: made now, or kept from an earlier run."""
    path = folder / f"{kind.slug}.{megabytes:g}mb{kind.suffix}"
    if not path.exists():
        partial = path.with_name(f".{path.name}.partial")
        kind.make(fixtures, partial, megabytes)
        partial.replace(path)  # complete, or not there: a run stopped half-way leaves none
    return path


def described(kind: Kind, path: Path) -> str:
    """The input's file name and what it holds."""
    if kind.layout == "document":
        return f"{path.name}: one {kind.wire_type}"
    lines = path.read_bytes().count(b"\n")
    if kind.layout == "session-file":
        return f"{path.name}: one {kind.wire_type} of {lines:,} lines"
    return f"{path.name}: {lines:,} {kind.wire_type}s"


# --- running the command and the baseline ----------------------------------------------------


@dataclass
class Run:
    """One process: wall time, exit status, peak RSS (VmHWM), what it printed."""

    wall: float
    status: int
    rss_kb: int
    stdout: str
    stderr: str


def run(code: str, *arguments: str, python: str = sys.executable) -> Run:
    """``code`` (``COMMAND`` or ``JSON_ROUND_TRIP``) in a fresh interpreter (``python``: this
    one's, or another install's), this process's garbage collected first."""
    gc.collect()
    start = time.perf_counter()
    result = subprocess.run(
        [python, "-c", code, *arguments], capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - start
    peak = re.findall(r"peak_rss_kb (\d+)", result.stderr)
    stderr = re.sub(r"peak_rss_kb \d+\n?", "", result.stderr)
    return Run(wall, result.returncode, int(peak[-1]) if peak else 0, result.stdout, stderr)


@dataclass
class Case:
    """One direction for one kind of input."""

    kind: Kind
    target: str
    refused: str | None = None
    """What the command said when it refused the sample (None: it converts)."""

    @property
    def name(self) -> str:
        return f"{self.kind.name} -> {self.target}"

    def arguments(self, source: Path, out: Path) -> list[str]:
        output = out / f"{self.kind.slug}.{self.target}{self.kind.suffix}"
        return [
            "convert",
            "--from",
            self.kind.format,
            "--to",
            self.target,
            str(source),
            "-o",
            str(output),
        ]

    def shown(self) -> str:
        """The command line, with IN and OUT for the paths."""
        return shlex.join(["phi-wire", *self.arguments(Path("IN"), Path("OUT"))[:5]]) + " IN -o OUT"

    def command(self, source: Path, out: Path, python: str = sys.executable) -> Run:
        return run(COMMAND, *self.arguments(source, out), python=python)

    def baseline(self, source: Path, out: Path) -> Run:
        output = out / f"{self.kind.slug}.json-round-trip{self.kind.suffix}"
        layout = "document" if self.kind.layout == "document" else "lines"
        result = run(JSON_ROUND_TRIP, str(source), str(output), layout)
        if result.status != 0:
            raise SystemExit(f"the JSON round trip of {source} failed: {result.stderr[-800:]}")
        return result


def all_cases(only: list[str]) -> list[Case]:
    cases = [
        Case(kind, target) for kind in KINDS.values() for target in FORMATS if target != kind.format
    ]
    chosen = [case for case in cases if not only or any(text in case.name for text in only)]
    if not chosen:
        raise SystemExit(f"no case matches {only}; the cases: {', '.join(c.name for c in cases)}")
    return chosen


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def mb(path: Path) -> float:
    return path.stat().st_size / 1e6


def check_samples(samples: dict[str, Path]) -> None:
    """Every generated sample is valid in its format, as ``phi-wire validate`` judges it."""
    for name, path in samples.items():
        kind = KINDS[name]
        result = run(COMMAND, "validate", "--format", kind.format, str(path))
        if result.status != 0:
            said = (result.stdout + result.stderr)[-1500:]
            raise SystemExit(f"the generated {name} ({path}) is not valid:\n{said}")


def try_cases(cases: list[Case], samples: dict[str, Path], out: Path) -> None:
    """Each direction once on its sample: builds the caches, finds what is refused today."""
    for case in cases:
        result = case.command(samples[case.kind.name], out)
        if result.status == 2:
            lines = [line for line in result.stderr.splitlines() if line.strip()]
            said = lines[-1].removeprefix("phi-wire: ") if lines else "exit status 2"
            case.refused = said.removeprefix(f"{samples[case.kind.name]}: ")
        elif result.status != 0:
            raise SystemExit(f"{case.name}: exit status {result.status}: {result.stderr[-800:]}")


# --- throughput ------------------------------------------------------------------------------


def throughput(
    cases: list[Case], inputs: dict[str, Path], out: Path, repeat: int, compare: str | None = None
) -> None:
    """Every convertible case's baseline and command in each round (and, with ``compare``,
    another install's command: its interpreter); the table of medians."""
    convertible = [case for case in cases if case.refused is None]
    runs: dict[str, dict[str, list[Run]]] = {
        case.name: {"json": [], "convert": [], "compared": []} for case in convertible
    }
    for number in range(1, repeat + 1):
        started = time.perf_counter()
        print(f"round {number}/{repeat}: load average {load()}", end="", flush=True)
        for case in convertible:
            source = inputs[case.kind.name]
            runs[case.name]["json"].append(case.baseline(source, out))
            command = case.command(source, out)
            if command.status not in (0, 1):  # 1: converted, with losses (--fail-on-loss only)
                raise SystemExit(f"{case.name}: exit {command.status}: {command.stderr[-800:]}")
            runs[case.name]["convert"].append(command)
            if compare is not None:
                runs[case.name]["compared"].append(case.command(source, out, compare))
        print(f", {time.perf_counter() - started:.0f} s", flush=True)
    print(
        f"\nthroughput: medians of {repeat} interleaved rounds; load average now {load()}\n"
        "(ratio = JSON round trip time / convert time: issue 19's goal >= 0.5x)"
    )
    print(
        f"  {'case':40s} {'input':>8s}  {'JSON round trip':>17s}  {'phi-wire convert':>17s}"
        f"  {'ratio':>6s}  {'peak RSS: JSON / convert':>24s}"
    )
    for case in cases:
        if case.refused is not None:
            print(f"  {case.name:40s} unsupported today: {case.refused}")
            continue
        size = mb(inputs[case.kind.name])
        plain, command_runs = runs[case.name]["json"], runs[case.name]["convert"]
        base = statistics.median(r.wall for r in plain)
        wall = statistics.median(r.wall for r in command_runs)
        base_rss = statistics.median(r.rss_kb for r in plain) / 1024
        rss = statistics.median(r.rss_kb for r in command_runs) / 1024
        print(
            f"  {case.name:40s} {size:5.1f} MB  {size / base:6.1f} MB/s {base:6.2f} s"
            f"  {size / wall:6.1f} MB/s {wall:6.2f} s  {base / wall:5.2f}x"
            f"  {base_rss:10.0f} / {rss:6.0f} MB"
        )
        compared = runs[case.name]["compared"]
        if compared:
            if any(r.status not in (0, 1) for r in compared):
                print(
                    f"  {'':40s} compared: exit {compared[0].status}: {compared[0].stderr[-200:]}"
                )
                continue
            other = statistics.median(r.wall for r in compared)
            other_rss = statistics.median(r.rss_kb for r in compared) / 1024
            print(
                f"  {'':40s} {'compared':>8s}  {'':17s}  {size / other:6.1f} MB/s {other:6.2f} s"
                f"  {base / other:5.2f}x  {'':10s} / {other_rss:6.0f} MB"
            )


# --- the library path ------------------------------------------------------------------------


def wire_module(format: str) -> Any:
    """The public module of the version each converter reads and writes."""
    return import_module(
        {
            "phi-core": "phi_wire",
            "clark-agent": "phi_wire.clark_agent",
            "operator-use": "phi_wire.operator_use",
        }[format]
    )


def documents_of(kind: Kind, path: Path) -> list[bytes]:
    data = path.read_bytes()
    if kind.layout == "lines":
        return [line for line in data.split(b"\n") if line.strip()]
    return [data]


def loaded(kind: Kind, documents: list[bytes]) -> Any:
    """The documents as the source format's models: a list for JSONL, else one model."""
    module = wire_module(kind.format)
    tp = getattr(module, kind.wire_type)
    values = [module.loads(tp, document) for document in documents]
    return values if kind.layout == "lines" else values[0]


def converted(case: Case, value: Any) -> Any:
    """``value`` converted as the command converts it (a phi-core message list to Operator-Use:
    its session file)."""
    from phi_wire.convert import convert, to_session_file

    if case.kind.format == "phi-core" and case.target == "operator-use" and isinstance(value, list):
        return to_session_file(value).value
    return convert(value, source=case.kind.format, target=case.target).value


def dumped(target: str, value: Any) -> list[str]:
    module = wire_module(target)
    if isinstance(value, list):
        return [module.dumps(item) for item in value]
    return [module.dumps(value)]


def json_lines(kind: Kind, path: Path) -> list[bytes]:
    """What the baseline reads one at a time: the lines (one document: the whole file)."""
    data = path.read_bytes()
    return (
        [data]
        if kind.layout == "document"
        else [line for line in data.split(b"\n") if line.strip()]
    )


def json_round_trip(documents: list[bytes]) -> None:
    """The baseline in this process: ``json.loads`` + ``json.dumps`` of each."""
    for document in documents:
        json.dumps(json.loads(document), ensure_ascii=False, separators=(",", ":"))


def timed(function: Callable[[], object]) -> float:
    """Seconds ``function`` takes, started with nothing left for the garbage collector."""
    gc.collect()
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def library(cases: list[Case], samples: dict[str, Path], repeat: int) -> None:
    print(
        f"\nlibrary path: in this process, on each --library-mb sample, medians of {repeat} "
        "interleaved rounds\n(MB/s of the input; ratio = JSON round trip / (loads + convert() "
        "+ dumps))"
    )
    header = (
        f"  {'case':40s} {'input':>8s}  {'JSON round trip':>15s}  {'source loads':>12s}"
        f"  {'convert()':>10s}  {'target dumps':>12s}  {'ratio':>6s}"
    )
    print(header)
    for case in cases:
        if case.refused is None:
            print(library_row(case, samples[case.kind.name], repeat), flush=True)


def library_row(case: Case, path: Path, repeat: int) -> str:
    """One case of the library path: its row of the table."""
    from phi_wire.convert import UnsupportedConversion

    documents = documents_of(case.kind, path)
    value = loaded(case.kind, documents)
    try:
        result = converted(case, value)
    except UnsupportedConversion as error:  # the command refuses it only by its input
        return f"  {case.name:40s} convert() refuses it: {error}"
    functions: dict[str, Callable[[], object]] = {
        "json": functools.partial(json_round_trip, json_lines(case.kind, path)),
        "loads": functools.partial(loaded, case.kind, documents),
        "convert": functools.partial(converted, case, value),
        "dumps": functools.partial(dumped, case.target, result),
    }
    seconds: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(repeat):
        for name, function in functions.items():
            seconds[name].append(timed(function))
    median = {name: statistics.median(values) for name, values in seconds.items()}
    size = mb(path)
    rates = "  ".join(
        f"{size / median[name]:{width}.1f} MB/s"
        for name, width in (("json", 10), ("loads", 7), ("convert", 5), ("dumps", 7))
    )
    whole = median["loads"] + median["convert"] + median["dumps"]
    return f"  {case.name:40s} {size:5.1f} MB  {rates}  {median['json'] / whole:5.2f}x"


# --- memory ----------------------------------------------------------------------------------


def memory(
    cases: list[Case], fixtures: Path, folder: Path, out: Path, sizes: tuple[float, float]
) -> None:
    names = {case.name for case in cases}
    chosen = [
        (KINDS[kind], target) for kind, target in MEMORY_CASES if f"{kind} -> {target}" in names
    ]
    print(
        f"\nmemory: peak RSS of one run on {sizes[0]:g} MB and on {sizes[1]:g} MB of input "
        "(issue 19's goal: the big input's under 2x the small one's)"
    )
    for kind, target in chosen:
        case = Case(kind, target)
        print(f"  {case.name}: {case.shown()}")
        peaks: list[float] = []
        for megabytes in sizes:
            source = generated(kind, fixtures, folder, megabytes)
            size = mb(source)
            plain = case.baseline(source, out)
            result = case.command(source, out)
            if result.status not in (0, 1):
                print(f"  {case.name}, {size:.0f} MB: exit {result.status}: {result.stderr[-300:]}")
                break
            peaks.append(result.rss_kb / 1024)
            print(
                f"  {case.name:40s} {size:6.1f} MB: convert {result.wall:7.1f} s, peak RSS "
                f"{result.rss_kb / 1024:6.0f} MB (JSON round trip {plain.rss_kb / 1024:.0f} MB); "
                f"load average {load()}",
                flush=True,
            )
        if len(peaks) == 2:
            print(f"  {case.name:40s} big / small peak RSS: {peaks[1] / peaks[0]:.2f}x (goal < 2x)")


# --- the run ---------------------------------------------------------------------------------


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--size-mb", type=float, default=30, help="each input's size (default 30)")
    parser.add_argument("--repeat", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument(
        "--library-mb",
        type=float,
        default=2,
        help="the size of each sample: the first try of each case, the library path (0: none)",
    )
    parser.add_argument("--only", action="append", default=[], help="cases whose name has TEXT")
    parser.add_argument("--memory", action="store_true", help="also the memory runs (slow)")
    parser.add_argument("--memory-only", action="store_true", help="only the memory runs")
    parser.add_argument(
        "--memory-mb", type=float, nargs=2, default=(20, 200), metavar=("SMALL", "BIG")
    )
    parser.add_argument(
        "--workdir", type=Path, help="where the inputs are made and kept (default: a temporary one)"
    )
    parser.add_argument(
        "--compare",
        metavar="PYTHON",
        help="also time another install's command in the same rounds (the interpreter of its "
        "venv, e.g. a worktree of main's .venv/bin/python): a 'compared' line under each case",
    )
    default = os.environ.get("PHI_WIRE_FIXTURES", str(ROOT.parent / "shared" / "fixtures"))
    parser.add_argument("--fixtures", type=Path, default=Path(default))
    return parser.parse_args()


@dataclass
class Workspace:
    inputs: Path
    out: Path


@contextmanager
def workspace(workdir: Path | None) -> Iterator[Workspace]:
    """Where the inputs are made (kept in ``workdir``, if given) and the outputs written."""
    if workdir is not None:
        inputs = workdir / f"inputs-{GENERATION}"
        inputs.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=workdir) as scratch:
            yield Workspace(inputs, Path(scratch))
        return
    with tempfile.TemporaryDirectory() as scratch:
        (Path(scratch) / "inputs").mkdir()
        yield Workspace(Path(scratch) / "inputs", Path(scratch))


def main() -> None:
    args = arguments()
    print(f"$ {shlex.join(['python', *sys.argv])}")
    print(
        f"{datetime.now().astimezone():%Y-%m-%d %H:%M %Z}, {os.cpu_count()} CPUs, Python "
        f"{sys.version.split()[0]}, phi-wire {distribution_version('phi-wire')}; load average "
        f"{load()}"
    )
    cases = all_cases(args.only)
    if args.memory_only:
        cases = [case for case in cases if (case.kind.name, case.target) in MEMORY_CASES]
    with workspace(args.workdir) as place:
        os.environ["PHI_WIRE_CACHE_DIR"] = str(place.out / "cache")  # built by the first tries
        kinds = {case.kind.name: case.kind for case in cases}
        sample_mb = args.library_mb or 0.5
        samples = {
            n: generated(k, args.fixtures, place.inputs, sample_mb) for n, k in kinds.items()
        }
        check_samples(samples)
        try_cases(cases, samples, place.out)
        if not args.memory_only:
            started = time.perf_counter()
            inputs = {
                name: generated(kind, args.fixtures, place.inputs, args.size_mb)
                for name, kind in kinds.items()
            }
            print(f"inputs in {place.inputs} ({time.perf_counter() - started:.0f} s to make):")
            for name, path in inputs.items():
                print(f"  {name:24s} {mb(path):6.1f} MB  {described(kinds[name], path)}")
            print("cases (IN: the input above, OUT: a file in a scratch folder):")
            for case in cases:
                print(f"  {case.name:40s} {case.shown()}")
            if args.repeat:
                throughput(cases, inputs, place.out, args.repeat, args.compare)
            if args.library_mb:
                library(cases, samples, args.repeat or 1)
        if args.memory or args.memory_only:
            memory(cases, args.fixtures, place.inputs, place.out, tuple(args.memory_mb))


if __name__ == "__main__":
    main()
