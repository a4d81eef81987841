"""Benchmark ``phi_wire.dask`` (issue 22): a ``LocalCluster`` of 2 single-threaded worker
processes against one worker and against the single-machine ``phi-wire validate --jobs 2`` on the
same data, worker memory against input size, S3 on 127.0.0.1 against local files, and a model of
the cluster case from the measurements.

    python tools/bench_dask.py [--size-mb 500] [--files 16] [--s3-mb 100] [--repeat 3]
                               [--memory-mb 50] [--workdir DIR] [--version 0.8]
                               [--beside OTHER_PYTHON] [--s3-only]

It writes its own input (``tools/bench_validate.py``'s: JSONL of the AgentEvents and
AgentMessages of phi-core's recorded main session, loop ids varied): ``--size-mb`` in ``--files``
plain files, and the same files gzipped. Each round (the median of ``--repeat`` interleaved
rounds is reported, so that all runs see the same machine) times, on the plain and on the gzip
archive: ``phi_wire.dask.validate(...).compute()`` on a running cluster of one worker and of two
(the clusters start once, before the rounds: a cluster outlives runs; its start is reported
apart), and ``phi-wire validate --jobs 2`` as a fresh process (wall time). The load average before
and after is printed: the machine is shared. Memory: each worker's peak RSS (``VmHWM``) after a
run of ``--memory-mb`` and after one of ``--size-mb``, on fresh one-worker clusters. S3: moto's
server on 127.0.0.1 in a process of its own (as a store is; on a 2-core machine its CPU still
competes with the workers', so the server's CPU time is reported), ``--s3-mb`` of the plain files
uploaded, and the same files gzipped, two workers reading them against the same files on disk,
with the CPU time per MB of the workers (the store's clients), of this process and of the server
beside the wall-time ratio, and the ratio the machine allows when both runs keep its cores busy
(all CPU per MB, local over S3 with the server's); ``--beside
PYTHON`` (main's venv) measures that Python's phi_wire in the same rounds, alternating child
processes, and ``--s3-only`` measures only this (and the machine's two-process ceiling). The
model: one worker's throughput, the scheduler's cost per
task (the wall time of a few thousand empty tasks on the two workers), the block size that keeps
that cost under 5% of a task, and the workers that validate 1 TB in an hour. Beside them, what two
CPU-bound processes get out of the machine (``bench_validate``'s probe: the ceiling of any 2x).

``--convert`` measures the converter instead (``phi_wire.dask.convert``, issue 22's convert half):
``--size-mb`` of phi-core event streams (phi-core's recorded main session repeated) in
``--files`` files, converted to clark-agent by a cluster of one worker and of two (one task per
file), and by ``phi-wire convert`` as a fresh process on one machine, the median of ``--repeat``
interleaved rounds; every run's outputs are checked to be the local command's, byte for byte.

    python tools/bench_dask.py --convert [--size-mb 48] [--files 8] [--repeat 3]

``--parts`` measures, with the least noise a shared machine allows, what reading from S3 adds
to a worker's CPU per MB: the parts of ``--s3-mb`` of the plain files judged in this process (no
Dask, no second worker), from disk and from the S3 server, split by thread (this one: judging,
our reader, the copies; the others: obstore's Tokio threads, the HTTP), with the server's CPU
and the GETs and bytes asked, medians of ``--repeat`` interleaved rounds.

    python tools/bench_dask.py --parts [--s3-mb 100] [--s3rver CMD] [--size-mb 500 --files 8]

``--readers`` measures the ways of reading S3 byte ranges instead, in this process against moto's
server (its own process): s3fs's reader with its read-ahead (main's), phi_wire's streamed obstore
GET, s3fs's ``cat_file``, botocore's ``get_object`` and obstore's ``get_range``, one GET per range;
the reader's and the server's CPU time per MB, medians of ``--repeat`` interleaved rounds.

    python tools/bench_dask.py --readers [--s3-mb 100] [--part-mb 12] [--size-mb 500 --files 8]

Do not edit phi_wire's sources while it runs: the fast path's cache key digests them, and a worker
that misses the cache judges without it (or builds it again).
"""

from __future__ import annotations

import argparse
import functools
import gzip
import itertools
import json
import math
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_validate import machine_scaling, sample_lines, write_jsonl

