"""``--strict``: what the implementation accepts but never writes (a document not in its canonical
form: other key order, values written otherwise, unknown keys), and for a pi document phi-core
reads, each key phi-core would drop, at its pointer. A format whose module has its own strict
reading (``strict_problems``: OpenTelemetry GenAI, whose official schema checks little) reports
its findings instead."""

from __future__ import annotations

import json
from typing import Any

from phi_wire.formats import recogniser
from phi_wire.pointer import join
from phi_wire.recognise import (
    Recognised,
    parse,
)

from ._formats import Reader
from ._inputs import Chunk
from ._locate import lines_of
from ._problems import (
    _more_record,
    _record,
)
from ._records import (
    Record,
    Settings,
)


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


def _dropped_keys(have: Any, kept: Any, pointer: str = "") -> list[str]:
    """The pointers of the keys of ``have`` that ``kept`` (what was written back) has not."""
    found: list[str] = []
    if isinstance(have, dict) and isinstance(kept, dict):
        for key, value in have.items():
            if key not in kept:
                found.append(pointer + join(key))
            else:
                found += _dropped_keys(value, kept[key], pointer + join(key))
    elif isinstance(have, list) and isinstance(kept, list) and len(have) == len(kept):
        for index, (a, b) in enumerate(zip(have, kept, strict=True)):
            found += _dropped_keys(a, b, f"{pointer}/{index}")
    return found


def _where(chunk: Chunk, line: int, raw: bytes, pointers: list[str]) -> list[int]:
    """The line of each pointer (JSONL: the document's line)."""
    if chunk.lines or b"\n" not in raw.strip():
        return [line] * len(pointers)
    return [line + found - 1 for found in lines_of(raw.decode("utf-8", "replace"), pointers)]


def _pi_dropped(own: Reader, raw: bytes, value: Any) -> list[str]:
    """The pointers of the keys of a pi document that phi-core, having read it, drops."""
    try:
        return _dropped_keys(parse(raw), json.loads(own.dumps(value, pretty=False)))
    except (ValueError, RecursionError):
        return []


def _pi_losses(
    own: Reader,
    chunk: Chunk,
    line: int,
    raw: bytes,
    value: Any,
    name: str,
    looks_like: Recognised,
    settings: Settings,
) -> list[Record]:
    """--strict, a pi document phi-core reads: each key phi-core would drop, at its pointer."""
    dropped = _pi_dropped(own, raw, value)
    what = str(recogniser("pi").describe(looks_like.type))
    records = [
        _record(
            own,
            chunk,
            where,
            pointer=pointer,
            type=name,
            variant="",
            message=f"looks like {what}: {own.label} reads it but drops this key",
        )
        for where, pointer in zip(
            _where(chunk, line, raw, dropped[: settings.max_problems]),
            dropped[: settings.max_problems],
            strict=True,
        )
    ]
    omitted = len(dropped) - len(records)
    if omitted:
        more = f"and {omitted:,} more keys phi-core drops, not listed (--max-problems)"
        records.append(_more_record(own, chunk, line, name, more, omitted))
    return records


def _not_canonical(
    own: Reader, chunk: Chunk, line: int, raw: bytes, value: Any, name: str, pretty: bool
) -> list[Record]:
    """--strict: where the implementation would write something else (unknown keys, other
    forms...)."""
    canonical = own.dumps(value, pretty=pretty).encode()
    if name == "SessionFile":
        return _session_not_canonical(own, chunk, line, raw, canonical, value)
    if canonical == (raw if pretty else raw.rstrip(b"\r\n")):
        return []
    try:
        pointer = _first_difference(parse(raw), json.loads(canonical))
    except (ValueError, RecursionError):
        pointer = None
    writer = own.format
    if pointer is None:
        message = f"accepted, but {writer} writes it with other key order or formatting"
        return [_record(own, chunk, line, pointer="", type=name, variant="", message=message)]
    message = f"accepted, but {writer} never writes this form (unknown key or non-canonical value)"
    where = _where(chunk, line, raw, [pointer])[0] if pointer else line
    return [_record(own, chunk, where, pointer=pointer, type=name, variant="", message=message)]


_SESSION_LINE_TYPES = {"operator-use": "SessionFileEntry", "pi": "FileEntry"}
"""The type of a session file's lines, per format."""


def _session_not_canonical(
    own: Reader, chunk: Chunk, line: int, raw: bytes, canonical: bytes, value: Any
) -> list[Record]:
    """--strict on a session file: the first line the implementation would write otherwise; a
    file pi migrates on opening (``migrated_from``), as a whole."""
    if canonical == raw:
        return []
    migrated = getattr(value, "migrated_from", None)
    if migrated is not None:
        message = (
            f"accepted, but {own.format} migrates this session file from version {migrated} when "
            "it opens it, and rewrites it as version 3"
        )
        return [
            _record(own, chunk, line, pointer="", type="SessionFile", variant="", message=message)
        ]
    written = canonical.split(b"\n")
    index = 0
    for number, text in enumerate(raw.split(b"\n"), line):
        if not text.strip():
            continue
        if index >= len(written) or text.rstrip(b"\r") != written[index]:
            message = f"accepted, but {own.format} writes this line otherwise (key order, "
            message += "unknown keys, number forms...)"
            return [
                _record(
                    own,
                    chunk,
                    number,
                    pointer="",
                    type=_SESSION_LINE_TYPES.get(own.format, "SessionFileEntry"),
                    variant="",
                    message=message,
                )
            ]
        index += 1
    message = f"accepted, but {own.format} writes the file otherwise (its line endings)"
    return [_record(own, chunk, line, pointer="", type="SessionFile", variant="", message=message)]


def _conventions(
    own: Reader, chunk: Chunk, line: int, raw: bytes, name: str, settings: Settings
) -> list[Record]:
    """--strict, a format with its own strict reading: each finding at its pointer (and line)."""
    found = own.module.strict_problems(name, raw)
    listed = found[: settings.max_problems]
    pointers = [problem.pointer for problem in listed]
    records = [
        _record(
            own,
            chunk,
            where,
            pointer=problem.pointer,
            type=name,
            variant="",
            message=problem.message,
        )
        for where, problem in zip(_where(chunk, line, raw, pointers), listed, strict=True)
    ]
    omitted = len(found) - len(listed)
    if omitted:
        more = f"and {omitted:,} more findings of strict mode, not listed (--max-problems)"
        records.append(_more_record(own, chunk, line, name, more, omitted))
    return records
