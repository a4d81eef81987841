"""The types every conversion gives: a ``Conversion`` (the converted value) and its ``Loss``es,
and the error for a conversion phi-wire has no converter for. Format folders' converters build
them; this module imports nothing of phi-wire."""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, Literal, NamedTuple

from typing_extensions import TypeVar

if TYPE_CHECKING:
    from .values import AnyValue

__all__ = ["Conversion", "Loss", "LossKind", "Losses", "UnsupportedConversion"]


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


Value = TypeVar("Value", default="AnyValue")
"""The type of a conversion's value: the target format's (``phi_wire.convert.values``)."""


class Conversion(NamedTuple, Generic[Value]):
    """A converted value and what the conversion lost."""

    value: Value
    losses: tuple[Loss, ...]


class UnsupportedConversion(ValueError):
    """No converter between these formats, or not for this type of value."""
