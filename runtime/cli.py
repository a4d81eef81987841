"""The phi-wire command line: validate stored phi-core JSON, print schemas, list wire types.

    phi-wire validate PATH... [--type T] [--version 0.10] [--format text|json] [--strict]
                              [--max-errors N] [--max-problems N] [--max-document-bytes N]
                              [--all-folders] [--quiet] [--jobs N]
    phi-wire schema T [--version 0.10]
    phi-wire types [--version 0.10]
    phi-wire schema-diff OLD NEW [--format text|json] [--fail-on any|old-readers|new-readers|none]

This module is the thin layer over phi_wire.validate: arguments, output, exit status.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Sequence
from contextlib import suppress
from typing import Any, TextIO

from phi_wire import __version__, schema_diff
from phi_wire.formats import UnknownVersion, find, newest
from phi_wire.validate import (
    DEFAULT_MAX_DOCUMENT_BYTES,
    DEFAULT_MAX_PROBLEMS,
    INPUT,
    NOTE,
    PROBLEM,
    SKIPPED_FOLDERS,
    Record,
    Validation,
    default_jobs,
    validate,
    wire_types,
)

PROGRESS_MIN_BYTES = 8 * 1024 * 1024

VALIDATE_HELP = f"""\
Check stored phi-core documents exactly as strictly as phi-core reads them.

Inputs: files, folders and - (standard input). A .json file is one document; a .jsonl or
.ndjson file holds one document per line; any of them may be gzip-compressed. The layout and
the compression are recognised from the content, whatever the name says. Folders are read
recursively for files with those names (in any letter case); hidden folders and files (a name
starting with a dot, such as .git or .venv) and vendored folders
({", ".join(sorted(SKIPPED_FOLDERS))}, and Python virtual environments) are
skipped unless --all-folders is given. A folder with nothing to read, a path that does not exist
or a file that cannot be read is an error.

Each problem is printed as one line, file:line: Type Variant /json/pointer: what was expected,
what was found, then a summary. The type of each document is recognised from its keys, whatever
their order (session_id and loops: Session; loop_id and events: LoopRecord; sequence and event:
LoopEvent; turn_id and output_message: Turn; type: AgentEvent; role: AgentMessage; anything
else is judged as an AgentEvent); --type judges every document as one wire type.

