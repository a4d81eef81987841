"""The ``phi-wire`` command line: validate persisted phi-core JSON, print schemas, list types.

    phi-wire validate PATH... [--type T] [--version 0.10] [--format text|json] [--strict]
                              [--max-errors N] [--quiet] [--jobs N]
    phi-wire schema T [--version 0.10]
    phi-wire types [--version 0.10]

``validate`` reads files, folders and ``-`` (stdin): ``.json`` files as one document,
``.jsonl``/``.ndjson`` as one document per line, any of them gzipped (``.gz``). Each document is
judged as strictly as phi-core's serde reads it; each problem is printed as
``file:line: Type Variant /json/pointer: what was expected, what was found``, then a summary.
Exit status: 0 all valid, 1 something invalid, 2 a usage or input error (nothing is a traceback).

Type detection (without ``--type``), from the keys of the document: ``session_id`` + ``loops``:
Session; ``loop_id`` + ``events``: LoopRecord; ``sequence`` + ``event``: LoopEvent; ``turn_id`` +
``output_message``: Turn; ``type``: AgentEvent; ``role``: AgentMessage (Message and
ExtensionMessage alike); anything else is judged as an AgentEvent. For documents as phi-core
writes them the first key decides (``type``, ``content``/``role``, ``sequence``, ``turn_id``,
``loop_id``, ``session_id``), without parsing the document twice.

Speed: JSONL lines and session files in the form phi-core writes are vouched for by a regular
expression compiled from the models (``_fastpath``; one for lines, one for whole documents);
everything else, and every document under ``--strict``, is judged by ``loads``. The compiled
expressions are cached in ``$PHI_WIRE_CACHE_DIR`` (default ``~/.cache/phi-wire``; empty: no
cache); when one is not cached yet, 16 MB and more of its kind of input build it (about a second),
less is judged by ``loads`` alone.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from ._validate import (
    JSON_SUFFIXES,
    InputError,
    Record,
    Tally,
    default_jobs,
    fast_path_for,
    find_files,
    judge_files,
    wire_module,
)

VERSIONS = ("0.8", "0.10")
PROGRESS_MIN_BYTES = 8 * 1024 * 1024
FAST_BUILD_MIN_BYTES = 16 * 1024 * 1024
"""Inputs from this size on build the fast path when it is not cached (compiling it takes about a
second; ``loads`` judges some 10 MB a second)."""


class UsageError(Exception):
    """Bad arguments: exit code 2."""


def checked_version(version: str) -> str:
    if version not in VERSIONS:
        raise UsageError(
            f"unknown phi-core version {version!r}; choose one of {', '.join(VERSIONS)}"
        )
    return version


class Progress:
    """A one-line progress display on a terminal's stderr; silent when stderr is not a terminal."""

    def __init__(self, total: int, stream: TextIO, enabled: bool) -> None:
        self.total = total
        self.done = 0
        self.stream = stream
        self.enabled = enabled and total >= PROGRESS_MIN_BYTES and stream.isatty()

    def advance(self, size: int) -> None:
        self.done += size
        if self.enabled:
            share = min(1.0, self.done / self.total)
            bar = "#" * int(share * 30)
            self.stream.write(f"\r[{bar:<30}] {share:4.0%} {self.done / 1e6:8.1f} MB")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * 60 + "\r")


def _input_size(name: str) -> int:
    """Bytes to judge in one file: for gzip, the uncompressed size its trailer records."""
    size = os.path.getsize(name)
    if name.endswith(".gz") and size >= 18:
        try:
            with open(name, "rb") as handle:
                handle.seek(-4, os.SEEK_END)
                size = max(size, int.from_bytes(handle.read(4), "little"))
        except OSError:
            pass  # reading it will report the problem
    return size


def _total_size(names: list[str]) -> int:
    return sum(_input_size(name) for name in names if name != "-")


def prepare_fast_paths(version: str, forced: str | None, names: list[str]) -> None:
    """Load the fast paths the inputs need from the cache, or build one when its inputs are worth
    a second of compiling: one for JSONL lines, one for whole .json documents (one with --type)."""
    sizes = {True: 0, False: 0}  # lines or not: bytes
    for name in names:
        if name != "-":
            sizes[not name.removesuffix(".gz").endswith(JSON_SUFFIXES)] += _input_size(name)
    if forced is not None:
        fast_path_for(version, forced, build=sum(sizes.values()) >= FAST_BUILD_MIN_BYTES)
        return
    for lines, size in sizes.items():
        if size:
            fast_path_for(version, None, build=size >= FAST_BUILD_MIN_BYTES, lines=lines)


