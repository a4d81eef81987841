"""``phi_wire.dask``: the validator on a Dask cluster (``pip install 'phi-wire[dask]'``), for
archives past one machine: the same records and summary as ``phi_wire.validate``, computed by
Dask's workers, which read the files (or ``s3://...`` objects) themselves.

    from phi_wire.dask import validate

    run = validate("s3://logs/2025-*/*.jsonl.gz", client=client)
    records, summary = run.compute()         # the records in input order, the summary
    problems = run.records.filter(lambda r: r.kind == "problem")   # a dask.bag.Bag

How the work is cut (``phi_wire.validate.parts``): an uncompressed JSONL file larger than
``block_bytes`` is split into byte ranges that never cut a line (a range owns the lines that
start in it); a gzip file is one task, since DEFLATE can only be inflated from the stream's
start (no offset in the middle is a place to begin); a whole-document file (a pretty session) is
one task; small files are batched up to a block. Lines are numbered from each file's start once
the ranges before have counted theirs, and the summary (files, documents, valid, invalid, bytes,
each file's format) is reduced on the cluster, parts joined in input order.

The records are a ``dask.bag.Bag`` of ``phi_wire.validate.Record`` (named tuples, as the local
run yields them), not a dataframe: most runs have few records and many parts with none, records
of different kinds carry different fields (``omitted``, ``format``), and a bag keeps them the
objects the local API gives; ``run.records.to_dataframe()`` makes a dataframe when wanted.
The tasks are pure: a worker lost mid-run costs its tasks recomputed elsewhere, never a record
lost or repeated.

The converter too (``convert``, in ``_convert``): one task per input file (a conversion needs
the whole file), each output written by its worker atomically under ``out`` (a folder or a URL
prefix) as ``phi-wire convert -o OUT/`` names and writes it, the losses counted per kind on the
cluster, and a loss report file:

    from phi_wire.dask import convert

    run = convert("s3://logs/2025-*/", target="phi-core", out="s3://logs-v10/",
                  loss_report="s3://logs-v10/losses.jsonl", client=client)
    outcomes, totals = run.compute()       # each input's Outcome; totals.kinds: losses per kind

A worker killed mid-write leaves a temporary (never a partial output): the run's temporaries
carry its own tag (``new_tag``), and ``compute`` removes them when it ends (``swept``), from the
output folder or prefix and from each worker's staging folder; nothing else is touched.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from phi_wire.validate import (
    AUTO,
    DEFAULT_MAX_DOCUMENT_BYTES,
    DEFAULT_MAX_PROBLEMS,
    FileSummary,
    Paths,
    Record,
    Tally,
    Validation,
)
from phi_wire.validate import validate as validate_here
from phi_wire.validate.parts import (
    Counted,
    Part,
    Totals,
    closed,
    counted,
    judge,
    line_offsets,
    lines_in,
    merged,
    split,
    walked,
)

from ._convert import (
    ConvertTotals,
    DaskConversion,
    Outcome,
    conversion_graph,
    convert,
    temporaries_in,
)
from ._extra import require
from ._sweep import new_tag, swept

if TYPE_CHECKING:
    from dask.bag import Bag
    from dask.delayed import Delayed
    from distributed import Client

__all__ = [
    "BLOCK_BYTES",
    "REDUCE_EVERY",
    "ConvertTotals",
    "DaskConversion",
    "DaskValidation",
    "Outcome",
    "Summary",
    "conversion_graph",
    "convert",
    "new_tag",
    "require",
    "swept",
    "temporaries_in",
    "validate",
]

BLOCK_BYTES = 64 * 1024 * 1024
"""A task's input at most (uncompressed JSONL; a gzip or whole-document file is one task
whatever its size): some seconds of one worker's time, against the scheduler's milliseconds
per task. A worker's memory does not grow with it: the files are read in chunks of a few MB
(``phi_wire.validate``'s reader) and only the records are kept."""
REDUCE_EVERY = 16
"""Parts' totals joined per task of the summary's tree reduction."""


class Summary(NamedTuple):
    """What a run adds up to, computed on the cluster: the tally, and each file's summary."""

    tally: Tally
    files: list[FileSummary]


class DaskValidation:
    """A run of the validator as Dask collections: ``records`` (a bag, in input order) and
    ``summary`` (a delayed ``Summary``). ``compute()`` computes both in one pass over the data
    (computing them one at a time judges the files twice)."""

    def __init__(self, run: Validation, parts: list[Part], client: Client | None) -> None:
        self.run = run
        """The local description of the run (its paths, walk, settings); ``compute`` fills its
        ``tally`` and ``files`` as a local iteration would."""
        self.parts = parts
        self.client = client
        self.records, self.summary = _graph(run, parts)

    def compute(self) -> tuple[list[Record], Summary]:
        """The records (in input order, as ``phi_wire.validate`` yields them) and the summary."""
        from dask.base import compute

        if self.client is not None:
            futures = self.client.compute([self.records, self.summary])
            records, summary = self.client.gather(futures)
        else:
            records, summary = compute(self.records, self.summary)
        return self.settled(list(records), summary)

    def settled(self, records: list[Record], summary: Summary) -> tuple[list[Record], Summary]:
        """Computed results as the run's own: ``run.tally``, ``run.files``, ``run.complete``
        filled in (for a caller that has computed ``records`` and ``summary`` itself)."""
        self.run.tally, self.run.files, self.run.complete = summary.tally, summary.files, True
        return records, summary


def validate(
    paths: Paths,
    *,
    format: str | None = None,
    version: str | None = None,
    strict: bool = False,
    client: Client | None = None,
    type: str | None = None,
    max_problems: int = DEFAULT_MAX_PROBLEMS,
    max_document_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES,
    all_folders: bool = False,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    block_bytes: int = BLOCK_BYTES,
) -> DaskValidation:
    """Judge ``paths`` (files, folders, globs, URLs) on a Dask cluster: the arguments are
    ``phi_wire.validate.validate``'s (``format`` None: each file's recognised), ``client`` the
    cluster's (None: whatever scheduler Dask uses when the result is computed), ``block_bytes``
    the input of one task at most (less when the input is small for the cluster's workers).
    Walks the paths here (listing prefixes, matching globs) and reads the first lines of each big
    file to split it; the files themselves are read by the workers.
    ``MissingExtra`` without dask; bad arguments raise as ``phi_wire.validate.validate`` does."""
    require()
    run = validate_here(
        paths,
        format=AUTO if format is None else format,
        version=version,
        type=type,
        strict=strict,
        max_problems=max_problems,
        max_document_bytes=max_document_bytes,
        all_folders=all_folders,
        include=include,
        exclude=exclude,
    )
    if "-" in run.names:
        raise ValueError("standard input (-) cannot be read by a cluster's workers: name files")
    workers = default_workers() if client is None else len(client.scheduler_info()["workers"])
    return DaskValidation(run, split(run, block_bytes, max(1, workers)), client)


def _graph(run: Validation, parts: list[Part]) -> tuple[Bag, Delayed]:
    """The records bag and the summary of a run's parts: per part a task judging it, one placing
    and counting its records (after the ranges before it in its file have counted their lines),
    and a tree of tasks joining the counts in order."""
    from dask.bag import from_delayed
    from dask.delayed import delayed

    settings = run.settings
    run_id = uuid.uuid4().hex  # workers forget what folders held when a new run starts
    judged = [
        delayed(judge, pure=True)(part, settings, run_id, dask_key_name=f"judge-{run_id}-{i}")
        for i, part in enumerate(parts)
    ]
    lines = [delayed(lines_in, pure=True)(outcomes) for outcomes in judged]
    placed: list[Delayed] = []
    offsets_by_file: dict[int, Any] = {}  # Delayed lists: indexable
    for i, part in enumerate(parts):
        offset: Any = 0
        if part.is_range and part.number > 0:
            first = i - part.number  # the file's first range
            if first not in offsets_by_file:
                ranges = [first]  # the file's ranges follow one another
                while _same_file(parts, first, ranges[-1] + 1):
                    ranges.append(ranges[-1] + 1)
                offsets_by_file[first] = delayed(line_offsets, pure=True)(
                    [parts[j] for j in ranges], [lines[j] for j in ranges]
                )
            offset = offsets_by_file[first][part.number]
        placed.append(delayed(counted, pure=True)(part, judged[i], offset))
    walk_records = run.walk.records
    before = walked(run)
    record_parts = [delayed(_records, pure=True)(count) for count in placed]
    totals: list[Any] = [delayed(_totals, pure=True)(count) for count in placed]
    while len(totals) > 1:
        totals = [
            delayed(merged, pure=True)(totals[i : i + REDUCE_EVERY])
            for i in range(0, len(totals), REDUCE_EVERY)
        ]
    everything = delayed(_summed, pure=True)(before, totals[0] if totals else Totals(), run.paths)
    closing = delayed(_closing, pure=True)(everything)
    records = from_delayed([delayed(list)(walk_records), *record_parts, closing])
    summary = delayed(_summary, pure=True)(everything)
    return records, summary


def _same_file(parts: list[Part], first: int, j: int) -> bool:
    """Whether part ``j`` is a range of the file whose first range is part ``first``."""
    if j >= len(parts):
        return False
    later = parts[j]
    return later.is_range and later.names == parts[first].names and later.number == j - first


def _records(count: Counted) -> list[Record]:
    return count.records


def _totals(count: Counted) -> Totals:
    return count.totals


class _Everything(NamedTuple):
    totals: Totals
    closing: Record | None


def _summed(before: Totals, after: Totals, paths: list[str]) -> _Everything:
    """The walk's totals and the parts', with the record closing a run that found nothing."""
    joined = before.merged(after)
    return _Everything(joined, closed(joined, paths))


def _closing(everything: _Everything) -> list[Record]:
    return [] if everything.closing is None else [everything.closing]


def _summary(everything: _Everything) -> Summary:
    return Summary(everything.totals.tally, everything.totals.summaries())


def default_workers() -> int:
    """Worker processes of a ``LocalCluster`` sized to this machine: one single-threaded worker
    per core (judging holds the GIL)."""
    return max(1, os.cpu_count() or 1)
