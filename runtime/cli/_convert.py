"""``phi-wire convert``: its help, options, and the run: where the outputs go (settled before
anything is written), each input converted and written, the report (``_convert_report``)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from phi_wire import remote
from phi_wire.formats import FORMATS
from phi_wire.remote import MissingExtra

from ._dask import LOCAL, is_address
from ._shared import (
    SELECTION_HELP,
    Output,
    ParagraphsFormatter,
    Progress,
    UsageError,
    add_selection,
)

if TYPE_CHECKING:  # imported when the command runs, not at every start-up
    from phi_wire.convert import AtomicFile, Converted, Outputs, SessionFileStream, Stream

    from ._convert_report import ConvertReport

CONVERT_HELP = f"""\
Convert stored documents from one format to another, saying what is lost on the way.

Inputs: JSON files (one document: a message, an event, a usage, or an array of them), JSONL files
(one document per line: a clark-agent history, an event stream, a list of messages), Operator-Use
session files (read whole, as Operator-Use reads them: its active branch is converted, as its
build_session_context rebuilds it), gzip-compressed or not, - (standard input), and folders:
their files are found as phi-wire validate finds them (.json, .jsonl, .ndjson names; hidden and
vendored folders skipped) and each converted on its own. --from names the inputs' format, else it
is recognised for each input (the formats of phi-wire validate). A JSONL file's documents are
converted together: an event stream's events, a history's rows; a file whose rows each convert
alone or carry a state forward (clark-agent history or events -> phi-core, phi-core messages or
events -> clark-agent, Operator-Use messages -> phi-core or clark-agent) is streamed, 1,000 lines
at a time, its memory bounded by one batch, not by the file.

Formats: {", ".join(FORMATS)}. Converters go between phi-core (0.10) and each other format, both
ways; any other pair goes through phi-core (the second step's losses point into the phi-core form).
Messages, sessions (an Operator-Use session file, a phi-core Session) and event streams (clark-agent
and phi-core; Operator-Use has none) convert. --to FORMAT/VERSION writes that version or layout
(phi-core/0.8, operator-use/d1cdaad8) as its own reader and writer do. Outputs are written as the
target writes them: one document per input document, a list as JSONL (a list of messages
converted to Operator-Use as a session file: a header, one message entry per message; the ids it
invents derived from the input's name, position and content, so the output is reproducible).

Output: without -o, standard output (one input only). -o FILE writes one input's output to FILE
(gzip-compressed when its name ends .gz); -o FOLDER/ (a name ending with /, or an existing folder;
created if need be) writes each input's output into it, named after the input with the target
format before its suffix (history.jsonl, --to phi-core: history.phi-core.jsonl); a file found under
a folder named keeps its path under it (a/history.jsonl: a/history.phi-core.jsonl). Several inputs,
or a folder, need a folder: -o with a file's name (.json, .jsonl, .ndjson, .gz, or an existing
file) is refused; any other name is taken as a folder. Two inputs whose outputs would have one
name (a/h.jsonl and b/h.jsonl into one folder) are refused before anything is written. Every file
is written to a temporary file beside it and renamed over it when complete: a failed run never
leaves a partial file. A symbolic link is written through (the file it points to is replaced,
the link stays; a loop of links is refused); a new file's mode follows the umask, a file written
over keeps its mode.

Losses: each conversion's losses are summarised on standard error, counted by kind (dropped: the
target has no place for it; invented: the target needs a value the source lacks; changed: kept,
not exactly) and reason; -v lists each one's file:line and JSON pointer into that line's document.
--output-format json writes them instead as JSON records on standard output (then -o names where
the converted data goes), one per loss (file, line, pointer, kind, reason), one per error (kind
"error"), one per input converted, then a summary; --loss-report FILE writes the same records to
FILE, whole once the run ends. On a terminal, a progress bar shows on standard error while 8 MB or
more of input is converted.

