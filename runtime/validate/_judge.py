"""Judging documents: each one exactly as ``loads`` judges it (as strictly as phi-core's serde),
unless the fast path vouches for it; with ``strict``, also whether phi-core would write it so.

Each problem becomes a ``Record`` (file, line, JSON pointer, type, variant, message).
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

from phi_wire.formats import find
from phi_wire.pointer import join

from ._detect import detect_raw
from ._fastpath import fast_path_for
from ._inputs import Chunk
from ._locate import line_of
from ._records import Record, Verdict

__all__ = ["judge_chunk", "wire_module"]

BOM = b"\xef\xbb\xbf"


def wire_module(version: str) -> ModuleType:
    """The public module of a phi-core version (``0.10`` -> ``phi_wire.v0_10``)."""
    return find(version).load()


def judge_chunk(
    chunk: Chunk, version: str, forced: str | None, strict: bool, fast: bool = True
) -> Verdict:
    """Judge every document of ``chunk``; with ``fast``, lines the fast path vouches for are
    valid without further work."""
    path = fast_path_for(version, forced, lines=chunk.lines) if fast and not strict else None
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
        found = _judge(wire_module(version), chunk, line, raw, forced, strict)
        if found:
            invalid += 1
            records += found
    return Verdict(chunk.documents, invalid, chunk.size, records)


def _problems(error: Any, file: str, line: int, text: str | None) -> list[Record]:
    records = []
    for problem in error.problems:
        where = line
        if error.line is not None:
            where = line + error.line - 1
        elif text is not None and problem.pointer:
            where = line + line_of(text, problem.pointer) - 1
        records.append(
            Record(file, where, problem.pointer, error.type_name, problem.variant, problem.message)
        )
    return records


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


def _judge(
    wire: ModuleType, chunk: Chunk, line: int, raw: bytes, forced: str | None, strict: bool
) -> list[Record]:
    """The problems of one document, judged exactly by ``loads``."""
    name = forced or detect_raw(raw)
    pretty = not chunk.lines and b"\n" in raw.strip()
    if not raw.strip():
        what = "empty line" if chunk.lines else "empty file"
        return [Record(chunk.file, line, "", name, "", f"{what}: not a JSON document")]
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        message = f"not UTF-8: invalid byte 0x{raw[error.start]:02x} at offset {error.start}"
        return [Record(chunk.file, line, "", name, "", message, unreadable=True)]
    if raw.startswith(BOM):
        message = "a UTF-8 byte order mark precedes the document; phi-core (serde_json) rejects it"
        return [Record(chunk.file, line, "", name, "", message)]
    try:
        value = wire.loads(getattr(wire, name), raw)
    except wire.WireError as error:
        text = raw.decode("utf-8", "replace") if pretty else None
        return _problems(error, chunk.file, line, text)
    if strict:
        difference = _not_canonical(wire, value, raw, pretty)
        if difference is not None:
            pointer, message = difference
            text = raw.decode("utf-8") if pretty else None
            where = line + (line_of(text, pointer) - 1 if text and pointer else 0)
            return [Record(chunk.file, where, pointer, name, "", message)]
    return []
