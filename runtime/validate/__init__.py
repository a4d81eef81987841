"""``phi_wire.validate``: judge persisted JSON as strictly as its implementation reads it, at
scale: phi-core's, clark-agent's and Operator-Use's, each file's format recognised.

    from phi_wire.validate import validate

    run = validate(["sessions/", "logs/events.jsonl.gz"])
    for record in run:  # problems, input errors and notes, in input order
        print(record.text())  # file:line: Type Variant /json/pointer: what was expected, found
    print(run.tally.valid, run.tally.invalid, len(run.tally.input_errors))
    for file in run.files:
        print(file.file, file.label)  # the format each file was judged as: clark-agent 0.4

The paths (one, or an iterable of them) are files, folders and ``-`` (stdin). Under a folder, the
files named ``.json``, ``.jsonl`` or ``.ndjson`` (optionally ``.gz``, any letter case) are read,
hidden and vendored folders skipped (``_walk``). Each file's layout (one document, or one per line)
and compression are recognised from its first bytes (``_inputs``), and, unless ``format`` names one,
its format from its first lines (``_plan``, over ``phi_wire.recognise``; an Operator-Use session
file is read whole) or, for a .json file, from the document; JSON other formats write the same way
takes the format its folder's files show most (``_folder``), and the others that fit are named.
Under a folder, ``include``/``exclude`` patterns choose the files (``_select``). Each document is
judged exactly as its format's ``loads`` judges it (``_judge``, ``_formats``; with ``strict``, also
whether the implementation would write it so), its type detected from its keys unless ``type`` names
one; a phi-core, clark-agent, Operator-Use or pi document may be vouched for by the fast path
(``_fastpath`` over ``phi_wire.fastpath``), which can make a run slower, never change a verdict.
Lines are located in one pass per document (``_locate``). ``jobs`` > 1 spreads the work over
processes (``_parallel``). The ``phi-wire validate`` command (``phi_wire.cli``) prints the records
and exits with the status they imply.

Work is bounded per document: at most ``max_problems`` problems are reported (a ``MORE`` record
counts the rest), and a document (a ``.json`` file, a JSONL line) over ``max_document_bytes`` is
not judged (an ``INPUT`` record) and never held in memory whole.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence

from phi_wire import remote
from phi_wire.formats import FORMATS, UnknownVersion, find, version_elsewhere
from phi_wire.formats.phi_core.recognise import detect_raw as detect

from ._fastpath import fast_path_for, format_fast_paths, strict_path_for
from ._folder import forget_folders
from ._formats import SERDE_FORMATS
from ._inputs import input_size
from ._locate import line_of
from ._parallel import default_jobs, judge_files
from ._plan import forget_plans
from ._records import (
    AUTO,
    HOME_FORMAT,
    INPUT,
    MORE,
    NOTE,
    PROBLEM,
    FileStart,
    FileSummary,
    InputError,
    Judged,
    Record,
    Settings,
    Tally,
    Verdict,
    display_name,
)
from ._select import Selection
from ._totals import Totals
from ._walk import DOCUMENT, LINES, SKIPPED_FOLDERS, Walk, named_layout
from ._wording import byte_order_mark, explained

__all__ = [
    "AUTO",
    "DEFAULT_MAX_DOCUMENT_BYTES",
    "DEFAULT_MAX_PROBLEMS",
    "DOCUMENT",
    "FAST_BUILD_MIN_BYTES",
    "INPUT",
    "LINES",
    "MORE",
    "NOTE",
    "PROBLEM",
    "SERDE_FORMATS",
    "SKIPPED_FOLDERS",
    "FileSummary",
    "InputError",
    "Judged",
    "Paths",
    "Record",
    "Selection",
    "Settings",
    "Tally",
    "UnknownType",
    "Validation",
    "Walk",
    "byte_order_mark",
    "default_jobs",
    "default_version",
    "detect",
    "display_name",
    "explained",
    "line_of",
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


def default_version(format: str) -> str:
    """The version a format is judged as when none is given: phi-core's newest, clark-agent's
    ``0.4``, Operator-Use's ``d0da87a6`` (the layout ``phi_wire.operator_use`` writes)."""
    return versions_of(format)[0 if format == "operator-use" else -1]


def versions_of(format: str) -> tuple[str, ...]:
    from phi_wire.formats import versions

    return tuple(entry.version for entry in versions(format))


