"""The work of ``phi-wire convert``: files of one format read, converted by ``phi_wire.convert``,
written as another format's, and what was lost on the way counted.

* Inputs (``_inputs``): a JSON document (a ``.json`` file: one message, event, usage...; or a
  JSON array of them), JSONL (one document per line: a clark-agent history, an event stream), an
  Operator-Use session file (a JSONL file of its entries: one document, read as Operator-Use
  reads it), ``-`` (standard input), or a folder's files, each converted on its own, its output
  at the same path under the output folder. The bytes go to ``loads`` as read: bytes that are
  not UTF-8 are its to judge (serde skips them in an ignored value, as ``phi-wire validate``
  says too).
* The source format is given or recognised (``phi_wire.recognise``); each document is read by that
  format's ``loads`` as the type its shape has (each key its reader drops a ``dropped`` loss:
  ``_unread``), a JSONL file's documents converted together (a stream's events need each other)
  or, where each converts alone, ``BATCH`` at a time (``_batches``: the lines the source's fast
  path vouches for dict to dict, ``_fast``; a phi-core Session file likewise, ``_fast_session``).
  A pair without phi-core goes through it
  (``_to_target``), a phi-core ``Session`` as its loops' messages (``_session``), and another
  version of the target is written by that version's own reader and writer (``_version``).
* Outputs are written as the target writes: one document for one document, JSONL for a list, an
  Operator-Use session file for a list of messages converted to Operator-Use. A file is written
  to a temporary file beside it and renamed over it once complete: never a partial file.
* Every ``Loss`` names a pointer into its input document; for JSONL and session files the first
  token (the index of a line) is turned into the line number.
"""

from __future__ import annotations

import collections
import functools
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from phi_wire.collector import CollectorPaused
from phi_wire.formats import FORMATS, HUB, find
from phi_wire.recognise import SPOKEN, Recognised, recognise, recognise_lines

from ._batches import Batches
from ._documents import MODULES, _dumped, _parsed, _problem, _read_documents, _unread, _where
from ._fast import FAST_MIN_BYTES
from ._fast_session import session_converted
from ._fast_session_file import session_file_converted, session_file_of_hub
from ._fast_whole import FastConverted, fast_converted, hub_converted
from ._inputs import ConvertError, Input
from ._route import VIA_HUB, convert, noted_via_hub, to_session_file
from ._session import from_session, is_session
from ._types import Conversion, Loss, UnsupportedConversion, loss_counts
from ._version import SESSION_FILES, VersionError, rewritten, written_changes

__all__ = ["MODULES", "Converted", "convert_input"]


Placed = list[tuple[str, Loss]]
"""Losses with where each points: (``file:line``, loss)."""


class _PlacedOnFirstRead:
    """A ``Converted``'s losses given either placed or as a function that places them, called
    on first read: a run that only counts them (no ``-v``, no loss report) never builds the
    hundreds of thousands of places and ``Loss``es of a big input."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = f"_{name}"

    def __get__(self, instance: object, owner: type | None = None) -> Placed:
        if instance is None:
            raise AttributeError(self.key)  # for dataclasses: a field without a default
        value: Placed | Callable[[], Placed] = instance.__dict__[self.key]
        if callable(value):
            value = instance.__dict__[self.key] = value()
        return value

    def __set__(self, instance: object, value: Placed | Callable[[], Placed]) -> None:
        instance.__dict__[self.key] = value


@dataclass
class Converted:
    """An input converted: the text to write, and the losses with where they point."""

    source: str
    target: str
    text: str
    losses: _PlacedOnFirstRead = _PlacedOnFirstRead()
    """(where: ``file:line``, loss), in the order the converter gave them (given as a function
    that places them: placed when first read). No default: the descriptor's class access raises
    (as ``dataclasses`` asks), which mypy does not see, hence its two ignores below."""
    documents: int  # type: ignore[misc]
    """The documents read: JSONL lines, 1 for a JSON document or a whole session file."""
    lines: bool  # type: ignore[misc]
    """The text is JSONL (a list written one item per line)."""
    entries: int = 0
    """A session file's entries (0: the input was no session file)."""
    documents_written: list[str] = field(default_factory=list)
    """Each document written, its JSON without a line end (a session file: the whole file)."""
    version: str = ""
    """The version (or layout) of the target written."""
    counted: dict[tuple[str, str], int] | None = None
    """The losses counted by (kind, reason), in the order each first came, when they were not
    kept one by one (a streamed input's: ``losses`` is then empty, ``text`` too)."""

    def loss_counts(self) -> dict[tuple[str, str], int]:
        """The losses counted by (kind, reason), in the order each first came."""
        if self.counted is not None:
            return self.counted
        counts: dict[tuple[str, str], int] = {}
        for _, loss in self.losses:
            counts[(loss.kind, loss.reason)] = counts.get((loss.kind, loss.reason), 0) + 1
        return counts


