"""Benchmark ``phi-wire validate`` against ``json.loads`` per line, its --jobs scaling, its memory
and its start-up, side by side in one run.

    python tools/bench_validate.py [--size-mb 100] [--big-mb 1000] [--repeat 3] [--workdir DIR]

It writes its own input: JSONL of realistic AgentEvents and AgentMessages (the events of
phi-core's recorded main session and the messages they carry, with loop ids varied), ``--size-mb``
for the throughput runs, 10 MB and ``--big-mb`` for the memory runs. Prints medians of
``--repeat`` runs: MB/s and documents/s for ``json.loads`` per line (in this process) and for the
command line with 1 and 2 jobs (each a fresh process, start-up included), peak RSS of the command
for the small and the big input, and the wall time of validating one small file.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RSS_PROBE = (
    "import resource, sys\n"
    "from phi_wire.tools.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print('maxrss_kb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
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


def run_cli(*args: str) -> tuple[float, int, str]:
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", RSS_PROBE, "validate", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(
            f"phi-wire validate failed ({result.returncode}): "
            f"{result.stdout[-500:]}{result.stderr[-500:]}"
        )
    rss = int(result.stderr.split("maxrss_kb")[-1].split()[0])
    return elapsed, rss, result.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=100)
    parser.add_argument("--big-mb", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=None)
    default = os.environ.get("PHI_WIRE_FIXTURES", str(ROOT.parent / "shared" / "fixtures"))
    parser.add_argument("--fixtures", type=Path, default=Path(default))
    args = parser.parse_args()

    lines = sample_lines(args.fixtures)
    with tempfile.TemporaryDirectory(dir=args.workdir) as scratch:
        work = Path(scratch)
        data = work / "events.jsonl"
        documents = write_jsonl(data, lines, args.size_mb)
        size = data.stat().st_size / 1e6
        print(f"input: {size:.0f} MB, {documents} documents (AgentEvents and AgentMessages)")

        samples: dict[str, list[float]] = {
            "json.loads per line": [],
            "validate --jobs 1": [],
            "validate --jobs 2": [],
        }
        for _ in range(args.repeat):
            samples["json.loads per line"].append(time_json_loads(data))
            samples["validate --jobs 1"].append(run_cli("--jobs", "1", str(data))[0])
            samples["validate --jobs 2"].append(run_cli("--jobs", "2", str(data))[0])
        rates = {}
        for name, values in samples.items():
            seconds = statistics.median(values)
            rates[name] = size / seconds
            print(
                f"  {name:22s} {seconds:7.2f} s  {rates[name]:7.1f} MB/s  "
                f"{documents / seconds:9.0f} docs/s"
            )
        base = rates["json.loads per line"]
        print(
            f"  validate single process / json.loads: "
            f"{rates['validate --jobs 1'] / base:.2f}x (goal >= 1.5x)"
        )
        print(
            f"  --jobs 2 / single process: "
            f"{rates['validate --jobs 2'] / rates['validate --jobs 1']:.2f}x (goal >= 1.8x)"
        )

        small = work / "small.jsonl"
        write_jsonl(small, lines, 10)
        small_rss = run_cli("--jobs", "1", str(small))[1]
        data.unlink()
        big = work / "big.jsonl"
        write_jsonl(big, lines, args.big_mb)
        big_rss = run_cli("--jobs", "1", str(big))[1]
        print(
            f"peak RSS: 10 MB input {small_rss / 1024:.0f} MB, {args.big_mb} MB input "
            f"{big_rss / 1024:.0f} MB, growth {(big_rss - small_rss) / 1024:.0f} MB (goal < 50 MB)"
        )

    one_file = ROOT / "examples" / "events.jsonl"
    startups = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "phi_wire.tools.cli", "validate", str(one_file)],
            capture_output=True,
            check=True,
        )
        startups.append(time.perf_counter() - start)
    print(
        f"start-up: validate one small file in {statistics.median(startups):.2f} s "
        "(median of 5; goal < 0.5 s)"
    )


if __name__ == "__main__":
    main()
