"""Which fast path (``phi_wire.fastpath``) a run of the validator uses: for JSONL lines or whole
documents, for the types detection tells apart or the one ``--type`` names, or (clark-agent, whose
reader is the same serde codec) the one type a file's first lines have; loaded once per process
(forked workers inherit it), from the cache, or built when the input is worth a second of compiling.
"""

from __future__ import annotations

import os
import stat

from phi_wire.fastpath import (
    FORMATS,
    CanonicalPath,
    FastPath,
    SessionFilePath,
    canonical_path,
    fast_path,
)
from phi_wire.formats.phi_core.recognise import detected_as
from phi_wire.formats.pi import recognise as pi
from phi_wire.recognise import Recognised

from ._formats import reader
from ._inputs import Chunk
from ._plan import HEAD_BYTES, plan_file_lines
from ._records import AUTO, HOME_FORMAT, Judged, Settings

__all__ = [
    "AUTO_DOCUMENT_TYPES",
    "AUTO_LINE_TYPES",
    "FORMATS",
    "SESSION_FILE_TYPES",
    "CanonicalPath",
    "FastPath",
    "SessionFilePath",
    "chunk_fast_path",
    "fast_path",
    "fast_path_for",
    "format_fast_paths",
    "session_file_path",
    "strict_path_for",
]

AUTO_LINE_TYPES = ("AgentEvent", "AgentMessage")
"""Types the fast path of JSONL knows without --type: what event and message logs hold."""
FORMAT_BUILD_MIN_BYTES = 4 * 1024 * 1024
"""Inputs of another format from this size on build its fast path when it is not cached: one type's
expression compiles in 0.05-0.4 s, and its exact path judges some 10-20 MB a second."""
SLOW_BUILD_MIN_BYTES = {("pi", "AgentEvent"): 16 * 1024 * 1024}
"""Types whose expression takes seconds to compile build it from a bigger size: pi's event files
(1.5's takes the RPC responses too: 1.6 MB of expression, some 3-6 s to compile, against an exact
path of 2-4 MB a second)."""
PLAN_MIN_BYTES = 1024 * 1024
"""The JSONL files whose first lines ``format_fast_paths`` reads to tell their kind (a smaller one
costs more to read twice than its share of a build saves)."""
FIRST_LOOK_BYTES = 128 * 1024
"""What is read of a file to plan it first (the rest of ``HEAD_BYTES`` only when its first lines
do not decide: ``_plan.plan_file_lines``)."""
AUTO_DOCUMENT_TYPES = ("Session",)
"""Types the fast path of .json files knows without --type: the files phi-core writes
(``save_session``, pretty)."""


SESSION_FILE_TYPES = {
    "operator-use": ("SessionHeader", "SessionFileEntry"),
    "pi": ("SessionHeader", "SessionEntry"),
}
"""Formats whose session files (JSONL read whole) the fast path vouches for: their header's and
their entries' types."""
PI_SESSION_FILE_NAMES = {"pi": ("Session",)}
"""What --type names a whole session file as besides ``SessionFile`` (pi: ``Session``)."""
PI_SESSION_HEADER_START = b'{"type":"session","version":3,'
"""How a pi session file's header line starts when ``SessionManager.open()`` migrates nothing
(version 3, written second by pi; the expression takes every key once, so this is its version)."""

_FAST: dict[tuple[str | bool | None, ...], FastPath | None] = {}
"""Per (format, version, type, lines[, "shaped"]): the fast path loaded, or None."""
_STRICT: dict[tuple[str, str | None], CanonicalPath | None] = {}


def fast_path_for(
    version: str,
    forced: str | None,
    build: bool = False,
    lines: bool = True,
    format: str = HOME_FORMAT,
    shaped: bool = False,
) -> FastPath | None:
    """The fast path for this version and --type, for JSONL lines or for whole .json documents:
    once per process (forked workers inherit it), from the cache, or built when ``build`` (worth
    its second of compiling on big inputs). A format other than phi-core has one only for one
    type (``forced``: what --type names, or what a file's first lines are), and only when its
    reader is the serde codec (``FORMATS``); else None. ``shaped``: ``forced`` is what a file's
    first lines are, so that a line it rejects is read as its own shape's type (pi's)."""
    if format != HOME_FORMAT and (forced is None or format not in FORMATS):
        return None
    if forced is not None:
        lines = True  # one type: the same expression serves both
    shaped = shaped and format == "pi"
    key: tuple[str | bool | None, ...] = (format, version, forced, lines)
    key += ("shaped",) if shaped else ()
    if key not in _FAST or (_FAST[key] is None and build):
        if forced is not None:
            read_as = _read_as(format, version, forced, shaped)
            _FAST[key] = fast_path(version, read_as, None, build, format)
        else:
            types = AUTO_LINE_TYPES if lines else AUTO_DOCUMENT_TYPES
            _FAST[key] = fast_path(version, types, detected_as, build)
    return _FAST[key]


