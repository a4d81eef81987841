"""The work behind ``phi-wire validate``: find files, split them into documents, judge each one.

A document is judged by ``loads`` (so exactly as strictly as phi-core's serde reads it); each
problem becomes a ``Record`` (file, line, JSON pointer, type, variant, message). JSONL files are
read in chunks of whole lines, so memory stays flat however large the file; with ``jobs > 1``
chunks are judged in worker processes and reported in file order.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import zlib
from collections.abc import Iterable, Iterator
from concurrent.futures import Executor, Future
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any, BinaryIO

from ._locate import line_of

__all__ = ["Chunk", "Record", "Tally", "detect_type", "find_files", "judge_chunk", "read_chunks"]

JSON_SUFFIXES = (".json",)
LINES_SUFFIXES = (".jsonl", ".ndjson")
CHUNK_BYTES = 4 * 1024 * 1024
BOM = b"\xef\xbb\xbf"


class InputError(Exception):
    """An input that cannot be read at all (exit code 2)."""


@dataclass(frozen=True)
class Record:
    """One problem in one document."""

    file: str
    line: int
    pointer: str
    type: str
    variant: str
    message: str
    unreadable: bool = False
    """The bytes are not text (not UTF-8): an input error, exit code 2."""

    def text(self) -> str:
        judged = " ".join(part for part in (self.type, self.variant) if part)
        return f"{self.file}:{self.line}: {judged} {self.pointer or '/'}: {self.message}"

    def json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)


@dataclass
class Tally:
    files: int = 0
    documents: int = 0
    invalid: int = 0
    bytes: int = 0
    input_errors: list[str] = field(default_factory=list)

    @property
    def valid(self) -> int:
        return self.documents - self.invalid


@dataclass(frozen=True)
class Chunk:
    """Consecutive documents of one file: (line number, raw bytes) pairs."""

    file: str
    documents: tuple[tuple[int, bytes], ...]
    pretty: bool  # a whole .json file: canonical form is save_session's pretty print
    size: int


def wire_module(version: str) -> ModuleType:
    return importlib.import_module(f"phi_wire.v{version.replace('.', '_')}")


def detect_type(document: Any) -> str:
    """The wire type a parsed document looks like, from its keys (see the README)."""
    if isinstance(document, dict):
        keys = document.keys()
        if "loops" in keys and "session_id" in keys:
            return "Session"
        if "events" in keys and "loop_id" in keys:
            return "LoopRecord"
        if "sequence" in keys and "event" in keys:
            return "LoopEvent"
        if "turn_id" in keys and "output_message" in keys:
            return "Turn"
        if "type" in keys:
            return "AgentEvent"
        if "role" in keys:
            return "AgentMessage"
    return "AgentEvent"


# The first key of what phi-core writes tells the type without parsing the document.
_FIRST_KEY = re.compile(rb'\s*\{\s*"([a-z_]+)"')
_BY_FIRST_KEY = {
    b"type": "AgentEvent",
    b"content": "AgentMessage",  # an LlmMessage: keys sorted
    b"role": "AgentMessage",  # a bare Message or an ExtensionMessage
    b"sequence": "LoopEvent",
    b"turn_id": "Turn",
    b"loop_id": "LoopRecord",
    b"session_id": "Session",
}


def _detect_raw(raw: bytes) -> str:
    match = _FIRST_KEY.match(raw, 0, 64)
    if match is not None and match.group(1) in _BY_FIRST_KEY:
        return _BY_FIRST_KEY[match.group(1)]
    try:
        return detect_type(json.loads(raw))  # keys in another order: look at all of them
    except (ValueError, RecursionError):
        return "AgentEvent"


def find_files(paths: Iterable[str]) -> Iterator[str]:
    """Files named, and .json/.jsonl/.ndjson (optionally .gz) files under folders, sorted."""
    suffixes = JSON_SUFFIXES + LINES_SUFFIXES
    for name in paths:
        if name == "-":
            yield name
            continue
        path = Path(name)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and child.name.removesuffix(".gz").endswith(suffixes):
                    yield str(child)
        elif path.exists():
            yield name
        else:
            raise InputError(f"{name}: no such file or folder")


def _open(name: str) -> BinaryIO:
    if name == "-":
        return sys.stdin.buffer
    handle: BinaryIO = open(name, "rb")  # noqa: SIM115 - closed by the caller
    if name.endswith(".gz"):
        import gzip

        return gzip.GzipFile(fileobj=handle, mode="rb")  # type: ignore[return-value]
    return handle


def _is_lines(name: str, head: bytes) -> bool:
    base = name.removesuffix(".gz")
    if base.endswith(LINES_SUFFIXES):
        return True
    if base.endswith(JSON_SUFFIXES):
        return False
    # stdin or an unknown suffix: one document per line unless it is one (pretty) document
    stripped = head.strip()
    return b"\n" in stripped and not stripped.startswith((b"{\n", b"{\r\n", b"[\n"))


def read_chunks(name: str, chunk_bytes: int = CHUNK_BYTES) -> Iterator[Chunk]:
    """The documents of one file in chunks of whole lines (one chunk for a .json file)."""
    try:
        with _open(name) as stream:
            head = stream.read(chunk_bytes)
            if not _is_lines(name, head):
                data = head + stream.read()
                yield Chunk(name, ((1, data),), pretty=b"\n" in data.strip(), size=len(data))
                return
            yield from _line_chunks(name, stream, head, chunk_bytes)
    except (OSError, EOFError, zlib.error) as error:
        raise InputError(f"{name}: cannot read ({_reason(error)})") from None


def _reason(error: BaseException) -> str:
    if isinstance(error, EOFError) or "end-of-stream" in str(error):
        return "truncated gzip file"
    return getattr(error, "strerror", None) or str(error) or type(error).__name__


def _line_chunks(name: str, stream: BinaryIO, head: bytes, chunk_bytes: int) -> Iterator[Chunk]:
    buffer = head
    line_number = 1
    at_end = False
    while not at_end:
        more = stream.read(chunk_bytes)
        at_end = not more
        buffer += more
        cut = len(buffer) if at_end else buffer.rfind(b"\n") + 1
        if cut == 0:
            continue  # a line longer than a chunk: read on
        block, buffer = buffer[:cut], buffer[cut:]
        lines = block.split(b"\n")
        if block.endswith(b"\n"):
            lines.pop()  # the newline ends the last line; it does not start an empty one
        documents = tuple((line_number + offset, line) for offset, line in enumerate(lines))
        line_number += len(lines)
        if documents:
            yield Chunk(name, documents, pretty=False, size=len(block))


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
                return f"{pointer}/{key}"
            found = _first_difference(have[key], want[key], f"{pointer}/{key}")
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
    canonical = wire.dumps(value, pretty=pretty)
    if canonical.encode() == raw.rstrip(b"\r\n") if not pretty else canonical.encode() == raw:
        return None
    try:
        pointer = _first_difference(json.loads(raw), json.loads(canonical))
    except ValueError:
        pointer = None
    if pointer is None:
        return "", "accepted, but phi-core writes it with other key order or formatting"
    return (
        pointer,
        "accepted, but phi-core never writes this form (unknown key or non-canonical value)",
    )


def judge_chunk(
    chunk: Chunk, version: str, forced: str | None, strict: bool
) -> tuple[int, list[Record]]:
    """(invalid documents, problems) of one chunk."""
    wire = wire_module(version)
    records: list[Record] = []
    invalid = 0
    for line, raw in chunk.documents:
        found = _judge(wire, chunk, line, raw, forced, strict)
        if found:
            invalid += 1
            records += found
    return invalid, records


def _judge(
    wire: ModuleType, chunk: Chunk, line: int, raw: bytes, type_name: str | None, strict: bool
) -> list[Record]:
    name = type_name or _detect_raw(raw)
    if not raw.strip():
        return [Record(chunk.file, line, "", name, "", "empty line: not a JSON document")]
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
        text = raw.decode("utf-8", "replace") if chunk.pretty else None
        return _problems(error, chunk.file, line, text)
    if strict:
        difference = _not_canonical(wire, value, raw, chunk.pretty)
        if difference is not None:
            pointer, message = difference
            text = raw.decode("utf-8") if chunk.pretty else None
            where = line + (line_of(text, pointer) - 1 if text and pointer else 0)
            return [Record(chunk.file, where, pointer, name, "", message)]
    return []


@dataclass(frozen=True)
class RangeResult:
    """What a worker found in the lines that start within one byte range of a JSONL file."""

    lines: int
    invalid: int
    size: int
    records: list[Record]


def judge_range(
    name: str, start: int, end: int, version: str, forced: str | None, strict: bool
) -> RangeResult:
    """Judge the lines of ``name`` that start in [start, end); line numbers relative to the range.

    Workers read the file themselves, so the parent ships offsets, not megabytes of lines.
    """
    documents: list[tuple[int, bytes]] = []
    size = 0
    with open(name, "rb") as handle:
        if start > 0:
            handle.seek(start - 1)
            if handle.read(1) != b"\n":
                handle.readline()  # the rest of a line that started in the previous range
        position = handle.tell()
        while position < end:
            line = handle.readline()
            if not line:
                break
            position += len(line)
            size += len(line)
            documents.append((len(documents) + 1, line.removesuffix(b"\n")))
    invalid, records = judge_chunk(
        Chunk(name, tuple(documents), False, size), version, forced, strict
    )
    return RangeResult(len(documents), invalid, size, records)


def parallel_lines(
    name: str, version: str, forced: str | None, strict: bool, jobs: int
) -> Iterator[tuple[Chunk, int, list[Record]]]:
    """A plain JSONL file judged in ``jobs`` processes by byte ranges, reported in order."""
    from concurrent.futures import ProcessPoolExecutor  # only when asked: it imports slowly

    prepare(version, forced)
    total = os.path.getsize(name)
    count = max(jobs * 4, -(-total // CHUNK_BYTES))
    bounds = [total * index // count for index in range(count + 1)]
    line_offset = 0
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [
            pool.submit(judge_range, name, bounds[i], bounds[i + 1], version, forced, strict)
            for i in range(count)
        ]
        for future in futures:
            result = future.result()
            records = [replace(record, line=record.line + line_offset) for record in result.records]
            chunk = Chunk(name, ((0, b""),) * result.lines, False, result.size)
            line_offset += result.lines
            yield chunk, result.invalid, records


def run_chunks(
    chunks: Iterable[Chunk],
    version: str,
    forced: str | None,
    strict: bool,
    jobs: int,
) -> Iterator[tuple[Chunk, int, list[Record]]]:
    """Judge chunks in order, in ``jobs`` processes; at most 2 x jobs chunks are in flight."""
    if jobs <= 1:
        for chunk in chunks:
            invalid, records = judge_chunk(chunk, version, forced, strict)
            yield chunk, invalid, records
        return
    from concurrent.futures import ProcessPoolExecutor  # only when asked: it imports slowly

    prepare(version, forced)
    executor: Executor = ProcessPoolExecutor(max_workers=jobs)
    pending: list[tuple[Chunk, Future[tuple[int, list[Record]]]]] = []
    try:
        for chunk in chunks:
            pending.append((chunk, executor.submit(judge_chunk, chunk, version, forced, strict)))
            while len(pending) >= 2 * jobs:
                done, future = pending.pop(0)
                yield (done, *future.result())
        for done, future in pending:
            yield (done, *future.result())
    finally:
        executor.shutdown(cancel_futures=True)


def prepare(version: str, forced: str | None) -> None:
    """Build the validators before worker processes fork, so that each inherits them built."""
    from phi_wire._codec import adapter

    wire = wire_module(version)
    for name in {forced or "AgentEvent", "AgentMessage", "Session"}:
        adapter(getattr(wire, name))


def default_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 8))
