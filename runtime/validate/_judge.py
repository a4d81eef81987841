"""Judging documents: each one exactly as its format's ``loads`` judges it (phi-core and
clark-agent: as strictly as their serde; Operator-Use: as its pydantic reads), unless the fast path
vouches for it (phi-core's, clark-agent's, Operator-Use's and pi's: ``_fastpath``); with ``strict``,
also whether the implementation would write it so.

Which format: the one given (``--format``), or the one the file's first lines have (a JSONL file:
``FileStart.recognised``), or the one the document has (a .json file); when other formats' JSON is
the same, the one its folder's files show most (``_folder``); phi-core when nothing names one. In a
JSONL file, a document invalid in the file's format whose shape is not that format's but another's
is judged as that other format (a file of mixed formats is judged document by document; a ``NOTE``
says where the format changes). A document of a format phi-wire does not speak (yoagent) is
judged by phi-core's reader, which is what would read it here: valid if phi-core reads it, else
not judged (an ``INPUT`` record per chunk). pi's particulars: ``_pi``.

Each problem becomes a ``Record`` (file, line, JSON pointer, type, variant, message, format). The
work on an invalid document is capped: at most ``max_problems`` problems are built and located (a
``MORE`` record counts the rest), and the exact codecs judge a document of many values up to the
first invalid item of each array (a note says so), so that no document, however many of its
items fail, costs more than a few times its size.
An invalid phi-core AgentMessage is reported as the lane its keys name (its role's variant, or an
unknown role; an ExtensionMessage when it has ``kind``), not as the union branch that failed last.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from phi_wire.formats import recogniser
from phi_wire.formats.phi_core.recognise import claim as phi_core_claim
from phi_wire.formats.phi_core.recognise import detect_raw, detect_type, type_from_text
from phi_wire.recognise import (
    LIST_ITEMS_CHECKED,
    SPOKEN,
    Recognised,
    fits,
    parse,
    recognise,
)

from ._fastpath import FastPath, chunk_fast_path
from ._folder import settled
from ._formats import Reader, reader
from ._inputs import Chunk, Item
from ._pi import home_read_note, newer_line, read_as_home
from ._records import (
    AUTO,
    HOME_FORMAT,
    INPUT,
    NOTE,
    Judged,
    Outcome,
    Record,
    Settings,
    Verdict,
)

__all__ = ["judge_chunk", "judge_item", "wire_module"]

from ._problems import (
    _record,
    _rejected,
    _skipped_lines,
)
from ._strict import (
    _conventions,
    _not_canonical,
    _pi_dropped,
    _pi_losses,
)

_CERTAIN_BY_TEXT = frozenset({"Session", "LoopRecord", "LoopEvent", "Turn"})
"""phi-core types whose first key alone says the document is phi-core's (no other format has
``session_id``, ``loop_id``, ``sequence``, ``turn_id`` first)."""


def wire_module(version: str, format: str = HOME_FORMAT) -> Any:
    """The public module of a format's version (``0.10`` -> ``phi_wire.v0_10``)."""
    return reader(format, version).module


def judge_item(item: Item, settings: Settings) -> Outcome:
    """A chunk judged; what reading decided already passes through."""
    return judge_chunk(item, settings) if isinstance(item, Chunk) else item


def _home_reader(settings: Settings) -> Reader:
    return reader(HOME_FORMAT, settings.version)


class _Judgement(NamedTuple):
    """One document judged."""

    records: list[Record]
    judged: Judged
    unjudged: bool = False
    """A format phi-wire does not speak, which phi-core cannot read: neither valid nor invalid."""
    dropped: tuple[str, ...] = ()
    """A pi document phi-core read (without --strict): the keys it drops (a note says so)."""

    @property
    def invalid(self) -> bool:
        return any(record.kind != NOTE for record in self.records)


def judge_chunk(chunk: Chunk, settings: Settings, fast: bool = True) -> Verdict:
    """Judge every document of ``chunk``; with ``fast``, phi-core documents the fast path vouches
    for are valid without further work."""
    plan = chunk.plan if settings.format == AUTO else None
    found, vouched_judged = (None, None) if not fast else chunk_fast_path(chunk, settings, plan)
    if found is not None and vouched_judged is not None and not chunk.lines:
        if found.vouches(_bytes(chunk.data)):
            return Verdict(1, 0, chunk.size, [], judged=(vouched_judged,))
        found = None
    path = found if isinstance(found, FastPath) else None
    starts = path.unmatched(chunk.data) if path is not None else chunk.line_starts()
    collected = _Collected(chunk, settings)
    line = chunk.first_line
    counted = 0
    next_line = 0  # where the line after the last one judged exactly starts
    data = chunk.data
    for start in starts:
        if vouched_judged is not None and start > next_line:
            collected.add_judged(vouched_judged)  # a line before this one was vouched for
        line += data.count(b"\n", counted, start)
        counted = start
        if chunk.lines:
            end = data.find(b"\n", start)
            raw = _bytes(data[start : end if end != -1 else len(data)])
            next_line = len(data) if end == -1 else end + 1
        else:
            raw = _bytes(data)
            next_line = len(data)
        collected.add(line, _judge(chunk, line, raw, settings, plan))
    if path is not None and vouched_judged is not None and (next_line < len(data) or not starts):
        collected.add_judged(vouched_judged)  # lines after the last one judged exactly
    return collected.verdict()