def _is_session_header(document: Any) -> bool:
    """A session file's first line (pi's and Operator-Use's: ``{"type":"session",...}``)."""
    return isinstance(document, dict) and document.get("type") == "session"


def _recognised(source: Input, given: str | None) -> Recognised:
    """The format (and, for a session file, the type) of an input: given, or recognised."""
    parsed: list[Any] = []
    whole = None if source.lines else source.take_value()
    for line, text in source.documents[:64] if whole is None else ():
        try:
            parsed.append(_parsed(source, line, text, given))
        except ConvertError:
            if not (parsed and _is_session_header(parsed[0])):
                raise
            # a session file's reader skips a line that is not JSON (pi's, Operator-Use's):
            # ``_loaded`` names it as a loss; a JSONL file of another kind stops here
    if whole is not None:  # parsed by ``input_of`` already
        parsed.append(whole[0])
    found = recognise_lines(parsed) if source.lines else recognise(parsed[0])
    if given is not None:
        session = (
            given in SESSION_FILES
            and found is not None
            and found.format == given
            and found.type == "SessionFile"
        )
        return Recognised(given, "", "SessionFile" if session else "", True)
    if found is None:
        raise ConvertError(
            f"{source.name}: nothing in it names a format: give one with --from "
            f"({', '.join(FORMATS)})"
        )
    if found.format not in SPOKEN:
        raise ConvertError(
            f"{source.name}: looks like {found.format}'s JSON ({found.type}), which phi-wire does "
            "not speak yet: nothing to convert it with"
        )
    return found


def _loaded(source: Input, format: str) -> tuple[Any, list[int], list[tuple[str, Loss]]]:
    """The input read as ``format``: a model (one document), a list of models (JSONL) or a
    session file; the line of each item (for the losses' pointers); and the losses of reading
    (the lines Operator-Use's reader skips)."""
    module = find(MODULES[format], format).load()
    if source.session:
        text = source.data
        try:
            session = module.loads(getattr(module, SESSION_FILES[format]), text)
        except module.WireError as error:
            raise _problem(source, 1, text, error, format) from None
        skipped = {error.line for error in session.skipped}
        read = [(number, text) for number, text in source.documents if number not in skipped]
        losses = [
            (
                f"{source.name}:{error.line}",
                Loss("", "dropped", f"{format}'s reader skips this line ({error})"),
            )
            for error in session.skipped
        ]
        for (line, text), entry in zip(read, session, strict=False):
            document = _parsed(source, line, text, format)
            losses += _unread(source, (line, text), document, entry, format)
        return session, [number for number, _ in read], losses
    values, _, losses = _read_documents(source, source.documents, module, format)
    if not source.lines:
        return values[0], [1], losses
    return values, [line for line, _ in source.documents], losses


BATCH = 1000
"""The documents of a JSONL input converted at once where each converts on its own (clark-agent
history rows to phi-core, phi-core messages and events to clark-agent): the models of one batch
are held, not the input's."""