URLs (pip install 'phi-wire[remote]'): an input may be an object, a prefix (s3://bucket/logs/,
walked as a folder: each object keeps its key under it) or a glob ('s3://bucket/2025-*/*.jsonl',
each match its key under the glob's folders before the first pattern); -o and --loss-report may
be URLs (a prefix ending / for a folder). An object is uploaded under a temporary key, then
copied to its name: never a partial object. Credentials come from s3fs's usual environment and
files. --dask [ADDRESS] (pip install 'phi-wire[dask]') converts on a Dask cluster, the scheduler
at ADDRESS or a LocalCluster of this machine's cores, one task per input file, each output
written by a worker: the same outputs, report and exit status, Dask's progress bar on a terminal.

Exit status: 0 every input was converted (losses or not); 1 every input was converted but with
losses, under --fail-on-loss (the outputs are still written); 2 some input could not be converted
(unreadable, invalid in its format, a format or a pair phi-wire cannot convert, nothing to
convert), a usage error, an output or the loss report could not be written (a short write is
not a success), or the run was interrupted (Ctrl-C).
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
        nargs="*",  # one at least (checked by the run: --dask IN may take the first)
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
        help=(
            "a file (one input; NAME.gz: gzipped), a folder (FOLDER/: several inputs need one), "
            "or - for stdout (default: stdout, one input only)"
        ),
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
    convert.add_argument(
        "--output-format",
        choices=("text", "json"),
        default="text",
        help="text (default: on standard error), or one JSON record per line on standard output",
    )
    convert.add_argument(
        "--loss-report",
        metavar="FILE",
        help="also write the losses and errors as JSON records to FILE (whole, at the end)",
    )
    add_selection(convert)
    convert.add_argument(
        "--dask",
        nargs="?",
        const=LOCAL,
        metavar="ADDRESS",
        help="convert on a Dask cluster, one task per input file: the scheduler at ADDRESS "
        "(tcp://host:8786), or without one a LocalCluster of this machine's cores (needs: pip "
        "install 'phi-wire[dask]'); the same outputs and report",
    )
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
    from phi_wire.convert import OutputRefused, inputs_named, plan_outputs

    from ._convert_report import ConvertReport

    started = time.perf_counter()
    if args.dask is not None and not is_address(args.dask):  # --dask IN: no address given
        args.inputs.insert(0, args.dask)
        args.dask = LOCAL
    if not args.inputs:
        raise UsageError("convert: the following arguments are required: IN")
    if args.dask is not None and "-" in args.inputs:
        raise UsageError("standard input (-) cannot be read by a cluster's workers: name files")
    if args.inputs.count("-") > 1:
        raise UsageError("standard input (-) can be read once only")
    try:
        inputs, walk_errors = inputs_named(args.inputs, args.include, args.exclude)
    except MissingExtra as error:  # a URL without the remote extra: one line
        raise UsageError(str(error)) from None
    folder_named = any(_is_folder(name) for name in args.inputs)
    several = len(args.inputs) > 1 or folder_named
    to_standard_output = args.output in (None, "-")
    if several and to_standard_output:
        what = "several inputs need" if len(args.inputs) > 1 else "a folder of inputs needs"
        raise UsageError(f"{what} -o FOLDER (where their outputs go)")
    if args.output_format == "json" and to_standard_output:
        raise UsageError(
            "--output-format json writes the report on standard output: name where the converted "
            "data goes with -o"
        )
    try:
        outputs = plan_outputs(
            [(named.name, named.under) for named in inputs], several, args.output, args.target[0]
        )
    except OutputRefused as error:
        raise UsageError(str(error)) from None
    names = [*args.inputs, *(named.name for named in inputs)]
    inputs_seen = {found for found in map(_identity, names) if found is not None}
    loss_file = _loss_report_file(args.loss_report, inputs_seen, outputs.file)
    if args.dask is not None:
        from ._dask import convert_on_dask

        seen = frozenset(inputs_seen)
        return convert_on_dask(args, output, (inputs, walk_errors, names, seen), outputs, loss_file)
    with loss_file if loss_file is not None else nullcontext():
        if outputs.folder is not None:
            try:
                outputs.folder.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise UsageError(
                    f"{outputs.folder}: cannot create the folder ({error.strerror})"
                ) from None
        progress = Progress(
            lambda: sum(_size(named.name) for named in inputs),
            sys.stderr,
            not args.quiet,
        )
        report = ConvertReport(
            output,
            json=args.output_format == "json",
            verbose=args.verbose,
            quiet=args.quiet,
            file=loss_file,
            names=names,
            before_note=progress.close,
        )
        for line in walk_errors:
            report.error(line)
        progress.advance(0)  # the bar shows from the start (it moves as each input is done)
        try:
            for name, under in inputs:
                done = _convert_one(name, under, args, outputs, inputs_seen, output, report)
                progress.advance(_size(name))  # before the note: the bar is cleared for it
                if done is not None:
                    report.converted(name, *done)
        finally:
            progress.close()
        lost = report.with_losses
        status = 2 if report.errors else 1 if args.fail_on_loss and lost else 0
        status = report.finish(status, args.fail_on_loss, time.perf_counter() - started)
        output.flush()
    return status


def _convert_one(
    name: str,
    under: str | None,
    args: argparse.Namespace,
    outputs: Outputs,
    inputs_seen: set[tuple[int, int] | str],
    output: Output,
    report: ConvertReport,
) -> tuple[Converted, str] | None:
    """One input read, converted and written where ``outputs`` says: what was converted and
    where it went (``-``: standard output), or None when something went wrong, said in one
    line of the report (the run goes on with the next input)."""
    from phi_wire.convert import ConvertError, convert_input, read_input, streamed, write_atomically

    keep = args.verbose or args.output_format == "json" or args.loss_report is not None
    stream = streamed(name, args.source, *args.target, keep=keep)
    if stream is not None:
        done = _write_stream(stream, name, under, outputs, inputs_seen, output, report)
        if done != _WHOLE:
            return done
    try:
        converted = convert_input(read_input(name), args.source, *args.target)
    except ConvertError as error:
        report.error(str(error))
        return None
    target = outputs.path_for(name, under, converted.lines)
    if target is None:
        output.text(converted.text)
        return converted, "-"
    if _identity(target) in inputs_seen:
        report.error(f"{target}: the output would overwrite the input: not written", name)
        return None
    output.stop_if_interrupted()  # no file written after a Ctrl-C pydantic dropped
    try:
        if isinstance(target, Path):  # a URL's object needs no folder
            target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, [converted.text])
    except OSError as error:
        report.error(f"{target}: cannot write ({error.strerror or error}): not written", name)
        return None
    return converted, str(target)


