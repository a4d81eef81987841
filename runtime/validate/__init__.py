"""``phi_wire.validate``: judge persisted JSON as strictly as phi-core reads it, at scale.

    from phi_wire.validate import validate

    run = validate(["sessions/", "logs/events.jsonl.gz"], version="0.10")
    for record in run:  # problems, input errors and notes, in input order
        print(record.text())  # file:line: Type Variant /json/pointer: what was expected, found
    print(run.tally.valid, run.tally.invalid, len(run.tally.input_errors), run.files)

The paths are files, folders and ``-`` (stdin). Under a folder, the files named ``.json``,
``.jsonl`` or ``.ndjson`` (optionally ``.gz``, any letter case) are read, hidden and vendored
folders skipped (``_walk``). Each file's layout (one document, or one per line) and compression
are recognised from its first bytes (``_inputs``). Each document's type is detected from its keys
(``_detect``) unless ``type`` names one, and it is judged exactly as ``loads`` judges it
(``_judge``; with ``strict``, also whether phi-core would write it so), unless the fast path
vouches for it (``_fastpath``: an expression compiled by ``_pattern`` from the models, matched
against compact text made by ``_compact``, cached between runs by ``_cache``), which can make a
run slower, never change a verdict. Lines are located in one pass per document (``_locate``).
``jobs`` > 1 spreads the work over processes (``_parallel``). The ``phi-wire validate`` command
(``phi_wire.cli``) prints the records and exits with the status they imply.

Work is bounded per document: at most ``max_problems`` problems are reported (a ``MORE`` record
counts the rest), and a document (a ``.json`` file, a JSONL line) over ``max_document_bytes`` is
not judged (an ``INPUT`` record) and never held in memory whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from phi_wire.formats import find, newest

from ._detect import detect_raw as detect
from ._fastpath import fast_path_for
from ._inputs import input_size
from ._parallel import default_jobs, judge_files
from ._records import (
    INPUT,
    MORE,
    NOTE,
    PROBLEM,
    FileStart,
    FileSummary,
    InputError,
    Record,
    Settings,
    Tally,
)
from ._walk import DOCUMENT, LINES, SKIPPED_FOLDERS, Walk, named_layout

__all__ = [
    "DEFAULT_MAX_DOCUMENT_BYTES",
    "DEFAULT_MAX_PROBLEMS",
    "DOCUMENT",
    "FAST_BUILD_MIN_BYTES",
    "INPUT",
    "LINES",
    "MORE",
    "NOTE",
    "PROBLEM",
    "SKIPPED_FOLDERS",
    "FileSummary",
    "InputError",
    "Record",
    "Settings",
    "Tally",
    "UnknownType",
    "Validation",
    "default_jobs",
    "detect",
    "validate",
    "wire_types",
]

DEFAULT_MAX_PROBLEMS = 100
"""Problems reported per document by default; a ``MORE`` record counts the others."""
DEFAULT_MAX_DOCUMENT_BYTES = 128 * 1024 * 1024
"""The default size limit of one document (a .json file, a JSONL line; gzip: uncompressed):
enough for the largest sessions phi-core writes, small enough that an invalid one (which goes
through the models at about ten times its size) fits in memory."""
FAST_BUILD_MIN_BYTES = 16 * 1024 * 1024
"""Inputs from this size on build the fast path when it is not cached (compiling it takes about a
second; ``loads`` judges some 10 MB a second)."""


class UnknownType(ValueError):
    """A type name that is not a wire type of the version; the message says how to list them."""


def wire_types(version: str | None = None) -> tuple[str, ...]:
    """The wire types of a phi-core version (default: the newest), sorted: the types its schemas
    define, which ``--type`` and ``phi-wire types`` accept (not the API's helper classes)."""
    entry = newest() if version is None else find(version)
    return tuple(sorted(entry.load().WIRE_TYPES))


def prepare_fast_paths(settings: Settings, names: list[str]) -> None:
    """Load the fast paths the inputs need from the cache, or build one when its inputs are worth
    a second of compiling: one for JSONL lines, one for whole .json documents (one with a type)."""
    sizes = {True: 0, False: 0}  # lines or not: bytes
    for name in names:
        if name != "-":
            sizes[named_layout(name) != DOCUMENT] += input_size(name)
    if settings.forced is not None:
        build = sum(sizes.values()) >= FAST_BUILD_MIN_BYTES
        fast_path_for(settings.version, settings.forced, build=build)
        return
    for lines, size in sizes.items():
        if size:
            fast_path_for(settings.version, None, build=size >= FAST_BUILD_MIN_BYTES, lines=lines)


class _FileCounts:
    """What one file has yielded so far (for its ``FileSummary``)."""

    def __init__(self, start: FileStart) -> None:
        self.start = start
        self.documents = self.invalid = self.unjudged = self.bytes = self.input_errors = 0

    def summary(self) -> FileSummary:
        start = self.start
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
        )


