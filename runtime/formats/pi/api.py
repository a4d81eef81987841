"""The API each pi module (``phi_wire.pi_0_73``, ``phi_wire.pi_1_5``; ``phi_wire.pi`` is the
newest) re-exports beside its wire types: ``loads``/``dumps`` (``codec``: read as pi reads, judged
by pi's types, written as ``JSON.stringify`` writes), ``JsonLines`` (a whole JSONL document: a
session file, the CLI's output) and ``recognise`` (the type a parsed document has the shape of).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar, overload

from .codec import dumps, loads
from .lines import JsonLines, UnreadLine
from .recognise import recognise

if TYPE_CHECKING:
    from typing_extensions import TypeForm

__all__ = ["JsonLines", "Loads", "UnreadLine", "dumps", "loads", "recognise"]

T = TypeVar("T")
Entry = TypeVar("Entry")
Legacy = TypeVar("Legacy")

Text = str | bytes | bytearray | memoryview


class Loads(Protocol[Entry, Legacy]):
    """The static type of a pi module's ``loads`` (``Loads[FileEntry, LegacyFileEntry]``): the
    wire type's value, except that a session file (``Session``, ``LegacySession``: aliases of a
    list of lines read whole) gives a ``JsonLines`` of its lines."""

    @overload
    def __call__(self, tp: type[T], data: Text) -> T: ...  # type: ignore[overload-overlap]
    # (a class, list[X] included, is read as itself; only the file aliases are JsonLines)
    @overload
    def __call__(self, tp: TypeForm[list[Entry]], data: Text) -> JsonLines[Entry]: ...
    @overload
    def __call__(self, tp: TypeForm[list[Legacy]], data: Text) -> JsonLines[Legacy]: ...
    @overload
    def __call__(self, tp: TypeForm[T], data: Text) -> T: ...
