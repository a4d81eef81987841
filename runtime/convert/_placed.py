"""A dict converter's losses kept with their places (``Place``), each JSON pointer written only
when the loss is read: a run that only counts its losses (no ``-v``, no json report, no loss
report) writes none. A big input has hundreds of thousands of losses (30 MB of clark-agent
events: 220,000, three an event), and writing their pointers cost as much as converting the
events they point into."""

from __future__ import annotations

import collections
import operator
from collections.abc import Callable, Iterator, Sequence
from typing import overload

from ._fast import Place, pointer_of
from ._types import Loss, LossKind

__all__ = ["PlacedLosses"]

_NEW_TUPLE = tuple.__new__
_KIND_REASON = operator.itemgetter(1, 2)


class PlacedLosses(Sequence[Loss]):
    """Losses as ``(place, kind, reason)`` entries; a ``Loss`` (its pointer written from its
    place) made when it is read, ``counts`` without making any."""

    __slots__ = ("entries", "lose")

    def __init__(self) -> None:
        self.entries: list[tuple[Place, LossKind, str]] = []
        self.lose: Callable[[tuple[Place, LossKind, str]], None] = self.entries.append
        """Adds one ``(place, kind, reason)``: the list's own ``append``, a call in C (a big
        input's converters add hundreds of thousands)."""

    def counts(self) -> dict[tuple[str, str], int]:
        """The losses counted by (kind, reason), in the order each first came (as
        ``loss_counts`` counts a list of them)."""
        return dict(collections.Counter(map(_KIND_REASON, self.entries)))

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[Loss]:
        for place, kind, reason in self.entries:
            yield _NEW_TUPLE(Loss, (pointer_of(place), kind, reason))

    @overload
    def __getitem__(self, index: int) -> Loss: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Loss]: ...
    def __getitem__(self, index: int | slice) -> Loss | Sequence[Loss]:
        if isinstance(index, slice):
            return list(self)[index]
        place, kind, reason = self.entries[index]
        return Loss(pointer_of(place), kind, reason)

    def __eq__(self, other: object) -> bool:
        """Equal to a sequence of the same losses (a list, as the other converters give)."""
        if isinstance(other, PlacedLosses | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list