def wire_types(version: str | None = None, format: str = HOME_FORMAT) -> tuple[str, ...]:
    """The wire types of a version of a format (default: phi-core's newest), sorted: the types its
    schemas define, which ``--type`` and ``phi-wire types`` accept (not the API's helper
    classes)."""
    entry = find(version or default_version(format), format)
    return tuple(sorted(entry.load().WIRE_TYPES))


def prepare_fast_paths(settings: Settings, names: list[str]) -> None:
    """Load the fast paths the inputs need from the cache, or build one when its inputs are worth
    a second of compiling: one for JSONL lines, one for whole .json documents (one with a type).
    clark-agent's JSONL files have one per type (``_fastpath.format_fast_paths``). With --strict,
    only phi-core's for whole .json documents, the canonical one (``strict_path_for``)."""
    sizes = {True: 0, False: 0}  # lines or not: bytes
    lines_files: list[tuple[str, int]] = []
    for name in names:
        if name != "-":
            size = input_size(name)
            lines = named_layout(name) != DOCUMENT
            sizes[lines] += size
            if lines:
                lines_files.append((name, size))
    if settings.strict:  # --strict: phi-core's .json documents only (``strict_path_for``)
        if settings.format in (HOME_FORMAT, AUTO) and sizes[False]:
            build = sizes[False] >= FAST_BUILD_MIN_BYTES
            strict_path_for(settings.version, settings.forced, build=build)
        return
    format_fast_paths(settings, lines_files)
    if settings.format not in (HOME_FORMAT, AUTO):
        return
    if settings.forced is not None:
        build = sum(sizes.values()) >= FAST_BUILD_MIN_BYTES
        fast_path_for(settings.version, settings.forced, build=build)
        return
    for lines, size in sizes.items():
        if size:
            fast_path_for(settings.version, None, build=size >= FAST_BUILD_MIN_BYTES, lines=lines)


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
        selection: Selection | None = None,
    ) -> None:
        self.paths = list(paths)
        self.settings = settings
        self.jobs = jobs
        self.on_progress = on_progress
        """Called with the bytes of each chunk of input as it is done."""
        self.walk = Walk(self.paths, all_folders, selection)
        self.names = self.walk.names
        """The files to read, in order (``-``: stdin)."""
        self.tally = Tally()
        self.files: list[FileSummary] = []
        """One summary per file read, in order, added as each file ends."""
        self.complete = False
        """Whether the iteration ran to its end (not stopped early by the caller)."""

    @property
    def version(self) -> str:
        """The version of the format given, or with ``AUTO`` phi-core's."""
        return self.settings.version

    @property
    def format(self) -> str:
        """The format given, or ``AUTO``."""
        return self.settings.format

    @property
    def label(self) -> str:
        """The format and version the run judges by when no document names one: the format
        given (``clark-agent 0.4``, ``operator-use d0da87a6``), or with ``AUTO`` phi-core's
        (``phi-core 0.10``); what a summary names when nothing was judged."""
        format = HOME_FORMAT if self.format == AUTO else self.format
        return find(self.version, format).label

    @property
    def total_bytes(self) -> int:
        """The bytes the named regular files hold (stdin and FIFOs not counted; gzip:
        uncompressed)."""
        return sum(input_size(name) for name in self.names)

    def __iter__(self) -> Iterator[Record]:
        totals = Totals()
        self.tally = totals.tally
        forget_folders()
        forget_plans()
        for record in self.walk.records:
            yield totals.count(record)
        prepare_fast_paths(self.settings, self.names)
        for outcome in judge_files(self.names, self.settings, self.jobs):
            if isinstance(outcome, FileStart) and totals.files:
                self.files.append(totals.files[-1].summary())  # the file before it is done
            yield from totals.add(outcome)
            if self.on_progress is not None and isinstance(outcome, Verdict) and outcome.size:
                self.on_progress(outcome.size)
        if totals.files:
            self.files.append(totals.files[-1].summary())
        closing = nothing_found(self.tally, self.paths)
        if closing is not None:
            yield totals.count(closing)
        self.complete = True


def nothing_found(tally: Tally, paths: list[str]) -> Record | None:
    """The record that ends a run in which no document was found and nothing failed to be read."""
    if tally.documents == 0 and not tally.input_errors:
        where = ", ".join(paths)
        return Record(where, 0, "", "", "", "nothing to validate: no documents found", INPUT)
    return None