def batch_size() -> int:
    """``BATCH``, read when called (a test may set it)."""
    return BATCH


def _converts_alone(format: str, target: str, kind: str) -> bool:
    """Whether each document of this type converts on its own (no document tells the converter
    anything about another: clark-agent's events do, a run's identity; phi-core's messages to
    Operator-Use do, tool results merged into one message)."""
    if (format, target) == ("clark-agent", HUB):
        return kind == "AgentMessage"
    return (format, target) == (HUB, "clark-agent") and kind in ("AgentMessage", "AgentEvent")


def _convert_batches(source: Input, format: str, target: str) -> Converted | None:
    """A JSONL input whose documents each convert on its own, converted ``BATCH`` documents at a
    time (the same documents and losses as converting it whole); None if it has documents of
    several types, or a type that does not convert alone (then it is converted whole)."""

    def alone(kind: str) -> Callable[[list[Any]], Conversion[Any]] | None:
        if not _converts_alone(format, target, kind):
            return None
        return lambda values: convert(values, source=format, target=target, name=source.name)

    batches = Batches(source, format, target, alone, len(source.data) >= FAST_MIN_BYTES)
    documents: list[str] = []
    read: list[tuple[str, Loss]] = []
    losses: list[tuple[str, Loss]] = []
    for start in range(0, len(source.documents), BATCH):
        done = batches.convert(source.documents[start : start + BATCH])
        if done is None:
            return None
        documents += done.written
        read += done.read
        losses += done.losses
    text = "".join(document + "\n" for document in documents)
    count = len(source.documents)
    return Converted(
        format, target, text, read + losses, count, True, 0, documents, MODULES[target]
    )


def _written(
    source: Input, value: Any, format: str, version: str | None
) -> tuple[list[str], bool, bool, list[tuple[str, Loss]]]:
    """``_dumped``, in ``version`` of the target (None: the converters' own), with the losses of
    writing it in that version (their pointers into the converters' output document)."""
    documents, jsonl, session = _dumped(value, format)
    if version is None or version == MODULES[format]:
        return documents, jsonl, session, []
    entry = find(version, format)
    try:
        documents, losses = rewritten(documents, session, entry)
    except VersionError as error:
        raise ConvertError(f"{source.name}: {error}") from None
    written = find(MODULES[format], format).label
    return (
        documents,
        jsonl,
        session,
        [
            (
                source.name,
                Loss(
                    f"/{index}{loss.pointer}" if jsonl and not session else loss.pointer,
                    loss.kind,
                    f"{loss.reason} (a pointer into the {written} output)",
                ),
            )
            for index, loss in losses
        ],
    )


def _to_target(value: Any, format: str, target: str, source: Input) -> Conversion[Any]:
    """One step: ``value`` (of ``format``) as ``target``'s; a phi-core message list or session
    to Operator-Use as its session file (how Operator-Use stores a conversation)."""
    if format == HUB and target in SESSION_FILES:
        if is_session(value):
            return from_session(
                value,
                lambda messages: to_session_file(messages, target=target, name=source.name),
            )
        if isinstance(value, list):
            return to_session_file(value, target=target, name=source.name)
    return convert(value, source=format, target=target, name=source.name)


def _fast_session(source: Input, format: str, target: str, version: str | None) -> Converted | None:
    """A phi-core Session file of ``FAST_MIN_BYTES`` or more converted to a message list by the
    fast path (``_fast_session``), as the model path would; None: it takes the model path."""
    if source.lines or format != HUB or version is not None or target in SESSION_FILES:
        return None
    if len(source.data) < FAST_MIN_BYTES or b'"loops"' not in source.data:
        return None
    done = session_converted(source.data, target, MODULES[HUB])
    if done is None:
        return None
    documents, losses = done
    text = "".join(document + "\n" for document in documents)
    placed = [(f"{source.name}:1", loss) for loss in losses]
    return Converted(format, target, text, placed, 1, True, 0, documents, MODULES[target])