def run_validate(args: argparse.Namespace) -> int:
    version = checked_version(args.version)
    if args.type is not None and not hasattr(wire_module(version), args.type):
        raise UsageError(f"unknown wire type {args.type!r}; `phi-wire types` lists them")
    if args.jobs < 1 or (args.max_errors is not None and args.max_errors < 1):
        raise UsageError("--jobs and --max-errors take a positive number")
    started = time.perf_counter()
    names = list(find_files(args.paths))
    total = _total_size(names)
    if not args.strict:
        prepare_fast_paths(version, args.type, names)
    tally = Tally()
    progress = Progress(total, sys.stderr, not args.quiet)
    reported = 0
    stopped = False
    for outcome in judge_files(names, version, args.type, args.strict, args.jobs):
        if outcome is None:  # a file starts
            tally.files += 1
            continue
        if isinstance(outcome, InputError):
            tally.input_errors.append(str(outcome))
            print(f"phi-wire: {outcome}", file=sys.stderr)
            continue
        tally.documents += outcome.documents
        tally.invalid += outcome.invalid
        tally.bytes += outcome.size
        progress.advance(outcome.size)
        for record in outcome.records:
            if record.unreadable:
                tally.input_errors.append(record.text())
            if args.max_errors is not None and reported >= args.max_errors:
                stopped = True
                break
            emit(record, args.format)
            reported += 1
        if stopped:
            break
    progress.close()
    summarize(tally, time.perf_counter() - started, args, stopped)
    if tally.input_errors:
        return 2
    return 1 if tally.invalid else 0


def emit(record: Record, fmt: str) -> None:
    print(record.json() if fmt == "json" else record.text())


def summarize(tally: Tally, elapsed: float, args: argparse.Namespace, stopped: bool) -> None:
    summary: dict[str, Any] = {
        "files": tally.files,
        "documents": tally.documents,
        "valid": tally.valid,
        "invalid": tally.invalid,
        "bytes": tally.bytes,
        "elapsed_s": round(elapsed, 3),
        "phi_core": args.version,
        "input_errors": len(tally.input_errors),
        "stopped_after_max_errors": stopped,
    }
    if args.format == "json":
        print(json.dumps({"summary": summary}))
    elif not args.quiet:
        rate = tally.bytes / 1e6 / elapsed if elapsed > 0 else 0.0
        more = f", stopped after {args.max_errors} problems" if stopped else ""
        errors = f", {len(tally.input_errors)} unreadable" if tally.input_errors else ""
        print(
            f"{tally.files} files, {tally.documents} documents: {tally.valid} valid, "
            f"{tally.invalid} invalid{errors}; {tally.bytes:,} bytes in {elapsed:.2f} s "
            f"({rate:.1f} MB/s, phi-core {args.version}{more})"
        )


def run_schema(args: argparse.Namespace) -> int:
    wire = wire_module(checked_version(args.version))
    try:
        bundle = wire.schema(args.type)
    except KeyError:
        raise UsageError(f"unknown wire type {args.type!r}; `phi-wire types` lists them") from None
    print(json.dumps(bundle, indent=2, ensure_ascii=False))
    return 0


def run_types(args: argparse.Namespace) -> int:
    wire = wire_module(checked_version(args.version))
    for name in sorted(wire.__all__):
        value = getattr(wire, name)
        if isinstance(value, type) or hasattr(value, "__value__"):
            print(name)
    return 0


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="phi-wire", description=__doc__.split("\n\n")[0])
    commands = root.add_subparsers(dest="command", required=True)
    validate = commands.add_parser(
        "validate",
        help="check persisted JSON / JSONL files",
        description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    validate.add_argument("paths", nargs="+", metavar="PATH", help="files, folders, or - for stdin")
    validate.add_argument("--type", help="judge every document as this wire type")
    validate.add_argument(
        "--version", default=VERSIONS[-1], help="phi-core version (default: newest)"
    )
    validate.add_argument("--format", choices=("text", "json"), default="text")
    validate.add_argument("--max-errors", type=int, metavar="N", help="stop after N problems")
    validate.add_argument("--quiet", action="store_true", help="print problems only, no summary")
    validate.add_argument(
        "--strict", action="store_true", help="also flag what phi-core accepts but never writes"
    )
    validate.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help=f"worker processes (this machine: {default_jobs()})",
    )
    validate.set_defaults(run=run_validate)
    schema = commands.add_parser("schema", help="print the self-contained JSON Schema of a type")
    schema.add_argument("type")
    schema.add_argument("--version", default=VERSIONS[-1])
    schema.set_defaults(run=run_schema)
    types = commands.add_parser("types", help="list the wire types")
    types.add_argument("--version", default=VERSIONS[-1])
    types.set_defaults(run=run_types)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exit_:  # argparse printed the usage problem
        return 0 if exit_.code == 0 else 2
    try:
        return int(args.run(args))
    except (UsageError, InputError) as error:
        print(f"phi-wire: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("phi-wire: interrupted", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
