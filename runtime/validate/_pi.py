"""pi in ``phi-wire validate``, where judging it differs from the other formats: pi 1.5 reads what
0.73 writes, so a document 0.73 rejects is judged by 1.5 too (``newer_line``); and a pi-ai
message given as phi-core (``--format phi-core``) is read by phi-core, which drops what it has no
field for: ``read_as_home`` says what it looks like, so that the drops are named
(``home_read_note``).
"""

from __future__ import annotations

from phi_wire.formats.pi import recognise as pi
from phi_wire.recognise import Recognised, parse

from ._formats import Reader, reader
from ._records import HOME_FORMAT, NOTE, Judged, Record

__all__ = ["home_read_note", "newer_line", "read_as_home"]

_MARKS = tuple(f'"{key}"'.encode() for key in sorted(pi.PI_ONLY_KEYS))
"""pi's own keys, as they appear in a document's text (a cheap test before any parse)."""


def read_as_home(given: Reader, raw: bytes) -> Recognised | None:
    """With ``--format phi-core``, a document certainly pi's (a pi-ai message phi-core reads,
    dropping its ``api``, ``cost``...): what it looks like, so that what phi-core drops is said."""
    if given.format != HOME_FORMAT or not any(mark in raw for mark in _MARKS):
        return None
    try:
        claimed = pi.claim(parse(raw))
    except (ValueError, RecursionError):
        return None
    if claimed is None or not claimed[1]:
        return None
    return Recognised("pi", "", claimed[0], True)


def newer_line(own: Reader) -> Reader | None:
    """The newest pi line, when ``own`` is an older one (a document it rejects may be 1.5's
    without holding anything only 1.5 writes); None for other formats."""
    if own.format != "pi":
        return None
    newest = reader(own.format)
    return newest if newest.version != own.version else None


def home_read_note(
    file: str,
    lines: bool,
    home: Reader,
    judged: Judged,
    described: tuple[str, str],
    span: tuple[int, int, int],
    dropped: tuple[str, ...],
) -> Record:
    """The note on pi documents phi-core (``home``) reads without --strict: valid, since phi-core
    reads them, but not phi-core's: what it drops, the first document's keys as examples
    (``described``: what they look like, for one and for several; ``span``: the first and last
    line and how many documents)."""
    first, last, count = span
    examples = ", ".join(dropped[:4]) + (", ..." if len(dropped) > 4 else "")
    if count == 1:
        subject = f"looks like {described[0]}: {home.label} reads it"
    else:
        where = f"lines {first:,}-{last:,}" if lines else "the file"
        subject = f"{count:,} documents ({where}) look like {described[1]}: {home.label} reads them"
    message = f"{subject} (valid) but drops what it has no place for ({examples}): --strict "
    message += "lists every key dropped"
    return Record(
        file, first, "", judged.type, "", message, NOTE, format=judged.format, version=home.version
    )
