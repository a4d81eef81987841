"""Which format a JSONL file is judged as, decided once from its first lines, before any of them
is judged (so that every worker judging a byte range of the file agrees).

The first ``HEAD_LINES`` lines of the first block read (at most ``HEAD_BYTES`` of them) are
parsed and recognised together (``phi_wire.recognise.recognise_lines``). A file whose lines are
Operator-Use session entries (or a pi session header, then entries) is a session file: one
document, read whole by the format's reader (``SESSION`` layout). With ``--format operator-use``
(``--format pi``) the same holds when the first line is one of its entries (pi: its header
or an entry), unless ``--type`` names another type; other given formats need no plan.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from typing import Any

from phi_wire.formats.operator_use import recognise as operator_use
from phi_wire.formats.pi import recognise as pi
from phi_wire.recognise import Recognised, parse, recognise_lines

from ._records import AUTO, Settings

__all__ = ["HEAD_BYTES", "HEAD_LINES", "SESSION", "first_documents", "plan_lines"]

HEAD_LINES = 64
"""Lines of a JSONL file looked at to tell its format."""
HEAD_BYTES = 1024 * 1024
"""At most this much of them (a longer first line is looked at alone)."""
SESSION = "session"
"""The layout of an Operator-Use or pi session file: JSONL, read whole as one document."""


def first_documents(head: bytes) -> list[Any]:
    """The first lines of ``head`` that parse as JSON (a line cut by the end of ``head`` is not
    one of them)."""
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
    if not documents and start == 0 and head.strip():  # one line, no newline after it
        with suppress(ValueError, RecursionError):
            documents.append(parse(head))
    return documents


def plan_lines(head: bytes, settings: Settings) -> Recognised | None:
    """The format a JSONL file whose first block is ``head`` is judged as (None: phi-core, or
    the format given, line by line)."""
    if settings.format == AUTO:
        return recognise_lines(first_documents(head))
    if settings.format not in _FIRST_LINE or settings.forced not in (None, "SessionFile"):
        return None
    documents = first_documents(head)
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
