"""A JSONL file whose documents each convert on their own (clark-agent history rows to phi-core,
phi-core messages and events to clark-agent: no document tells the converter anything about
another), or with a state carried from one to the next (clark-agent events to phi-core: the
run's identity, found first, its turns and latest timestamp; Operator-Use messages to phi-core:
the tool names of the calls met so far; to clark-agent, through phi-core: those, and the count of
phi-core documents made, which the second step's pointers index), converted as it is read:
``BATCH`` lines read, validated, converted and handed on to be written, then the next ones, so
that memory is bounded by one batch's models (and that state), not by the file.
Its losses are counted by kind and reason as they come, or kept one by one (with their places)
when the caller asks (``keep``: ``-v``, ``--output-format json``, ``--loss-report``).

The documents written and the losses (their order too) are exactly those of ``convert_input``.
Any other input is read whole by ``convert_input``: ``streamed`` returns None for it (one JSON
document, gzip, standard input, a file over ``MAX_INPUT_BYTES``, a session file, another version
of the target, a pair whose documents need each other), and ``Stream.batches`` raises
``NotStreamed`` when a later batch shows documents of another type (the caller drops what it
was writing and converts the input whole).
"""

from __future__ import annotations

import collections
import importlib
import operator
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from phi_wire.collector import CollectorPaused
from phi_wire.formats import FOLDERS, HUB, find
from phi_wire.recognise import parse

from ._batches import Batches
from ._documents import MODULES, _read_documents
from ._fast import FAST_MIN_BYTES, FastConverter, FastUnsupported, fast_converter
from ._files import Converted, _converts_alone, _recognised, batch_size
from ._fused import second_step, second_steps
from ._inputs import GZIP_MAGIC, ConvertError, Input, max_input_bytes
from ._placed import PlacedLosses
from ._route import VIA_HUB, convert, noted_via_hub
from ._session_file_stream import SESSION_FILE_STREAMS, SessionFileStream, session_file_stream
from ._types import Conversion, Loss, loss_counts

__all__ = ["NotStreamed", "Stream", "ThroughHub", "streamed"]

_RECOGNISED_FROM = 64
"""The documents recognition looks at (``_files._recognised``)."""


_STREAMED_PAIRS = (
    ("clark-agent", "phi-core"),
    ("phi-core", "clark-agent"),
    ("operator-use", "phi-core"),
    ("operator-use", "clark-agent"),
)
"""The pairs some of whose types are streamed (``_converts_alone``, ``STREAM_CONVERTERS``; a pair
without phi-core: ``ThroughHub``)."""


STREAM_CONVERTERS: dict[tuple[str, str, str], str] = {
    ("clark-agent", HUB, "AgentEvent"): f"{FOLDERS['clark-agent']}.convert:EventStreamToPhi",
    ("operator-use", HUB, "AgentMessage"): f"{FOLDERS['operator-use']}.convert:MessageStreamToPhi",
}
"""(source, target, type) -> ``"module:class"`` of a converter whose documents need the ones
before them (a run's identity, the tool names of earlier calls): made once per stream (with the
stream's identity where ``_IDENTIFIED`` says), its ``convert`` (models) and ``convert_dicts``
(dicts) called on each batch's runs in turn, its ``undo`` (if it has one) on a run handed back
after ``convert_dicts`` returned."""

_IDENTIFIED = frozenset({("clark-agent", HUB, "AgentEvent")})
"""The stream converters made with the stream's identity (its first ``run_identified``: the file
is looked through for it first)."""