def _fast_session_file(
    source: Input, format: str, target: str, version: str | None
) -> Converted | None:
    """A JSONL file of phi-core messages or a phi-core Session file, of ``FAST_MIN_BYTES`` or
    more, converted to ``target``'s session file without models (``_fast_session_file``), as the
    model path would; None: it takes the model path."""
    if format != HUB or version not in (None, MODULES[target]) or target not in SESSION_FILES:
        return None
    if len(source.data) < FAST_MIN_BYTES:
        return None
    done = session_file_converted(source, target, MODULES[HUB])
    if done is None:
        return None
    text, losses = done
    count = len(source.documents) if source.lines else 1
    return Converted(format, target, text, losses, count, True, 0, [text], MODULES[target])


def _fast_session_file_via_hub(
    source: Input, format: str, target: str, version: str | None
) -> Converted | None:
    """Another format's JSONL of messages, of ``FAST_MIN_BYTES`` or more, converted to
    ``target``'s session file through phi-core without models (its dict converter to phi-core,
    then phi-core's session-file writer), as the model path would: the first step's losses at
    their lines, the second's at the file, noted ``VIA_HUB``; None: it takes the model path."""
    if format == HUB or version not in (None, MODULES[target]) or target not in SESSION_FILES:
        return None
    if len(source.data) < FAST_MIN_BYTES or source.session or not source.lines:
        return None
    hub = hub_converted(source, format, MODULES[format])
    if hub is None:
        return None
    written = session_file_of_hub(hub.documents, target, source.name)
    if written is None:
        return None
    text, later = written
    losses = [
        *hub.losses,
        *map(noted_via_hub, later),
    ]
    counted = dict(collections.Counter(map(operator.itemgetter(1, 2), losses)))
    # without the documents: the partial would hold phi-core's dicts until the losses are read
    placed = functools.partial(_placed, source, FastConverted([], losses, hub.lines))
    count = len(source.documents)
    return Converted(format, target, text, placed, count, True, 0, [text], MODULES[target], counted)


def convert_input(
    source: Input, given: str | None, target: str, version: str | None = None
) -> Converted:
    """Read, convert and write out one input (as ``version`` of the target: None, the newest);
    ``ConvertError`` (one line) if it cannot be.

    Python's cyclic garbage collector is paused meanwhile: an input's models are held until it
    is written, and the collector would walk all of them again and again (40 % of the CPU time
    of a 6 MB clark-agent history). Reference counting frees a conversion's garbage: it leaves at
    most a few hundred objects in cycles (a 6 MB input), freed when the collector runs again."""
    with CollectorPaused():
        return _convert_input(source, given, target, version)


def _converted_without_models(source: Input, format: str, target: str) -> Converted | None:
    """The input converted dict to dict (``_fast_whole``: the same text and losses as the model
    path), or None when it takes the model path."""
    kind = "SessionFile" if source.session else "AgentMessage"
    fast = fast_converted(source, format, target, MODULES[format], kind)
    if fast is None:
        return None
    # counted as ``loss_counts`` counts them (in C: a few hundred thousand losses); placed only
    # when read
    counted = loss_counts(fast.losses)
    # one join (not a copy of each document with its newline, then a join of those)
    text = "\n".join(fast.documents) + "\n" if fast.documents else ""
    count = len(fast.lines) if source.lines and not source.session else 1
    entries = len(fast.lines) if source.session else 0
    return Converted(
        format,
        target,
        text,
        functools.partial(_placed, source, fast),
        count,
        True,
        entries,
        fast.documents,
        MODULES[target],
        counted,
    )


