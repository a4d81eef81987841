"""The phi-wire command line: validate stored JSON of phi-core, clark-agent and Operator-Use,
convert it from one format to another, print schemas, list wire types.

    phi-wire validate PATH... [--format auto|phi-core|clark-agent|operator-use] [--version V]
                              [--type T] [--output-format text|json] [--strict]
                              [--max-errors N] [--max-problems N] [--max-document-bytes N]
                              [--all-folders] [--include GLOB] [--exclude GLOB] [--quiet]
                              [--jobs N]
    phi-wire convert IN... --to FORMAT [--from FORMAT] [-o OUT] [--fail-on-loss] [-v]
                           [--include GLOB] [--exclude GLOB]
    phi-wire schema T [--format F] [--version V]
    phi-wire types [--format F] [--version V]
    phi-wire schema-diff OLD NEW [--output-format text|json]
                             [--fail-on any|old-readers|new-readers|none]

This module is the thin layer over phi_wire.validate and phi_wire.convert: arguments, output,
exit status.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from types import FrameType
from typing import Any, TextIO

from phi_wire import __version__, schema_diff
from phi_wire.formats import FORMATS, UnknownVersion, find
from phi_wire.validate import (
    AUTO,
    DEFAULT_MAX_DOCUMENT_BYTES,
    DEFAULT_MAX_PROBLEMS,
    INPUT,
    NOTE,
    PROBLEM,
    SKIPPED_FOLDERS,
    FileSummary,
    Record,
    Validation,
    default_jobs,
    default_version,
    display_name,
    validate,
    wire_types,
)

PROGRESS_MIN_BYTES = 8 * 1024 * 1024

VALIDATE_HELP = f"""\
Check stored documents exactly as strictly as their implementation reads them: phi-core's,
clark-agent's (0.4) and Operator-Use's (layouts d0da87a6 and d1cdaad8).

Formats: by default (--format auto) each file's format is recognised from its first documents and
said: a file that is not all phi-core is listed with the format it was judged as, and the summary
names the formats. A file of mixed formats is judged document by document. An Operator-Use
session file (a JSONL file of its session entries) is one document, read as Operator-Use reads it:
each line it would skip is a problem at that line. JSON that looks like pi's (pi-ai,
pi-agent-core, pi-coding-agent) or yoagent's (0.13 and later), which phi-wire does not speak yet,
is named: valid if phi-core reads it, not judged if not. Nothing that names a format: phi-core.
JSON that several formats write alike (a text block, {{"type": "agent_start"}}, "stop") is judged
as the fitting format the other files of its folder show most (else the first in the order:
phi-core, Operator-Use, clark-agent, pi, yoagent), and the others are named: clark-agent 0.4 (also
fits pi).
--format phi-core|clark-agent|operator-use judges every document as that format, --version picks
its version (phi-core: 0.8 or 0.10, the newest by default; clark-agent: 0.4; operator-use:
d0da87a6, the default, or d1cdaad8).

Inputs: files, folders and - (standard input). A .json file is one document; a .jsonl or
.ndjson file holds one document per line; any of them may be gzip-compressed. The layout and
the compression are recognised from the content, whatever the name says. Folders are read
recursively for files with those names (in any letter case); hidden folders and files (a name
starting with a dot, such as .git or .venv) and vendored folders
({", ".join(sorted(SKIPPED_FOLDERS))}, and Python virtual environments) are
skipped unless --all-folders is given. A folder with nothing to read, a path that does not exist
or a file that cannot be read is an error.

{{SELECTION}}