def _bytes(data: bytes | bytearray) -> bytes:
    """``data`` as ``bytes``: a whole document already is; a line of a buffer that lines were
    read on into (``_inputs.Source.read_on``) is copied, as slicing copied it anyway."""
    return data if isinstance(data, bytes) else bytes(data)


class _Collected:
    """The records and counts of a chunk's documents, as they are judged."""

    def __init__(self, chunk: Chunk, settings: Settings) -> None:
        self.chunk = chunk
        self.settings = settings
        self.records: list[Record] = []
        self.invalid = 0
        self.unjudged = 0
        self.judged: dict[Judged, None] = {}
        # documents not judged, by what they look like: [record index, first line, last, count]
        self.not_judged: dict[Judged, list[int]] = {}
        self.formats_noted: set[str] = set()
        # pi documents phi-core reads, dropping keys: [record index, first line, last, count]
        self.pi_read: dict[Judged, list[Any]] = {}

    def add_judged(self, judged: Judged) -> None:
        self.judged.setdefault(judged, None)

    def add(self, line: int, judgement: _Judgement) -> None:
        judged = judgement.judged
        if judgement.unjudged:
            found = self.not_judged.get(judged)
            if found is None:
                self.not_judged[judged] = [len(self.records), line, line, 1]
            else:
                found[2] = line
                found[3] += 1
            self.unjudged += 1
            self.add_judged(judged)
            return
        plan = self.chunk.plan
        if (
            plan is not None
            and self.chunk.lines
            and judged.format != plan.format
            and judged.format not in self.formats_noted
        ):
            self.formats_noted.add(judged.format)
            self.records.append(
                Record(
                    self.chunk.file,
                    line,
                    "",
                    judged.type,
                    "",
                    f"this line is {judged.format}'s JSON, not {plan.format}'s as the file's first "
                    f"lines: judged as {judged.label} (and so is every such line of the file)",
                    NOTE,
                    format=judged.format,
                    version=judged.version,
                )
            )
        self.add_judged(judged)
        if judgement.dropped:
            read = self.pi_read.get(judged)
            if read is None:
                self.pi_read[judged] = [len(self.records), line, line, 1, judgement.dropped]
            else:
                read[2] = line
                read[3] += 1
        if any(record.kind != NOTE for record in judgement.records):
            self.invalid += 1
        self.records += judgement.records

    def verdict(self) -> Verdict:
        records = self.records
        inserts = [
            (index, _not_judged_record(self.chunk, judged, first, last, count))
            for judged, (index, first, last, count) in self.not_judged.items()
        ]
        inserts += [
            (
                index,
                home_read_note(
                    self.chunk.file,
                    self.chunk.lines,
                    _home_reader(self.settings),
                    judged,
                    (_describe(judged), _describe(judged, plural=True)),
                    (first, last, count),
                    keys,
                ),
            )
            for judged, (index, first, last, count, keys) in self.pi_read.items()
        ]
        for index, record in sorted(inserts, key=lambda insert: insert[0], reverse=True):
            records.insert(index, record)
        return Verdict(
            self.chunk.documents,
            self.invalid,
            self.chunk.size,
            records,
            unjudged=self.unjudged,
            judged=tuple(self.judged),
        )


def _describe(judged: Judged, plural: bool = False) -> str:
    if judged.format and (judged.format not in SPOKEN or judged.format == "pi"):  # own words
        describe: Callable[[str, bool], str] = recogniser(judged.format).describe
        return describe(judged.type, plural)
    return f"{judged.format} {judged.type}".strip()


def _not_judged_record(chunk: Chunk, judged: Judged, first: int, last: int, count: int) -> Record:
    if count == 1:
        subject = f"looks like {_describe(judged)}"
        it = "it"
    else:
        where = f"lines {first:,}-{last:,}" if chunk.lines else "the file"
        subject = f"{count:,} documents ({where}) look like {_describe(judged, plural=True)}"
        it = "them"
    message = (
        f"{subject}: phi-wire does not speak {judged.format} yet, and phi-core cannot read {it}: "
        "not judged (--format phi-core reports why)"
    )
    return Record(chunk.file, first, "", judged.type, "", message, INPUT, format=judged.format)


