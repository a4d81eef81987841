"""The ``phi-wire`` command line: validate persisted phi-core JSON, print schemas, list types.

    phi-wire validate PATH... [--type T] [--version 0.10]
    phi-wire schema T [--version 0.10]
    phi-wire types [--version 0.10]

``validate`` reads files and folders (``.json`` as one document, ``.jsonl``/``.ndjson`` as one
document per line), judges each document as phi-core's serde would (``loads``), prints
``file:line: /pointer: problem`` for each problem and a summary, and exits 0 when everything is
valid, 1 when something is invalid, 2 on a usage or I/O error.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

VERSIONS = ("0.8", "0.10")
JSON_SUFFIXES = {".json"}
LINES_SUFFIXES = {".jsonl", ".ndjson"}


class UsageError(Exception):
    """Bad arguments or unreadable input: exit code 2."""


def wire_module(version: str) -> ModuleType:
    if version not in VERSIONS:
        raise UsageError(
            f"unknown phi-core version {version!r}; choose one of {', '.join(VERSIONS)}"
        )
    return importlib.import_module(f"phi_wire.v{version.replace('.', '_')}")


def detect_type(document: Any) -> str:
    """Which wire type a parsed document is, judged by its keys (see the README)."""
    if isinstance(document, dict):
        if "loops" in document and "session_id" in document:
            return "Session"
        if "events" in document and "loop_id" in document:
            return "LoopRecord"
        if "sequence" in document and "event" in document:
            return "LoopEvent"
        if "turn_id" in document and "output_message" in document:
            return "Turn"
        if "type" in document:
            return "AgentEvent"
        if "role" in document:
            return "AgentMessage"
    return "AgentEvent"


@dataclass
class Tally:
    files: int = 0
    documents: int = 0
    invalid: int = 0
    bytes: int = 0


def find_files(paths: Sequence[str]) -> Iterator[Path]:
    for name in paths:
        path = Path(name)
        if path.is_dir():
            yield from sorted(
                child
                for child in path.rglob("*")
                if child.is_file() and child.suffix in JSON_SUFFIXES | LINES_SUFFIXES
            )
        elif path.is_file():
            yield path
        else:
            raise UsageError(f"{name}: no such file or folder")


def documents(path: Path, raw: bytes) -> Iterator[tuple[int, bytes]]:
    """(line number, document) pairs of one file."""
    if path.suffix in LINES_SUFFIXES:
        for number, line in enumerate(raw.split(b"\n"), start=1):
            if line.strip():
                yield number, line
    else:
        yield 1, raw


def validate_file(path: Path, wire: ModuleType, forced: str | None, tally: Tally) -> None:
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise UsageError(f"{path}: cannot read ({error.strerror})") from None
    tally.files += 1
    tally.bytes += len(raw)
    for line, document in documents(path, raw):
        tally.documents += 1
        try:
            name = forced or detect_type(json.loads(document))
        except ValueError:
            name = forced or "AgentEvent"
        try:
            wire.loads(getattr(wire, name), document)
        except wire.WireError as error:
            tally.invalid += 1
            for problem in error.problems:
                where = error.line if error.line is not None else line
                print(f"{path}:{where}: {problem.render(error.type_name)}")


def run_validate(args: argparse.Namespace) -> int:
    wire = wire_module(args.version)
    if args.type is not None and not hasattr(wire, args.type):
        raise UsageError(f"unknown wire type {args.type!r}; `phi-wire types` lists them")
    tally = Tally()
    started = time.perf_counter()
    for path in find_files(args.paths):
        validate_file(path, wire, args.type, tally)
    elapsed = time.perf_counter() - started
    valid = tally.documents - tally.invalid
    print(
        f"{tally.files} files, {tally.documents} documents: {valid} valid, "
        f"{tally.invalid} invalid; {tally.bytes} bytes in {elapsed:.2f} s (phi-core {args.version})"
    )
    return 1 if tally.invalid else 0


def run_schema(args: argparse.Namespace) -> int:
    wire = wire_module(args.version)
    try:
        bundle = wire.schema(args.type)
    except KeyError:
        raise UsageError(f"unknown wire type {args.type!r}; `phi-wire types` lists them") from None
    print(json.dumps(bundle, indent=2, ensure_ascii=False))
    return 0


def run_types(args: argparse.Namespace) -> int:
    wire = wire_module(args.version)
    for name in sorted(wire.__all__):
        if isinstance(getattr(wire, name), type) or hasattr(getattr(wire, name), "__value__"):
            print(name)
    return 0


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="phi-wire", description=__doc__.split("\n\n")[0])
    commands = root.add_subparsers(dest="command", required=True)
    validate = commands.add_parser("validate", help="check persisted JSON / JSONL files")
    validate.add_argument("paths", nargs="+", metavar="PATH")
    validate.add_argument("--type", help="judge every document as this wire type")
    validate.add_argument(
        "--version", default=VERSIONS[-1], help="phi-core version (default: newest)"
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
    args = parser().parse_args(argv)
    try:
        return int(args.run(args))
    except UsageError as error:
        print(f"phi-wire: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
