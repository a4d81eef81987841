"""Which format a JSONL file is judged as, decided once from its first lines, before any of them
is judged (so that every worker judging a byte range of the file agrees).

The first ``HEAD_LINES`` lines of the first block read (at most ``HEAD_BYTES`` of them) are
parsed and recognised together (``phi_wire.recognise.recognise_lines``). A file whose lines are
Operator-Use session entries (or a pi session header, then entries) is a session file: one
document, read whole by the format's reader (``SESSION`` layout). With ``--format operator-use``
(``--format pi``) the same holds when the first line is one of its entries (pi: its header
or an entry), unless ``--type`` names another type; other given formats need no plan.

A file is planned once per run (``plan_file_lines``): what the run decides before reading (which
fast paths to load or build) is what reading the file then finds, kept with the bytes it was made
from and taken again only for a head that starts with them (``forget_plans`` at each run's start).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from typing import Any

from phi_wire.formats.operator_use import recognise as operator_use
from phi_wire.formats.pi import recognise as pi
from phi_wire.recognise import Recognised, parse, recognise_lines

from ._records import AUTO, Settings

__all__ = [
    "HEAD_BYTES",
    "HEAD_LINES",
    "KEPT_PLAN_BYTES",
    "SESSION",
    "first_documents",
    "forget_plans",
    "plan_file_lines",
    "plan_lines",
]

HEAD_LINES = 64
"""Lines of a JSONL file looked at to tell its format."""
HEAD_BYTES = 1024 * 1024
"""At most this much of them (a longer first line is looked at alone)."""
SESSION = "session"
"""The layout of an Operator-Use or pi session file: JSONL, read whole as one document."""
KEPT_PLAN_BYTES = 16 * 1024 * 1024
"""At most this much of files' first lines is kept with their plans in a run (a plan past it is
made again when its file is read)."""

_KEPT: dict[tuple[str, Settings], tuple[bytes, Recognised | None]] = {}
"""Per (file, settings): the first lines a plan was made from, and the plan."""


def first_documents(head: bytes) -> list[Any]:
    """The first lines of ``head`` that parse as JSON (a line cut by the end of ``head`` is not
    one of them)."""
    return _head_documents(head)[0]


def _head_documents(head: bytes) -> tuple[list[Any], int | None]:
    """``first_documents(head)``, and how many of its first bytes they depend on: the same for
    every head that starts with them (None: a longer head could give others, as when the last
    line looked at is cut by its end)."""
    documents: list[Any] = []
    start = 0
    while len(documents) < HEAD_LINES and start < min(len(head), HEAD_BYTES):
        end = head.find(b"\n", start)
        if end == -1:
            break
        line = head[start:end]
        start = end + 1
        if not line.strip():
            continue
        try:
            documents.append(parse(line))
        except (ValueError, RecursionError):
            continue
    else:  # stopped by the count of lines, or of bytes, not by the end of ``head``
        if len(documents) == HEAD_LINES or start >= HEAD_BYTES:
            return documents, start
    if not documents and start == 0 and head.strip():  # one line, no newline after it
        with suppress(ValueError, RecursionError):
            documents.append(parse(head))
    return documents, None


def plan_lines(head: bytes, settings: Settings) -> Recognised | None:
    """The format a JSONL file whose first block is ``head`` is judged as (None: phi-core, or
    the format given, line by line)."""
    if not _needs_documents(settings):
        return None
    return _planned(_head_documents(head)[0], settings)


def plan_file_lines(
    name: str, head: bytes, settings: Settings, more: Callable[[], bytes] | None = None
) -> Recognised | None:
    """``plan_lines(head, settings)`` for the file ``name``, made once per run: kept with the
    bytes it depends on, and taken again for a head that starts with them. ``more``: the bytes
    that follow ``head``, read only when its lines do not decide the plan (a first look at a
    file need not read ``HEAD_BYTES``: pi's 64 first messages hold some 70 kB)."""
    if not _needs_documents(settings):
        return None
    kept = _KEPT.get((name, settings))
    if kept is not None and head.startswith(kept[0]):
        return kept[1]
    documents, used = _head_documents(head)
    if used is None and more is not None:
        head += more()
        documents, used = _head_documents(head)
    plan = _planned(documents, settings)
    if used is not None and used + sum(len(text) for text, _ in _KEPT.values()) <= KEPT_PLAN_BYTES:
        _KEPT[name, settings] = (head[:used], plan)
    return plan


def forget_plans() -> None:
    """Drop the plans kept (a new run: its files may have changed)."""
    _KEPT.clear()


def _needs_documents(settings: Settings) -> bool:
    """Whether a file's plan looks at its first lines (else it is None)."""
    if settings.format == AUTO:
        return True
    return settings.format in _FIRST_LINE and settings.forced in (None, "SessionFile")


def _planned(documents: list[Any], settings: Settings) -> Recognised | None:
    if settings.format == AUTO:
        return recognise_lines(documents)
    claim, first_types = _FIRST_LINE[settings.format]
    first = claim(documents[0]) if documents else None
    if settings.forced == "SessionFile" or (first is not None and first[0] in first_types):
        return Recognised(settings.format, settings.version, "SessionFile", True)
    return None


_FIRST_LINE: dict[str, tuple[Callable[[Any], tuple[str, bool] | None], frozenset[str]]] = {
    "operator-use": (operator_use.claim, frozenset({"SessionFileEntry"})),
    "pi": (pi.claim, pi.SESSION_TYPES),
}
"""The formats whose session files are read whole: the types a session file's first line has
(pi: its header, or an entry, which pi refuses to open without the header)."""
