"""What every subcommand of the command line shares: its output (a closed pipe, a full disk,
a reader that stops early, names that are not UTF-8), exit statuses, Ctrl-C, argument types and
help formatting."""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from types import FrameType
from typing import TextIO

from phi_wire.formats import FORMATS, UnknownVersion, find
from phi_wire.output import printable, write_all

PROGRESS_MIN_BYTES = 8 * 1024 * 1024


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
    from phi_wire.validate import default_version  # not imported by every command's start-up

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
        """A line of the report on standard output (names that are not UTF-8 as ``\\xe9``)."""
        self.text(printable(text) + "\n")

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
        """``text`` on ``out``, through its byte layer when it has one, every write's count
        checked (``phi_wire.output.write_all``): a pipe closed part-way through a large write,
        or a disk that fills, takes only part of it, a short write that ``TextIOWrapper``
        ignores (the rest was lost, silently); here the rest is written again, and fails."""
        buffer = getattr(out, "buffer", None)
        if buffer is None:
            out.write(text)
            return
        if not self._bytes_only:  # what the text layer may hold goes first
            out.flush()
            self._bytes_only = True
        write_all(buffer.write, text.encode(out.encoding, out.errors or "strict"))

    def settle(self) -> None:
        """Deliver what is buffered if it can be, at the end of a run that failed already."""
        with suppress(OutputFailed):
            self.flush()

    def note(self, text: str) -> None:
        """A line on standard error (a failure there is ignored: there is nowhere left to say);
        names that are not UTF-8 as ``\\xe9``, as everywhere (``phi_wire.output.printable``)."""
        if self.err is None:  # started with standard error closed (``2>&-``)
            return
        try:
            self.err.write(f"phi-wire: {printable(text)}\n")
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
    """A one-line progress display on a terminal's standard error, for inputs of
    ``PROGRESS_MIN_BYTES`` or more; silent otherwise (and from the first failure to write it
    on). ``total_bytes`` is asked only on a terminal (validate's reads each gzip's trailer)."""

    def __init__(
        self, total_bytes: Callable[[], int], stream: TextIO | None, enabled: bool
    ) -> None:
        self.done = 0
        self.stream = stream
        self.enabled = enabled and stream is not None and stream.isatty()
        self.total = total_bytes() if self.enabled else 0
        self.enabled = self.enabled and self.total >= PROGRESS_MIN_BYTES
        self.shown = False

    def advance(self, size: int) -> None:
        self.done += size
        if self.enabled:
            share = min(1.0, self.done / self.total)
            bar = "#" * int(share * 30)
            self._show(f"\r[{bar:<30}] {share:4.0%} {self.done / 1e6:8.1f} MB")

    def close(self) -> None:
        """Clear the line (a note written next starts on an empty line; ``advance`` draws the
        bar again)."""
        if self.enabled and self.shown:
            self._show("\r" + " " * 60 + "\r")
            self.shown = False

    def _show(self, text: str) -> None:
        try:
            assert self.stream is not None  # enabled only with a stream
            self.stream.write(text)
            self.stream.flush()
            self.shown = True
        except (OSError, ValueError):  # the terminal went away: the run goes on without it
            self.enabled = False


@contextmanager
def interrupts_noted(output: Output) -> Iterator[None]:
    """While the command runs, Ctrl-C raises KeyboardInterrupt as Python's own handler does and
    also sets ``output.interrupted``: pydantic-core drops an interrupt raised inside a union it is
    writing (``phi_wire.serde._interrupts``), and the run must still end as interrupted. Only
    Python's default handler is replaced, in the main thread (a program's own handler stays)."""

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
