"""What judging produces: a ``Record`` per problem, a ``Verdict`` per chunk of a file, and the
``Tally`` of a whole run."""

from __future__ import annotations

import json
from typing import NamedTuple

from phi_wire.errors import Problem

__all__ = ["InputError", "Outcome", "Record", "Tally", "Verdict"]

# Named tuples, not dataclasses: importing dataclasses (and the inspect module it needs) would add
# some 8 ms to the start-up of every run.


class InputError(Exception):
    """An input that cannot be read at all (exit code 2)."""


class Record(NamedTuple):
    """One problem in one document."""

    file: str
    line: int
    pointer: str
    type: str
    variant: str
    message: str
    unreadable: bool = False
    """The bytes are not text (not UTF-8), or not there: an input error, exit code 2."""
    whole_file: bool = False
    """The file could not be read at all (``message`` says why): nothing in it was judged."""

    def text(self) -> str:
        """``file:line: Type Variant /pointer: message`` (for a whole file: the message)."""
        if self.whole_file:
            return self.message
        problem = Problem(self.pointer, self.message, self.variant)
        return f"{self.file}:{self.line}: {problem.render(self.type)}"

    def json(self) -> str:
        return json.dumps(self._asdict(), ensure_ascii=False)


class Verdict(NamedTuple):
    """What one chunk holds: documents, invalid documents, problems (lines absolute)."""

    documents: int
    invalid: int
    size: int
    records: list[Record]


Outcome = Verdict | InputError
"""What judging yields per chunk: a verdict, or the error that stops reading a file."""


class Tally:
    """What a run has judged so far."""

    def __init__(self) -> None:
        self.files = 0
        self.documents = 0
        self.invalid = 0
        self.bytes = 0
        self.input_errors: list[str] = []

    @property
    def valid(self) -> int:
        return self.documents - self.invalid