def strict_path_for(version: str, forced: str | None, build: bool = False) -> CanonicalPath | None:
    """--strict's fast path for phi-core's whole documents of this version and --type (without
    one, the automatic types of .json files): once per process (forked workers inherit it), from
    the cache, or built when ``build``."""
    key = (version, forced)
    if key not in _STRICT or (_STRICT[key] is None and build):
        if forced is not None:
            _STRICT[key] = canonical_path(version, [forced], False, build)
        else:
            _STRICT[key] = canonical_path(version, AUTO_DOCUMENT_TYPES, True, build)
    return _STRICT[key]


def _read_as(format: str, version: str, name: str, shaped: bool) -> list[str]:
    """The types a document read as ``name`` is accepted as: pi reads one its type rejects as the
    wider types in turn (``WIDER_TYPES``: an ``AgentEvent`` line may be the coding agent's or the
    CLI's), then, ``shaped``, as its shape's type (``_fastpath_pi``); the others as ``name``."""
    wider = pi.WIDER_TYPES.get(name, ()) if format == "pi" else ()
    own = reader(format, version)
    types = [name, *(other for other in wider if own.has_type(other))]
    if shaped:  # and the types pi's recogniser surely names its other lines
        from ._fastpath_pi import also_read_as

        types += also_read_as(own.module, name)
    return types


def session_file_path(format: str, version: str, build: bool = False) -> SessionFilePath | None:
    """The fast path for a whole session file of ``format`` (None: it has none, or it is not
    cached and not ``build``)."""
    types = SESSION_FILE_TYPES.get(format)
    if types is None:
        return None
    header = fast_path_for(version, types[0], build, format=format)
    entries = fast_path_for(version, types[1], build, format=format)
    if header is None or entries is None:
        return None
    if format == "pi":  # read as SessionManager.open() reads: split at \n, the header apart
        return SessionFilePath(entries, header, PI_SESSION_HEADER_START, (), False)
    return SessionFilePath(entries, header)


def format_fast_paths(settings: Settings, lines_files: list[tuple[str, int]]) -> None:
    """Load (or build, when their files are worth it) the fast paths of the formats other than
    phi-core that these JSONL files (name, size) hold: with --format and --type, that type's; else
    the type each plain local file's first lines are (gzip, stdin and remote files are judged
    with the cache's entry, if any, or exactly). Only files of ``PLAN_MIN_BYTES`` or more are
    looked at, and none when all of them together are too small to build for: a folder of small
    files is not read twice (phi-core's fast path is ``fast_path_for``'s, unchanged)."""
    if settings.format == HOME_FORMAT or (
        settings.format not in FORMATS and settings.format != AUTO
    ):
        return
    if sum(size for _, size in lines_files) < FORMAT_BUILD_MIN_BYTES:
        return  # nothing to build; an entry in the cache is loaded when a chunk asks for it
    sizes: dict[tuple[str, str, str], int] = {}
    if settings.format != AUTO:
        if settings.forced is not None:
            total = sum(size for _, size in lines_files)
            sizes[settings.format, settings.version, settings.forced] = total
    else:
        for name, size in lines_files:
            planned = _planned(name, settings) if size >= PLAN_MIN_BYTES else None
            if planned is not None:
                sizes[planned] = sizes.get(planned, 0) + size
    for (format, version, type_name), size in sizes.items():
        build = size >= SLOW_BUILD_MIN_BYTES.get((format, type_name), FORMAT_BUILD_MIN_BYTES)
        if type_name in ("SessionFile", *PI_SESSION_FILE_NAMES.get(format, ())):
            session_file_path(format, version, build)
        else:  # a file's type (auto), whose rejected lines are read as their shape's
            shaped = settings.format == AUTO
            fast_path_for(version, type_name, build, format=format, shaped=shaped)


