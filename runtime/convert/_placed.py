"""A dict converter's losses kept with their places (``Place``), each JSON pointer written only
when the loss is read: a run that only counts its losses (no ``-v``, no json report, no loss
report) writes none. A big input has hundreds of thousands of losses (30 MB of clark-agent
events: 220,000, three an event), and writing their pointers cost as much as converting the
events they point into."""

from __future__ import annotations

import collections
import operator
from collections.abc import Callable, Iterable, Iterator
from typing import TypeAlias

from ._fast import Place, pointer_of
from ._types import Loss, LossesMadeOnRead, LossKind

__all__ = ["PlacedLosses"]

_NEW_TUPLE = tuple.__new__
_KIND_REASON = operator.itemgetter(-2, -1)

Entry: TypeAlias = "tuple[Place | str, LossKind, str] | tuple[Place, str | int, LossKind, str]"
"""One loss: ``(place, kind, reason)``, or ``(parent's place, key, kind, reason)`` (the place
``(parent, key)`` not made: one tuple fewer per loss, most of them a key of a message), or a
written pointer for the place (a loss added by ``extend``)."""


def _pointer(entry: Entry) -> str:
    if len(entry) == 4:
        return pointer_of((entry[0], entry[1]))
    place = entry[0]
    return place if type(place) is str else pointer_of(place)  # type: ignore[arg-type]


class PlacedLosses(LossesMadeOnRead):
    """Losses as ``(place, kind, reason)`` (or ``(parent, key, kind, reason)``) entries; a
    ``Loss`` (its pointer written from its place) made when it is read, ``counts`` without
    making any. The entries a second step added (``extend`` with a note) keep their own
    reasons: the note is added to each when it is read or counted."""

    __slots__ = ("entries", "lose", "notes")

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.lose: Callable[[Entry], None] = self.entries.append
        """Adds one ``(place, kind, reason)`` or ``(parent, key, kind, reason)``: the list's own
        ``append``, a call in C (a big input's converters add hundreds of thousands)."""
        self.notes: list[tuple[int, int, str]] = []
        """``(start, end, note)``: the entries ``start:end`` are read with their reasons
        followed by `` note`` (none rebuilt: a second step adds tens of thousands)."""

    def extend(self, losses: Iterable[Loss], note: str = "") -> None:
        """Adds ``losses`` (a second step's, after the first step's placed ones: written, or
        placed too, a ``PlacedLosses``, whose places are kept), each reason followed by
        `` note`` when one is given."""
        placed = type(losses) is PlacedLosses and not losses.notes
        start = len(self.entries)
        self.entries += losses.entries if placed else losses  # type: ignore[attr-defined]
        if note and len(self.entries) > start:
            self.notes.append((start, len(self.entries), note))

    def _segments(self) -> Iterator[tuple[list[Entry], str]]:
        """The entries in runs, each with its note ("": none), in order."""
        done = 0
        for start, end, note in self.notes:
            if start > done:
                yield self.entries[done:start], ""
            yield self.entries[start:end], note
            done = end
        if done < len(self.entries) or not done:
            yield (self.entries[done:] if done else self.entries), ""

    def counts(self) -> dict[tuple[str, str], int]:
        """The losses counted by (kind, reason), in the order each first came (as
        ``loss_counts`` counts a list of them)."""
        if not self.notes:
            return dict(collections.Counter(map(_KIND_REASON, self.entries)))
        found: dict[tuple[str, str], int] = {}
        for entries, note in self._segments():
            for (kind, reason), count in collections.Counter(map(_KIND_REASON, entries)).items():
                key = (kind, f"{reason} {note}") if note else (kind, reason)
                found[key] = found.get(key, 0) + count
        return found

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[Loss]:
        for entries, note in self._segments():
            if not note:
                for entry in entries:
                    yield _NEW_TUPLE(Loss, (_pointer(entry), entry[-2], entry[-1]))
                continue
            noted: dict[str, str] = {}  # each noted reason made once
            for entry in entries:
                reason = entry[-1]
                found = noted.get(reason)
                if found is None:
                    found = noted[reason] = f"{reason} {note}"
                yield _NEW_TUPLE(Loss, (_pointer(entry), entry[-2], found))

    def _loss(self, index: int) -> Loss:
        entry = self.entries[index]
        reason = entry[-1]
        at = index + len(self.entries) if index < 0 else index
        for start, end, note in self.notes:
            if start <= at < end:
                reason = f"{reason} {note}"
        return Loss(_pointer(entry), entry[-2], reason)
