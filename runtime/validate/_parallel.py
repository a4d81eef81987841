"""Judging the files of a run, in this process or several, reported in input order.

One strategy per function:

* ``in_order``: this process alone (``jobs`` 1, or too little input to repay starting others);
* ``processes``: how many processes a run uses: one per ``PARALLEL_MIN_BYTES`` of input, at most
  ``jobs``, so that each repays its start (a worker builds the validators of the types it meets);
* ``by_ranges``: one big plain JSONL file split into byte ranges, taken in turn by this process
  and ``jobs - 1`` forked copies of it;
* ``in_pool``: other files in batches, read by the workers of one process pool shared by the run;
  what only this process can read (stdin, a FIFO) is read here and its chunks judged in the pool.

``judge_files`` plans which strategy each file gets. Whatever goes wrong in a worker (killed, out
of memory) becomes an ``INPUT`` record for what it was judging, never a traceback.
"""

from __future__ import annotations

import os
import stat
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import closing, suppress
from typing import TYPE_CHECKING, NamedTuple

from phi_wire.formats.phi_core.recognise import FALLBACK
from phi_wire.recognise import Recognised
from phi_wire.remote import is_url

from ._fastpath import fast_path_for
from ._inputs import (
    Chunk,
    is_plain_file,
    layout_note,
    open_stored,
    peek_layout,
    read_file,
    read_range,
    stored_size,
)
from ._judge import judge_item, wire_module
from ._records import AUTO, HOME_FORMAT, INPUT, FileStart, Outcome, Record, Settings, Verdict
from ._walk import LINES, named_layout

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

__all__ = [
    "PARALLEL_MIN_BYTES",
    "RANGES_MIN_BYTES",
    "default_jobs",
    "fallback",
    "judge_files",
    "judge_range",
    "judged",
    "placed",
    "prepare",
    "processes",
    "range_bounds",
    "range_lines",
]

RANGE_BYTES = 1024 * 1024
"""A byte range of a big JSONL file: the last one to finish keeps the others idle for little time
(4 MB ranges cost --jobs 2 about a tenth of its speed-up on 100 MB)."""
RANGES_MIN_BYTES = 8 * 1024 * 1024
"""A plain JSONL file this big is split into byte ranges; a smaller one is judged whole by one
worker (forking for it costs more than it saves)."""
PARALLEL_MIN_BYTES = 2 * 1024 * 1024
"""The input each process of a run gets at least (as stored): less than twice this is judged in
this process alone, and ``--jobs 8`` on 5 MB uses two processes, not eight. A worker's start (its
fork, the validators it builds for the types it meets, its share of the parent's coordination)
costs a tenth of a second or more; 2 MB of small files is some 0.4 s of work to share. (3.3 MB of
1,771 small files took 1.96 s with ``--jobs 2``, 1.56 s with one job, on a busy machine.)"""


def fallback(settings: Settings) -> str:
    """The type a document that cannot be parsed is reported as."""
    if settings.forced:
        return settings.forced
    return FALLBACK if settings.format in (HOME_FORMAT, AUTO) else ""


def judged(name: str, settings: Settings) -> Iterator[Outcome]:
    """One file read and judged in this process."""
    for item in read_file(name, settings, fallback(settings)):
        outcome = judge_item(item, settings)
        del item  # the chunk's buffer freed before the next is read (its memory then reused)
        yield outcome


def in_order(names: Sequence[str], settings: Settings) -> Iterator[Outcome]:
    """Every file in this process, one after the other."""
    for name in names:
        yield from judged(name, settings)


def judge_batch(names: Sequence[str], settings: Settings) -> list[Outcome]:
    """A pool worker's task: whole files, which the worker reads itself (the parent ships names,
    not data)."""
    outcomes: list[Outcome] = []
    for name in names:
        outcomes += judged(name, settings)
    return outcomes


def judge_chunk_task(chunk: Chunk, settings: Settings) -> list[Outcome]:
    """A pool worker's task for a chunk only the parent can read (stdin, a FIFO)."""
    return [judge_item(chunk, settings)]


def judge_range(
    name: str, start: int, end: int, settings: Settings, plan: Recognised | None = None
) -> list[Verdict]:
    """The lines of ``name`` that start in [start, end), judged (``plan``: the format the file's
    first lines have); lines count from 1 at the range's first line. Workers read the file
    themselves: the parent ships offsets, not data."""
    verdicts = []
    for item in read_range(name, start, end, settings, fallback(settings), plan):
        outcome = judge_item(item, settings)
        del item  # freed before the next chunk is read, as in ``judged``
        if isinstance(outcome, Verdict):
            verdicts.append(outcome)
    return verdicts


def _lost(name: str, line: int, what: str) -> Verdict:
    message = f"a worker process died (killed, or out of memory?) while judging {what}: not judged"
    return Verdict(0, 0, 0, [Record(name, line, "", "", "", message, INPUT)])


