"""A JSONL file of messages converted to a session file (Operator-Use's: how it stores a
conversation) in memory bounded by one batch, not by the file: phi-core messages, and another
format's on their way through phi-core (clark-agent history rows).

A session file's entries need every message before the first is written: their ids derive from
the header's id, which derives from all the messages (``_ids``). So the file is read once,
``BATCH`` lines at a time, each batch checked as ``_fast_session_file`` (phi-core's own text)
or ``_fast_whole.hub_converted`` (another format's vouched lines) check a whole input, and
converted by the target folder's writer (its ``session_files`` module's
``STREAMED_SESSION_FILES``: no model imported),
which gives each entry's text but for its id and parent link. Those go to a spool (an anonymous
temporary file: nothing is left behind), and the header's id is hashed as they go. Then the
header is written, and the entries are read back, given their ids and written, a batch at a time.

The text written, the losses (their order too) and the counts are exactly those of
``convert_input``'s whole-input path. A batch that path would not take without models (a line
not phi-core's own text or not vouched for, a message the writer cannot write exactly), or a file
under ``FAST_MIN_BYTES``, makes ``session_file_stream`` give None: the file is converted whole
(``convert_input``), nothing written yet. Standard input is not streamed (``_stream.streamed``):
it is read whole. Losses are placed as they come only when kept (``-v``, ``--output-format
json``, ``--loss-report``); else they are counted, never built.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

from phi_wire.collector import CollectorPaused
from phi_wire.fastpath import fast_path
from phi_wire.formats import HUB

from ._documents import MODULES
from ._fast import FAST_MIN_BYTES, SURROGATE_ESCAPE, FastUnsupported, parsed
from ._fast_session_file import _canonical, _phi_text, session_file_table
from ._fast_session_file import _placed as _session_placed
from ._fast_whole import BUILD_MIN_BYTES, hub_converted
from ._files import Converted, batch_size
from ._files import _placed as _files_placed
from ._inputs import Input
from ._route import VIA_HUB, noted_via_hub
from ._types import Loss, loss_counts

__all__ = ["SESSION_FILE_STREAMS", "SessionFileStream", "session_file_stream"]

SESSION_FILE_STREAMS = frozenset({(HUB, "operator-use"), ("clark-agent", "operator-use")})
"""The (source, target) pairs whose JSONL files of messages are streamed to a session file."""
_FREE_CHECKED = frozenset({"clark-agent"})
"""The sources whose step to phi-core writes every free-form value as phi-core's ``Value`` does
(keys sorted, numbers checked): a tool call's arguments and a custom message's payload
(``clark_agent._fast_to_phi._free``), a system message's data (its text and a u64 timestamp,
keys in order): the writer need not check them again."""


class SessionFileWriter(Protocol):
    """A target folder's writer of a session file from phi-core messages given a batch at a
    time (``operator_use._fast_from_phi.SessionFileWriter``)."""

    def convert(
        self, documents: list[dict[str, Any]], texts: Sequence[bytes], final: bool
    ) -> tuple[list[bytes], list[Loss], int]: ...

    def finish(self) -> list[Loss]: ...

    def header(self) -> bytes: ...

    def entries(self, made: Iterable[bytes], index: int) -> list[bytes]: ...


WriterOf = Callable[[str, "dict[tuple[str, str], int] | None", bool], SessionFileWriter]
"""``(the input's name, where to count the losses: None, keep them, whether the tool calls'
free-form values were sorted and checked by a first step) -> the writer``."""


def _writer_of(target: str) -> WriterOf | None:
    table: dict[tuple[str, str, str], WriterOf] = session_file_table(
        target, "STREAMED_SESSION_FILES"
    )
    return table.get((HUB, target, "AgentMessage"))


class _NotTaken(Exception):
    """The file takes ``convert_input``'s whole-input path."""


@dataclass
class _Batch:
    """Some phi-core messages: their dicts, their texts as phi-core writes them, and the line
    of each in the input."""

    documents: list[dict[str, Any]] = field(default_factory=list)
    texts: list[bytes] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)

    def __iadd__(self, other: _Batch) -> _Batch:
        self.documents += other.documents
        self.texts += other.texts
        self.lines += other.lines
        return self

    def after(self, count: int) -> _Batch:
        """The messages after the first ``count``."""
        return _Batch(self.documents[count:], self.texts[count:], self.lines[count:])


