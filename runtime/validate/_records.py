"""What a run of the validator produces: a ``Record`` per problem, input error or note; a
``FileStart`` as each file begins (with the layout recognised); a ``Verdict`` per chunk of a file;
the ``FileSummary`` of each file and the ``Tally`` of the whole run.
"""

from __future__ import annotations

import json
import os
from typing import NamedTuple

from phi_wire.errors import Problem

__all__ = [
    "INPUT",
    "MORE",
    "NOTE",
    "PROBLEM",
    "FileStart",
    "FileSummary",
    "InputError",
    "Outcome",
    "Record",
    "Settings",
    "Tally",
    "Verdict",
    "display_name",
]

# Named tuples, not dataclasses: importing dataclasses (and the inspect module it needs) would add
# some 8 ms to the start-up of every run.

PROBLEM = "problem"
"""A document is invalid here: phi-core would reject it (exit status 1)."""
MORE = "more"
"""A document has more problems than the run reports per document; the message says how many."""
INPUT = "input"
"""Something could not be read or judged: a file, a folder, a document over the size limit, bytes
that are not UTF-8 (exit status 2). Nothing is known about the validity of what it names."""
NOTE = "note"
"""Worth knowing, changes no verdict: e.g. a file's layout is not the one its name says."""


class InputError(Exception):
    """Reading stopped: the file (or the rest of it) cannot be read. The message says why; the
    reader turns it into an ``INPUT`` record with the file's name and the line reached."""


def display_name(name: str) -> str:
    """A file name as it can be printed anywhere: bytes that are not UTF-8 (which Python keeps as
    lone surrogates) are written as ``\\xe9`` escapes rather than failing the output."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(name).decode("utf-8", "backslashreplace")
    return name


class Record(NamedTuple):
    """One problem, input error or note, in input order.

    ``file`` is the name as given or found (``-`` for stdin); ``line`` is 1-based: the JSONL
    line, or in a pretty document the line where the value at ``pointer`` starts; 0 when the
    record is about a file or folder as a whole. ``type`` and ``variant`` say what the document
    was judged as. ``kind`` is one of ``PROBLEM``, ``MORE``, ``INPUT``, ``NOTE``.
    """

    file: str
    line: int
    pointer: str
    type: str
    variant: str
    message: str
    kind: str = PROBLEM
    omitted: int = 0
    """For a ``MORE`` record: how many problems of the document were counted but not listed."""

    def text(self) -> str:
        """``file:line: Type Variant /pointer: message`` (input errors and notes:
        ``file:line: message``; without a line: ``file: message``)."""
        where = display_name(self.file) + (f":{self.line}" if self.line else "")
        if not where:
            return self.message
        if self.kind == PROBLEM:
            problem = Problem(self.pointer, self.message, self.variant)
            return f"{where}: {problem.render(self.type)}"
        if self.kind == MORE:
            return f"{where}: {self.type}: {self.message}"
        if self.kind == NOTE:
            return f"{where}: note: {self.message}"
        return f"{where}: {self.message}"

    def json(self) -> str:
        """The record as one line of JSON (file names escaped as ``text`` escapes them)."""
        fields = self._asdict()
        fields["file"] = display_name(self.file)
        return json.dumps(fields, ensure_ascii=False)


class Settings(NamedTuple):
    """How every document of a run is judged (sent as is to worker processes)."""

    version: str
    """The phi-core version, as the registry spells it (``0.10``)."""
    forced: str | None
    """The wire type every document is judged as, or None to detect each one's."""
    strict: bool
    """Also flag what phi-core accepts but never writes."""
    max_problems: int
    """Problems reported per document; a ``MORE`` record counts the rest."""
    max_document_bytes: int
    """A document (a .json file, a JSONL line) longer than this is not judged (an input error)."""


class FileStart(NamedTuple):
    """A file begins; how its documents are laid out."""

    file: str
    layout: str
    """``lines`` (one document per line) or ``document`` (the file is one document)."""
    named: str | None
    """The layout the file's name says (``.jsonl``/``.ndjson``, ``.json``), None if it says none
    (stdin, other names)."""
    gzip: bool
    """The bytes were gzip-compressed (recognised by gzip's magic bytes, whatever the name)."""


class Verdict(NamedTuple):
    """What one chunk of a file holds, judged: documents, and the records (lines absolute)."""

    documents: int
    invalid: int
    size: int
    records: list[Record]
    unjudged: int = 0
    """Documents that could not be judged (over the size limit): neither valid nor invalid."""


Outcome = FileStart | Verdict
"""What judging yields, in input order: a file begins, then verdicts on its chunks."""


class FileSummary(NamedTuple):
    """One file's results (``Validation.files``)."""

    file: str
    layout: str
    named: str | None
    gzip: bool
    documents: int
    invalid: int
    unjudged: int
    bytes: int
    input_errors: int

    @property
    def valid(self) -> int:
        return self.documents - self.invalid - self.unjudged


class Tally:
    """What a run has judged so far."""

    def __init__(self) -> None:
        self.files = 0
        self.documents = 0
        self.invalid = 0
        self.unjudged = 0
        self.bytes = 0
        self.problems = 0
        """``PROBLEM`` records (the ``MORE`` records count further ones: see ``omitted``)."""
        self.omitted = 0
        """Problems past the per-document cap that were counted but not reported (a lower bound:
        a big document is judged up to the first invalid item of each array)."""
        self.input_errors: list[Record] = []
        self.notes: list[Record] = []

    @property
    def valid(self) -> int:
        return self.documents - self.invalid - self.unjudged

    def as_dict(self) -> dict[str, int]:
        return {
            "files": self.files,
            "documents": self.documents,
            "valid": self.valid,
            "invalid": self.invalid,
            "unjudged": self.unjudged,
            "problems": self.problems,
            "omitted": self.omitted,
            "input_errors": len(self.input_errors),
            "bytes": self.bytes,
        }