class Validation:
    """One run of the validator: iterate it once for the records (first what walking the paths
    found, a path that does not exist..., then each file's in input order); ``tally`` and
    ``files`` fill in as it goes, ``complete`` says whether everything was judged."""

    def __init__(
        self,
        paths: Iterable[str],
        settings: Settings,
        jobs: int,
        all_folders: bool,
        on_progress: Callable[[int], None] | None,
    ) -> None:
        self.paths = list(paths)
        self.settings = settings
        self.jobs = jobs
        self.on_progress = on_progress
        """Called with the bytes of each chunk of input as it is done."""
        self.walk = Walk(self.paths, all_folders)
        self.names = self.walk.names
        """The files to read, in order (``-``: stdin)."""
        self.tally = Tally()
        self.files: list[FileSummary] = []
        """One summary per file read, in order, added as each file ends."""
        self.complete = False
        """Whether the iteration ran to its end (not stopped early by the caller)."""

    @property
    def version(self) -> str:
        return self.settings.version

    @property
    def total_bytes(self) -> int:
        """The bytes the named regular files hold (stdin and FIFOs not counted; gzip:
        uncompressed)."""
        return sum(input_size(name) for name in self.names)

    def __iter__(self) -> Iterator[Record]:
        tally = self.tally
        for record in self.walk.records:
            yield self._counted(record)
        if not self.settings.strict:
            prepare_fast_paths(self.settings, self.names)
        current: _FileCounts | None = None
        for outcome in judge_files(self.names, self.settings, self.jobs):
            if isinstance(outcome, FileStart):
                if current is not None:
                    self.files.append(current.summary())
                current = _FileCounts(outcome)
                tally.files += 1
                continue
            tally.documents += outcome.documents
            tally.invalid += outcome.invalid
            tally.unjudged += outcome.unjudged
            tally.bytes += outcome.size
            if current is not None:
                current.documents += outcome.documents
                current.invalid += outcome.invalid
                current.unjudged += outcome.unjudged
                current.bytes += outcome.size
                current.input_errors += sum(r.kind == INPUT for r in outcome.records)
            if self.on_progress is not None and outcome.size:
                self.on_progress(outcome.size)
            for record in outcome.records:
                yield self._counted(record)
        if current is not None:
            self.files.append(current.summary())
        if tally.documents == 0 and not tally.input_errors:
            where = ", ".join(self.paths)
            yield self._counted(
                Record(where, 0, "", "", "", "nothing to validate: no documents found", INPUT)
            )
        self.complete = True

    def _counted(self, record: Record) -> Record:
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


def validate(
    paths: Iterable[str],
    *,
    version: str | None = None,
    type: str | None = None,
    strict: bool = False,
    jobs: int = 1,
    max_problems: int = DEFAULT_MAX_PROBLEMS,
    max_document_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES,
    all_folders: bool = False,
    on_progress: Callable[[int], None] | None = None,
) -> Validation:
    """Judge the documents in ``paths`` (files, folders, ``-`` for stdin) as phi-core ``version``
    (default: the newest) reads them; iterate the result for the records, in input order.

    ``type`` judges every document as that wire type (else each one's type is detected from its
    keys); ``strict`` also flags what phi-core accepts but never writes; ``jobs`` worker
    processes; ``max_problems`` problems per document at most; ``max_document_bytes`` the size
    limit of one document; ``all_folders`` also walks hidden and vendored folders;
    ``on_progress(bytes)`` is called as each chunk of input is done.

    Nothing in the inputs raises: a path that does not exist, a file that cannot be read, a
    document over the limit are ``INPUT`` records. Bad arguments raise ``ValueError``:
    ``UnknownVersion`` (from ``phi_wire.formats``), ``UnknownType``, a count below 1.
    """
    entry = newest() if version is None else find(version)
    if type is not None and type not in wire_types(entry.version):
        raise UnknownType(
            f"{type!r} is not a wire type of phi-core {entry.version}; `phi-wire types` lists them"
        )
    for label, count in (
        ("jobs", jobs),
        ("max_problems", max_problems),
        ("max_document_bytes", max_document_bytes),
    ):
        if count < 1:
            raise ValueError(f"{label} must be at least 1, not {count}")
    settings = Settings(entry.version, type, strict, max_problems, max_document_bytes)
    return Validation(paths, settings, jobs, all_folders, on_progress)
