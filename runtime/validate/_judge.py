"""Judging documents: each one exactly as ``loads`` judges it (as strictly as phi-core's serde),
unless the fast path vouches for it; with ``strict``, also whether phi-core would write it so.

Each problem becomes a ``Record`` (file, line, JSON pointer, type, variant, message). The work on
an invalid document is capped: at most ``max_problems`` problems are built and located (a ``MORE``
record counts the rest), and a document of more than ``FULL_REPORT_MAX_VALUES`` JSON values is
judged up to the first invalid item of each array, so that no document, however many of its items
fail, costs more than a few times its size. An invalid AgentMessage is reported as the lane its
keys name (its role's variant, or an unknown role; an ExtensionMessage when it has ``kind``), not
as the union branch that failed last.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

from phi_wire.formats import find
from phi_wire.pointer import join

from ._detect import detect_raw, report_as
from ._fastpath import fast_path_for
from ._inputs import BOM, Chunk, Item
from ._locate import lines_of
from ._records import INPUT, MORE, Outcome, Record, Settings, Verdict

__all__ = ["FULL_REPORT_MAX_VALUES", "judge_chunk", "judge_item", "wire_module"]

FULL_REPORT_MAX_VALUES = 20_000
"""An invalid document of up to this many JSON values (a phi-core session of about 1 MB) is
searched for all its problems; a bigger one is judged up to the first invalid item of each array:
the same verdict, but pydantic would otherwise build an error, with a copy of its input, for every
failing item (a million for a 300 kB session of empty loops, half a gigabyte). A value makes at
most about 10 errors (an empty object where a model with 10 required fields belongs), so a full
report costs at most some 200,000 errors, about 100 MB."""


def _many_values(raw: bytes) -> bool:
    """Whether ``raw`` holds more than ``FULL_REPORT_MAX_VALUES`` JSON values (counted from above:
    each value but the first follows a comma or an opening bracket)."""
    if len(raw) <= 2 * FULL_REPORT_MAX_VALUES:  # a value and its comma take two bytes at least
        return False
    return raw.count(b",") + raw.count(b"[") + raw.count(b"{") >= FULL_REPORT_MAX_VALUES


_WIRES: dict[str, ModuleType] = {}


def wire_module(version: str) -> ModuleType:
    """The public module of a phi-core version (``0.10`` -> ``phi_wire.v0_10``)."""
    wire = _WIRES.get(version)
    if wire is None:
        wire = _WIRES[version] = find(version).load()
    return wire


def judge_item(item: Item, settings: Settings) -> Outcome:
    """A chunk judged; what reading decided already passes through."""
    return judge_chunk(item, settings) if isinstance(item, Chunk) else item


def judge_chunk(chunk: Chunk, settings: Settings, fast: bool = True) -> Verdict:
    """Judge every document of ``chunk``; with ``fast``, documents the fast path vouches for are
    valid without further work."""
    path = None
    if fast and not settings.strict:
        path = fast_path_for(settings.version, settings.forced, lines=chunk.lines)
    if path is not None and not chunk.lines:
        if path.vouches(chunk.data):
            return Verdict(1, 0, chunk.size, [])
        path = None
    starts = path.unmatched(chunk.data) if path is not None else chunk.line_starts()
    records: list[Record] = []
    invalid = 0
    line = chunk.first_line
    counted = 0
    data = chunk.data
    for start in starts:
        line += data.count(b"\n", counted, start)
        counted = start
        if chunk.lines:
            end = data.find(b"\n", start)
            raw = data[start : end if end != -1 else len(data)]
        else:
            raw = data
        found = _judge(chunk, line, raw, settings)
        if found:
            invalid += 1
            records += found
    return Verdict(chunk.documents, invalid, chunk.size, records)


def _judge(chunk: Chunk, line: int, raw: bytes, settings: Settings) -> list[Record]:
    """The records of one document, judged exactly by ``loads``."""
    name = settings.forced or detect_raw(raw)
    if not raw or raw.isspace():
        what = "empty line" if chunk.lines else "empty file"
        return [Record(chunk.file, line, "", name, "", f"{what}: not a JSON document")]
    wire = wire_module(settings.version)
    big = _many_values(raw)
    try:
        value = wire.loads(
            getattr(wire, name), raw, max_problems=settings.max_problems, fail_fast=big
        )
    except wire.WireError as error:
        return _rejected(wire, chunk, line, raw, name, error, settings, big)
    if settings.strict:
        pretty = not chunk.lines and b"\n" in raw.strip()
        difference = _not_canonical(wire, value, raw, pretty)
        if difference is not None:
            pointer, message = difference
            where = line
            if pointer and not chunk.lines:
                where += lines_of(raw.decode("utf-8"), [pointer])[0] - 1
            return [Record(chunk.file, where, pointer, name, "", message)]
    return []


def _rejected(
    wire: ModuleType,
    chunk: Chunk,
    line: int,
    raw: bytes,
    name: str,
    error: Any,
    settings: Settings,
    big: bool,
) -> list[Record]:
    """The records of a document ``loads`` rejected."""
    if raw.startswith(BOM):
        message = "a UTF-8 byte order mark precedes the document; phi-core (serde_json) rejects it"
        return [Record(chunk.file, line, "", name, "", message)]
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as utf8:
        message = f"not UTF-8: invalid byte 0x{raw[utf8.start]:02x} at offset {utf8.start}"
        return [Record(chunk.file, line, "", name, "", message, INPUT)]
    label = ""
    if name == "AgentMessage" and error.line is None:
        error, lane = _as_named_lane(wire, raw, error, settings, big)
        if lane is not None and isinstance(getattr(wire, lane), type):
            label = lane  # a model (ExtensionMessage); a union's variant names itself
    problems = error.problems
    if error.line is not None:  # a JSON syntax error: its line is known
        lines = [line + error.line - 1] * len(problems)
    elif not chunk.lines and b"\n" in raw:  # a pretty document: where each value starts
        text = raw.decode("utf-8")
        lines = [line + found - 1 for found in lines_of(text, [p.pointer for p in problems])]
    else:
        lines = [line] * len(problems)
    records = [
        Record(
            chunk.file,
            where,
            problem.pointer,
            name,
            " ".join(part for part in (label, problem.variant) if part),
            problem.message,
        )
        for where, problem in zip(lines, problems, strict=True)
    ]
    more = _more(error.omitted, settings.max_problems, big, problems)
    if more:
        records.append(Record(chunk.file, line, "", name, "", more, MORE, error.omitted))
    return records


def _more(omitted: int, cap: int, big: bool, problems: Any) -> str:
    """What the ``MORE`` record of a document says ("" when nothing was left out)."""
    parts = []
    if omitted:
        parts.append(
            f"and {omitted:,} more problem{'s' * (omitted > 1)} in this document, not listed "
            f"(--max-problems {cap:,})"
        )
    if big and any(token.isdecimal() for p in problems for token in p.pointer.split("/")):
        parts.append(
            f"the document holds over {FULL_REPORT_MAX_VALUES:,} values, so each array was judged "
            "up to its first invalid item: later items may hold more problems"
        )
    return "; ".join(parts)


def _as_named_lane(
    wire: ModuleType, raw: bytes, error: Any, settings: Settings, big: bool
) -> tuple[Any, str | None]:
    """An invalid AgentMessage judged again as the lane its keys name, for the report: the same
    verdict (each lane is part of the union), problems that speak of what it was meant to be.
    Returns the error to report and the lane (None: the union's own error)."""
    try:
        lane = report_as(json.loads(raw))
    except (ValueError, RecursionError):
        return error, None
    if lane is None or not hasattr(wire, lane):
        return error, None
    as_extension = [p.variant.split(" ")[0] == "ExtensionMessage" for p in error.problems]
    if all(as_extension) if lane == "ExtensionMessage" else not any(as_extension):
        return error, None  # the union's report speaks of that lane already
    try:
        wire.loads(getattr(wire, lane), raw, max_problems=settings.max_problems, fail_fast=big)
    except wire.WireError as named:
        return named, lane
    return error, None  # cannot happen: valid as a lane is valid as the union


def _first_difference(have: Any, want: Any, pointer: str = "") -> str | None:
    if type(have) is not type(want):
        return pointer
    if isinstance(have, dict):
        for key in sorted(set(have) | set(want)):
            if key not in have or key not in want:
                return pointer + join(key)
            found = _first_difference(have[key], want[key], pointer + join(key))
            if found is not None:
                return found
        return None
    if isinstance(have, list):
        if len(have) != len(want):
            return pointer
        for index, (a, b) in enumerate(zip(have, want, strict=True)):
            found = _first_difference(a, b, f"{pointer}/{index}")
            if found is not None:
                return found
        return None
    return None if have == want and repr(have) == repr(want) else pointer


def _not_canonical(
    wire: ModuleType, value: Any, raw: bytes, pretty: bool
) -> tuple[str, str] | None:
    """--strict: where phi-core would write something else (unknown keys, other forms...)."""
    canonical = wire.dumps(value, pretty=pretty).encode()
    if canonical == (raw if pretty else raw.rstrip(b"\r\n")):
        return None
    try:
        pointer = _first_difference(json.loads(raw), json.loads(canonical))
    except (ValueError, RecursionError):
        pointer = None
    if pointer is None:
        return "", "accepted, but phi-core writes it with other key order or formatting"
    return (
        pointer,
        "accepted, but phi-core never writes this form (unknown key or non-canonical value)",
    )