ROOT = Path(__file__).resolve().parent.parent
TERABYTE = 1e12


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def write_archive(folder: Path, lines: list[str], megabytes: int, files: int) -> int:
    """``files`` plain JSONL files of ``megabytes`` in all; returns the bytes written."""
    folder.mkdir(parents=True)
    each = max(1, megabytes // files)
    for index in range(files):
        write_jsonl(folder / f"events-{index:03d}.jsonl", lines, each)
    return sum(path.stat().st_size for path in folder.iterdir())


def gzipped(plain: Path, folder: Path) -> None:
    folder.mkdir(parents=True)
    for path in sorted(plain.iterdir()):
        with path.open("rb") as source, gzip.open(folder / (path.name + ".gz"), "wb", 6) as out:
            shutil.copyfileobj(source, out, 4 * 1024 * 1024)


def cluster(workers: int) -> Any:
    from distributed import Client, LocalCluster

    started = time.perf_counter()
    local = LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",  # any free port (none without bokeh)
        silence_logs=50,  # a worker's heartbeat failing as its cluster closes is no news
    )
    client = Client(local)
    client.wait_for_workers(workers)
    print(
        f"  a LocalCluster of {workers} worker(s) started in {time.perf_counter() - started:.1f} s"
    )
    return local, client


def on_dask(client: Any, path: str, version: str, **options: Any) -> float:
    """Seconds for a run on the cluster: the walk, the split, the computation."""
    from phi_wire.dask import validate

    started = time.perf_counter()
    _, summary = validate(path, version=version, client=client, **options).compute()
    elapsed = time.perf_counter() - started
    if summary.tally.invalid or summary.tally.input_errors or not summary.tally.documents:
        raise SystemExit(f"unexpected result on {path}: {summary.tally.as_dict()}")
    return elapsed


def command(*args: str) -> float:
    """Wall seconds of ``phi-wire validate ARGS`` as a fresh process."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "phi_wire", "validate", "--quiet", *args],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def peak_rss_mb(client: Any) -> list[float]:
    """Each worker's peak RSS so far, in MB."""

    def vm_hwm() -> int:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return 0

    return [kb / 1024 for kb in client.run(vm_hwm).values()]


def task_overhead(client: Any, count: int = 3000) -> float:
    """Seconds of wall time per empty task on the cluster (the scheduler and the messages)."""

    def nothing(index: int) -> int:
        return index

    client.gather(client.map(nothing, range(200), pure=False))  # warm
    started = time.perf_counter()
    client.gather(client.map(nothing, range(count), pure=False))
    return (time.perf_counter() - started) / count