Each problem is printed as one line, file:line: Type Variant /json/pointer: what was expected,
what was found (with the format's name first when it is not phi-core), then a summary. The type
of each document is recognised from its keys, whatever their order (phi-core: session_id and
loops: Session; loop_id and events: LoopRecord; sequence and event: LoopEvent; turn_id and
output_message: Turn; type: AgentEvent; role: AgentMessage; anything else is judged as an
AgentEvent); --type judges every document as one wire type of --format (phi-core's when no
format is given).

Limits: at most --max-problems problems are reported per document (default
{DEFAULT_MAX_PROBLEMS}; a further line counts the rest), and a document (a .json file or one
line) larger than --max-document-bytes (default {DEFAULT_MAX_DOCUMENT_BYTES // 1024 // 1024}M)
is not judged, which is an input error. A document that cannot be JSON from its first byte is
rejected there. Empty input: a file that is empty or only whitespace (whatever its name) is one
document that is not JSON, and so is a blank line in a JSONL file: invalid, as serde_json rejects
an empty text; standard input that sends nothing is nothing to validate.

--strict also flags what the implementation accepts but never writes, and, for a pi-ai message
phi-core reads, each key phi-core would drop (api, cost, errorMessage, thinkingSignature...).

Exit status: 0 every document is valid; 1 some document is invalid; 2 an input error (no such
file, unreadable, truncated gzip, over the size limit, nothing to validate, a format phi-wire
does not speak), a usage error, the output could not be written (a closed pipe, a full disk,
standard output closed), or the run was interrupted (Ctrl-C). Never 0 unless every document was
judged valid.

Speed: documents in the form phi-core writes are recognised by a compiled expression that is
cached in $PHI_WIRE_CACHE_DIR (default ~/.cache/phi-wire; empty: no cache); all others, and
all documents under --strict, are judged by the models themselves.
"""


SELECTION_HELP = """\
--include GLOB and --exclude GLOB (each may be given several times) choose the files read under the
folders named; a file named on the command line is always read. A path is matched as it stands under
the folder named, with / between names (under corpus/, the file corpus/pi/valid/a.json is
pi/valid/a.json). A pattern without a / matches a file's or a folder's own name at any depth
(manifest.json, *.schema.json, rejected); a pattern with a / matches the whole path from the folder
named (pi/*/valid, **/streams/*.jsonl). *, ? and [...] match within one name (case-sensitive), **
any number of folders; a pattern ending in / matches folders only. A pattern that matches a folder
matches all it holds. --exclude leaves out what matches; with --include, only the files that match
one of its patterns are read; exclusion wins."""
VALIDATE_HELP = VALIDATE_HELP.replace("{SELECTION}", SELECTION_HELP)


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 file``, ``2 files``, ``1,000 documents`` (``words``: the plural when not ``word``+s)."""
    return f"{count:,} {word if count == 1 else words or word + 's'}"


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


def checked_version(version: str | None, format: str = "phi-core") -> str:
    """``0.10``, ``0.10.0``, ``d1cdaad8b6``... as the registry spells the format's version (None:
    the format's default); a usage error otherwise."""
    try:
        return find(version or default_version(format), format).version
    except UnknownVersion as error:
        raise UsageError(str(error)) from None


_SIZE = re.compile(r"(\d+)\s*([kmg]?)i?b?", re.IGNORECASE)


def byte_count(text: str) -> int:
    """``4096``, ``64K``, ``128M``, ``2G`` (powers of 1024) as a number of bytes."""
    match = _SIZE.fullmatch(text.strip())
    if match is None or int(match[1]) < 1:
        raise argparse.ArgumentTypeError(f"expected a size such as 4096, 64K, 128M or 2G: {text!r}")
    return int(match[1]) << (10 * " kmg".index(match[2].lower() or " "))


def wire_format(text: str) -> str:
    """validate's ``--format``; before 0.2 it named the report's form, now ``--output-format``."""
    if text in ("text", "json"):
        raise argparse.ArgumentTypeError(
            f"{text!r} is a report form: use --output-format {text} (--format names the wire "
            "format: auto, " + ", ".join(FORMATS) + ")"
        )
    return text


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
    output (a closed pipe, a full disk, a standard output closed from the start) raises
    ``OutputFailed`` once, with its reason; a closed standard error is ignored.

    A command whose output is a listing (``listing``: types, schema, schema-diff) is not failed
    by a reader that stops early (``phi-wire types | head -1``): it took what it wanted, so the
    rest is dropped silently and the command's own exit status stands. validate and convert are
    failed by it: their verdict or data was not all delivered."""

    def __init__(self, out: TextIO | None, err: TextIO | None) -> None:
        self.out = out
        self.err = err
        self.listing = False
        self.reader_stopped = False
        """The reader of a listing stopped early: nothing more is written."""
        self.interrupted = False
        """Ctrl-C was pressed (``interrupts_noted``): the next line raises KeyboardInterrupt."""
        self._bytes_only = False
        for stream in (out, err):  # whatever the encoding, a name or a message never fails it
            reconfigure = getattr(stream, "reconfigure", None)
            if reconfigure is not None:
                with suppress(ValueError, OSError):
                    reconfigure(errors="backslashreplace")

    def line(self, text: str) -> None:
        self.text(text + "\n")

    def text(self, text: str) -> None:
        """Text on standard output as it is (a converted file)."""
        self.stop_if_interrupted()
        self._write(text)

    def stop_if_interrupted(self) -> None:
        """An interrupt that pydantic dropped (``interrupts_noted``) stops the run here."""
        if self.interrupted:
            raise KeyboardInterrupt

    def flush(self) -> None:
        """Deliver what is buffered (nothing to do when nothing was written)."""
        if self.out is not None and not self.reader_stopped:
            self._write(None)

    def _write(self, text: str | None) -> None:
        """``text`` on standard output; None: flush it."""
        if self.reader_stopped:
            return
        if self.out is None:  # started with standard output closed (``>&-``)
            raise OutputFailed("standard output is closed")
        try:
            if text is None:
                self.out.flush()
            else:
                self._put(self.out, text)
        except (OSError, ValueError) as error:  # ValueError: the stream object was closed
            self._silence()
            if isinstance(error, BrokenPipeError) and self.listing:
                self.reader_stopped = True
                return
            raise self._failed(error) from None

    def _put(self, out: TextIO, text: str) -> None:
        """``text`` on ``out``, through its byte layer when it has one: a pipe closed part-way
        through a large write takes only part of it, a short write that ``TextIOWrapper``
        ignores (the rest was lost, silently); here the next write raises ``BrokenPipeError``."""
        buffer = getattr(out, "buffer", None)
        if buffer is None:
            out.write(text)
            return
        if not self._bytes_only:  # what the text layer may hold goes first
            out.flush()
            self._bytes_only = True
        data = memoryview(text.encode(out.encoding, out.errors or "strict"))
        while data:
            data = data[buffer.write(data) :]

    def settle(self) -> None:
        """Deliver what is buffered if it can be, at the end of a run that failed already."""
        with suppress(OutputFailed):
            self.flush()

    def note(self, text: str) -> None:
        """A line on standard error (a failure there is ignored: there is nowhere left to say)."""
        if self.err is None:  # started with standard error closed (``2>&-``)
            return
        try:
            self.err.write(f"phi-wire: {text}\n")
            self.err.flush()
        except (OSError, ValueError):
            pass

    def _failed(self, error: OSError | ValueError) -> OutputFailed:
        if isinstance(error, BrokenPipeError):
            return OutputFailed("the output was closed before the run ended (broken pipe)")
        if isinstance(error, ValueError):
            return OutputFailed("standard output is closed")
        return OutputFailed(f"cannot write the output ({error.strerror or error})")

    def _silence(self) -> None:
        """Point standard output at /dev/null, so that what is still buffered cannot fail again
        when Python exits (which would print a traceback of its own)."""
        try:
            if self.out is sys.__stdout__ and self.out is not None:
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, self.out.fileno())
                os.close(null)
        except (OSError, ValueError, AttributeError):
            pass


class Progress:
    """A one-line progress display on a terminal's standard error; silent otherwise (and from
    the first failure to write it on)."""

    def __init__(self, run: Validation, stream: TextIO | None, enabled: bool) -> None:
        self.done = 0
        self.stream = stream
        self.enabled = enabled and stream is not None and stream.isatty()
        self.total = run.total_bytes if self.enabled else 0  # (reads each gzip's trailer)
        self.enabled = self.enabled and self.total >= PROGRESS_MIN_BYTES

    def advance(self, size: int) -> None:
        self.done += size
        if self.enabled:
            share = min(1.0, self.done / self.total)
            bar = "#" * int(share * 30)
            self._show(f"\r[{bar:<30}] {share:4.0%} {self.done / 1e6:8.1f} MB")

    def close(self) -> None:
        if self.enabled:
            self._show("\r" + " " * 60 + "\r")

    def _show(self, text: str) -> None:
        try:
            assert self.stream is not None  # enabled only with a stream
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: the run goes on without it
            self.enabled = False


def run_validate(args: argparse.Namespace, output: Output) -> int:
    try:
        run = validate(
            args.paths,
            format=args.format,
            version=args.version,
            type=args.type,
            strict=args.strict,
            jobs=args.jobs,
            max_problems=args.max_problems,
            max_document_bytes=args.max_document_bytes,
            all_folders=args.all_folders,
            include=args.include,
            exclude=args.exclude,
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
    list_files(run, args, output)
    summarize(run, time.perf_counter() - started, args, stopped, output)
    output.flush()
    if run.tally.input_errors:
        return 2
    if run.tally.invalid:
        return 1
    return 0 if run.complete else 2


def emit(record: Record, args: argparse.Namespace, output: Output) -> None:
    """A record on standard output (in text, input errors and notes go to standard error)."""
    if args.output_format == "json":
        output.line(record.json())
    elif record.kind == INPUT:
        output.note(record.text())
    elif record.kind == NOTE:
        if not args.quiet:
            output.note(record.text())
    else:
        output.line(record.text())


def file_line(summary: FileSummary) -> str:
    """``path: clark-agent 0.4: 4 documents, 4 valid``."""
    counts = [plural(summary.documents, "document")]
    if summary.documents:
        counts.append(f"{summary.valid:,} valid")
    if summary.invalid:
        counts.append(f"{summary.invalid:,} invalid")
    if summary.unjudged:
        counts.append(f"{summary.unjudged:,} not judged")
    if summary.input_errors:
        counts.append(plural(summary.input_errors, "input error"))
    judged = summary.label or "nothing judged"
    if summary.by_default:
        judged += " (by default: nothing in it names a format)"
    return f"{display_name(summary.file)}: {judged}: " + ", ".join(counts)


def format_counts(files: list[FileSummary]) -> dict[str, int]:
    """How many files were judged as each label (``clark-agent 0.4``), in the order first met."""
    counts: dict[str, int] = {}
    for summary in files:
        if summary.label:
            counts[summary.label] = counts.get(summary.label, 0) + 1
    return counts


def list_files(run: Validation, args: argparse.Namespace, output: Output) -> None:
    """The format each file was judged as: in JSON always, one ``file`` record each; in text,
    when the run was not all one format (a run of one format names it in the summary)."""
    if args.output_format == "json":
        for summary in run.files:
            output.line(json.dumps({"file": summary.as_dict()}, ensure_ascii=False))
        return
    if args.quiet or run.format != AUTO or len(format_counts(run.files)) <= 1:
        return
    for summary in run.files:
        output.line(file_line(summary))


def summarize(
    run: Validation, elapsed: float, args: argparse.Namespace, stopped: bool, output: Output
) -> None:
    tally = run.tally
    formats = format_counts(run.files)
    if args.output_format == "json":
        summary: dict[str, Any] = {
            **tally.as_dict(),
            "elapsed_s": round(elapsed, 3),
            "format": run.format,
            "formats": formats,
            "phi_core": run.version if run.format in (AUTO, "phi-core") else None,
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
    if len(formats) > 1:
        named = "; " + ", ".join(
            f"{label}: {plural(count, 'file')}" for label, count in formats.items()
        )
    else:
        named = ", " + (next(iter(formats)) if formats else run.label)
    output.line(
        f"{plural(tally.files, 'file')}, {plural(tally.documents, 'document')}: "
        f"{', '.join(counts)}; {tally.bytes:,} bytes in {elapsed:.2f} s "
        f"({rate:.1f} MB/s{named}{more})"
    )


def run_schema(args: argparse.Namespace, output: Output) -> int:
    wire = find(checked_version(args.version, args.format), args.format).load()
    if args.type not in wire.WIRE_TYPES:
        more = "" if args.format == "phi-core" else f" --format {args.format}"
        raise UsageError(f"unknown wire type {args.type!r}; phi-wire types{more} lists them")
    try:
        bundle = wire.schema(args.type)
    except KeyError:
        raise UsageError(f"no schema for {args.type!r}") from None
    output.line(json.dumps(bundle, indent=2, ensure_ascii=False))
    output.flush()
    return 0


def run_types(args: argparse.Namespace, output: Output) -> int:
    for name in wire_types(checked_version(args.version, args.format), args.format):
        output.line(name)
    output.flush()
    return 0


CONVERT_HELP = f"""\
Convert stored documents from one format to another, saying what is lost on the way.

Inputs: JSON files (one document: a message, an event, a usage, or an array of them), JSONL files
(one document per line: a clark-agent history, an event stream, a list of messages), Operator-Use
session files (read whole, as Operator-Use reads them: its active branch is converted, as its
build_session_context rebuilds it), gzip-compressed or not, - (standard input), and folders:
their files are found as phi-wire validate finds them (.json, .jsonl, .ndjson names; hidden and
vendored folders skipped) and each converted on its own. --from names the inputs' format, else it
is recognised for each input (the formats of phi-wire validate). A JSONL file's documents are
converted together: an event stream's events, a history's rows.

Formats: {", ".join(FORMATS)}. Converters go between phi-core (0.10) and each other format, both
ways; clark-agent to Operator-Use and back is refused (convert to phi-core first, then from it:
each step's losses point into its own input). Outputs are written as the target writes them: one
document per input document, a list as JSONL (a list of messages converted to Operator-Use as a
session file: a fresh header, one message entry per message).

Output: without -o, standard output (one input only). -o FILE writes one input's output to FILE; -o
FOLDER (an existing folder, or any -o with several inputs or a folder: created if need be) writes
each input's output into it, named after the input with the target format before its suffix
(history.jsonl, --to phi-core: history.phi-core.jsonl); a file found under a folder named keeps its
path under it (a/history.jsonl: a/history.phi-core.jsonl). Every file is written to a temporary file
beside it and renamed over it when complete: a failed run never leaves a partial file.

Losses: each conversion's losses are summarised on standard error, counted by kind (dropped: the
target has no place for it; invented: the target needs a value the source lacks; changed: kept,
not exactly) and reason; -v lists each one's file:line and JSON pointer into that line's document.

Exit status: 0 every input was converted (losses or not); 1 every input was converted but with
losses, under --fail-on-loss (the outputs are still written); 2 some input could not be converted
(unreadable, invalid in its format, a format or a pair phi-wire cannot convert, nothing to
convert), a usage error, an output could not be written, or the run was interrupted (Ctrl-C).
Each error is one line on standard error, file:line: what is wrong.

{SELECTION_HELP}
"""


def add_selection(command: argparse.ArgumentParser) -> None:
    """``--include`` and ``--exclude``, repeatable (the help text's last paragraph says how
    they match)."""
    command.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="under the folders named, read only the files that match (repeatable)",
    )
    command.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="under the folders named, leave out the files and folders that match (repeatable)",
    )


def add_convert(commands: Any) -> None:
    convert = commands.add_parser(
        "convert",
        help="convert files from one format to another",
        description=CONVERT_HELP,
        formatter_class=ParagraphsFormatter,
    )
    convert.add_argument(
        "inputs",
        nargs="+",
        metavar="IN",
        help="JSON, JSONL or session files, folders of them, or - for stdin",
    )
    convert.add_argument(
        "--from",
        dest="source",
        choices=FORMATS,
        help="the format of the inputs (default: recognised for each input)",
    )
    convert.add_argument(
        "--to", dest="target", choices=FORMATS, required=True, help="the format to write"
    )
    convert.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="a file (one input), a folder, or - for stdout (default: stdout, one input only)",
    )
    convert.add_argument(
        "--fail-on-loss",
        action="store_true",
        help="exit with status 1 when anything was lost (for CI); the outputs are still written",
    )
    convert.add_argument(
        "-v", "--verbose", action="store_true", help="list every loss with its file, line, pointer"
    )
    convert.add_argument(
        "--quiet", action="store_true", help="no summary of the losses (errors are still said)"
    )
    add_selection(convert)
    convert.set_defaults(run=run_convert)


def run_convert(args: argparse.Namespace, output: Output) -> int:
    from pathlib import Path

    from phi_wire._convert_files import (
        ConvertError,
        convert_input,
        inputs_named,
        output_name,
        read_input,
        write_atomically,
    )

    inputs, walk_errors = inputs_named(args.inputs, args.include, args.exclude)
    several = len(args.inputs) > 1 or any(named.under is not None for named in inputs)
    destination = args.output
    folder: Path | None = None
    if destination is not None and destination != "-":
        if several or Path(destination).is_dir():
            folder = Path(destination)
    elif several:
        what = "several inputs need" if len(args.inputs) > 1 else "a folder of inputs needs"
        raise UsageError(f"{what} -o FOLDER (where their outputs go)")
    if args.inputs.count("-") > 1:
        raise UsageError("standard input (-) can be read once only")
    if folder is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UsageError(f"{folder}: cannot create the folder ({error.strerror})") from None
    for line in walk_errors:
        output.note(line)
    errors = len(walk_errors)
    lost = 0
    for name, under in inputs:
        try:
            converted = convert_input(read_input(name), args.source, args.target)
        except ConvertError as error:
            output.note(str(error))
            errors += 1
            continue
        if folder is not None:
            target = output_name(name, args.target, converted.lines, folder, under)
        elif destination not in (None, "-"):
            target = Path(destination)
        else:
            target = None
        if target is None:
            output.text(converted.text)
            written = "standard output"
        else:
            if name != "-" and target.resolve() == Path(name).resolve():
                output.note(f"{name}: the output would overwrite the input: not written")
                errors += 1
                continue
            output.stop_if_interrupted()  # no file written after a Ctrl-C pydantic dropped
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                write_atomically(target, [converted.text])
            except OSError as error:
                output.note(f"{target}: cannot write ({error.strerror or error}): not written")
                errors += 1
                continue
            written = str(target)
        lost += bool(converted.losses)
        if not args.quiet:
            report_losses(name, converted, written, args.verbose, output)
    output.flush()
    if errors:
        return 2
    return 1 if args.fail_on_loss and lost else 0


def report_losses(name: str, converted: Any, written: str, verbose: bool, output: Output) -> None:
    """The losses of one input on standard error: counted by kind and reason (``verbose``: each
    one's ``file:line /pointer`` too)."""
    losses = converted.losses
    read = plural(converted.documents, "document")
    if converted.entries:
        read = f"a session file of {plural(converted.entries, 'entry', 'entries')}"
    what = (
        f"{display_name(name)}: {converted.source} -> {converted.target}, {read}, "
        f"written to {written}: "
    )
    if not losses:
        output.note(what + "nothing lost")
        return
    output.note(what + plural(len(losses), "loss", "losses"))
    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for where, loss in losses:
        groups.setdefault((loss.kind, loss.reason), []).append((where, loss.pointer))
    for (kind, reason), places in sorted(groups.items(), key=lambda item: -len(item[1])):
        output.note(f"  {len(places):,} {kind}: {reason}")
        if verbose:
            for where, pointer in places:
                output.note(f"    {display_name(where)} {pointer or '/'}")


def run_schema_diff(args: argparse.Namespace, output: Output) -> int:
    """Print the report; exit 0, 1 or 2 (see ``schema_diff.DESCRIPTION``)."""
    try:
        report = schema_diff.diff(args.old, args.new, across_formats=args.across_formats)
    except schema_diff.DifferentFormats as error:
        raise UsageError(
            f"schema-diff: {error.reason}; --across-formats compares them anyway"
        ) from None
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
    command.add_argument(
        "--output-format",
        "--format",
        dest="format",
        choices=("text", "json"),
        default="text",
        help="the report's form (--format: the same, as before validate's --format named the "
        "wire format)",
    )
    command.add_argument(
        "--fail-on",
        choices=tuple(schema_diff.FAIL_ON),
        default="any",
        help="which breaking changes make the exit status 1 (default: any)",
    )
    command.add_argument(
        "--across-formats",
        action="store_true",
        help="compare versions of two formats (refused otherwise: every difference between two "
        "implementations would read as breaking)",
    )
    command.set_defaults(run=run_schema_diff, listing=True)


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="phi-wire", description=__doc__.split("\n\n")[0].rstrip(".")
    )
    root.add_argument("--version", action="version", version=f"phi-wire {__version__}")
    root.set_defaults(listing=False)  # see Output: types, schema and schema-diff set it
    commands = root.add_subparsers(dest="command", required=True)
    validate = commands.add_parser(
        "validate",
        help="check stored JSON and JSONL documents",
        description=VALIDATE_HELP,
        formatter_class=ParagraphsFormatter,
    )
    validate.add_argument("paths", nargs="+", metavar="PATH", help="files, folders, or - for stdin")
    validate.add_argument(
        "--format",
        type=wire_format,
        choices=(AUTO, *FORMATS),
        default=AUTO,
        help="the format of every document (default: auto, recognised per file)",
    )
    validate.add_argument(
        "--version",
        help="the version of --format (phi-core: 0.8, 0.10; clark-agent: 0.4; operator-use: "
        "d0da87a6, d1cdaad8); with auto, phi-core's (default: each format's default)",
    )
    validate.add_argument(
        "--type",
        help="judge every document as this wire type of --format (phi-wire types lists them)",
    )
    validate.add_argument(
        "--output-format",
        choices=("text", "json"),
        default="text",
        help="text (default), or one JSON record per line",
    )
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
    add_selection(validate)
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
    schema.add_argument("--format", choices=FORMATS, default="phi-core")
    schema.add_argument("--version", help="the version of --format (default: its default)")
    schema.set_defaults(run=run_schema, listing=True)
    types = commands.add_parser("types", help="list the wire types")
    types.add_argument("--format", choices=FORMATS, default="phi-core")
    types.add_argument("--version", help="the version of --format (default: its default)")
    types.set_defaults(run=run_types, listing=True)
    add_convert(commands)
    add_schema_diff(commands)
    return root


@contextmanager
def interrupts_noted(output: Output) -> Iterator[None]:
    """While the command runs, Ctrl-C raises KeyboardInterrupt as Python's own handler does and
    also sets ``output.interrupted``: pydantic-core drops an interrupt raised inside a union it is
    writing (``phi_wire._interrupts``), and the run must still end as interrupted. Only Python's
    default handler is replaced, in the main thread (a program's own handler stays)."""

    def handler(signum: int, frame: FrameType | None) -> None:
        output.interrupted = True
        raise KeyboardInterrupt

    replaced = False
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        with suppress(ValueError):  # not the main thread
            signal.signal(signal.SIGINT, handler)
            replaced = True
    try:
        yield
    finally:
        if replaced:
            signal.signal(signal.SIGINT, signal.default_int_handler)


def main(argv: Sequence[str] | None = None) -> int:
    output = Output(sys.stdout, sys.stderr)
    try:
        with interrupts_noted(output):
            try:
                args = parser().parse_args(argv)
            except SystemExit as exit_:  # argparse printed the usage problem (or the help)
                return 0 if exit_.code == 0 else 2
            except OSError:  # the help could not be written
                return 2
            output.listing = args.listing
            status = int(args.run(args, output))
            output.stop_if_interrupted()  # pydantic dropped it, and nothing was written after it
            return status
    except UsageError as error:
        output.note(str(error))
        return 2
    except OutputFailed as error:
        output.note(f"{error}; not all was reported, so the run counts as failed")
        return 2
    except KeyboardInterrupt:
        output.note("interrupted")
        output.settle()  # what was printed before is kept; a reader gone is no second error
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
