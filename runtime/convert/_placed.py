"""A dict converter's losses kept with their places (``Place``), each JSON pointer written only
when the loss is read: a run that only counts its losses (no ``-v``, no json report, no loss
report) writes none. A big input has hundreds of thousands of losses (30 MB of clark-agent
events: 220,000, three an event), and writing their pointers cost as much as converting the
events they point into."""

from __future__ import annotations

import collections
import operator
from collections.abc import Callable, Iterable, Iterator

from ._fast import Place, pointer_of
from ._types import Loss, LossesMadeOnRead, LossKind

__all__ = ["PlacedLosses"]

_NEW_TUPLE = tuple.__new__
_KIND_REASON = operator.itemgetter(1, 2)


def _pointer(place: Place | str) -> str:
    """A place's pointer; a text is one already written (a loss added by ``extend``)."""
    return place if type(place) is str else pointer_of(place)  # type: ignore[arg-type]


class PlacedLosses(LossesMadeOnRead):
    """Losses as ``(place, kind, reason)`` entries; a ``Loss`` (its pointer written from its
    place) made when it is read, ``counts`` without making any."""

    __slots__ = ("entries", "lose")

    def __init__(self) -> None:
        self.entries: list[tuple[Place | str, LossKind, str]] = []
        self.lose: Callable[[tuple[Place | str, LossKind, str]], None] = self.entries.append
        """Adds one ``(place, kind, reason)``: the list's own ``append``, a call in C (a big
        input's converters add hundreds of thousands)."""

    def extend(self, losses: Iterable[Loss], note: str = "") -> None:
        """Adds ``losses`` whose pointers are written (a second step's, after the first step's
        placed ones), each reason followed by `` note`` when one is given (each noted reason
        made once: a second step adds tens of thousands of a few reasons)."""
        if not note:
            self.entries += losses
            return
        noted: dict[str, str] = {}
        for pointer, kind, reason in losses:
            found = noted.get(reason)
            if found is None:
                found = noted[reason] = f"{reason} {note}"
            self.entries.append((pointer, kind, found))

    def counts(self) -> dict[tuple[str, str], int]:
        """The losses counted by (kind, reason), in the order each first came (as
        ``loss_counts`` counts a list of them)."""
        return dict(collections.Counter(map(_KIND_REASON, self.entries)))

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[Loss]:
        for place, kind, reason in self.entries:
            yield _NEW_TUPLE(Loss, (_pointer(place), kind, reason))

    def _loss(self, index: int) -> Loss:
        place, kind, reason = self.entries[index]
        return Loss(_pointer(place), kind, reason)