def _home_type(raw: bytes, document: Any) -> str:
    """The phi-core type a document is judged as: detected from its keys; an array of objects
    that are all one type (by their shape, else by detection), as ``list[<type>]``."""
    if isinstance(document, list) and document and all(isinstance(item, dict) for item in document):
        types = set()
        for item in document[:LIST_ITEMS_CHECKED]:
            found = phi_core_claim(item)
            types.add(found[0] if found is not None else detect_type(item))
        if len(types) == 1:
            return f"list[{types.pop()}]"
    return detect_raw(raw)


def _empty_reader(plan: Recognised | None, settings: Settings) -> Reader:
    """The format an empty document is reported in: the given one, else the file's."""
    if settings.format != AUTO:
        return reader(settings.format, settings.version)
    if plan is not None and plan.format in SPOKEN and plan.format != HOME_FORMAT:
        return reader(plan.format, plan.version)
    return _home_reader(settings)


def _parsed(raw: bytes) -> Any:
    try:
        return parse(raw)
    except (ValueError, RecursionError):
        return _UNPARSED


_UNPARSED = object()


def _judge(
    chunk: Chunk, line: int, raw: bytes, settings: Settings, plan: Recognised | None
) -> _Judgement:
    """The records of one document, judged exactly by its format's ``loads``."""
    if not raw or raw.isspace():
        found = _empty_reader(plan, settings)
        how = "given" if settings.format != AUTO else "recognised" if plan else "default"
        judged = Judged(found.format, found.version, "", found.label, how)
        what = "empty line" if chunk.lines else "empty file"
        name = settings.forced or ""
        message = f"{what}: not a JSON document"
        return _Judgement(
            [_record(found, chunk, line, pointer="", type=name, variant="", message=message)],
            judged,
        )
    if settings.format != AUTO:
        given = reader(settings.format, settings.version)
        if chunk.plan is not None and chunk.plan.type == "SessionFile":
            name = "SessionFile"
        else:
            name = settings.forced or given.type_name(raw)
        judged = Judged(given.format, given.version, settings.forced or "", given.label, "given")
        looks_like = read_as_home(given, raw)
        read = _read(given, chunk, line, raw, name, settings, looks_like=looks_like)
        if read.rejected and not settings.forced and not chunk.lines:
            read = _or_as_its_shape(read, given, chunk, line, raw, settings)
        if looks_like is not None and not read.rejected:
            judged = Judged(looks_like.format, "", looks_like.type, given.label, "given")
        return _Judgement(read.records, judged, dropped=read.dropped)
    document: Any = _UNPARSED
    recognised = plan
    if plan is None and not chunk.lines:  # a .json document: recognised as it is judged
        by_text = type_from_text(raw)
        if by_text in _CERTAIN_BY_TEXT:
            recognised = Recognised(HOME_FORMAT, "", by_text, True)
        else:
            document = _parsed(raw)
            if document is not _UNPARSED:
                claimed = recognise(document)
                recognised = settled(claimed, chunk.file, lambda: [document], lines=False)
    judgement = _as(recognised, chunk, line, raw, settings, document)
    if not chunk.lines or (not judgement.invalid and not judgement.unjudged):
        return judgement
    # a JSONL line invalid in the file's format: is it another format's?
    if document is _UNPARSED:
        document = _parsed(raw)
    if document is _UNPARSED:
        return judgement
    own = recognised.format if recognised is not None else HOME_FORMAT
    if fits(own, document):
        return judgement
    other = recognise(document)
    if other is None or other.format == own:
        return judgement
    return _as(other, chunk, line, raw, settings, document, line_of_file=True)


