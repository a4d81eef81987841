"""A JSON Lines document of pi's, whole: a session file (``Session``, ``LegacySession``), or the
stdout of ``pi --mode json`` or ``pi --mode rpc`` (``JsonModeOutput``, ``RpcOutput``). pi writes
each line as ``JSON.stringify(value) + "\\n"``.

A session file is read as pi's ``SessionManager`` reads it, which skips blank lines and lines that
are not JSON without a word: phi-wire keeps them in ``unread`` (their text and place) and lists the
ones that are not blank in ``skipped``. pi rewrites a file only when it migrates it (a v1 or v2
file, ``migrated_from``); otherwise the file stays as it was, skipped lines included, and so
``dumps`` writes them back in place. A migrated file is written as pi's ``_rewriteFile`` writes it:
its entries only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, NamedTuple

from typing_extensions import TypeVar

from phi_wire.errors import WireError

__all__ = ["JsonLines", "UnreadLine"]

Line = TypeVar("Line", default=object)
"""The type of the document's lines (a version's ``FileEntry``...)."""


class UnreadLine(NamedTuple):
    """A line of a session file that pi's loader skips: blank, or not JSON."""

    before: int
    """How many of the file's values come before it."""
    text: str
    """The line as it is in the file (without its ``\\n``)."""


class JsonLines(list[Line], Generic[Line]):
    """The values of a JSONL document in line order (a list); ``dumps`` writes one line per value,
    each ending with ``\\n``. Statically a ``JsonLines[FileEntry]`` (...) of the version that read
    it."""

    skipped: tuple[WireError, ...]
    """The lines of a session file that pi skips without a word because they are not JSON (each
    a ``WireError`` with its ``line``)."""
    unread: tuple[UnreadLine, ...]
    """Every line pi's loader skipped (blank lines too), written back in place unless pi
    rewrites the file."""
    migrated_from: int | None
    """The session version pi migrated the file from (1 or 2; ``SessionManager.open()`` rewrites
    such a file), else None."""
    around: tuple[str, str] | None
    """The blanks before and after the content of the file read (pi's loader trims them), written
    back while pi keeps the file as it is; None: each line ends with ``\\n``."""
    endings: tuple[str, ...]
    """What followed each value on its line in the file read (``"\r"`` of a CRLF file), written
    back while pi keeps the file as it is; () when nothing did."""

    def __init__(
        self,
        values: Iterable[Line] = (),
        *,
        skipped: Iterable[WireError] = (),
        unread: Iterable[UnreadLine] = (),
        migrated_from: int | None = None,
        endings: Iterable[str] = (),
        around: tuple[str, str] | None = None,
    ) -> None:
        super().__init__(values)
        self.skipped = tuple(skipped)
        self.unread = tuple(unread)
        self.migrated_from = migrated_from
        self.endings = tuple(endings)
        self.around = around

    def text(self, write: Callable[[Line], str]) -> str:
        """The file: each value as ``write`` writes it, plus ``\\n``; and, when pi would leave the
        file as it is, the lines it skipped, in place, and the blanks around its content."""
        keep = self.migrated_from is None
        pending = sorted(self.unread, key=lambda line: line.before) if keep else []
        lines: list[str] = []
        index = 0
        for position, value in enumerate(self):
            while index < len(pending) and pending[index].before <= position:
                lines.append(pending[index].text)
                index += 1
            ending = self.endings[position] if keep and position < len(self.endings) else ""
            lines.append(write(value) + ending)
        lines += [line.text for line in pending[index:]]
        if keep and self.around is not None:
            lead, trail = self.around
            return lead + "\n".join(lines) + trail
        return "".join(line + "\n" for line in lines)