Paths = str | os.PathLike[str] | Iterable[str | os.PathLike[str]]
"""What ``validate`` reads: one path (a ``str`` or ``pathlib.Path``), or any number of them."""


def path_names(paths: Paths) -> list[str]:
    """``paths`` as a list of names: a bare ``str`` or ``PathLike`` is one path (a string is
    never read as its characters); anything but text paths raises ``TypeError``."""
    items = [paths] if isinstance(paths, str | os.PathLike) else paths
    if isinstance(items, bytes | bytearray):
        raise TypeError("validate: paths are str or os.PathLike[str], not bytes")
    names: list[str] = []
    for item in items:
        name = os.fspath(item) if isinstance(item, str | os.PathLike) else item
        if not isinstance(name, str):
            raise TypeError(f"validate: paths are str or os.PathLike[str], not {item!r}")
        names.append(name)
    return names


def validate(
    paths: Paths,
    *,
    format: str = AUTO,
    version: str | None = None,
    type: str | None = None,
    strict: bool = False,
    jobs: int = 1,
    max_problems: int = DEFAULT_MAX_PROBLEMS,
    max_document_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES,
    all_folders: bool = False,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    on_progress: Callable[[int], None] | None = None,
) -> Validation:
    """Judge the documents in ``paths`` (files, folders, ``-`` for stdin) as their
    implementation reads them; iterate the result for the records, in input order. ``paths`` is
    one path (``"sessions/"``, a ``pathlib.Path``) or an iterable of them.

    ``format``: ``"auto"`` (each file's format is recognised from its documents: phi-core,
    clark-agent or Operator-Use, and pi or yoagent named but not judged; phi-core when nothing
    names one), or the format every document is judged as. ``version``: that format's version
    (default: phi-core's newest, clark-agent's 0.4, Operator-Use's d0da87a6); with ``"auto"``,
    phi-core's. ``type`` judges every document as that wire type (with ``"auto"``, phi-core's:
    a type implies a format; else each one's type is detected from its keys); ``strict`` also
    flags what the implementation accepts but never writes (and, for a pi-ai message phi-core
    reads, each key phi-core drops); ``jobs`` worker processes; ``max_problems`` problems per
    document at most; ``max_document_bytes`` the size limit of one document; ``all_folders``
    also walks hidden and vendored folders; ``include`` and ``exclude`` are glob patterns that
    choose the files read under the folders named (``Selection``: a pattern without ``/``
    matches a file's or folder's name at any depth, one with ``/`` the path from the folder
    named, ``**`` any number of folders; files named are always read); ``on_progress(bytes)`` is
    called as each chunk of input is done.

    Nothing in the inputs raises: a path that does not exist, a file that cannot be read, a
    document over the limit are ``INPUT`` records. Bad arguments raise ``ValueError``:
    ``UnknownVersion`` (from ``phi_wire.formats``: an unknown format or version),
    ``UnknownType``, a count below 1; paths that are not text (``bytes``) raise ``TypeError``.
    """
    names = path_names(paths)
    for name in names:
        if remote.is_url(name):
            remote.require(name)  # MissingExtra: one line naming the extra to install
    if format != AUTO and format not in FORMATS:
        raise UnknownVersion(f"unknown format {format!r}; choose one of auto, {', '.join(FORMATS)}")
    if format == AUTO and type is not None:
        format = HOME_FORMAT  # a type is one format's: phi-core's unless a format is given
    named = HOME_FORMAT if format == AUTO else format
    try:
        entry = find(version if version is not None else default_version(named), named)
    except UnknownVersion as error:
        elsewhere = version_elsewhere(version or "", named) if format == AUTO else None
        if elsewhere is None:
            raise
        raise UnknownVersion(
            f"{error}: with format auto the version is phi-core's; name the format too "
            f"(--format {elsewhere.format})"
        ) from None
    if type is not None and type not in wire_types(entry.version, named):
        raise UnknownType(
            f"{type!r} is not a wire type of {entry.label}; "
            f"`phi-wire types{'' if named == HOME_FORMAT else ' --format ' + named}` lists them"
        )
    for label, count in (
        ("jobs", jobs),
        ("max_problems", max_problems),
        ("max_document_bytes", max_document_bytes),
    ):
        if count < 1:
            raise ValueError(f"{label} must be at least 1, not {count}")
    settings = Settings(entry.version, type, strict, max_problems, max_document_bytes, format)
    selection = Selection(include, exclude)
    return Validation(names, settings, jobs, all_folders, on_progress, selection)