class ThroughHub:
    """A stream converter of a pair without phi-core: the source's stream converter to phi-core
    (``first``, its state carried), then phi-core's converter to the target on each run's
    phi-core documents (which convert alone), as ``convert`` converts the whole list through
    phi-core. The second step's losses point into the phi-core form of the whole input, so the
    count of phi-core documents made so far is carried too (one source document may give
    several or none); they are kept aside (``later``) for the caller to list after the first
    step's, as the whole conversion gives them. Dict to dict, the two steps are fused
    (``_fused``) where the first has ``phi_messages`` and the target a fused second step."""

    def __init__(self, first: Any, target: str, name: str) -> None:
        self.first = first
        self.target = target
        self.name = name
        self.second = fast_converter(HUB, target, "AgentMessage")
        self.fused = second_step(target) if hasattr(first, "phi_messages") else None
        self.made = 0
        """The phi-core documents made so far (by the runs converted)."""
        self.later: list[tuple[int, Sequence[Loss]]] = []
        """The second step's losses of each run since the caller last took them, with the
        number of phi-core documents made before that run (their pointers' first token indexes
        the run's)."""

    def convert(self, values: list[Any]) -> Conversion[Any]:
        hub = self.first.convert(values)
        second = convert(hub.value, source=HUB, target=self.target, name=self.name)
        self._noted(list(second.losses), len(hub.value))
        return Conversion(second.value, hub.losses)

    def convert_dicts(
        self, documents: list[dict[str, Any]], kind: str
    ) -> tuple[list[dict[str, Any]], Sequence[Loss]]:
        if self.fused is not None:
            return self._fused(documents, kind)
        if self.second is None:
            raise FastUnsupported(f"no dict converter from {HUB} to {self.target}")
        hub, losses = self.first.convert_dicts(documents, kind)
        try:
            converted, later = self.second(hub, "AgentMessage")
        except FastUnsupported:
            self.first.undo()
            raise
        self._noted(later, len(hub))
        return converted, losses

    def _fused(
        self, documents: list[dict[str, Any]], kind: str
    ) -> tuple[list[dict[str, Any]], PlacedLosses]:
        """``convert_dicts``, each phi-core message taken by the second step as it is made."""
        assert self.fused is not None
        losses = PlacedLosses()
        try:
            converted, later = second_steps(
                self.first.phi_messages(documents, kind, losses), self.fused
            )
        except FastUnsupported:
            self.first.undo()
            raise
        self._noted(later, len(converted))  # one document per phi-core message
        return converted, losses

    def _noted(self, losses: Sequence[Loss], made: int) -> None:
        self.later.append((self.made, losses))
        self.made += made

    def undo(self) -> None:
        """The latest run forgotten (handed back after ``convert_dicts`` returned)."""
        self.first.undo()
        before, _ = self.later.pop()
        self.made = before

    def taken(self, keep: bool, counts: dict[tuple[str, str], int]) -> list[Loss]:
        """The second step's losses since the last call, noted ``VIA_HUB``, their pointers into
        the phi-core form of the whole input: listed (``keep``), or only counted by (kind,
        reason) into ``counts``."""
        later, self.later = self.later, []
        if not keep:
            for _, losses in later:  # (a fused second step's are placed: counted, none written)
                for (kind, reason), count in loss_counts(losses).items():
                    key = (kind, f"{reason} {VIA_HUB}")
                    counts[key] = counts.get(key, 0) + count
            return []
        return [
            noted_via_hub(loss._replace(pointer=_shifted(loss.pointer, before)))
            for before, losses in later
            for loss in losses
        ]


def _shifted(pointer: str, before: int) -> str:
    """A pointer into a run's phi-core documents as one into the whole input's (its first token
    the index of a document, ``before`` documents later)."""
    index, slash, rest = pointer[1:].partition("/")
    if not pointer.startswith("/") or not index.isdecimal():
        return pointer
    return f"/{int(index) + before}{slash}{rest}"


_LOSS = operator.itemgetter(1)
_KIND_REASON = operator.itemgetter(1, 2)
"""A placed loss's ``Loss``; a ``Loss``'s kind and reason."""


class NotStreamed(Exception):
    """This input's documents are not all of one type that converts alone: convert it whole."""


