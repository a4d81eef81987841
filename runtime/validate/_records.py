"""What a run of the validator produces: a ``Record`` per problem, input error or note; a
``FileStart`` as each file begins (with the layout and format recognised); a ``Verdict`` per chunk
of a file (with the formats its documents were judged as: ``Judged``); the ``FileSummary`` of each
file and the ``Tally`` of the whole run.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from phi_wire.output import printable
from phi_wire.recognise import Recognised

__all__ = [
    "AUTO",
    "HOME_FORMAT",
    "INPUT",
    "MORE",
    "NOTE",
    "PROBLEM",
    "FileStart",
    "FileSummary",
    "InputError",
    "Judged",
    "Outcome",
    "Record",
    "Settings",
    "Tally",
    "Verdict",
    "display_name",
]

AUTO = "auto"
"""``Settings.format`` when each file's format is recognised from its documents."""
HOME_FORMAT = "phi-core"
"""The format a document is judged as when nothing in it names one (and whose records are
written without a format name, as before other formats were known)."""

# Named tuples, not dataclasses: importing dataclasses (and the inspect module it needs) would add
# some 8 ms to the start-up of every run.

PROBLEM = "problem"
"""A document is invalid here: phi-core would reject it (exit status 1)."""
MORE = "more"
"""A document has more problems than the run reports per document; the message says how many."""
INPUT = "input"
"""Something could not be read or judged: a file, a folder, a document over the size limit, a
format phi-wire does not speak (exit status 2). Nothing is known about the validity of what it
names."""
NOTE = "note"
"""Worth knowing, changes no verdict: e.g. a file's layout is not the one its name says."""


class InputError(Exception):
    """Reading stopped: the file (or the rest of it) cannot be read. The message says why; the
    reader turns it into an ``INPUT`` record with the file's name and the line reached."""


def display_name(name: str) -> str:
    """A file name as it can be printed anywhere: bytes that are not UTF-8 (which Python keeps as
    lone surrogates) are written as ``\\xe9`` escapes rather than failing the output: one naming
    for every command (``phi_wire.output.printable``)."""
    return printable(name)


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
    format: str = ""
    """The format the document was judged as (``clark-agent``, ``operator-use``, ``phi-core``),
    "" when the record is about no document's content (a file that cannot be read...)."""
    version: str = ""
    """That format's version or layout (``0.4``, ``d0da87a6``, ``0.10``)."""

    def text(self) -> str:
        """``file:line: Type Variant /pointer: message`` (input errors and notes, and a problem
        with no type or pointer to name, such as an empty line: ``file:line: message``; without a
        line: ``file: message``); a document judged as another format than phi-core has the
        format's name first: ``file:line: clark-agent Type...``."""
        where = display_name(self.file) + (f":{self.line}" if self.line else "")
        if not where:
            return self.message
        named = self.format if self.format != HOME_FORMAT else ""
        if self.kind in (PROBLEM, MORE):
            # no empty field: a record with no type or pointer to name (an empty line) is its
            # message alone
            judged = " ".join(part for part in (named, self.type, self.variant) if part)
            if self.kind == PROBLEM and (self.type or self.pointer):
                judged = f"{judged} {self.pointer or '/'}".lstrip()
            elif not self.type:
                judged = ""
            return f"{where}: {judged}: {self.message}" if judged else f"{where}: {self.message}"
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
    """The version of ``format``, as the registry spells it (``0.10``, ``0.4``, ``d0da87a6``);
    with ``AUTO``, phi-core's (other formats: the version or layout their documents show)."""
    forced: str | None
    """The wire type every document is judged as, or None to detect each one's."""
    strict: bool
    """Also flag what phi-core accepts but never writes."""
    max_problems: int
    """Problems reported per document; a ``MORE`` record counts the rest."""
    max_document_bytes: int
    """A document (a .json file, a JSONL line) longer than this is not judged (an input error)."""
    format: str = HOME_FORMAT
    """The format every document is judged as (``phi-core``, ``clark-agent``,
    ``operator-use``), or ``AUTO``: each file's is recognised from its documents."""


