"""A run of the validator cut into parts that any process, on any machine, judges apart, then
joined in input order: the public seam a distributed runner (``phi_wire.dask``) builds on.

A line of JSONL is a document whatever precedes it, so an uncompressed JSONL file can be cut
into byte ranges, each owning the lines that *start* in it (``_parallel``'s rule, which ``--jobs``
uses); a gzip stream can only be inflated from its start, and a whole-document file is one
document: each is judged in one part, small files batched together. A part's records count lines
from its range's first line; once the parts before it in its file have said how many lines they
hold, ``counted`` places them and counts the part (``Totals``). ``merged`` totals of consecutive
parts, and ``closed``, give what the single-process run gives: the same records, file summaries
and tally.

    run = validate(paths)                     # walks the paths (listing, globs)
    parts = split(run, block_bytes)           # in input order
    judged = [judge(part, run.settings) for part in parts]          # anywhere
    offsets = line_offsets(parts, [lines_in(j) for j in judged])    # per file
    counts = [counted(p, j, o) for p, j, o in zip(parts, judged, offsets)]
    totals = reduce(merged, [c.totals for c in counts])             # in order
    closing = closed(walked(run).merged(totals), run.paths)
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import NamedTuple

from phi_wire import remote
from phi_wire.recognise import Recognised

from . import FAST_BUILD_MIN_BYTES, Validation, nothing_found, prepare_fast_paths
from ._fastpath import fast_path_for
from ._folder import forget_folders
from ._inputs import input_size, is_plain_file, layout_note, peek_layout
from ._parallel import RANGE_BYTES, judge_range, judged, placed, range_bounds, range_lines
from ._plan import forget_plans
from ._records import AUTO, HOME_FORMAT, INPUT, FileStart, Outcome, Record, Settings, Verdict
from ._totals import Totals
from ._walk import DOCUMENT, LINES, named_layout

__all__ = [
    "Counted",
    "Part",
    "Totals",
    "closed",
    "counted",
    "judge",
    "line_offsets",
    "lines_in",
    "merged",
    "split",
    "walked",
]


class Part(NamedTuple):
    """Files judged whole (``names``), or the lines starting in bytes [start, end) of one plain
    JSONL file (``names`` is that file alone; ``number`` the range's number in it)."""

    names: tuple[str, ...]
    size: int
    """Bytes to judge (uncompressed, as far as known)."""
    start: int = 0
    end: int = -1
    """-1: whole files; else the range's end."""
    number: int = 0
    head: tuple[Outcome, ...] = ()
    """A file's start (and its layout note), carried by its first range."""
    plan: Recognised | None = None
    """The format the file's first lines have (ranges after the first cannot see them)."""
    build: bool = False
    """Whether the run's input is worth building the fast path for (a worker without it in its
    cache, on another machine, builds it once), as a local run of that input would."""
    listed: tuple[remote.Listed, ...] = ()
    """What the listing that found the part's objects said of them (size, ETag): the worker
    reads them without a HEAD request each, and only the version listed."""

    @property
    def is_range(self) -> bool:
        return self.end >= 0


class Counted(NamedTuple):
    """A part's records (lines counted from its file's start) and totals."""

    records: list[Record]
    totals: Totals


def split(run: Validation, block_bytes: int, workers: int = 1) -> list[Part]:
    """The files of ``run`` as parts of about a block each, in input order: a plain,
    uncompressed JSONL file larger than a block in ranges of at most a block, other files (gzip,
    whole documents, small files) whole, consecutive small ones batched up to a block. A block is
    ``block_bytes``, or less on little input: at most a quarter of each of ``workers``' share (so
    that all are busy to the end), and no less than ``RANGE_BYTES``. Reads each big file's first
    lines (its layout and format)."""
    if block_bytes < 1 or workers < 1:
        raise ValueError(f"block_bytes and workers must be at least 1: {block_bytes}, {workers}")
    sizes = [input_size(name) for name in run.names]
    block_bytes = min(block_bytes, max(RANGE_BYTES, sum(sizes) // (4 * workers)))
    build = sum(sizes) >= FAST_BUILD_MIN_BYTES
    prepare_fast_paths(run.settings, run.names)  # built once here, loaded from the cache there
    parts: list[Part] = []
    batch: list[str] = []
    batch_bytes = 0

    def flush() -> None:
        nonlocal batch, batch_bytes
        if batch:
            parts.append(Part(tuple(batch), batch_bytes, build=build, listed=_listed(batch)))
            batch, batch_bytes = [], 0

    for name, size in zip(run.names, sizes, strict=True):
        ranges = _ranges(name, size, block_bytes, run.settings, build, _listed([name]))
        if ranges:
            flush()
            parts += ranges
            continue
        if batch and batch_bytes + size > block_bytes:
            flush()
        batch.append(name)
        batch_bytes += size
    flush()
    return parts


def _listed(names: list[str]) -> tuple[remote.Listed, ...]:
    """What this process's listings said of the objects among ``names``."""
    found = (remote.listed(name) for name in names if remote.is_url(name))
    return tuple(listed for listed in found if listed is not None)


def _ranges(
    name: str,
    size: int,
    block_bytes: int,
    settings: Settings,
    build: bool,
    listed: tuple[remote.Listed, ...],
) -> list[Part]:
    """A big plain JSONL file's ranges (none for any other file)."""
    if size <= block_bytes or not is_plain_file(name):
        return []
    seen = peek_layout(name, settings)
    if seen is None or seen[0] != LINES or seen[2]:
        return []  # gzip, a whole document, unreadable: judged whole (reading reports why)
    _, named, _, plan = seen
    head: list[Outcome] = [FileStart(name, LINES, named, False, plan)]
    note = layout_note(name, LINES, named)
    if note is not None:
        head.append(Verdict(0, 0, 0, [note]))
    bounds = range_bounds(size, -(-size // block_bytes))
    return [
        Part(
            (name,),
            end - start,
            start,
            end,
            number,
            tuple(head) if number == 0 else (),
            plan,
            build,
            listed,
        )
        for number, (start, end) in enumerate(pairwise(bounds))
    ]


_RUN: list[object] = [None]
"""The run this process last judged a part of: a new run forgets what folders held, and the
plans it kept."""


def judge(part: Part, settings: Settings, run_id: object = None) -> list[Outcome]:
    """A part judged in this process (any process: it reads the files itself). Whatever fails
    unexpectedly is an ``INPUT`` record for the part, never an exception."""
    if run_id != _RUN[0]:
        forget_folders()
        forget_plans()
        _RUN[0] = run_id
    for found in part.listed:  # read as listed: no HEAD request, and that version only
        remote.remember(found)
    if part.build and settings.format in (HOME_FORMAT, AUTO) and not settings.strict:
        # loaded from the cache the caller's split filled, or (another machine) built once here
        for lines in {part.is_range or named_layout(name) != DOCUMENT for name in part.names}:
            fast_path_for(settings.version, settings.forced, build=True, lines=lines)
    outcomes: list[Outcome] = list(part.head)
    try:
        if part.is_range:
            name = part.names[0]
            outcomes += judge_range(name, part.start, part.end, settings, part.plan)
        else:
            for name in part.names:
                outcomes += judged(name, settings)
    except Exception as error:  # a defect or a storage library's surprise: reported, not raised
        where = part.names[0]
        what = f"bytes {part.start:,}-{part.end:,}" if part.is_range else "these files"
        message = f"cannot judge {what} ({type(error).__name__}: {error})"
        outcomes.append(Verdict(0, 0, 0, [Record(where, 0, "", "", "", message, INPUT)]))
    return outcomes


def lines_in(outcomes: list[Outcome]) -> int:
    """The lines a range's outcomes cover (to place the next range's)."""
    return range_lines([outcome for outcome in outcomes if isinstance(outcome, Verdict)])


def line_offsets(parts: Sequence[Part], lines: Sequence[int]) -> list[int]:
    """For each part, the lines of its file that start before it (0 for whole files): the sum of
    the lines of the ranges before it in the same file."""
    offsets: list[int] = []
    running = 0
    for part, count in zip(parts, lines, strict=True):
        if not part.is_range or part.number == 0:
            running = 0
        offsets.append(running)
        running += count
    return offsets


def counted(part: Part, outcomes: list[Outcome], line_offset: int) -> Counted:
    """A part's outcomes placed in its file (``line_offset`` lines start before it) and counted
    in input order."""
    continues = part.names[0] if part.is_range and part.number > 0 else None
    totals = Totals(continues)
    records: list[Record] = []
    for outcome in outcomes:
        if isinstance(outcome, Verdict) and part.is_range and line_offset:
            outcome = placed([outcome], line_offset)[0]
        records += totals.add(outcome)
    return Counted(records, totals)


def merged(totals: Sequence[Totals]) -> Totals:
    """Consecutive parts' totals joined in order (a file cut into ranges counted once)."""
    joined = Totals()
    for later in totals:
        joined = joined.merged(later)
    return joined


def walked(run: Validation) -> Totals:
    """What walking the paths found (a path that does not exist...), counted: the totals before
    the first part. Its records are ``run.walk.records``."""
    totals = Totals()
    for record in run.walk.records:
        totals.count(record)
    return totals


def closed(totals: Totals, paths: Sequence[str]) -> Record | None:
    """The record that ends a run in which nothing was found (as the local run ends), counted in
    the totals of everything (``walked`` and every part, merged); None when something was."""
    closing = nothing_found(totals.tally, list(paths))
    return None if closing is None else totals.count(closing)