def by_ranges(
    name: str, size: int, settings: Settings, jobs: int, plan: Recognised | None = None
) -> Iterator[Verdict]:
    """A plain JSONL file of ``size`` bytes judged by byte ranges in ``jobs`` processes, reported
    in order.

    The range numbers wait in a pipe; this process and ``jobs - 1`` forked copies of it (which
    inherit the fast path and the validators built) each take the next number until none is
    left, so all stay busy to the end. Each copy sends its verdicts back when done; the ranges of
    a copy that died are reported as not judged.
    """
    import pickle

    prepare(settings, (True,))
    # at most 4096 ranges: their numbers (16 kB) fit a pipe's buffer before anyone reads
    count = min(4096, max(jobs * 8, -(-size // RANGE_BYTES)))
    bounds = range_bounds(size, count)
    tickets_out, tickets_in = os.pipe()
    os.write(tickets_in, b"".join(index.to_bytes(4, "little") for index in range(count)))
    os.close(tickets_in)

    def work() -> dict[int, list[Verdict]]:
        done: dict[int, list[Verdict]] = {}
        while ticket := os.read(tickets_out, 4):  # reads of 4 bytes from a pipe are atomic
            index = int.from_bytes(ticket, "little")
            done[index] = judge_range(name, bounds[index], bounds[index + 1], settings, plan)
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
            except BaseException:  # the parent reports its ranges as not judged
                code = 1
            os._exit(code)
        os.close(results_in)
        children.append((pid, results_out))
    verdicts = work()
    os.close(tickets_out)
    for pid, results_out in children:
        # a worker that died sends nothing (or half): its ranges are reported below
        with os.fdopen(results_out, "rb") as source, suppress(Exception):
            verdicts.update(pickle.load(source))
        os.waitpid(pid, 0)
    line_offset = 0
    for index in range(count):
        found = verdicts.get(index)
        if found is None:
            start, end = bounds[index], bounds[index + 1]
            yield _lost(name, line_offset + 1, f"the lines starting in bytes {start:,}-{end:,}")
            line_offset += _lines_starting(name, start, end)
            continue
        yield from placed(found, line_offset)
        line_offset += range_lines(found)


def range_bounds(size: int, count: int) -> list[int]:
    """The byte offsets that cut ``size`` bytes into ``count`` ranges of equal size: range ``i``
    is ``[bounds[i], bounds[i + 1])`` and owns the lines that start in it (``judge_range``)."""
    return [size * index // count for index in range(count + 1)]


def range_lines(verdicts: list[Verdict]) -> int:
    """The lines a range's verdicts cover (each line of JSONL is one document)."""
    return sum(verdict.documents for verdict in verdicts)


def placed(verdicts: list[Verdict], line_offset: int) -> list[Verdict]:
    """A range's verdicts with their lines counted from the file's start: ``line_offset`` lines
    start before the range."""
    return [
        verdict._replace(
            records=[
                record._replace(line=record.line + line_offset) if record.line else record
                for record in verdict.records
            ]
        )
        for verdict in verdicts
    ]


def _lines_starting(name: str, start: int, end: int) -> int:
    """How many lines of a file start in [start, end) (0 if it cannot be read)."""
    count = int(start == 0)
    try:
        with closing(open_stored(name, until=end)) as handle:
            handle.seek(max(0, start - 1))
            position = max(0, start - 1)
            while position < end - 1:
                data = handle.read(min(RANGE_BYTES, end - 1 - position))
                if not data:
                    break
                count += data.count(b"\n")
                position += len(data)
    except OSError:
        return 0
    return count


class _Task(NamedTuple):
    """A task in the pool, and what to report if its worker dies."""

    future: Future[list[Outcome]]
    names: tuple[str, ...]
    """The files of a batch (each reported as not judged); empty for a chunk."""
    chunk_file: str = ""
    chunk_line: int = 0


def in_pool(names: Sequence[str], settings: Settings, jobs: int) -> Iterator[Outcome]:
    """Files judged by a process pool in order: plain files in batches of about
    ``RANGE_BYTES`` (and at most a quarter of the work per job: many small files spread over all
    workers), what only this process can read chunk by chunk. Reports come out in input order.
    """
    from concurrent.futures.process import BrokenProcessPool

    sizes = {name: _stored_size(name) if is_plain_file(name) else 0 for name in names}
    batch_limit = max(64 * 1024, min(RANGE_BYTES, sum(sizes.values()) // (4 * jobs)))
    executor: ProcessPoolExecutor | None = None
    pending: deque[_Task | list[Outcome]] = deque()
    batch: list[str] = []
    batch_bytes = 0

    def pool() -> ProcessPoolExecutor:
        nonlocal executor
        if executor is None:
            # imported only now: it costs 15 ms of start-up that byte ranges do not need
            from concurrent.futures import ProcessPoolExecutor

            kinds = tuple({named_layout(name) != "document" for name in names})
            prepare(settings, kinds)
            executor = ProcessPoolExecutor(max_workers=jobs)
        return executor

    def collected(task: _Task | list[Outcome]) -> list[Outcome]:
        nonlocal executor
        if isinstance(task, list):
            return task
        try:
            return task.future.result()
        except BrokenProcessPool:
            if executor is not None:  # the others' tasks fail too: each reported as lost
                executor.shutdown(wait=False, cancel_futures=True)
                executor = None
            if task.names:
                outcomes: list[Outcome] = []
                for name in task.names:
                    named = named_layout(name)
                    outcomes += [
                        FileStart(name, named or LINES, named, False),
                        _lost(name, 0, "this file"),
                    ]
                return outcomes
            what = f"the lines from {task.chunk_line:,} on"
            return [_lost(task.chunk_file, task.chunk_line, what)]

    def queued(task: _Task | list[Outcome]) -> Iterator[Outcome]:
        pending.append(task)
        while len(pending) > 2 * jobs:
            yield from collected(pending.popleft())

    def flushed() -> Iterator[Outcome]:
        nonlocal batch, batch_bytes
        if batch:
            future = pool().submit(judge_batch, batch, settings)
            yield from queued(_Task(future, tuple(batch)))
            batch, batch_bytes = [], 0

    try:
        for name in names:
            if is_plain_file(name):
                batch.append(name)
                batch_bytes += sizes[name]
                if batch_bytes >= batch_limit:
                    yield from flushed()
                continue
            yield from flushed()
            for item in read_file(name, settings, fallback(settings)):
                if isinstance(item, Chunk):
                    future = pool().submit(judge_chunk_task, item, settings)
                    yield from queued(_Task(future, (), name, item.first_line))
                else:
                    yield from queued([item])
        yield from flushed()
        while pending:
            yield from collected(pending.popleft())
    finally:
        if executor is not None:
            executor.shutdown(cancel_futures=True)


def _ranges_plan(name: str, settings: Settings) -> tuple[int, str | None, Recognised | None] | None:
    """(size, named layout, format plan) when ``name`` is a plain, uncompressed JSONL file big
    enough to split into byte ranges; None otherwise."""
    if not hasattr(os, "fork") or not is_plain_file(name):
        return None
    try:
        size = stored_size(name)
    except OSError:
        return None  # reading it will report the problem
    if size < RANGES_MIN_BYTES:
        return None
    seen = peek_layout(name, settings)
    if seen is None or seen[0] != LINES or seen[2]:
        return None
    return size, seen[1], seen[3]


def _stored_size(name: str) -> int:
    try:
        return stored_size(name)
    except OSError:
        return 0  # reading it will report the problem


def processes(names: Sequence[str], jobs: int) -> int:
    """How many processes judge ``names`` with ``--jobs jobs``: one per ``PARALLEL_MIN_BYTES``
    of input, at least one, at most ``jobs``. The input is sized as stored (one stat per file,
    none opened, no more once it is big enough for all: a small gzip that expands a lot is judged
    by few processes, never slower than one job); stdin or a FIFO cannot be sized: ``jobs``."""
    if jobs <= 1 or PARALLEL_MIN_BYTES <= 0:
        return max(1, jobs)
    enough = jobs * PARALLEL_MIN_BYTES
    total = 0
    for name in names:
        try:
            if is_url(name):
                total += stored_size(name)
                continue
            status = os.stat(name) if name != "-" else None
        except OSError:
            continue  # reading it will report the problem
        if status is None or not stat.S_ISREG(status.st_mode):
            return jobs
        total += status.st_size
        if total >= enough:
            return jobs
    return max(1, total // PARALLEL_MIN_BYTES)


def judge_files(names: Sequence[str], settings: Settings, jobs: int) -> Iterator[Outcome]:
    """Judge files in order: a ``FileStart`` as each file begins, then the verdicts on its chunks
    in order. With ``jobs`` > 1, as many processes as the input repays (``processes``): a big
    plain JSONL file is split into byte ranges, other files go to one process pool; too little
    input is judged here alone."""
    jobs = processes(names, jobs)
    if jobs <= 1:
        yield from in_order(names, settings)
        return
    others: list[str] = []
    for name in names:
        plan = _ranges_plan(name, settings)
        if plan is None:
            others.append(name)
            continue
        if others:  # the files before it come first
            yield from in_pool(others, settings, jobs)
            others = []
        size, named, recognised = plan
        yield FileStart(name, LINES, named, False, recognised)
        note = layout_note(name, LINES, named)
        if note is not None:
            yield Verdict(0, 0, 0, [note])
        yield from by_ranges(name, size, settings, jobs, recognised)
    if others:
        yield from in_pool(others, settings, jobs)


def prepare(settings: Settings, kinds: tuple[bool, ...] = (True, False)) -> None:
    """Build the fast paths (``kinds``: for lines, for whole documents) and, when some are
    missing, the validators, before worker processes fork, so that each inherits them built."""
    import gc

    home = settings.format in (HOME_FORMAT, AUTO)
    if home and (
        settings.strict
        or any(
            fast_path_for(settings.version, settings.forced, lines=lines) is None for lines in kinds
        )
    ):
        # many documents need loads; else few, if any, do and a worker builds its validator then
        from phi_wire.base import adapter

        wire = wire_module(settings.version)
        for name in {settings.forced or "AgentEvent", "AgentMessage", "Session"}:
            adapter(getattr(wire, name))
    gc.freeze()  # forked workers then leave the inherited objects' pages shared (no GC writes)


def default_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 8))