@dataclass
class SessionFileStream:
    """A JSONL file of messages converted to a session file, its entries spooled: ``batches``
    yields the header, then the entries a batch at a time, as ``_stream.Stream`` yields its
    documents (each batch's entries as one text, joined by line ends, none after the last: the
    same text once the command puts one after each, with a fraction of the Python calls);
    ``converted`` says what was done."""

    source: Input
    """The input (its name; ``documents``: only the first ones, which recognition read)."""
    handle: IO[bytes]
    """The spool (closing it, the stream is dropped)."""
    writer: SessionFileWriter
    format: str
    target: str
    documents: int
    losses: list[tuple[str, Loss]]
    """Kept with where each points (none when counted)."""
    counted: dict[tuple[str, str], int] | None
    held: int
    """The most messages held at once (a batch, and a run of tool results that the next batch
    may join): what bounds the memory."""

    def batches(self) -> Iterator[list[str]]:
        """The header, then the entries, a batch at a time."""
        for chunk in self.chunks():
            yield [chunk[:-1].decode()]

    def chunks(self) -> Iterator[bytes]:
        """``batches`` as UTF-8 bytes, each line ended (for ``AtomicFile.write_bytes``: the
        writer's bytes never decoded)."""
        try:
            yield self.writer.header() + b"\n"
            self.handle.seek(0)
            index = 1
            for made in _spooled_entries(self.handle, batch_size()):
                entries = self.writer.entries(made, index)
                entries.append(b"")
                yield b"\n".join(entries)
                index += len(made)
        finally:
            self.handle.close()

    def converted(self) -> Converted:
        """What was converted (no text: it was handed on batch by batch), its losses kept or
        counted (the first step's first, as ``convert_input`` gives them)."""
        return Converted(
            self.format,
            self.target,
            "",
            self.losses,
            self.documents,
            True,
            0,
            [],
            MODULES[self.target],
            self.counted,
        )


def session_file_stream(
    source: Input, handle: IO[bytes], format: str, target: str, keep: bool
) -> SessionFileStream | None:
    """The file ``handle`` (of ``format``, recognised from ``source``'s first lines) converted
    to ``target``'s session file, its entries spooled, ready to be written; None when it takes
    ``convert_input``'s path. It reads the file to its end, and closes it."""
    spool = tempfile.TemporaryFile()  # noqa: SIM115 (the stream closes it)
    try:
        with CollectorPaused():  # as convert_input: reference counting frees a batch
            spooler = _Spooler(source, handle, format, target, keep)
            spooler.spool(spool)
    except _NotTaken:
        spool.close()
        return None
    except BaseException:
        spool.close()
        raise
    finally:
        handle.close()
    counted: dict[tuple[str, str], int] | None = None
    if not keep:
        counted = dict(spooler.read_counts)
        for (kind, reason), count in spooler.counts.items():
            noted = f"{reason} {VIA_HUB}" if spooler.via_hub else reason
            counted[(kind, noted)] = count
    return SessionFileStream(
        source,
        spool,
        spooler.writer,
        format,
        target,
        spooler.documents,
        spooler.read + spooler.losses,
        counted,
        spooler.held,
    )


