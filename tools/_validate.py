"""The work behind ``phi-wire validate``: find files, split them into documents, judge each one.

Files are read in blocks of whole lines (``BLOCK_BYTES``), so memory stays flat however large
the input. A block of JSONL first meets the fast path (``_fastpath``: one regular expression that
vouches for the lines phi-core writes); each line it does not vouch for, and every document under
``--strict``, is judged by ``loads``, exactly as strictly as phi-core's serde reads it. Each
problem becomes a ``Record`` (file, line, JSON pointer, type, variant, message). With ``jobs > 1``
the byte ranges of a JSONL file are judged in worker processes and reported in file order.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import zlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import suppress
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple

from ._locate import line_of

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from ._fastpath import FastPath

__all__ = [
    "Chunk",
    "InputError",
    "Record",
    "Tally",
    "detect_type",
    "find_files",
    "judge_chunk",
    "read_chunks",
]

JSON_SUFFIXES = (".json",)
LINES_SUFFIXES = (".jsonl", ".ndjson")
BLOCK_BYTES = 4 * 1024 * 1024
RANGE_BYTES = 1024 * 1024
BOM = b"\xef\xbb\xbf"
AUTO_FAST_TYPES = ("AgentEvent", "AgentMessage")
"""Types the fast path of JSONL knows without --type: what event and message logs hold."""
AUTO_FAST_DOCUMENT_TYPES = ("Session",)
"""Types the fast path of .json files knows without --type: the files phi-core writes
(``save_session``, pretty)."""


class InputError(Exception):
    """An input that cannot be read at all (exit code 2)."""


# Named tuples, not dataclasses: importing dataclasses (and the inspect module it needs) would add
# some 8 ms to the start-up of every run.


class Record(NamedTuple):
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
        return json.dumps(self._asdict(), ensure_ascii=False)


class Tally:
    """What a run has judged so far."""

    def __init__(self) -> None:
        self.files = 0
        self.documents = 0
        self.invalid = 0
        self.bytes = 0
        self.input_errors: list[str] = []

    @property
    def valid(self) -> int:
        return self.documents - self.invalid


class Chunk(NamedTuple):
    """Consecutive documents of one file: whole lines of JSONL, or one whole document."""

    file: str
    first_line: int
    data: bytes
    lines: bool
    """One document per line (else ``data`` is one document)."""
    newlines: int = -1
    """``data.count(b"\\n")`` when the reader counted them already."""

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def documents(self) -> int:
        if not self.lines:
            return 1
        newlines = self.newlines if self.newlines >= 0 else self.data.count(b"\n")
        return newlines + (not self.data.endswith(b"\n"))

    def line_starts(self) -> list[int]:
        if not self.lines:
            return [0]
        starts = [0]
        position = self.data.find(b"\n")
        while position != -1 and position + 1 < len(self.data):
            starts.append(position + 1)
            position = self.data.find(b"\n", position + 1)
        return starts


class Verdict(NamedTuple):
    """What one chunk holds: documents, invalid documents, problems (lines absolute)."""

    documents: int
    invalid: int
    size: int
    records: list[Record]


Outcome = Verdict | InputError
"""What judging yields per chunk: a verdict, or the error that stops reading a file."""


def wire_module(version: str) -> ModuleType:
    return importlib.import_module(f"phi_wire.v{version.replace('.', '_')}")


def detect_type(document: Any) -> str:
    """The wire type a parsed document looks like, from its keys (see ``phi-wire validate -h``)."""
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


def detect_raw(raw: bytes) -> str:
    """The type of one document: by its first key when that settles it, else by all its keys."""
    match = _FIRST_KEY.match(raw, 0, 64)
    if match is not None and match.group(1) in _BY_FIRST_KEY:
        return _BY_FIRST_KEY[match.group(1)]
    try:
        return detect_type(json.loads(raw))
    except (ValueError, RecursionError):
        return "AgentEvent"


def type_of_first_key(key: str) -> str | None:
    """The type ``detect_raw`` gives every document whose first key is ``key`` (None: it depends
    on the other keys)."""
    if re.fullmatch(r"[a-z_]+", key) is None:
        return None
    return _BY_FIRST_KEY.get(key.encode())


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


def read_chunks(name: str, block_bytes: int = BLOCK_BYTES) -> Iterator[Chunk]:
    """The documents of one file in chunks of whole lines (one chunk for a .json file)."""
    try:
        with _open(name) as stream:
            head = stream.read(block_bytes)
            if not _is_lines(name, head):
                data = head + stream.read()
                yield Chunk(name, 1, data, lines=False)
                return
            yield from _line_chunks(name, stream, head, block_bytes)
    except (OSError, EOFError, zlib.error) as error:
        raise InputError(f"{name}: cannot read ({_reason(error)})") from None


def _reason(error: BaseException) -> str:
    if isinstance(error, EOFError) or "end-of-stream" in str(error):
        return "truncated gzip file"
    return getattr(error, "strerror", None) or str(error) or type(error).__name__


def _line_chunks(name: str, stream: BinaryIO, head: bytes, block_bytes: int) -> Iterator[Chunk]:
    """Blocks that end at a line end; a line longer than a block is gathered whole."""
    pending = [head]  # pieces of the unfinished block (joined once: no quadratic copying)
    line_number = 1
    while True:
        more = stream.read(block_bytes)
        if more:
            cut = more.rfind(b"\n") + 1
            if cut == 0:
                pending.append(more)
                continue
            pending.append(more[:cut])
            rest = more[cut:]
        else:
            rest = b""
        block = b"".join(pending)
        if not more:
            if block:
                yield Chunk(name, line_number, block, lines=True)
            return
        # the head may end mid-line: keep whole lines only, carry the rest forward
        cut = block.rfind(b"\n") + 1
        block, carried = block[:cut], block[cut:]
        pending = [carried + rest] if carried or rest else []
        if block:
            newlines = block.count(b"\n")
            yield Chunk(name, line_number, block, lines=True, newlines=newlines)
            line_number += newlines


# --- judging ------------------------------------------------------------------------------------

_FAST: dict[tuple[str, str | None, bool], FastPath | None] = {}


def fast_path_for(
    version: str, forced: str | None, build: bool = False, lines: bool = True
) -> FastPath | None:
    """The fast path for this version and --type, for JSONL lines or for whole .json documents:
    once per process (forked workers inherit it), from the cache, or built when ``build`` (worth
    its second of compiling on big inputs)."""
    if forced is not None:
        lines = True  # one type: the same expression serves both
    key = (version, forced, lines)
    if key not in _FAST or (_FAST[key] is None and build):
        from ._fastpath import fast_path

        if forced is not None:
            _FAST[key] = fast_path(version, [forced], None, build)
        else:
            types = AUTO_FAST_TYPES if lines else AUTO_FAST_DOCUMENT_TYPES
            _FAST[key] = fast_path(version, types, type_of_first_key, build)
    return _FAST[key]


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


# --- several processes --------------------------------------------------------------------------


def judge_range(
    name: str, start: int, end: int, version: str, forced: str | None, strict: bool
) -> Verdict:
    """Judge the lines of ``name`` that start in [start, end); line numbers count from 1 at the
    range's first line. Workers read the file themselves: the parent ships offsets, not data."""
    documents = invalid = size = lines_before = 0
    records: list[Record] = []
    with open(name, "rb") as handle:
        if start > 0:
            handle.seek(start - 1)
            if handle.read(1) != b"\n":
                start += len(handle.readline())  # the rest of a line of the previous range
        handle.seek(start)
        position = start
        while position < end:
            block = handle.read(min(BLOCK_BYTES, end - position))
            if not block:
                break
            position += len(block)
            if not block.endswith(b"\n"):  # finish the line that starts before ``end``
                block += handle.readline()
                position = handle.tell()
            newlines = block.count(b"\n")
            chunk = Chunk(name, lines_before + 1, block, True, newlines)
            verdict = judge_chunk(chunk, version, forced, strict)
            documents += verdict.documents
            invalid += verdict.invalid
            size += verdict.size
            records += verdict.records
            lines_before += newlines
    return Verdict(documents, invalid, size, records)