class FileStart(NamedTuple):
    """A file begins; how its documents are laid out."""

    file: str
    layout: str
    """``lines`` (one document per line), ``document`` (the file is one document) or
    ``session`` (an Operator-Use session file: JSONL read whole, as one document)."""
    named: str | None
    """The layout the file's name says (``.jsonl``/``.ndjson``, ``.json``), None if it says none
    (stdin, other names)."""
    gzip: bool
    """The bytes were gzip-compressed (recognised by gzip's magic bytes, whatever the name)."""
    recognised: Recognised | None = None
    """The format its first lines have (JSONL), None when nothing named one or the file is one
    document (whose format is recognised as it is judged: see ``Verdict.judged``)."""


class Judged(NamedTuple):
    """What some documents were recognised as, and which format judged them."""

    format: str
    """The format they have (``pi``: one phi-wire does not speak)."""
    version: str
    type: str
    """The wire type, when one type is known for them ("" otherwise)."""
    reader: str
    """The format and version whose reader judged them (``phi-core 0.10``), "" if none could."""
    how: str
    """``recognised`` (from their tags and keys), ``given`` (``--format``) or ``default``
    (nothing in them names a format: phi-core)."""
    also: tuple[str, ...] = ()
    """The other formats whose JSON they are too (nothing in them is only this format's; their
    folder's files may have settled it: ``_folder``), which could have written them."""

    @property
    def label(self) -> str:
        """``clark-agent 0.4``; ``pi (read as phi-core 0.10)``; ``yoagent (not judged)``;
        ``clark-agent 0.4 (also fits pi)``."""
        own = " ".join(part for part in (self.format, self.version) if part)
        notes = []
        if self.reader != own:
            notes.append(f"read as {self.reader}" if self.reader else "not judged")
        if self.also:
            notes.append("also fits " + ", ".join(self.also))
        return f"{own} ({'; '.join(notes)})" if notes else own


class Verdict(NamedTuple):
    """What one chunk of a file holds, judged: documents, and the records (lines absolute)."""

    documents: int
    invalid: int
    size: int
    records: list[Record]
    unjudged: int = 0
    """Documents that could not be judged (over the size limit, or in a format phi-wire does not
    speak and phi-core cannot read): neither valid nor invalid."""
    judged: tuple[Judged, ...] = ()
    """What its documents were judged as, each once, in the order first met."""


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
    judged: tuple[Judged, ...] = ()
    """What its documents were judged as, each once, in the order first met: one entry for a
    file of one format, more for a file of mixed formats."""

    @property
    def valid(self) -> int:
        return self.documents - self.invalid - self.unjudged

    @property
    def format(self) -> str:
        """The format of the file ("" when no document was judged): its first documents'."""
        return self.judged[0].format if self.judged else ""

    @property
    def version(self) -> str:
        return self.judged[0].version if self.judged else ""

    @property
    def mixed(self) -> bool:
        """Its documents are of more than one format."""
        return len({judged.format for judged in self.judged}) > 1

    @property
    def label(self) -> str:
        """``clark-agent 0.4``; ``phi-core 0.10 + clark-agent 0.4 (mixed)``; "" if none."""
        labels = list(dict.fromkeys(judged.label for judged in self.judged))
        return " + ".join(labels) + (" (mixed)" if self.mixed else "")

    @property
    def by_default(self) -> bool:
        """Nothing in its documents named a format: they were judged as phi-core."""
        return bool(self.judged) and all(judged.how == "default" for judged in self.judged)

    def as_dict(self) -> dict[str, object]:
        """The summary as JSON-ready values (``--output-format json``'s ``file`` records)."""
        return {
            "file": display_name(self.file),
            "format": self.format,
            "version": self.version,
            "formats": [judged._asdict() for judged in self.judged],
            "mixed": self.mixed,
            "by_default": self.by_default,
            "layout": self.layout,
            "gzip": self.gzip,
            "documents": self.documents,
            "valid": self.valid,
            "invalid": self.invalid,
            "unjudged": self.unjudged,
            "bytes": self.bytes,
            "input_errors": self.input_errors,
        }


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