class _Spooler:
    """The first pass: every batch read, checked and converted, its entries written to a spool
    (one a line), its losses kept (placed) or counted."""

    def __init__(
        self, source: Input, handle: IO[bytes], format: str, target: str, keep: bool
    ) -> None:
        self.source = source
        self.handle = handle
        self.format = format
        self.keep = keep
        self.via_hub = format != HUB
        self.documents = 0
        """The lines read."""
        self.taken = 0
        """The messages the writer has converted (the base of its pointers' first token)."""
        self.held = 0
        self.read: list[tuple[str, Loss]] = []
        """The first step's losses (phi-core's own text has none), when kept."""
        self.losses: list[tuple[str, Loss]] = []
        """The writer's, when kept."""
        self.read_counts: dict[tuple[str, str], int] = {}
        self.counts: dict[tuple[str, str], int] = {}
        writer_of = _writer_of(target)
        if writer_of is None or os.fstat(handle.fileno()).st_size < FAST_MIN_BYTES:
            raise _NotTaken
        self.writer = writer_of(source.name, None if keep else self.counts, format in _FREE_CHECKED)

    def spool(self, spool: IO[bytes]) -> None:
        """``_NotTaken`` at the first batch that the whole-input path would not take without
        models."""
        first = self._first_step()
        held = _Batch()
        for documents, blank in _batches(self.handle, batch_size()):
            held += first(documents, blank)
            self.documents += len(documents)
            self.held = max(self.held, len(held.documents))
            held = held.after(self._converted(held, False, spool))
        if held.documents:
            self._converted(held, True, spool)
        self._placed(self.writer.finish(), _Batch(), 0)

    def _converted(self, held: _Batch, final: bool, spool: IO[bytes]) -> int:
        """The first messages of ``held`` converted (all if ``final``), their entries spooled;
        how many."""
        try:
            made, losses, taken = self.writer.convert(held.documents, held.texts, final)
        except FastUnsupported:
            raise _NotTaken from None
        if made:
            spool.write(b"\n".join(made) + b"\n")
        self._placed(losses, held, taken)
        return taken

    def _first_step(self) -> Callable[[list[tuple[int, bytes]], bool], _Batch]:
        """What makes a batch's phi-core messages of its lines (each line's number and bytes;
        and whether a blank line was met so far): checked as phi-core's own text, or converted
        from the source format (the losses of that step kept or counted here)."""
        version = MODULES[self.format]
        if not self.via_hub:
            canonical = _canonical(version, "AgentMessage")
            if canonical is None:
                raise _NotTaken
            fullmatch = canonical.document.fullmatch
            return lambda documents, _: _phi_texts(documents, fullmatch)
        if os.fstat(self.handle.fileno()).st_size >= BUILD_MIN_BYTES:
            # as for the whole input: its expression built once (a batch is too small to)
            fast_path(version, ("AgentMessage",), None, True, self.format)
        return self._hub_step

    def _hub_step(self, documents: list[tuple[int, bytes]], blank: bool) -> _Batch:
        """A batch of another format's lines as phi-core messages, its losses kept at their
        lines (as ``_files._placed`` places them) or counted. A blank line is not vouched for:
        the whole input would take the model path."""
        if blank:
            raise _NotTaken
        name = self.source.name
        block = b"\n".join([line for _, line in documents]) + b"\n"
        hub = hub_converted(Input(name, block, True, documents), self.format, MODULES[self.format])
        if hub is None:
            raise _NotTaken
        if self.keep:
            self.read += _files_placed(
                Input(name, b"", True, documents), hub._replace(documents=[])
            )
        else:  # counted without writing a pointer (``loss_counts``: none is)
            for key, count in loss_counts(hub.losses).items():
                self.read_counts[key] = self.read_counts.get(key, 0) + count
        return _Batch(hub.documents, list(map(_phi_text, hub.documents)), hub.lines)

    def _placed(self, losses: list[Loss], held: _Batch, taken: int) -> None:
        """The writer's losses of ``held``'s first ``taken`` messages kept with where each
        points: through phi-core, at the file (their pointers into phi-core's form of the whole
        input, noted ``VIA_HUB``); else at the line of the message their first token indexes,
        the rest of the pointer within it (``_fast_session_file._placed``)."""
        start = self.taken
        self.taken += taken
        name = self.source.name
        if self.via_hub:
            self.losses += [(name, noted_via_hub(loss)) for loss in losses]
        elif losses:
            lines = Input(name, b"", True, [(line, b"") for line in held.lines[:taken]])
            self.losses += _session_placed(lines, losses, start)


_CHUNK_BYTES = 1024 * 1024
"""The bytes read at once (split into lines in C: reading line by line costs more)."""


def _batches(handle: IO[bytes], size: int) -> Iterator[tuple[list[tuple[int, bytes]], bool]]:
    """The file's documents ``size`` at a time, as ``_inputs.input_of`` finds a JSONL file's:
    (line number, bytes) of each line that is not blank; and whether a blank line was met (in
    this batch or before)."""
    number = 0
    pending = b""
    batch: list[tuple[int, bytes]] = []
    blank = False
    while True:
        chunk = handle.read(_CHUNK_BYTES)
        if chunk:
            chunk = pending + chunk
            end = chunk.rfind(b"\n")
            if end == -1:
                pending = chunk
                continue
            lines = chunk[:end].split(b"\n")
            pending = chunk[end + 1 :]
        else:
            lines = [pending] if pending else []
        found = [(number + index, line) for index, line in enumerate(lines, 1) if line.strip()]
        blank = blank or len(found) != len(lines)
        number += len(lines)
        batch += found
        while len(batch) >= size or (batch and not chunk):
            yield batch[:size], blank
            batch = batch[size:]
        if not chunk:
            return


def _phi_texts(documents: list[tuple[int, bytes]], canonical: Callable[[bytes], Any]) -> _Batch:
    """The batch's messages, when every line is exactly what phi-core writes of the message it
    holds (``_fast_session_file``'s checks of a whole input); ``_NotTaken`` otherwise."""
    lines = [text for _, text in documents]
    if any(SURROGATE_ESCAPE.search(line) or not canonical(line) for line in lines):
        raise _NotTaken
    try:
        messages = parsed(b"[" + b",".join(lines) + b"]")
    except ValueError:  # not UTF-8, or what the reader does not take
        raise _NotTaken from None
    for line, message in zip(lines, messages, strict=True):
        if _phi_text(message) != line:
            raise _NotTaken
    return _Batch(messages, lines, [number for number, _ in documents])


def _spooled_entries(spool: IO[bytes], size: int) -> Iterator[list[bytes]]:
    """The entries a writer made, read back ``size`` at a time (without their line ends)."""
    batch: list[bytes] = []
    for line in spool:
        batch.append(line[:-1])
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