def _as(
    recognised: Recognised | None,
    chunk: Chunk,
    line: int,
    raw: bytes,
    settings: Settings,
    document: Any,
    line_of_file: bool = False,
) -> _Judgement:
    """One document judged as the format it was recognised as (phi-core when None)."""
    whole = recognised is not None and (not chunk.lines or line_of_file)
    if recognised is None or recognised.format == HOME_FORMAT:
        home = _home_reader(settings)
        if whole and recognised is not None and recognised.type.startswith("list["):
            name = _home_type(raw, document)
        elif whole and recognised is not None and home.has_type(recognised.type):
            name = recognised.type  # a document of its own: what its shape is (a StopReason...)
        else:
            name = detect_raw(raw)  # a JSONL line: as the fast path sees it
        how = "recognised" if recognised is not None else "default"
        also = recognised.also if recognised is not None else ()
        judged = Judged(HOME_FORMAT, home.version, "", home.label, how, also)
        return _Judgement(_read(home, chunk, line, raw, name, settings).records, judged)
    if recognised.format in SPOKEN:
        own = reader(recognised.format, recognised.version)
        judged = Judged(own.format, own.version, "", own.label, "recognised", recognised.also)
        if recognised.type == "SessionFile" or (whole and own.has_type(recognised.type)):
            name = recognised.type
        elif own.has_type(recognised.type):
            # a line of a file whose first lines are this type (a history's rows, a stream's
            # events): read as that type first, which needs no parse to tell its type; only a
            # line it rejects is typed by its own shape (and reported as that type)
            first = _read(own, chunk, line, raw, recognised.type, settings)
            if not first.rejected:
                return _Judgement(first.records, judged)
            name = own.type_name(raw, None if document is _UNPARSED else document)
            if name == recognised.type:
                return _or_newer(first, own, chunk, line, raw, name, settings, judged)
        else:
            name = own.type_name(raw, None if document is _UNPARSED else document)
        if whole:
            judged = judged._replace(type=name)
        read = _read(own, chunk, line, raw, name, settings)
        return _or_newer(read, own, chunk, line, raw, name, settings, judged)
    # a format phi-wire does not speak: what phi-core, which reads it here, makes of it
    home = _home_reader(settings)
    name = _home_type(raw, document)
    read = _read(home, chunk, line, raw, name, settings, looks_like=recognised)
    also = recognised.also
    if read.rejected:
        judged = Judged(
            recognised.format, recognised.version, recognised.type, "", "recognised", also
        )
        return _Judgement([], judged, unjudged=True)
    judged = Judged(recognised.format, "", recognised.type, home.label, "recognised", also)
    return _Judgement(read.records, judged, dropped=read.dropped)


def _or_as_its_shape(
    read: _Read, given: Reader, chunk: Chunk, line: int, raw: bytes, settings: Settings
) -> _Read:
    """A phi-core document of its own that the type its keys name rejects (phi-core's key
    detection takes a content block's ``type`` for an event's), read as the type its shape is,
    as it is judged without ``--format``: valid there, else the first verdict."""
    document = _parsed(raw) if given.format == HOME_FORMAT else _UNPARSED
    claimed = None if document is _UNPARSED else recognise(document)
    if claimed is None or claimed.format != given.format or not given.has_type(claimed.type):
        return read
    again = _read(given, chunk, line, raw, claimed.type, settings)
    return read if again.rejected else again


def _or_newer(
    read: _Read,
    own: Reader,
    chunk: Chunk,
    line: int,
    raw: bytes,
    name: str,
    settings: Settings,
    judged: Judged,
) -> _Judgement:
    """A pi document its line (0.73) rejects, judged by the newest too (``_pi``): valid there."""
    newer = newer_line(own) if read.rejected else None
    if newer is not None:
        again = _read(newer, chunk, line, raw, name, settings)
        if not again.rejected:
            judged = judged._replace(version=newer.version, reader=newer.label)
            return _Judgement(again.records, judged)
    return _Judgement(read.records, judged)


class _Read(NamedTuple):
    """One document read by a format's ``loads``."""

    records: list[Record]
    rejected: bool
    """``loads`` rejected it (else the records are --strict's, or a session file's skipped
    lines)."""
    dropped: tuple[str, ...] = ()
    """A pi document phi-core read, without --strict: the pointers of the keys it drops."""


def _read(
    own: Reader,
    chunk: Chunk,
    line: int,
    raw: bytes,
    name: str,
    settings: Settings,
    looks_like: Recognised | None = None,
) -> _Read:
    """The records of one document read by ``own`` as the type ``name``."""
    try:
        value = own.load(name, raw, settings.max_problems)
    except own.module.WireError as error:
        rejected = _rejected(own, chunk, line, raw, name, error, settings)
        if settings.strict and own.own_strict and error.line is None:
            rejected += _conventions(own, chunk, line, raw, name, settings)  # who wrote it so
        return _Read(rejected, True)
    records: list[Record] = []
    if name == "SessionFile":
        records = _skipped_lines(own, chunk, line, value, settings)
    pi_read = looks_like if looks_like is not None and looks_like.format == "pi" else None
    if pi_read is not None and not settings.strict:
        return _Read(records, False, tuple(_pi_dropped(own, raw, value)))
    if settings.strict and not records:
        pretty = not chunk.lines and b"\n" in raw.strip() and name != "SessionFile"
        if pi_read is not None:
            records = _pi_losses(own, chunk, line, raw, value, name, pi_read, settings)
        elif own.own_strict:
            records = _conventions(own, chunk, line, raw, name, settings)
        else:
            records = _not_canonical(own, chunk, line, raw, value, name, pretty)
    return _Read(records, False)