def parallel_lines(
    name: str, version: str, forced: str | None, strict: bool, jobs: int
) -> Iterator[Verdict]:
    """A plain JSONL file judged by byte ranges in ``jobs`` processes, reported in order.

    The range numbers wait in a pipe; this process and ``jobs - 1`` forked copies of it (which
    inherit the fast path and the validators built) each take the next number until none is
    left, so all stay busy to the end. Each copy sends its verdicts back when done.
    """
    import pickle

    prepare(version, forced, strict, (True,))
    total = os.path.getsize(name)
    # 1 MB ranges: the last one to finish keeps the others idle for little time (4 MB ranges
    # cost --jobs 2 about a tenth of its speed-up on 100 MB); at most 4096 ranges: their numbers
    # (16 kB) fit a pipe's buffer before anyone reads
    count = min(4096, max(jobs * 8, -(-total // RANGE_BYTES)))
    bounds = [total * index // count for index in range(count + 1)]
    tickets_out, tickets_in = os.pipe()
    os.write(tickets_in, b"".join(index.to_bytes(4, "little") for index in range(count)))
    os.close(tickets_in)

    def work() -> dict[int, Verdict | str]:
        done: dict[int, Verdict | str] = {}
        while ticket := os.read(tickets_out, 4):  # reads of 4 bytes from a pipe are atomic
            index = int.from_bytes(ticket, "little")
            try:
                done[index] = judge_range(
                    name, bounds[index], bounds[index + 1], version, forced, strict
                )
            except (OSError, InputError) as error:
                done[index] = f"{name}: cannot read ({_reason(error)})"
        return done

    children: list[tuple[int, int]] = []
    for _ in range(jobs - 1):
        results_out, results_in = os.pipe()
        pid = os.fork()
        if pid == 0:  # a worker: judge, send the verdicts, leave without running the parent's exit
            code = 0
            try:
                os.close(results_out)
                with os.fdopen(results_in, "wb") as out:
                    pickle.dump(work(), out)
            except BaseException:  # the parent reports its ranges as missing
                code = 1
            os._exit(code)
        os.close(results_in)
        children.append((pid, results_out))
    verdicts = work()
    os.close(tickets_out)
    for pid, results_out in children:
        # a worker that failed sends nothing: its ranges are missing, reported below
        with os.fdopen(results_out, "rb") as source, suppress(EOFError, pickle.UnpicklingError):
            verdicts.update(pickle.load(source))
        os.waitpid(pid, 0)
    line_offset = 0
    for index in range(count):
        verdict = verdicts.get(index)
        if not isinstance(verdict, Verdict):
            raise InputError(verdict or f"{name}: a worker process failed")
        records = [record._replace(line=record.line + line_offset) for record in verdict.records]
        line_offset += verdict.documents
        yield verdict._replace(records=records)


def _streamed(name: str, version: str, forced: str | None, strict: bool) -> Iterator[Outcome]:
    """The verdicts on one file, chunk by chunk, ending with the InputError that stops it."""
    try:
        for chunk in read_chunks(name):
            yield judge_chunk(chunk, version, forced, strict)
    except InputError as error:
        yield error


def judge_batch(
    names: Sequence[str], version: str, forced: str | None, strict: bool
) -> list[Outcome | None]:
    """A pool worker's task: whole files, which the worker reads itself (the parent ships names,
    not data), as ``judge_files`` reports them."""
    outcomes: list[Outcome | None] = []
    for name in names:
        outcomes.append(None)
        outcomes += _streamed(name, version, forced, strict)
    return outcomes


def judge_chunk_task(
    chunk: Chunk, version: str, forced: str | None, strict: bool
) -> list[Outcome | None]:
    """A pool worker's task for a chunk only the parent can read (stdin)."""
    return [judge_chunk(chunk, version, forced, strict)]


def _settled(outcomes: list[Outcome | None]) -> Future[list[Outcome | None]]:
    """Outcomes known already, queued among the pool's tasks to keep their order."""
    from concurrent.futures import Future

    done: Future[list[Outcome | None]] = Future()
    done.set_result(outcomes)
    return done


def judge_files(
    names: Iterable[str], version: str, forced: str | None, strict: bool, jobs: int
) -> Iterator[Outcome | None]:
    """Judge files in order: None as a file starts, then a verdict for each of its chunks in
    order, or the InputError that ends it.

    With ``jobs`` > 1, a plain JSONL file is split by byte ranges across processes
    (``parallel_lines``); the other files go to one process pool they all share, in batches of
    about ``RANGE_BYTES`` (a pool per file, or a task per small file, kept the processes waiting
    on each other: a task costs the pool about a millisecond); stdin, which only this process can
    read, goes to the pool chunk by chunk.
    """
    if jobs <= 1:
        for name in names:
            yield None
            yield from _streamed(name, version, forced, strict)
        return
    from collections import deque

    names = list(names)
    by_ranges = {
        name
        for name in names
        if hasattr(os, "fork") and name != "-" and name.endswith(LINES_SUFFIXES)
    }
    # what the pool's files hold: JSONL lines or whole documents (stdin and the like: lines)
    kinds = {not name.removesuffix(".gz").endswith(JSON_SUFFIXES) for name in names}
    executor: ProcessPoolExecutor | None = None
    pending: deque[Future[list[Outcome | None]]] = deque()
    batch: list[str] = []
    batch_bytes = 0

    def pool() -> ProcessPoolExecutor:
        nonlocal executor
        if executor is None:
            # imported only now: it costs 15 ms of start-up that byte ranges do not need
            from concurrent.futures import ProcessPoolExecutor

            prepare(version, forced, strict, tuple(kinds))
            executor = ProcessPoolExecutor(max_workers=jobs)
        return executor

    def queued(task: Future[list[Outcome | None]]) -> Iterator[Outcome | None]:
        pending.append(task)
        while len(pending) > 2 * jobs:
            yield from pending.popleft().result()

    def flushed() -> Iterator[Outcome | None]:
        nonlocal batch, batch_bytes
        if batch:
            yield from queued(pool().submit(judge_batch, batch, version, forced, strict))
            batch, batch_bytes = [], 0

    try:
        for name in names:
            if name in by_ranges or name == "-":
                yield from flushed()
            if name in by_ranges:
                while pending:  # the files before it come first
                    yield from pending.popleft().result()
                yield None
                try:
                    yield from parallel_lines(name, version, forced, strict, jobs)
                except InputError as error:
                    yield error
            elif name == "-":
                pending.append(_settled([None]))
                try:
                    for chunk in read_chunks(name):
                        task = pool().submit(judge_chunk_task, chunk, version, forced, strict)
                        yield from queued(task)
                except InputError as error:
                    pending.append(_settled([error]))
            else:
                batch.append(name)
                with suppress(OSError):  # an unreadable file: its task reports it
                    batch_bytes += os.path.getsize(name)
                if batch_bytes >= RANGE_BYTES:
                    yield from flushed()
        yield from flushed()
        while pending:
            yield from pending.popleft().result()
    finally:
        if executor is not None:
            executor.shutdown(cancel_futures=True)


def prepare(
    version: str, forced: str | None, strict: bool, kinds: tuple[bool, ...] = (True, False)
) -> None:
    """Build the fast paths (``kinds``: for lines, for whole documents) and, when some are
    missing, the validators, before worker processes fork, so that each inherits them built."""
    import gc

    if strict or any(fast_path_for(version, forced, lines=lines) is None for lines in kinds):
        # many documents need loads; else few, if any, do and a worker builds its validator then
        from phi_wire._codec import adapter

        wire = wire_module(version)
        for name in {forced or "AgentEvent", "AgentMessage", "Session"}:
            adapter(getattr(wire, name))
    gc.freeze()  # forked workers then leave the inherited objects' pages shared (no GC writes)


def default_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 8))
