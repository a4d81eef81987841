"""What a run's outcomes add up to: the run's ``Tally`` and each file's ``FileSummary``, counted
from the stream of outcomes in input order (a file begins, verdicts on its chunks) and records.

Counting is the same wherever the outcomes come from: one process reading the files in order, or
parts of the run judged apart (a byte range of a file, a batch of files) whose totals are
``merged`` in input order, as a cluster's reduction does (``phi_wire.validate.parts``). A part
that starts inside a file (a byte range after the first) carries that file's counts without its
start; merging joins them to the file they continue.
"""

from __future__ import annotations

from ._records import (
    INPUT,
    MORE,
    NOTE,
    PROBLEM,
    FileStart,
    FileSummary,
    Judged,
    Outcome,
    Record,
    Tally,
)

__all__ = ["FileCounts", "Totals"]


class FileCounts:
    """What one file has yielded so far (for its ``FileSummary``); ``start`` is None for the
    counts of a part that continues a file begun in an earlier part."""

    def __init__(self, file: str, start: FileStart | None) -> None:
        self.file = file
        self.start = start
        self.documents = self.invalid = self.unjudged = self.bytes = self.input_errors = 0
        self.judged: dict[Judged, None] = {}

    def add(self, later: FileCounts) -> None:
        """The counts of the part that continues this file, added."""
        self.documents += later.documents
        self.invalid += later.invalid
        self.unjudged += later.unjudged
        self.bytes += later.bytes
        self.input_errors += later.input_errors
        for judged in later.judged:
            self.judged.setdefault(judged, None)

    def summary(self) -> FileSummary:
        start = self.start
        assert start is not None, "a file's counts are summed up once its start is known"
        return FileSummary(
            start.file,
            start.layout,
            start.named,
            start.gzip,
            self.documents,
            self.invalid,
            self.unjudged,
            self.bytes,
            self.input_errors,
            tuple(self.judged),
        )


class Totals:
    """A run's counts so far: ``add`` each outcome and ``count`` each record, in input order;
    ``merged`` joins the totals of consecutive parts."""

    def __init__(self, continues: str | None = None) -> None:
        """``continues``: the file a part starting inside it continues (its start is counted in
        an earlier part)."""
        self.tally = Tally()
        self.files: list[FileCounts] = []
        """Each file's counts in input order; the last may still grow."""
        if continues is not None:
            self.files.append(FileCounts(continues, None))

    def add(self, outcome: Outcome) -> list[Record]:
        """A file begins, or a verdict on a chunk of the current file: counted; returns the
        verdict's records, each counted."""
        tally = self.tally
        if isinstance(outcome, FileStart):
            self.files.append(FileCounts(outcome.file, outcome))
            tally.files += 1
            return []
        tally.documents += outcome.documents
        tally.invalid += outcome.invalid
        tally.unjudged += outcome.unjudged
        tally.bytes += outcome.size
        if self.files:
            current = self.files[-1]
            current.documents += outcome.documents
            current.invalid += outcome.invalid
            current.unjudged += outcome.unjudged
            current.bytes += outcome.size
            current.input_errors += sum(record.kind == INPUT for record in outcome.records)
            for judged in outcome.judged:
                current.judged.setdefault(judged, None)
        return [self.count(record) for record in outcome.records]

    def count(self, record: Record) -> Record:
        """A record counted by its kind; returned as it is."""
        tally = self.tally
        if record.kind == PROBLEM:
            tally.problems += 1
        elif record.kind == INPUT:
            tally.input_errors.append(record)
        elif record.kind == NOTE:
            tally.notes.append(record)
        elif record.kind == MORE:
            tally.omitted += record.omitted
        return record

    def merged(self, later: Totals) -> Totals:
        """These totals followed by those of the next part of the run (a new object)."""
        joined = Totals()
        for name in ("files", "documents", "invalid", "unjudged", "bytes", "problems", "omitted"):
            setattr(joined.tally, name, getattr(self.tally, name) + getattr(later.tally, name))
        joined.tally.input_errors = self.tally.input_errors + later.tally.input_errors
        joined.tally.notes = self.tally.notes + later.tally.notes
        files = [_copy(counts) for counts in self.files]
        rest = later.files
        if rest and rest[0].start is None and files and files[-1].file == rest[0].file:
            files[-1].add(rest[0])
            rest = rest[1:]
        joined.files = files + [_copy(counts) for counts in rest]
        return joined

    def summaries(self) -> list[FileSummary]:
        """Each file's summary, in input order (every file's start counted)."""
        return [counts.summary() for counts in self.files]


def _copy(counts: FileCounts) -> FileCounts:
    copied = FileCounts(counts.file, counts.start)
    copied.add(counts)
    return copied
