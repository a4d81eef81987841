"""Judging many files, or one big JSONL file, in several processes, reported in input order.

One strategy per function: ``judge_files`` in this process alone when ``jobs`` is 1; a plain
JSONL file by byte ranges in forked processes (``parallel_lines``); other files in one process
pool they all share (``judge_batch``); stdin, which only this process can read, chunk by chunk
through that pool (``judge_chunk_task``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import suppress
from typing import TYPE_CHECKING

from ._fastpath import fast_path_for
from ._inputs import BLOCK_BYTES, LINES_SUFFIXES, Chunk, is_lines_file, read_chunks, reason
from ._judge import judge_chunk, wire_module
from ._records import InputError, Outcome, Record, Verdict

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

__all__ = ["default_jobs", "judge_files", "prepare"]

RANGE_BYTES = 1024 * 1024


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
                done[index] = f"{name}: cannot read ({reason(error)})"
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
    kinds = {is_lines_file(name) for name in names}
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
        from phi_wire.base import adapter

        wire = wire_module(version)
        for name in {forced or "AgentEvent", "AgentMessage", "Session"}:
            adapter(getattr(wire, name))
    gc.freeze()  # forked workers then leave the inherited objects' pages shared (no GC writes)


def default_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 8))