def _planned(name: str, settings: Settings) -> tuple[str, str, str] | None:
    """The (format, version, type) of a plain local JSONL file's lines, when it has a fast path."""
    try:
        if not stat.S_ISREG(os.stat(name).st_mode):
            return None  # a FIFO, a device: read once, by the run itself
        with open(name, "rb") as file:
            head = file.read(FIRST_LOOK_BYTES)
            if head.startswith(b"\x1f\x8b"):  # gzip: its lines are planned as they are read
                return None
            rest = HEAD_BYTES - len(head) if len(head) == FIRST_LOOK_BYTES else 0
            # kept for reading the file (``_inputs``)
            plan = plan_file_lines(
                name, head, settings, (lambda: file.read(rest)) if rest else None
            )
    except (OSError, ValueError):
        return None
    if plan is None or plan.format not in FORMATS or plan.format == HOME_FORMAT:
        return None
    own = reader(plan.format, plan.version)  # as ``_judge`` reads the file's lines
    if plan.type == "SessionFile" and own.format in SESSION_FILE_TYPES:
        return own.format, own.version, plan.type
    return (own.format, own.version, plan.type) if own.has_type(plan.type) else None


def chunk_fast_path(
    chunk: Chunk, settings: Settings, plan: Recognised | None
) -> tuple[FastPath | SessionFilePath | CanonicalPath | None, Judged | None]:
    """The fast path for the chunk's documents, and what the documents it vouches for are judged
    as (the same as ``_judge`` says of them); (None, None) when they all take the exact path.

    phi-core: its automatic or --type expression. clark-agent (read by the same serde codec) and
    Operator-Use (by pydantic's lax reader): the expression of the one type its JSONL file's
    first lines are (which ``_as`` reads every line as first), or of the type --type names with
    --format; an Operator-Use session file read whole (``SessionFile``, a JSONL type: never a
    line's expression): ``SessionFilePath``. pi (``JSON.parse``, then its models) likewise, a
    file's lines by the expression of its type, the wider ones and the types of its other lines
    pi's recogniser surely names (``_fastpath_pi``); a session file whole, as pi opens it.
    --strict: a phi-core .json document (a session) exactly as phi-core writes it,
    ``CanonicalPath``; every other document takes the exact path."""
    home = settings.format == HOME_FORMAT or (
        settings.format == AUTO and (plan is None or plan.format == HOME_FORMAT)
    )
    if settings.strict:
        strict = (
            None if not home or chunk.lines else strict_path_for(settings.version, settings.forced)
        )
        return strict, None if strict is None else _file_judged(plan, settings, chunk.lines)
    if home:
        path = fast_path_for(settings.version, settings.forced, lines=chunk.lines)
        return path, None if path is None else _file_judged(plan, settings, chunk.lines)
    if settings.format != AUTO:
        if settings.forced is None or settings.format not in FORMATS:
            return None, None
        from phi_wire.primitives import jsonl_item_type  # imports pydantic: not for phi-core

        given = reader(settings.format, settings.version)
        found: FastPath | SessionFilePath | None
        if jsonl_item_type(given.wire_type(settings.forced)) is not None:  # a session file
            found = None if chunk.lines else session_file_path(given.format, given.version)
        else:
            found = fast_path_for(settings.version, settings.forced, format=settings.format)
        return found, None if found is None else _file_judged(plan, settings, chunk.lines)
    if plan is None or plan.format not in FORMATS:
        return None, None
    own = reader(plan.format, plan.version)
    if plan.type == "SessionFile":  # read whole, as ``SessionFile``
        session = None if chunk.lines else session_file_path(own.format, own.version)
        if session is None:
            return None, None
        judged = Judged(own.format, own.version, "SessionFile", own.label, "recognised", plan.also)
        return session, judged
    if not chunk.lines or not own.has_type(plan.type):
        return None, None
    path = fast_path_for(own.version, plan.type, format=own.format, shaped=True)
    if path is None:
        return None, None
    return path, Judged(own.format, own.version, "", own.label, "recognised", plan.also)


def _file_judged(plan: Recognised | None, settings: Settings, lines: bool) -> Judged:
    """What the phi-core documents the fast path vouches for are judged as: the same as
    ``_judge`` says of them (a phi-core ``Judged`` names no type, the forced one aside; a .json
    document the fast path vouches for is a Session, which recognition names phi-core)."""
    if settings.format != AUTO:
        given = reader(settings.format, settings.version)
        return Judged(given.format, given.version, settings.forced or "", given.label, "given")
    home = reader(HOME_FORMAT, settings.version)
    how = "recognised" if plan is not None or not lines else "default"
    return Judged(HOME_FORMAT, home.version, "", home.label, how, plan.also if plan else ())
