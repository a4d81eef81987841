"""The ``phi-wire`` command line: validate persisted phi-core JSON, print schemas, list types.

    phi-wire validate PATH... [--type T] [--version 0.10] [--format text|json] [--strict]
                              [--max-errors N] [--quiet] [--jobs N]
    phi-wire schema T [--version 0.10]
    phi-wire types [--version 0.10]
    phi-wire schema-diff OLD NEW [--format text|json] [--fail-on any|old-readers|new-readers|none]

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
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from phi_wire import __version__
from phi_wire.formats import UnknownVersion, find, newest
from phi_wire.schema_diff import add_subcommand as add_schema_diff
from phi_wire.validate import InputError, Record, Tally, default_jobs, validate

PROGRESS_MIN_BYTES = 8 * 1024 * 1024


class UsageError(Exception):
    """Bad arguments: exit code 2."""


def checked_version(version: str) -> str:
    """``0.10``, ``0.10.0``... as the registry's ``0.10``; a usage error otherwise."""
    try:
        return find(version).version
    except UnknownVersion as error:
        raise UsageError(str(error)) from None


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


def run_validate(args: argparse.Namespace) -> int:
    version = checked_version(args.version)
    if args.type is not None and not hasattr(find(version).load(), args.type):
        raise UsageError(f"unknown wire type {args.type!r}; `phi-wire types` lists them")
    if args.jobs < 1 or (args.max_errors is not None and args.max_errors < 1):
        raise UsageError("--jobs and --max-errors take a positive number")
    started = time.perf_counter()
    try:
        run = validate(
            args.paths, version=version, type=args.type, strict=args.strict, jobs=args.jobs
        )
    except InputError as error:
        raise UsageError(str(error)) from None
    progress = Progress(run.total_bytes, sys.stderr, not args.quiet)
    run.on_progress = progress.advance
    reported = 0
    stopped = False
    for record in run:
        if record.whole_file:
            print(f"phi-wire: {record.message}", file=sys.stderr)
            continue
        if args.max_errors is not None and reported >= args.max_errors:
            stopped = True
            break
        emit(record, args.format)
        reported += 1
    progress.close()
    summarize(run.tally, time.perf_counter() - started, args, stopped)
    if run.tally.input_errors:
        return 2
    return 1 if run.tally.invalid else 0


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
    wire = find(checked_version(args.version)).load()
    try:
        bundle = wire.schema(args.type)
    except KeyError:
        raise UsageError(f"unknown wire type {args.type!r}; `phi-wire types` lists them") from None
    print(json.dumps(bundle, indent=2, ensure_ascii=False))
    return 0


def run_types(args: argparse.Namespace) -> int:
    wire = find(checked_version(args.version)).load()
    for name in sorted(wire.__all__):
        value = getattr(wire, name)
        if isinstance(value, type) or hasattr(value, "__value__"):
            print(name)
    return 0


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="phi-wire", description=__doc__.split("\n\n")[0])
    root.add_argument("--version", action="version", version=f"phi-wire {__version__}")
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
        "--version", default=newest().version, help="phi-core version (default: newest)"
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
    schema.add_argument("--version", default=newest().version)
    schema.set_defaults(run=run_schema)
    types = commands.add_parser("types", help="list the wire types")
    types.add_argument("--version", default=newest().version)
    types.set_defaults(run=run_types)
    add_schema_diff(commands)
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
