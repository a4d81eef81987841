"""``phi-wire convert``: its help, options, the run and its losses on standard error."""

from __future__ import annotations

import argparse
from typing import Any

from phi_wire.formats import FORMATS
from phi_wire.validate import (
    display_name,
)

from ._shared import SELECTION_HELP, Output, ParagraphsFormatter, UsageError, add_selection, plural

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
ways; any other pair goes through phi-core (the second step's losses point into the phi-core form).
Messages, sessions (an Operator-Use session file, a phi-core Session) and event streams (clark-agent
and phi-core; Operator-Use has none) convert. --to FORMAT/VERSION writes that version or layout
(phi-core/0.8, operator-use/d1cdaad8) as its own reader and writer do. Outputs are written as the
target writes them: one document per input document, a list as JSONL (a list of messages
converted to Operator-Use as a session file: a header, one message entry per message; the ids it
invents derived from the input's name, position and content, so the output is reproducible).

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
        "--to",
        dest="target",
        type=target_format,
        required=True,
        metavar="FORMAT[/VERSION]",
        help=f"the format to write ({', '.join(FORMATS)}), and its version or layout "
        "(phi-core/0.8, operator-use/d1cdaad8; default: the newest the converters write)",
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


def target_format(text: str) -> tuple[str, str | None]:
    """``--to``: a format, or ``format/version`` (the version as ``phi-wire validate
    --version`` takes it)."""
    from phi_wire.formats import UnknownVersion, find

    format, slash, version = text.partition("/")
    if format not in FORMATS:
        raise argparse.ArgumentTypeError(
            f"unknown format {format!r}; choose one of {', '.join(FORMATS)}"
        )
    if not slash:
        return format, None
    try:
        return format, find(version, format).version
    except UnknownVersion as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def run_convert(args: argparse.Namespace, output: Output) -> int:
    from pathlib import Path

    from phi_wire.convert import (
        ConvertError,
        convert_input,
        inputs_named,
        output_name,
        read_input,
        write_atomically,
    )

    target, version = args.target
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
            converted = convert_input(read_input(name), args.source, target, version)
        except ConvertError as error:
            output.note(str(error))
            errors += 1
            continue
        if folder is not None:
            path = output_name(name, target, converted.lines, folder, under)
        elif destination not in (None, "-"):
            path = Path(destination)
        else:
            path = None
        if path is None:
            output.text(converted.text)
            written = "standard output"
        else:
            if name != "-" and path.resolve() == Path(name).resolve():
                output.note(f"{name}: the output would overwrite the input: not written")
                errors += 1
                continue
            output.stop_if_interrupted()  # no file written after a Ctrl-C pydantic dropped
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                write_atomically(path, [converted.text])
            except OSError as error:
                output.note(f"{path}: cannot write ({error.strerror or error}): not written")
                errors += 1
                continue
            written = str(path)
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