def rounds(repeat: int, cases: dict[str, Callable[[], float]]) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeat):
        for name, case in cases.items():
            times[name].append(case())
    return {name: statistics.median(found) for name, found in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=500)
    parser.add_argument("--files", type=int, default=16)
    parser.add_argument("--s3-mb", type=int, default=100)
    parser.add_argument("--memory-mb", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--version", default="0.8", help="phi-core version to validate against")
    parser.add_argument("--workdir", type=Path, default=None)
    default = os.environ.get("PHI_WIRE_FIXTURES", str(ROOT.parent / "shared" / "fixtures"))
    parser.add_argument("--fixtures", type=Path, default=Path(default))
    parser.add_argument("--convert", action="store_true", help="measure the converter instead")
    parser.add_argument("--s3-only", action="store_true", help="measure S3 against local only")
    parser.add_argument(
        "--beside", default=None, help="another Python (main's venv): its S3 figures alongside"
    )
    parser.add_argument(
        "--readers", action="store_true", help="CPU per MB of each way of reading S3 ranges"
    )
    parser.add_argument("--part-mb", type=int, default=12, help="--readers: bytes per range")
    parser.add_argument(
        "--parts",
        action="store_true",
        help="CPU per MB of judging the parts in one process, local files against S3 objects",
    )
    parser.add_argument(
        "--s3rver",
        default=None,
        help="npm's s3rver command (a lighter S3 server): the S3 figures against it, not moto",
    )
    parser.add_argument("--s3-child", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.s3_child is not None:  # one round of --beside: the figures as one JSON line
        command("--version", args.version, str(min(args.s3_child.iterdir())))  # its cache
        print(json.dumps(s3_rounds(args.s3_child, args.s3_mb, 1, args.version, args.s3rver)))
        return
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
    if args.convert:
        with tempfile.TemporaryDirectory(dir=args.workdir) as scratch:
            run_convert(Path(scratch), args)
        return
    lines = sample_lines(args.fixtures)
    with tempfile.TemporaryDirectory(dir=args.workdir) as scratch:
        work = Path(scratch)
        os.environ["PHI_WIRE_CACHE_DIR"] = str(work / "cache")  # workers inherit it
        run(work, lines, args)


def run(work: Path, lines: list[str], args: argparse.Namespace) -> None:
    plain, packed = work / "plain", work / "gzip"
    size = write_archive(plain, lines, args.size_mb, args.files) / 1e6
    if args.parts:
        print(f"input: {size:.0f} MB in {args.files} plain JSONL files; before: {load()}")
        command("--version", args.version, str(plain / "events-000.jsonl"))  # the cache
        measure_parts(plain, args)
        print(f"after: {load()}")
        return
    if args.readers:
        print(f"input: {size:.0f} MB in {args.files} plain JSONL files; before: {load()}")
        measure_readers(plain, args)
        print(f"after: {load()}")
        return
    if args.s3_only:
        print(f"input: {size:.0f} MB in {args.files} plain JSONL files; before: {load()}")
        command("--version", args.version, str(plain / "events-000.jsonl"))  # the cache
        measure_s3(plain, args, args.version)
        print(f"  the machine itself: {machine_scaling(args.repeat)}")
        print(f"after: {load()}")
        return
    gzipped(plain, packed)
    packed_size = sum(path.stat().st_size for path in packed.iterdir()) / 1e6
    print(f"input: {size:.0f} MB in {args.files} plain JSONL files; gzipped {packed_size:.0f} MB")
    version = args.version
    command("--version", version, str(plain / "events-000.jsonl"))  # builds the fast path cache
    print(f"before: {load()}")
    one_cluster, one = cluster(1)
    two_cluster, two = cluster(2)
    cases: dict[str, Callable[[], float]] = {}
    for label, folder in (("plain", plain), ("gzip", packed)):
        path = str(folder)
        cases[f"{label}: dask, 1 worker"] = functools.partial(on_dask, one, path, version)
        cases[f"{label}: dask, 2 workers"] = functools.partial(on_dask, two, path, version)
        cases[f"{label}: validate --jobs 2"] = functools.partial(
            command, "--version", version, "--jobs", "2", path
        )
    medians = rounds(args.repeat, cases)
    print(f"medians of {args.repeat} interleaved rounds ({load()}):")
    for name, seconds in medians.items():
        megabytes = size  # rates count the uncompressed bytes judged
        print(f"  {name:32s} {seconds:7.2f} s {megabytes / seconds:7.1f} MB/s")
    for label in ("plain", "gzip"):
        one_s, two_s = medians[f"{label}: dask, 1 worker"], medians[f"{label}: dask, 2 workers"]
        jobs_s = medians[f"{label}: validate --jobs 2"]
        print(
            f"  {label}: 2 workers / 1 worker {one_s / two_s:.2f}x (goal >= 1.8x); "
            f"2 workers against --jobs 2: {100 * (two_s / jobs_s - 1):+.0f}% (goal <= +15%)"
        )
    print(f"  the machine itself: {machine_scaling(args.repeat)} (the ceiling of any 2x here)")
    overhead = task_overhead(two)
    worker_rate = size * 1e6 / medians["plain: dask, 1 worker"]  # bytes per second
    two.close()
    two_cluster.close()
    one.close()
    one_cluster.close()
    measure_memory(work, lines, args, version)
    measure_s3(plain, args, version)
    print("model of the cluster case (from the figures above):")
    print(f"  one worker judges {worker_rate / 1e6:.1f} MB/s of phi-core JSONL")
    per_task = 4 * overhead  # a range's tasks: judge, count its lines, place and count, gather
    block = per_task * worker_rate / 0.05
    print(
        f"  the scheduler costs {overhead * 1e3:.2f} ms of wall time per task ({per_task * 1e3:.1f}"
        f" ms per block of 4 tasks): blocks of {block / 1e6:.1f} MB or more keep it under 5% "
        f"(the default, 64 MB: {100 * per_task * worker_rate / 64e6:.2f}%)"
    )
    workers = TERABYTE / 3600 / worker_rate
    print(
        f"  1 TB in an hour: {TERABYTE / 3600 / 1e6:.0f} MB/s, {workers:.1f} workers' worth: "
        f"{math.ceil(workers)} workers (cores) at this rate (gzip: the uncompressed bytes count; "
        f"one task per file, so at least as many files as workers)"
    )
    print(f"after: {load()}")


def measure_memory(work: Path, lines: list[str], args: argparse.Namespace, version: str) -> None:
    """Each worker's peak RSS after runs of two sizes, on fresh one-worker clusters."""
    small = work / "memory-small"
    write_archive(small, lines, args.memory_mb, max(1, args.files * args.memory_mb // args.size_mb))
    peaks = {}
    for label, folder in ((f"{args.memory_mb} MB", small), (f"{args.size_mb} MB", work / "plain")):
        local, client = cluster(1)
        on_dask(client, str(folder), version)
        peaks[label] = max(peak_rss_mb(client))
        client.close()
        local.close()
    shutil.rmtree(small)
    print(
        "worker peak RSS: "
        + ", ".join(f"{label} input {peak:.0f} MB" for label, peak in peaks.items())
        + " (blocks of at most 64 MB, read in 4 MB chunks; only the records are kept)"
    )


class S3Server:
    """moto's S3 server on 127.0.0.1 in a process of its own (as a real store is: its CPU is not
    the benchmark's, though on a small machine it competes with the workers for the cores), with
    the environment that points s3fs (and the workers started after it) at it. ``s3rver``: the
    command of npm's s3rver (Node, objects in files, a ranged GET streams its range from the
    file), run instead: moto is pure Python and reads a whole object for each ranged GET, so
    its figures are partly moto's speed."""

    def __init__(self, s3rver: str | None = None) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        command = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
        keys = ("bench", "bench")
        self.folder: str | None = None
        if s3rver is not None:
            self.folder = tempfile.mkdtemp(prefix="s3rver-")
            command = [s3rver, "-d", self.folder, "-a", "127.0.0.1", "-p", str(port), "-s"]
            command.append("--no-vhost-buckets")
            keys = ("S3RVER", "S3RVER")  # s3rver's own keys: it checks the signatures
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.process.kill()
                    raise SystemExit("moto's S3 server did not start") from None
                time.sleep(0.1)
        os.environ.update(
            AWS_ACCESS_KEY_ID=keys[0],
            AWS_SECRET_ACCESS_KEY=keys[1],
            AWS_DEFAULT_REGION="us-east-1",
            AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}",
        )

    def cpu_seconds(self) -> float:
        """The server process's CPU time so far (user and system, all its threads)."""
        return process_cpu_seconds(self.process.pid)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def process_cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def workers_cpu_seconds(client: Any) -> float:
    """The CPU time the cluster's worker processes have used so far, in all."""
    return float(sum(client.run(time.process_time).values()))


KINDS = ("plain", "gzip")
"""The S3 runs' two archives: the plain objects (a task per range of a block) and the same
gzipped (a task per object, which inflating dominates)."""


def s3_rounds(
    plain: Path, megabytes: int, repeat: int, version: str, s3rver: str | None = None
) -> dict[str, float]:
    """Two workers on ``megabytes`` of the plain files, and on the same files gzipped, as objects
    in the S3 server (its own process) and as the same files on disk, ``repeat`` interleaved
    rounds: the medians, per kind (``plain: ``, ``gzip: ``) and place (``local``, ``s3``), of the
    wall time and of the workers', this process's and the server's CPU time per run; ``total``:
    the uncompressed bytes judged per run, ``gzip bytes``: the gzipped objects' size."""
    import s3fs  # type: ignore[import-untyped]

    server = S3Server(s3rver)
    scratch = Path(tempfile.mkdtemp(prefix="s3-local-", dir=plain.parent))
    try:
        fs = s3fs.S3FileSystem(skip_instance_cache=True)
        fs.mkdir("bench")
        folders = {"plain": scratch / "plain", "gzip": scratch / "gzip"}
        folders["plain"].mkdir()
        total = 0
        for path in sorted(plain.iterdir()):
            if total >= megabytes * 1e6:
                break
            os.link(path, folders["plain"] / path.name)
            total += path.stat().st_size
        gzipped(folders["plain"], folders["gzip"])
        packed = sum(path.stat().st_size for path in folders["gzip"].iterdir())
        # s3rver answers a HEAD of a prefix (s3fs's first look at a folder) with an internal
        # error: there, the objects by a glob (a listing all the same)
        objects: dict[str, str] = {}
        for kind, folder in folders.items():
            for path in sorted(folder.iterdir()):
                fs.put(str(path), f"bench/{kind}/{path.name}")
            objects[kind] = f"s3://bench/{kind}/*" if s3rver else f"s3://bench/{kind}/"
        local, client = cluster(2)  # after the environment: the workers find the server
        try:
            # every worker imports its S3 client and connects once (a cluster that outlives runs
            # does it once), not timed: one run over all the objects of each kind
            for kind in KINDS:
                on_dask(client, objects[kind], version)
            figures: dict[str, list[float]] = {}

            def measured(label: str, path: str) -> Callable[[], float]:
                def case() -> float:
                    workers, here = workers_cpu_seconds(client), time.process_time()
                    served = server.cpu_seconds()
                    elapsed = on_dask(client, path, version)
                    figures.setdefault(f"{label} workers cpu", []).append(
                        workers_cpu_seconds(client) - workers
                    )
                    figures.setdefault(f"{label} driver cpu", []).append(time.process_time() - here)
                    figures.setdefault(f"{label} server cpu", []).append(
                        server.cpu_seconds() - served
                    )
                    return elapsed

                return case

            cases = {
                f"{kind}: {where}": measured(f"{kind}: {where}", path)
                for kind in KINDS
                for where, path in (("local", str(folders[kind])), ("s3", objects[kind]))
            }
            walls = rounds(repeat, cases)
        finally:
            client.close()
            local.close()
    finally:
        server.stop()
        shutil.rmtree(scratch)
    medians = {name: statistics.median(found) for name, found in figures.items()}
    return {**walls, **medians, "total": float(total), "gzip bytes": float(packed)}


def report_s3(figures: dict[str, float], label: str, repeat: int, server: str) -> None:
    megabytes = figures["total"] / 1e6
    cores = os.cpu_count() or 1
    print(
        f"S3 on 127.0.0.1 ({server}), {label}: {megabytes:.0f} MB (gzipped "
        f"{figures['gzip bytes'] / 1e6:.0f} MB), 2 workers, medians of {repeat} interleaved "
        f"rounds; rates count the uncompressed bytes"
    )
    for kind in KINDS:
        local, s3 = figures[f"{kind}: local"], figures[f"{kind}: s3"]
        per_mb = {
            key.partition(": ")[2]: 1e3 * value / megabytes
            for key, value in figures.items()
            if key.startswith(f"{kind}: ") and "cpu" in key
        }
        local_cpu = per_mb["local workers cpu"] + per_mb["local driver cpu"]
        s3_cpu = per_mb["s3 workers cpu"] + per_mb["s3 driver cpu"] + per_mb["s3 server cpu"]
        print(
            f"  {kind}: local {megabytes / local:.1f} MB/s, S3 {megabytes / s3:.1f} MB/s: "
            f"**{local / s3:.2f}x** the local throughput (goal >= 0.8x)"
        )
        print(
            f"    CPU per MB: the workers {per_mb['local workers cpu']:.2f} ms local, "
            f"{per_mb['s3 workers cpu']:.2f} ms S3 "
            f"({per_mb['s3 workers cpu'] / per_mb['local workers cpu']:.2f}x); this process "
            f"{per_mb['local driver cpu']:.2f} / {per_mb['s3 driver cpu']:.2f} ms; the server "
            f"{per_mb['s3 server cpu']:.2f} ms/MB ({figures[f'{kind}: s3 server cpu']:.2f} s per "
            f"S3 run, {100 * figures[f'{kind}: s3 server cpu'] / s3 / cores:.0f}% of the "
            f"machine's {cores} cores during it)"
        )
        print(
            f"    CPU-bound view (the workers' CPU per MB, local over S3: the throughput S3 "
            f"keeps when the store is on other cores): "
            f"{per_mb['local workers cpu'] / per_mb['s3 workers cpu']:.2f}x; this machine's "
            f"ceiling (all CPU per MB, local over S3 with the server's: the wall ratio when "
            f"both runs keep the cores busy): {local_cpu / s3_cpu:.2f}x"
        )


def measure_s3(plain: Path, args: argparse.Namespace, version: str) -> None:
    """Two workers on objects in the S3 server on 127.0.0.1 (a process of its own), plain and
    gzipped, against the same local files; with ``--beside PYTHON``, that Python's phi_wire
    measured the same way in the same rounds (each round a child process per package,
    alternating)."""
    if not args.beside:
        figures = s3_rounds(plain, args.s3_mb, args.repeat, version, args.s3rver)
        report_s3(figures, "this package", args.repeat, served_by(args))
        return
    found: dict[str, list[dict[str, float]]] = {"this package": [], args.beside: []}
    for _ in range(args.repeat):
        for python, label in ((sys.executable, "this package"), (args.beside, args.beside)):
            child = subprocess.run(
                [python, __file__, "--s3-child", str(plain), "--s3-mb", str(args.s3_mb),
                 "--version", version, *(["--s3rver", args.s3rver] if args.s3rver else [])],
                check=True, capture_output=True, text=True,
            )  # fmt: skip
            found[label].append(json.loads(child.stdout.splitlines()[-1]))
    print(f"  (each round a child process per package, alternating; {load()})")
    for label, runs in found.items():
        medians = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        report_s3(medians, f"phi_wire of {label}", args.repeat, served_by(args))


def served_by(args: argparse.Namespace) -> str:
    return "s3rver" if args.s3rver else "moto's server"


def measure_readers(plain: Path, args: argparse.Namespace) -> None:
    """Each way of reading byte ranges of S3 objects, in this process against moto's server (its
    own process): ``--s3-mb`` of the plain files uploaded, each object read in ranges of
    ``--part-mb`` (as a Dask part is), 4 MB at a time (as the validator reads), the median of
    ``--repeat`` interleaved rounds of this process's CPU time (all its threads), the server's,
    and the wall time, per MB read."""
    import botocore.session  # type: ignore[import-untyped]
    import obstore
    import s3fs

    from phi_wire import remote

    server = S3Server()
    try:
        fs = s3fs.S3FileSystem(skip_instance_cache=True)
        fs.mkdir("bench")
        objects: list[tuple[str, int]] = []
        for path in sorted(plain.iterdir()):
            if sum(size for _, size in objects) >= args.s3_mb * 1e6:
                break
            fs.put(str(path), f"bench/data/{path.name}")
            objects.append((f"data/{path.name}", path.stat().st_size))
        remote.files_under("s3://bench/data/")  # listed: sizes and ETags known, as on a worker
        total = sum(size for _, size in objects)
        part = args.part_mb * 1_000_000
        ranges = [(key, start, min(start + part, size)) for key, size in objects
                  for start in range(0, size, part)]  # fmt: skip
        client = botocore.session.get_session().create_client("s3")
        store = obstore.store.S3Store("bench", client_options={"allow_http": True})

        def through_remote(reader: str) -> Callable[[], None]:
            def case() -> None:
                os.environ["PHI_WIRE_S3_READER"] = reader
                for key, start, end in ranges:
                    with remote.open_url(f"s3://bench/{key}", until=end) as opened:
                        opened.seek(start)
                        while start < end:
                            start += len(opened.read(min(4_000_000, end - start)))
                os.environ.pop("PHI_WIRE_S3_READER")

            return case

        def cat_file() -> None:
            for key, start, end in ranges:
                fs.cat_file(f"bench/{key}", start=start, end=end)

        def botocore_get() -> None:
            for key, start, end in ranges:
                body = client.get_object(Bucket="bench", Key=key, Range=f"bytes={start}-{end - 1}")
                into = memoryview(bytearray(end - start))
                done = 0
                while done < len(into):
                    done += body["Body"]._raw_stream.readinto(into[done:]) or len(into)

        def obstore_range() -> None:
            for key, start, end in ranges:
                bytes(obstore.get_range(store, key, start=start, end=end))

        cases: dict[str, Callable[[], None]] = {
            "s3fs, read-ahead 1-8 MB (main's reader)": through_remote("s3fs"),
            "obstore, one streamed GET per range (until)": through_remote(""),
            "s3fs cat_file, one GET per range": cat_file,
            "botocore get_object into a bytearray": botocore_get,
            "obstore get_range, one GET per range": obstore_range,
        }
        for case in cases.values():
            case()  # connections made, modules loaded: not timed
        figures: dict[str, list[tuple[float, float, float]]] = {name: [] for name in cases}
        for _ in range(args.repeat):
            for name, case in cases.items():
                here, served = time.process_time(), server.cpu_seconds()
                started = time.perf_counter()
                case()
                figures[name].append((
                    time.process_time() - here,
                    server.cpu_seconds() - served,
                    time.perf_counter() - started,
                ))  # fmt: skip
    finally:
        server.stop()
    megabytes = total / 1e6
    print(
        f"S3 readers on 127.0.0.1: {megabytes:.0f} MB in {len(objects)} objects, ranges of "
        f"{args.part_mb} MB read 4 MB at a time, medians of {args.repeat} ({load()}):"
    )
    for name, runs in figures.items():
        reader, served, wall = (
            statistics.median(run[i] for run in runs) * 1e3 / megabytes for i in range(3)
        )
        print(
            f"  {name:42s} reader {reader:5.2f} ms/MB, server {served:5.2f} ms/MB, "
            f"wall {wall:5.2f} ms/MB"
        )


def thread_cpu_seconds() -> dict[str, float]:
    """Each thread of this process: its CPU time so far (user and system)."""
    found = {}
    for thread in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{thread}/stat", encoding="ascii") as stat:
            fields = stat.read().rpartition(")")[2].split()
        found[thread] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return found


def measure_parts(plain: Path, args: argparse.Namespace) -> None:
    """The parts of ``--s3-mb`` of the plain files judged in this process (no Dask, no
    contention from a second worker), from the files on disk and from the same objects in the
    S3 server (its own process): CPU per MB of this thread (judging, our reader, the copies),
    of this process's other threads (obstore's Tokio threads: the HTTP), and of the server,
    medians of ``--repeat`` interleaved rounds; and the requests and bytes the S3 runs asked."""
    import logging

    import s3fs

    from phi_wire.validate import validate
    from phi_wire.validate.parts import judge, split

    server = S3Server(args.s3rver)
    try:
        fs = s3fs.S3FileSystem(skip_instance_cache=True)
        fs.mkdir("bench")
        local_folder = Path(tempfile.mkdtemp(prefix="s3-local-", dir=plain.parent))
        total = 0
        for path in sorted(plain.iterdir()):
            if total >= args.s3_mb * 1e6:
                break
            os.link(path, local_folder / path.name)
            fs.put(str(path), f"bench/data/{path.name}")
            total += path.stat().st_size
        asked = {"GETs": 0, "bytes": 0}

        class Count(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                words = record.getMessage().split()
                if words[0] in ("GET:", "Fetched:"):
                    start, end = (int(bound) for bound in words[-1].split("-"))
                    asked["GETs" if words[0] == "GET:" else "bytes"] += (
                        1 if words[0] == "GET:" else end - start
                    )

        reader_log = logging.getLogger("phi_wire.remote_s3")
        reader_log.setLevel(logging.DEBUG)
        reader_log.addHandler(Count())
        places = {
            "local files": str(local_folder),
            "S3 objects": "s3://bench/data/*" if args.s3rver else "s3://bench/data/",
        }
        judged = {}
        for place, where in places.items():
            run = validate(where, version=args.version)
            judged[place] = (run, split(run, 64 * 1024 * 1024, 2))
            for part in judged[place][1]:
                judge(part, run.settings)  # connections made, the cache loaded: not timed
        main_thread = str(threading.get_native_id())
        figures: dict[str, list[tuple[float, float, float]]] = {place: [] for place in places}
        for _ in range(args.repeat):
            for place, (run, parts) in judged.items():
                asked.update(GETs=0, bytes=0)
                before, served = thread_cpu_seconds(), server.cpu_seconds()
                for part in parts:
                    judge(part, run.settings)
                after = thread_cpu_seconds()
                others = sum(
                    after[tid] - before.get(tid, 0.0) for tid in after if tid != main_thread
                )
                figures[place].append(
                    (
                        after[main_thread] - before[main_thread],
                        others,
                        server.cpu_seconds() - served,
                    )
                )
        shutil.rmtree(local_folder)
    finally:
        server.stop()
    megabytes = total / 1e6
    print(
        f"parts judged in one process ({served_by(args)}): {megabytes:.0f} MB in "
        f"{len(judged['S3 objects'][1])} parts, medians of {args.repeat} ({load()}); S3: "
        f"{asked['GETs']} GETs, {asked['bytes'] / 1e6:.1f} MB received per run"
    )
    for place, runs in figures.items():
        here, others, served = (
            statistics.median(run[i] for run in runs) * 1e3 / megabytes for i in range(3)
        )
        print(
            f"  {place:12s} this thread {here:5.2f} ms/MB, its other threads {others:5.2f} ms/MB,"
            f" the server {served:5.2f} ms/MB: {here + others:5.2f} ms/MB in the worker"
        )


def run_convert(work: Path, args: argparse.Namespace) -> None:
    """The converter on a cluster of 1 and 2 workers against ``phi-wire convert`` on one
    machine: phi-core streams to clark-agent, one output per input file."""
    stream = args.fixtures / "phi-core" / "0.10.0" / "streams" / "events.main_session.jsonl"
    data = stream.read_bytes()
    each = max(1, args.size_mb * 1_000_000 // args.files // len(data))
    archive = work / "streams"
    archive.mkdir()
    for index in range(args.files):
        (archive / f"stream-{index:03d}.jsonl").write_bytes(data * each)
    size = sum(path.stat().st_size for path in archive.iterdir()) / 1e6
    print(f"input: {size:.0f} MB in {args.files} phi-core event streams, to clark-agent")
    outputs = itertools.count()

    def convert_here() -> float:
        out = work / f"out-{next(outputs)}"
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "phi_wire", "convert", "--quiet", "--to", "clark-agent",
             str(archive), "-o", str(out)],
            check=True,
        )  # fmt: skip
        elapsed = time.perf_counter() - started
        checked(out)
        return elapsed

    def convert_on(client: Any) -> float:
        from phi_wire.dask import convert

        out = work / f"out-{next(outputs)}"
        started = time.perf_counter()
        _, totals = convert(
            str(archive), target="clark-agent", out=str(out), client=client
        ).compute()
        elapsed = time.perf_counter() - started
        if totals.errors or totals.converted != args.files:
            raise SystemExit(f"unexpected result: {totals}")
        checked(out)
        return elapsed

    first: dict[str, bytes] = {}

    def checked(out: Path) -> None:
        found = {path.name: path.read_bytes() for path in sorted(out.iterdir())}
        if not first:
            first.update(found)
        elif found != first:
            raise SystemExit(f"{out}: not the bytes of the first run")
        shutil.rmtree(out)

    print(f"before: {load()}")
    one_cluster, one = cluster(1)
    two_cluster, two = cluster(2)
    cases: dict[str, Callable[[], float]] = {
        "phi-wire convert (one process)": convert_here,
        "dask convert, 1 worker": functools.partial(convert_on, one),
        "dask convert, 2 workers": functools.partial(convert_on, two),
    }
    medians = rounds(args.repeat, cases)
    print(f"medians of {args.repeat} interleaved rounds ({load()}):")
    for name, seconds in medians.items():
        print(f"  {name:32s} {seconds:7.2f} s {size / seconds:7.2f} MB/s")
    one_s, two_s = medians["dask convert, 1 worker"], medians["dask convert, 2 workers"]
    here_s = medians["phi-wire convert (one process)"]
    print(
        f"  2 workers / 1 worker {one_s / two_s:.2f}x; 2 workers against the local command "
        f"{here_s / two_s:.2f}x; 1 worker against it {100 * (one_s / here_s - 1):+.0f}%"
    )
    print(f"  the machine itself: {machine_scaling(args.repeat)} (the ceiling of any 2x here)")
    for client, local in ((two, two_cluster), (one, one_cluster)):
        client.close()
        local.close()
    print(f"after: {load()}")


if __name__ == "__main__":
    main()
