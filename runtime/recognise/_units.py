"""A bare JSON string as a unit enum: serde (and pydantic) write a unit variant as its name alone,
so ``"stop"`` or ``"end_turn"`` is recognised by which of a format's enums has that name."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["unit_enum"]


def unit_enum(value: object, enums: Mapping[str, tuple[str, ...]]) -> str | None:
    """The first enum of ``enums`` (name: its variants' wire names) naming ``value``, else None
    (always None for a value that is not a string: a unit variant is written as its name)."""
    if not isinstance(value, str):
        return None
    for enum, names in enums.items():
        if value in names:
            return enum
    return None