@dataclass
class Stream:
    """A JSONL file being converted batch by batch: ``batches`` yields each batch's documents as
    the target writes them (JSON, no line end); ``converted`` says what was done, once they are
    all out."""

    source: Input
    """The input (its name; ``documents``: only the first ones, which recognition read)."""
    handle: IO[bytes]
    format: str
    target: str
    keep: bool
    documents: int = 0
    read: list[tuple[str, Loss]] = field(default_factory=list)
    """The losses of reading (kept only with ``keep``), written before the converter's."""
    losses: list[tuple[str, Loss]] = field(default_factory=list)
    read_counts: dict[tuple[str, str], int] = field(default_factory=dict)
    counts: dict[tuple[str, str], int] = field(default_factory=dict)
    later: list[tuple[str, Loss]] = field(default_factory=list)
    """The losses of a second step through phi-core (``ThroughHub``), written after the others
    (kept only with ``keep``), as converting the input whole gives them."""
    later_counts: dict[tuple[str, str], int] = field(default_factory=dict)
    stateful: dict[str, Any] = field(default_factory=dict)
    """The stream converters made, by type (None: the type has none)."""

    def batches(self) -> Iterator[list[str]]:
        """Each batch converted, in order; ``ConvertError`` (one line, the words of
        ``convert_input``) at the first document that cannot be, ``NotStreamed`` at a batch of
        another type."""
        size = os.fstat(self.handle.fileno()).st_size
        batches = Batches(
            self.source,
            self.format,
            self.target,
            self._converter,
            size >= FAST_MIN_BYTES,
            self.keep,
            self._fast,
            self._undo,
        )
        try:
            with CollectorPaused():  # see convert_input: reference counting frees a batch
                for batch in _batched(_lines(self.handle), batch_size()):
                    done = batches.convert(batch)
                    if done is None:
                        raise NotStreamed(self.source.name)
                    self.documents += len(batch)
                    self._lost(done.read, self.read, self.read_counts)
                    self._lost(done.losses, self.losses, self.counts)
                    for key, count in done.counted.items():  # a batch only counted
                        self.counts[key] = self.counts.get(key, 0) + count
                    self._later()
                    yield done.written
        finally:
            self.handle.close()

    def _converter(self, kind: str) -> Callable[[list[Any]], Conversion[Any]] | None:
        """What converts each batch: ``convert`` where each document converts alone, a stream
        converter that carries the run's state where the pair has one (clark-agent events to
        phi-core); None for any other type."""
        name = self.source.name
        if _converts_alone(self.format, self.target, kind):
            return lambda values: convert(values, source=self.format, target=self.target, name=name)
        made = self._stateful(kind)
        if made is None:
            return None
        stream_converter: Callable[[list[Any]], Conversion[Any]] = made.convert
        return stream_converter

    def _fast(self, kind: str) -> FastConverter | None:
        """The dict converter of ``kind``: a stream converter's own (``convert_dicts``, the same
        state as its model path's), else the format folder's."""
        if _converts_alone(self.format, self.target, kind):
            return fast_converter(self.format, self.target, kind)
        made = self._stateful(kind)
        found: FastConverter | None = getattr(made, "convert_dicts", None)
        return found

    def _undo(self) -> None:
        """A run handed back after a stream converter's ``convert_dicts`` returned: its state
        as before that run (``undo``, where the converter has one)."""
        for made in self.stateful.values():
            undo = getattr(made, "undo", None)
            if undo is not None:
                undo()

    def _stateful(self, kind: str) -> Any | None:
        """The stream converter of ``kind`` (made once), or None."""
        if kind not in self.stateful:
            self.stateful[kind] = self._made(self.format, self.target, kind)
        return self.stateful[kind]

    def _made(self, format: str, target: str, kind: str) -> Any | None:
        """A new stream converter of ``kind`` from ``format`` to ``target`` (through phi-core,
        for a pair without it, when phi-core's documents then convert alone), or None."""
        if HUB not in (format, target):
            first = self._made(format, HUB, kind)
            if first is None or not _converts_alone(HUB, target, kind):
                return None
            return ThroughHub(first, target, self.source.name)
        location = STREAM_CONVERTERS.get((format, target, kind))
        if location is None:
            return None
        path, _, attribute = location.partition(":")
        made = getattr(importlib.import_module(path), attribute)
        if (format, target, kind) not in _IDENTIFIED:
            return made()
        return made(self._identity(find(MODULES[format], format).load()))

    def _identity(self, module: Any) -> Any | None:
        """The identity of the stream's first ``run_identified`` event, read as the stream reads
        it (None: there is none before the first line the stream will reject, which it reports)."""
        with open(self.source.name, "rb") as handle:
            for line, text in _lines(handle):
                if b"run_identified" not in text:
                    continue
                try:
                    read = _read_documents(self.source, [(line, text)], module, self.format)
                except ConvertError:
                    return None
                (value,) = read[0]
                if type(value).__name__ == "RunIdentified":
                    return value.identity
        return None

    def _lost(
        self,
        found: list[tuple[str, Loss]],
        kept: list[tuple[str, Loss]],
        counts: dict[tuple[str, str], int],
    ) -> None:
        if self.keep:
            kept += found
            return
        # counted in C (a few losses per line), then added in the order each first came
        for key, count in collections.Counter(map(_KIND_REASON, map(_LOSS, found))).items():
            counts[key] = counts.get(key, 0) + count

    def _later(self) -> None:
        """The second step's losses of the batch just converted (a pair through phi-core),
        placed at the file's name as converting it whole places them."""
        for made in self.stateful.values():
            if isinstance(made, ThroughHub):
                name = self.source.name
                self.later += [(name, loss) for loss in made.taken(self.keep, self.later_counts)]

    def converted(self) -> Converted:
        """What was converted (no text: it was handed on batch by batch), its losses kept or
        counted (the reading's first, then the converter's, then those of a second step
        through phi-core, as ``convert_input`` gives them)."""
        counted: dict[tuple[str, str], int] | None = None
        if not self.keep:
            counted = dict(self.read_counts)
            for counts in (self.counts, self.later_counts):
                for key, count in counts.items():
                    counted[key] = counted.get(key, 0) + count
        return Converted(
            self.format,
            self.target,
            "",
            self.read + self.losses + self.later,
            self.documents,
            True,
            0,
            [],
            MODULES[self.target],
            counted,
        )


