"""The types every conversion gives: a ``Conversion`` (the converted value) and its ``Loss``es,
and the error for a conversion phi-wire has no converter for. Format folders' converters build
them; this module imports nothing of phi-wire."""

from __future__ import annotations

import collections
import operator
from collections.abc import Sequence
from typing import (
    TYPE_CHECKING,
    Generic,
    Literal,
    NamedTuple,
    Protocol,
    overload,
    runtime_checkable,
)

from typing_extensions import TypeVar

if TYPE_CHECKING:
    from .values import AnyValue

__all__ = [
    "Conversion",
    "CountedLosses",
    "Loss",
    "LossKind",
    "Losses",
    "LossesMadeOnRead",
    "UnsupportedConversion",
    "loss_counts",
]


LossKind = Literal["dropped", "invented", "changed"]
"""What happened to a piece of the source (``Loss.kind``)."""


class Loss(NamedTuple):
    """One piece of the source that the target cannot hold, or that the target needed and the
    source did not have."""

    pointer: str
    """RFC 6901 pointer into the source document ("" is the whole document)."""
    kind: LossKind
    """``dropped``: the target has no place for it; ``invented``: the target requires a value the
    source lacks, so one was made up (the reason says which); ``changed``: kept, but not exactly
    (a timestamp rounded to the target's precision, a value mapped to its nearest counterpart)."""
    reason: str


_NEW_TUPLE = tuple.__new__


class Losses(list[Loss]):
    """The losses of one conversion, in the order a converter finds them (each format's
    converters add their own helpers in a subclass)."""

    def add(self, pointer: str, kind: LossKind, reason: str) -> None:
        # tuple.__new__ directly: a named tuple's own __new__ is one Python call more per loss
        # (hundreds of thousands in a big input)
        self.append(_NEW_TUPLE(Loss, (pointer, kind, reason)))


class LossesMadeOnRead(Sequence[Loss]):
    """A sequence of losses kept in a form of their own, each ``Loss`` made when it is read
    (``PlacedLosses``): indexed, sliced and compared as the list they read as."""

    __slots__ = ()

    def _loss(self, index: int) -> Loss:
        raise NotImplementedError

    def extend(self, losses: Sequence[Loss], note: str = "") -> None:
        """Adds ``losses`` (a second step's), each reason followed by `` note`` when one is
        given."""
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> Loss: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Loss]: ...
    def __getitem__(self, index: int | slice) -> Loss | Sequence[Loss]:
        if isinstance(index, slice):
            return list(self)[index]
        return self._loss(index)

    def __eq__(self, other: object) -> bool:
        """Equal to the same losses in the same order, as a list, a tuple or another such
        sequence."""
        if isinstance(other, LossesMadeOnRead | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compared by value, and mutable


@runtime_checkable
class CountedLosses(Protocol):
    """Losses that count themselves by (kind, reason) without making a ``Loss`` (nor writing a
    pointer): ``PlacedLosses``."""

    def counts(self) -> dict[tuple[str, str], int]: ...


def loss_counts(losses: Sequence[Loss]) -> dict[tuple[str, str], int]:
    """``losses`` counted by (kind, reason), in the order each first came (``CountedLosses``, such
    as ``PlacedLosses``: without making them)."""
    if isinstance(losses, CountedLosses):
        return losses.counts()
    return dict(collections.Counter(map(operator.itemgetter(1, 2), losses)))


Value = TypeVar("Value", default="AnyValue")
"""The type of a conversion's value: the target format's (``phi_wire.convert.values``)."""


class Conversion(NamedTuple, Generic[Value]):
    """A converted value and what the conversion lost."""

    value: Value
    losses: tuple[Loss, ...]


class UnsupportedConversion(ValueError):
    """No converter between these formats, or not for this type of value."""
