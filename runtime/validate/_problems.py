"""A rejected document as records: each problem at its line and JSON pointer, the lane an invalid
AgentMessage names, the problems past ``max_problems`` counted in one ``MORE`` record, the lines a
session file's reader skipped, and a note when the type was only guessed."""

from __future__ import annotations

import re
from typing import Any

from phi_wire.errors import Problem
from phi_wire.formats.phi_core.recognise import report_as
from phi_wire.recognise import (
    names_type,
    parse,
)

from ._formats import Reader
from ._inputs import Chunk
from ._locate import lines_of
from ._records import (
    HOME_FORMAT,
    MORE,
    Record,
    Settings,
)
from ._wording import byte_order_mark, explained


def _record(own: Reader, chunk: Chunk, line: int, **fields: Any) -> Record:
    return Record(chunk.file, line, format=own.format, version=own.version, **fields)


def _more_record(
    own: Reader, chunk: Chunk, line: int, type_name: str, message: str, omitted: int
) -> Record:
    """The record that stands for the problems left unlisted by ``--max-problems``."""
    return _record(
        own,
        chunk,
        line,
        pointer="",
        type=type_name,
        variant="",
        message=message,
        kind=MORE,
        omitted=omitted,
    )


_LINE_PREFIX = re.compile(r"line (\d+): ")
"""A problem of a JSONL document read whole names its line first (``line 9: ...``)."""
_SKIPPING_READER = {"operator-use": "Operator-Use", "pi": "pi's SessionManager"}
"""Whose reader skips a session file's bad lines, in words."""


def _skipped_lines(
    own: Reader, chunk: Chunk, line: int, value: Any, settings: Settings
) -> list[Record]:
    """A session file's lines its reader skips (Operator-Use's, pi's), each a problem at its
    line."""
    records: list[Record] = []
    listed = 0
    omitted = 0
    for error in value.skipped:
        where = line + (error.line or 1) - 1
        prefix = f"line {error.line}: "
        for problem in error.problems:
            if listed >= settings.max_problems:
                omitted += 1
                continue
            listed += 1
            records.append(
                _record(
                    own,
                    chunk,
                    where,
                    pointer=problem.pointer,
                    type=error.type_name,
                    variant=problem.variant,
                    message=f"{_SKIPPING_READER.get(own.format, own.format)} skips this line "
                    "without a word: " + problem.message.removeprefix(prefix),
                )
            )
        omitted += error.omitted
    if omitted:
        more = f"and {omitted:,} more problems in this file, not listed (--max-problems)"
        records.append(_more_record(own, chunk, line, "SessionFile", more, omitted))
    return records


def _rejected(
    own: Reader,
    chunk: Chunk,
    line: int,
    raw: bytes,
    name: str,
    error: Any,
    settings: Settings,
) -> list[Record]:
    """The records of a document ``loads`` rejected."""
    message = byte_order_mark(raw, own.format, own.exact)
    if message is not None:
        return [_record(own, chunk, line, pointer="", type=name, variant="", message=message)]
    label = ""
    if own.format == HOME_FORMAT and name == "AgentMessage" and error.line is None:
        error, lane = _as_named_lane(own, raw, error, settings)
        if lane is not None and isinstance(getattr(own.module, lane), type):
            label = lane  # a model (ExtensionMessage); a union's variant names itself
    problems = error.problems
    if error.line is not None:  # a JSON syntax error (or a session file's lines): each its line
        found = [_LINE_PREFIX.match(p.message) for p in problems]
        lines = [line + (int(m[1]) if m else error.line) - 1 for m in found]
        problems = tuple(
            Problem(p.pointer, p.message[m.end() :] if m else p.message, p.variant)
            for p, m in zip(problems, found, strict=True)
        )
    elif not chunk.lines and b"\n" in raw:  # a pretty document: where each value starts
        text = raw.decode("utf-8", "replace")
        lines = [line + found - 1 for found in lines_of(text, [p.pointer for p in problems])]
    else:
        lines = [line] * len(problems)
    records = [
        _record(
            own,
            chunk,
            where,
            pointer=problem.pointer,
            type=name,
            variant=" ".join(part for part in (label, problem.variant) if part),
            message=explained(problem.message, raw, serde=own.exact),
        )
        for where, problem in zip(lines, problems, strict=True)
    ]
    if records and not settings.forced and _guessed(own, raw, name):
        first = records[0]
        records[0] = first._replace(message=f"{first.message} ({_GUESSED.format(name)})")
    more = _more(error.omitted, settings.max_problems, error.first_invalid_items_only)
    if more:
        records.append(_more_record(own, chunk, line, name, more, error.omitted))
    return records


_GUESSED = (
    "judged as {} by guess: nothing in the document names a type; --type names one, --exclude "
    "leaves out such files"
)


def _guessed(own: Reader, raw: bytes, name: str) -> bool:
    """Whether a rejected document was judged as its format's fallback type because nothing in
    it names one (a JSON document that is no document of the format: a manifest, a package.json,
    a bare id), rather than as the type its keys name."""
    if name != own.fallback_type:
        return False
    try:
        document = parse(raw)
    except (ValueError, RecursionError):
        return False  # not JSON at all: that is what is wrong, whatever the type
    return not names_type(own.format, document)


def _more(omitted: int, cap: int, first_invalid_items_only: bool) -> str:
    """What the ``MORE`` record of a document says ("" when nothing was left out)."""
    parts = []
    if omitted:
        parts.append(
            f"and {omitted:,} more problem{'s' * (omitted > 1)} in this document, not listed "
            f"(--max-problems {cap:,})"
        )
    if first_invalid_items_only:
        parts.append(
            "the document holds too many values for a full report, so each array was judged "
            "up to its first invalid item: later items may hold more problems"
        )
    return "; ".join(parts)


def _as_named_lane(
    own: Reader, raw: bytes, error: Any, settings: Settings
) -> tuple[Any, str | None]:
    """An invalid AgentMessage judged again as the lane its keys name, for the report: the same
    verdict (each lane is part of the union), problems that speak of what it was meant to be.
    Returns the error to report and the lane (None: the union's own error)."""
    try:
        lane = report_as(parse(raw))
    except (ValueError, RecursionError):
        return error, None
    if lane is None or not hasattr(own.module, lane):
        return error, None
    as_extension = [p.variant.split(" ")[0] == "ExtensionMessage" for p in error.problems]
    if all(as_extension) if lane == "ExtensionMessage" else not any(as_extension):
        return error, None  # the union's report speaks of that lane already
    try:
        own.load(lane, raw, settings.max_problems)
    except own.module.WireError as named:
        return named, lane
    return error, None  # cannot happen: valid as a lane is valid as the union
