"""``phi-wire validate``: its help, options, and the report of a run (records, file lines,
summary)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from phi_wire.formats import FORMATS, RECOGNITION_ORDER, versions
from phi_wire.remote import MissingExtra
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
    display_name,
    validate,
)

from ._dask import LOCAL, is_address, validate_on_dask
from ._shared import (
    SELECTION_HELP,
    Output,
    ParagraphsFormatter,
    Progress,
    UsageError,
    add_selection,
    byte_count,
    plural,
    positive,
    wire_format,
)

VALIDATE_HELP = f"""\
Check stored documents exactly as strictly as their implementation reads them: phi-core's,
clark-agent's (0.4), Operator-Use's (layouts d0da87a6 and d1cdaad8), pi's (0.73 and 1.5) and the
OpenTelemetry GenAI conventions' message documents (as the official schema judges them).

Formats: by default (--format auto) each file's format is recognised from its first documents and
said: a file that is not all phi-core is listed with the format it was judged as, and the summary
names the formats. A file of mixed formats is judged document by document. An Operator-Use or pi
session file (a JSONL file of its session entries) is one document, read as that implementation
reads it: each line it would skip is a problem at that line. JSON that looks like yoagent's (0.13
and later), which phi-wire does not speak yet, is named: valid if phi-core reads it, not judged if
not. Nothing that names a format: phi-core.
JSON that several formats write alike (a text block, {{"type": "agent_start"}}, "stop") is judged
as the fitting format the other files of its folder show most (else the first in the order:
{", ".join(RECOGNITION_ORDER)}), and the others are named: clark-agent 0.4 (also fits pi).
--format {"|".join(FORMATS)} judges every document as that format, --version picks its version
(the newest by default; Operator-Use's default is d0da87a6).

Inputs: files, folders, - (standard input) and URLs (s3://bucket/prefix/, a glob such as
's3://bucket/2025-*/*.jsonl.gz'; needs pip install 'phi-wire[remote]', credentials from s3fs's
usual environment and files; a prefix is read as a folder). A .json file is one document; a
.jsonl or .ndjson file holds one document per line; any of them may be gzip-compressed. The
layout and the compression are recognised from the content, whatever the name says. Folders are read
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

--dask [ADDRESS] runs on a Dask cluster (pip install 'phi-wire[dask]'): the scheduler at
ADDRESS, or a LocalCluster of this machine's cores; the same report and exit status, Dask's
progress bar on a terminal. Big uncompressed JSONL files are split into byte ranges, gzip and
whole-document files are one task each (gzip cannot be split). --max-errors N does not stop a
cluster early: every file is judged, the first N problems in input order are printed, and the
summary counts every document.

Speed: documents in the form phi-core writes are recognised by a compiled expression that is
cached in $PHI_WIRE_CACHE_DIR (default ~/.cache/phi-wire; empty: no cache); all others, and
all documents under --strict, are judged by the models themselves.
"""
VALIDATE_HELP = VALIDATE_HELP.replace("{SELECTION}", SELECTION_HELP)


_VERSIONS_SPOKEN = "; ".join(
    f"{format}: {', '.join(entry.version for entry in versions(format))}" for format in FORMATS
)
"""Each format's versions, for --version's help (from the registry: a new version is listed)."""


def add_validate(commands: Any) -> None:
    validate = commands.add_parser(
        "validate",
        help="check stored JSON and JSONL documents",
        description=VALIDATE_HELP,
        formatter_class=ParagraphsFormatter,
    )
    validate.add_argument(
        "paths", nargs="*", metavar="PATH", help="files, folders, URLs, or - for stdin"
    )
    validate.add_argument(
        "--format",
        type=wire_format,
        choices=(AUTO, *FORMATS),
        default=AUTO,
        help="the format of every document (default: auto, recognised per file)",
    )
    validate.add_argument(
        "--version",
        help=f"the version of --format ({_VERSIONS_SPOKEN}); with auto, phi-core's (default: each "
        "format's default)",
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
        "--max-errors",
        type=positive,
        metavar="N",
        help="stop the run after N problems in all (with --dask the cluster still judges every "
        "file: the first N problems in input order are printed, the summary counts them all)",
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
    validate.add_argument(
        "--dask",
        nargs="?",
        const=LOCAL,
        metavar="ADDRESS",
        help="run on a Dask cluster: the scheduler at ADDRESS (tcp://host:8786), or without one "
        "a LocalCluster of this machine's cores (needs: pip install 'phi-wire[dask]')",
    )
    validate.set_defaults(run=run_validate)


def run_validate(args: argparse.Namespace, output: Output) -> int:
    if args.dask is not None and not is_address(args.dask):  # --dask PATH: no address given
        args.paths.insert(0, args.dask)
        args.dask = LOCAL
    if not args.paths:
        raise UsageError("validate: the following arguments are required: PATH")
    if args.dask is not None:
        if args.jobs != 1:
            raise UsageError("validate: --jobs is for one machine; --dask runs on the cluster's")
        return report_dask(args, output)
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
    except (ValueError, MissingExtra) as error:  # a URL without the remote extra: one line
        raise UsageError(str(error)) from None
    started = time.perf_counter()
    progress = Progress(lambda: run.total_bytes, sys.stderr, not args.quiet)
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


def report_dask(args: argparse.Namespace, output: Output) -> int:
    """The run on a Dask cluster, reported as a local run is."""
    started = time.perf_counter()
    try:
        run, records = validate_on_dask(args, args.dask, not args.quiet)
    except MissingExtra as error:
        raise UsageError(str(error)) from None
    reported = 0
    stopped = False
    for record in records:
        if record.kind == PROBLEM:
            if args.max_errors is not None and reported >= args.max_errors:
                stopped = True
                break
            reported += 1
        emit(record, args, output)
    list_files(run, args, output)
    summarize(run, time.perf_counter() - started, args, stopped, output)
    output.flush()
    if run.tally.input_errors:
        return 2
    return 1 if run.tally.invalid else 0


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