_WHOLE: Final = "whole"
"""``_write_stream``'s word for: convert this input whole after all (``convert_input``)."""


def _write_stream(
    stream: Stream | SessionFileStream,
    name: str,
    under: str | None,
    outputs: Outputs,
    inputs_seen: set[tuple[int, int] | str],
    output: Output,
    report: ConvertReport,
) -> tuple[Converted, str] | Literal["whole"] | None:
    """A streamed input converted and written batch by batch, as ``_convert_one`` does it whole
    (standard output gets the whole text at the end: nothing of an input that fails). ``_WHOLE``
    when the input is to be converted whole instead, nothing written: documents of several
    types, or an output that cannot be written (converting it whole says which comes first,
    the input's error or the output's, as it always did)."""
    from phi_wire.convert import AtomicFile, ConvertError, NotStreamed, SessionFileStream

    target = outputs.path_for(name, under, True)
    if target is None:
        try:
            pieces = ["".join(document + "\n" for document in batch) for batch in stream.batches()]
        except ConvertError as error:
            report.error(str(error))
            return None
        except NotStreamed:
            return _WHOLE
        output.text("".join(pieces))
        return stream.converted(), "-"
    if not isinstance(target, Path):  # a URL's object is uploaded whole (write_atomically)
        stream.handle.close()
        return _WHOLE
    try:
        if _identity(target) in inputs_seen:
            stream.handle.close()
            return _WHOLE
        output.stop_if_interrupted()  # no file written after a Ctrl-C pydantic dropped
        target.parent.mkdir(parents=True, exist_ok=True)
        with AtomicFile(target) as out:
            if isinstance(stream, SessionFileStream):  # bytes: never decoded
                for chunk in stream.chunks():
                    output.stop_if_interrupted()
                    out.write_bytes(chunk)
            else:
                for batch in stream.batches():
                    output.stop_if_interrupted()
                    out.write("".join(document + "\n" for document in batch))
            out.commit()
    except ConvertError as error:
        report.error(str(error))
        return None
    except (NotStreamed, OSError):
        stream.handle.close()
        return _WHOLE
    return stream.converted(), str(target)


def _identity(name: str | os.PathLike[str]) -> tuple[int, int] | str | None:
    """The file a name stands for (device, inode), its links followed; a URL itself; None when
    there is none (or it cannot be looked at: a loop of links, a name that is no file's)."""
    if name == "-":
        return None
    if isinstance(name, str) and remote.is_url(name):
        return name
    try:
        found = os.stat(name)
    except (OSError, ValueError):
        return None
    return found.st_dev, found.st_ino


def _is_folder(name: str) -> bool:
    """Whether an input named stands for several files: a folder, a URL's prefix or glob."""
    if remote.is_url(name):
        return name.endswith("/") or remote.has_glob(name)
    return name != "-" and os.path.isdir(name)


def _size(name: str) -> int:
    """The bytes of an input file (as stored: gzip compressed; a URL's from its listing); 0
    for standard input."""
    if name == "-":
        return 0
    try:
        return remote.path_size(name)
    except OSError:
        return 0


def _loss_report_file(
    name: str | None, inputs: set[tuple[int, int] | str], output_file: Path | None
) -> AtomicFile | None:
    """The ``--loss-report`` file, opened (written whole at the end); a usage error when it
    cannot be, or would be an input or the output."""
    from phi_wire.convert import AtomicFile

    if name is None:
        return None
    if name == "-":
        raise UsageError(
            "--loss-report names a file; --output-format json reports on standard output"
        )
    if remote.is_url(name):
        try:
            remote.require(name)
        except MissingExtra as error:
            raise UsageError(str(error)) from None
    elif _identity(name) in inputs or (
        output_file is not None and os.path.abspath(name) == os.path.abspath(output_file)
    ):
        raise UsageError(f"{name}: the loss report would overwrite an input or the output")
    try:
        return AtomicFile(name)
    except OSError as error:
        raise UsageError(
            f"{name}: cannot write the loss report ({error.strerror or error})"
        ) from None