def _lines(handle: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes without the line end) of each line that is not blank, as
    ``_inputs.input_of`` finds a JSONL file's documents."""
    for number, line in enumerate(handle, 1):
        body = line[:-1] if line.endswith(b"\n") else line
        if body and not body.isspace():  # as ``strip()``, without copying the line
            yield number, body


def _batched(lines: Iterator[tuple[int, bytes]], size: int) -> Iterator[list[tuple[int, bytes]]]:
    batch: list[tuple[int, bytes]] = []
    for line in lines:
        batch.append(line)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def streamed(
    name: str, given: str | None, target: str, version: str | None, *, keep: bool
) -> Stream | SessionFileStream | None:
    """The file ``name`` as a ``Stream`` to ``target`` (from ``given``, or the format recognised),
    or None when it is converted whole (``convert_input``): also when something is wrong with its
    start (``convert_input`` says what, in its words). A JSONL file of messages to a session file
    is a ``SessionFileStream`` (``_session_file_stream``: read to its end here, its entries
    spooled)."""
    if name == "-" or version is not None:
        return None
    try:  # a regular file only: a pipe opened here and closed would lose what it holds
        if not stat.S_ISREG(os.stat(name).st_mode):
            return None
        handle = open(name, "rb")  # noqa: SIM115 (the stream closes it)
    except (OSError, ValueError):
        return None
    try:
        stream = _started(name, handle, given, target, keep)
    except (OSError, ConvertError):
        stream = None
    if stream is None:
        handle.close()
    return stream


def _started(
    name: str, handle: IO[bytes], given: str | None, target: str, keep: bool
) -> Stream | SessionFileStream | None:
    found = os.fstat(handle.fileno())
    if not stat.S_ISREG(found.st_mode) or found.st_size > max_input_bytes():
        return None
    if handle.read(len(GZIP_MAGIC)) == GZIP_MAGIC:
        return None
    handle.seek(0)
    first: list[tuple[int, bytes]] = []
    for line in _lines(handle):
        first.append(line)
        if len(first) == _RECOGNISED_FROM:
            break
    if len(first) < 2:
        return None  # one document (or none): read whole
    source = Input(name, b"", True, first)
    # the first line one JSON value and a second line: the file is no single JSON value (its
    # whole text would have more after the first value), so JSONL, as ``input_of`` finds it
    try:
        parse(first[0][1])
    except (ValueError, RecursionError):
        return None  # read whole, which words what is wrong (``_parsed``: not worded here)
    recognised = _recognised(source, given)
    if recognised.format not in MODULES or target not in MODULES:
        return None
    if recognised.type == "SessionFile":
        return None
    if (recognised.format, target) in SESSION_FILE_STREAMS:  # read to its end here, then spooled
        handle.seek(0)
        return session_file_stream(source, handle, recognised.format, target, keep)
    if (recognised.format, target) not in _STREAMED_PAIRS:
        return None
    handle.seek(0)
    return Stream(source, handle, recognised.format, target, keep)