def _placed(source: Input, fast: FastConverted[Any]) -> list[tuple[str, Loss]]:
    """The losses of a dict-to-dict conversion with where each points (``file:line`` of the
    document its pointer's first token indexes, the rest of the pointer within it; a loss of the
    second step through phi-core (its reason ends ``VIA_HUB``) points into phi-core's form of
    the whole input: at the file's name, its pointer whole, as ``_convert_input`` places it)."""
    losses: list[tuple[str, Loss]] = []
    located: dict[str, str] = {}  # a pointer's first token (a document's index) -> file:line
    for loss in fast.losses:
        if loss.reason.endswith(VIA_HUB):
            losses.append((source.name, loss))
            continue
        if not source.lines or loss.pointer[:1] != "/":
            where, pointer = _where(source, fast.lines, source.lines, loss.pointer)
            losses.append((where, Loss(pointer, loss.kind, loss.reason)))
            continue
        first, slash, rest = loss.pointer[1:].partition("/")
        if first not in located:
            located[first], _ = _where(source, fast.lines, True, "/" + first)
        if located[first] == source.name:  # no document's index: the pointer kept whole
            losses.append((source.name, loss))
            continue
        losses.append((located[first], Loss(slash + rest, loss.kind, loss.reason)))
    return losses


def _convert_input(source: Input, given: str | None, target: str, version: str | None) -> Converted:
    if given == HUB:  # taken only for phi-core's own text, which recognising would parse again
        if target in SESSION_FILES:
            source.value = None  # not held while it parses the text its own way
        early = _fast_session_file(source, given, target, version)
        if early is not None:
            return early
    recognised = _recognised(source, given)
    if recognised.format not in MODULES or target not in MODULES:  # named, not spoken yet
        no = recognised.format if recognised.format not in MODULES else target
        raise ConvertError(f"{source.name}: {no} is not converted yet (no converter)")
    if recognised.type == "SessionFile":
        source.session = True
    if version in (None, MODULES[target]):
        without_models = _converted_without_models(source, recognised.format, target)
        if without_models is not None:
            return without_models
    if source.lines and not source.session and version is None:
        batched = _convert_batches(source, recognised.format, target)
        if batched is not None:
            return batched
    fast = _fast_session(source, recognised.format, target, version)
    if fast is None and given != HUB:
        fast = _fast_session_file(source, recognised.format, target, version)
    if fast is None:
        fast = _fast_session_file_via_hub(source, recognised.format, target, version)
    if fast is not None:
        return fast
    value, lines, losses = _loaded(source, recognised.format)
    format = recognised.format
    try:
        via: Conversion[Any] | None = None
        if HUB not in (format, target) and format != target:  # through the hub: two steps
            via = convert(value, source=format, target=HUB, name=source.name)
        result = _to_target(
            value if via is None else via.value, format if via is None else HUB, target, source
        )
    except UnsupportedConversion as error:
        raise ConvertError(f"{source.name}: {error}") from None
    if result.value is None:
        reasons = "; ".join(loss.reason for loss in result.losses)
        raise ConvertError(
            f"{source.name}: nothing of it has a counterpart in {target} ({reasons})"
        )
    documents, jsonl, session, written = _written(source, result.value, target, version)
    listed = source.lines and isinstance(value, list)  # a JSON array file: one document
    changed = written_changes(value, target, documents) if format == target else ()
    for loss in (result.losses if via is None else via.losses) + tuple(changed):
        where, pointer = _where(source, lines, listed, loss.pointer)
        losses.append((where, Loss(pointer, loss.kind, loss.reason)))
    if via is not None:
        losses += [(source.name, noted_via_hub(loss)) for loss in result.losses]
    losses += written
    text = documents[0] if session else "".join(document + "\n" for document in documents)
    entries = len(value) if source.session else 0
    count = 1 if source.session or not source.lines else len(value)
    return Converted(
        recognised.format,
        target,
        text,
        losses,
        count,
        jsonl,
        entries,
        documents,
        version or MODULES[target],
    )
