"""A dict converter's losses kept with their places (``Place``), each JSON pointer written only
when the loss is read: a run that only counts its losses (no ``-v``, no json report, no loss
report) writes none. A big input has hundreds of thousands of losses (30 MB of clark-agent
events: 220,000, three an event), and writing their pointers cost as much as converting the
events they point into."""

from __future__ import annotations

import collections
from collections.abc import Iterator, Sequence
from typing import overload

from ._fast import Place, pointer_of
from ._types import Loss, LossKind

__all__ = ["PlacedLosses"]

_NEW_TUPLE = tuple.__new__


class PlacedLosses(Sequence[Loss]):
    """Losses as three columns (places, kinds, reasons); a ``Loss`` (its pointer written from
    its place) made when it is read, ``counts`` without making any."""

    __slots__ = ("kinds", "places", "reasons")

    def __init__(self) -> None:
        self.places: list[Place] = []
        self.kinds: list[LossKind] = []
        self.reasons: list[str] = []

    def lose(self, place: Place, kind: LossKind, reason: str) -> None:
        self.places.append(place)
        self.kinds.append(kind)
        self.reasons.append(reason)

    def counts(self) -> dict[tuple[str, str], int]:
        """The losses counted by (kind, reason), in the order each first came (as
        ``loss_counts`` counts a list of them)."""
        return dict(collections.Counter(zip(self.kinds, self.reasons, strict=True)))

    def __len__(self) -> int:
        return len(self.places)

    def __iter__(self) -> Iterator[Loss]:
        for place, kind, reason in zip(self.places, self.kinds, self.reasons, strict=True):
            yield _NEW_TUPLE(Loss, (pointer_of(place), kind, reason))

    @overload
    def __getitem__(self, index: int) -> Loss: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Loss]: ...
    def __getitem__(self, index: int | slice) -> Loss | Sequence[Loss]:
        if isinstance(index, slice):
            return list(self)[index]
        return Loss(pointer_of(self.places[index]), self.kinds[index], self.reasons[index])

    def __eq__(self, other: object) -> bool:
        """Equal to a sequence of the same losses (a list, as the other converters give)."""
        if isinstance(other, PlacedLosses | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list