Limits: at most --max-problems problems are reported per document (default
{DEFAULT_MAX_PROBLEMS}; a further line counts the rest), and a document (a .json file or one
line) larger than --max-document-bytes (default {DEFAULT_MAX_DOCUMENT_BYTES // 1024 // 1024}M)
is not judged, which is an input error. A document that cannot be JSON from its first byte is
rejected there.

Exit status: 0 every document is valid; 1 some document is invalid; 2 an input error (no such
file, unreadable, not UTF-8, truncated gzip, over the size limit, nothing to validate), a usage
error, or the output could not be written (for example, a closed pipe). Never 0 unless every
document was judged valid.

Speed: documents in the form phi-core writes are recognised by a compiled expression that is
cached in $PHI_WIRE_CACHE_DIR (default ~/.cache/phi-wire; empty: no cache); all others, and
all documents under --strict, are judged by the models themselves.
"""


def plural(count: int, word: str) -> str:
    """``1 file``, ``2 files``, ``1,000 documents``."""
    return f"{count:,} {word}{'s' * (count != 1)}"


class ParagraphsFormatter(argparse.HelpFormatter):
    """Help text filled paragraph by paragraph (argparse's own formatter makes one of all)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        return "\n\n".join(
            textwrap.fill(
                " ".join(paragraph.split()), width, initial_indent=indent, subsequent_indent=indent
            )
            for paragraph in text.strip().split("\n\n")
        )


class UsageError(Exception):
    """Bad arguments: exit status 2."""


class OutputFailed(Exception):
    """The output cannot be written (a closed pipe, a full disk): exit status 2."""


def checked_version(version: str) -> str:
    """``0.10``, ``0.10.0``... as the registry's ``0.10``; a usage error otherwise."""
    try:
        return find(version).version
    except UnknownVersion as error:
        raise UsageError(str(error)) from None


_SIZE = re.compile(r"(\d+)\s*([kmg]?)i?b?", re.IGNORECASE)


def byte_count(text: str) -> int:
    """``4096``, ``64K``, ``128M``, ``2G`` (powers of 1024) as a number of bytes."""
    match = _SIZE.fullmatch(text.strip())
    if match is None or int(match[1]) < 1:
        raise argparse.ArgumentTypeError(f"expected a size such as 4096, 64K, 128M or 2G: {text!r}")
    return int(match[1]) << (10 * " kmg".index(match[2].lower() or " "))


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1: {text!r}")
    return value


class Output:
    """Standard output and error, written so that nothing is a traceback: an error on standard
    output (a closed pipe, a full disk) raises ``OutputFailed`` once, with its reason."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out = out
        self.err = err
        for stream in (out, err):  # whatever the encoding, a name or a message never fails it
            reconfigure = getattr(stream, "reconfigure", None)
            if reconfigure is not None:
                with suppress(ValueError, OSError):
                    reconfigure(errors="backslashreplace")

    def line(self, text: str) -> None:
        try:
            self.out.write(text + "\n")
        except OSError as error:
            raise self._failed(error) from None

    def flush(self) -> None:
        try:
            self.out.flush()
        except OSError as error:
            raise self._failed(error) from None

    def note(self, text: str) -> None:
        """A line on standard error (a failure there is ignored: there is nowhere left to say)."""
        try:
            self.err.write(f"phi-wire: {text}\n")
            self.err.flush()
        except (OSError, ValueError):
            pass

    def _failed(self, error: OSError) -> OutputFailed:
        self._silence()
        if isinstance(error, BrokenPipeError):
            return OutputFailed("the output was closed before the run ended (broken pipe)")
        return OutputFailed(f"cannot write the output ({error.strerror or error})")

    def _silence(self) -> None:
        """Point standard output at /dev/null, so that what is still buffered cannot fail again
        when Python exits (which would print a traceback of its own)."""
        try:
            if self.out is sys.__stdout__:
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, self.out.fileno())
                os.close(null)
        except (OSError, ValueError, AttributeError):
            pass


class Progress:
    """A one-line progress display on a terminal's standard error; silent otherwise."""

    def __init__(self, run: Validation, stream: TextIO, enabled: bool) -> None:
        self.done = 0
        self.stream = stream
        self.enabled = enabled and stream.isatty()
        self.total = run.total_bytes if self.enabled else 0  # (reads each gzip's trailer)
        self.enabled = self.enabled and self.total >= PROGRESS_MIN_BYTES

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


def run_validate(args: argparse.Namespace, output: Output) -> int:
    version = checked_version(args.version)
    try:
        run = validate(
            args.paths,
            version=version,
            type=args.type,
            strict=args.strict,
            jobs=args.jobs,
            max_problems=args.max_problems,
            max_document_bytes=args.max_document_bytes,
            all_folders=args.all_folders,
        )
    except ValueError as error:
        raise UsageError(str(error)) from None
    started = time.perf_counter()
    progress = Progress(run, sys.stderr, not args.quiet)
    run.on_progress = progress.advance
    reported = 0
    stopped = False
    try:
        for record in run:
            if record.kind == PROBLEM:
                if args.max_errors is not None and reported >= args.max_errors:
                    stopped = True
                    break
                reported += 1
            emit(record, args, output)
    finally:
        progress.close()
    summarize(run, time.perf_counter() - started, args, stopped, output)
    output.flush()
    if run.tally.input_errors:
        return 2
    if run.tally.invalid:
        return 1
    return 0 if run.complete else 2


def emit(record: Record, args: argparse.Namespace, output: Output) -> None:
    """A record on standard output (in text, input errors and notes go to standard error)."""
    if args.format == "json":
        output.line(record.json())
    elif record.kind == INPUT:
        output.note(record.text())
    elif record.kind == NOTE:
        if not args.quiet:
            output.note(record.text())
    else:
        output.line(record.text())


def summarize(
    run: Validation, elapsed: float, args: argparse.Namespace, stopped: bool, output: Output
) -> None:
    tally = run.tally
    if args.format == "json":
        summary: dict[str, Any] = {
            **tally.as_dict(),
            "elapsed_s": round(elapsed, 3),
            "phi_core": run.version,
            "stopped_after_max_errors": stopped,
            "complete": run.complete,
        }
        output.line(json.dumps({"summary": summary}))
        return
    if args.quiet:
        return
    rate = tally.bytes / 1e6 / elapsed if elapsed > 0 else 0.0
    counts = [f"{tally.valid:,} valid", f"{tally.invalid:,} invalid"]
    if tally.unjudged:
        counts.append(f"{tally.unjudged:,} not judged")
    if tally.input_errors:
        counts.append(plural(len(tally.input_errors), "input error"))
    more = f", stopped after {plural(args.max_errors, 'problem')}" if stopped else ""
    output.line(
        f"{plural(tally.files, 'file')}, {plural(tally.documents, 'document')}: "
        f"{', '.join(counts)}; {tally.bytes:,} bytes in {elapsed:.2f} s "
        f"({rate:.1f} MB/s, phi-core {run.version}{more})"
    )


def run_schema(args: argparse.Namespace, output: Output) -> int:
    wire = find(checked_version(args.version)).load()
    try:
        bundle = wire.schema(args.type)
    except KeyError:
        raise UsageError(f"unknown wire type {args.type!r}; phi-wire types lists them") from None
    output.line(json.dumps(bundle, indent=2, ensure_ascii=False))
    output.flush()
    return 0


def run_types(args: argparse.Namespace, output: Output) -> int:
    for name in wire_types(checked_version(args.version)):
        output.line(name)
    output.flush()
    return 0


def run_schema_diff(args: argparse.Namespace, output: Output) -> int:
    """Print the report; exit 0, 1 or 2 (see ``schema_diff.DESCRIPTION``)."""
    try:
        report = schema_diff.diff(args.old, args.new)
    except (ValueError, OSError) as error:
        raise UsageError(f"schema-diff: {error}") from None
    if args.format == "json":
        output.line(json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    else:
        output.line(report.text().removesuffix("\n"))
    output.flush()
    impact = schema_diff.Impact[schema_diff.FAIL_ON[args.fail_on]]
    return 1 if impact is not schema_diff.Impact.NONE and report.breaking(impact) else 0


def add_schema_diff(commands: Any) -> None:
    command = commands.add_parser(
        "schema-diff",
        help="breaking changes between two schema versions",
        description=schema_diff.DESCRIPTION,
    )
    command.add_argument("old", metavar="OLD", help="schema folder or version, e.g. 0.8")
    command.add_argument("new", metavar="NEW", help="schema folder or version, e.g. 0.10")
    command.add_argument("--format", choices=("text", "json"), default="text")
    command.add_argument(
        "--fail-on",
        choices=tuple(schema_diff.FAIL_ON),
        default="any",
        help="which breaking changes make the exit status 1 (default: any)",
    )
    command.set_defaults(run=run_schema_diff)


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="phi-wire", description=__doc__.split("\n\n")[0].rstrip(".")
    )
    root.add_argument("--version", action="version", version=f"phi-wire {__version__}")
    commands = root.add_subparsers(dest="command", required=True)
    validate = commands.add_parser(
        "validate",
        help="check stored JSON and JSONL documents",
        description=VALIDATE_HELP,
        formatter_class=ParagraphsFormatter,
    )
    validate.add_argument("paths", nargs="+", metavar="PATH", help="files, folders, or - for stdin")
    validate.add_argument(
        "--type", help="judge every document as this wire type (phi-wire types lists them)"
    )
    validate.add_argument(
        "--version", default=newest().version, help="phi-core version (default: the newest)"
    )
    validate.add_argument("--format", choices=("text", "json"), default="text")
    validate.add_argument(
        "--max-errors", type=positive, metavar="N", help="stop the run after N problems in all"
    )
    validate.add_argument(
        "--max-problems",
        type=positive,
        default=DEFAULT_MAX_PROBLEMS,
        metavar="N",
        help=f"report at most N problems per document (default: {DEFAULT_MAX_PROBLEMS})",
    )
    validate.add_argument(
        "--max-document-bytes",
        type=byte_count,
        default=DEFAULT_MAX_DOCUMENT_BYTES,
        metavar="SIZE",
        help="do not judge a document larger than this, such as 512M or 2G "
        f"(default: {DEFAULT_MAX_DOCUMENT_BYTES // 1024 // 1024}M)",
    )
    validate.add_argument(
        "--all-folders",
        action="store_true",
        help="also read hidden and vendored folders (.git, .venv, node_modules...)",
    )
    validate.add_argument(
        "--quiet", action="store_true", help="print problems and errors only, no summary"
    )
    validate.add_argument(
        "--strict", action="store_true", help="also flag what phi-core accepts but never writes"
    )
    validate.add_argument(
        "--jobs",
        type=positive,
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
    output = Output(sys.stdout, sys.stderr)
    try:
        args = parser().parse_args(argv)
    except SystemExit as exit_:  # argparse printed the usage problem (or the help)
        return 0 if exit_.code == 0 else 2
    except OSError:  # the help could not be written
        return 2
    try:
        return int(args.run(args, output))
    except UsageError as error:
        output.note(str(error))
        return 2
    except OutputFailed as error:
        output.note(f"{error}; not all was reported, so the run counts as failed")
        return 2
    except KeyboardInterrupt:
        output.note("interrupted")
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
