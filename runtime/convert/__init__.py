"""``phi_wire.convert``: one implementation's JSON as another's, saying exactly what is lost.

    from phi_wire.convert import convert

    result = convert(clark_message, source="clark-agent", target="phi-core")
    result.value    # a model of the target format (phi-core: the newest version's)
    result.losses   # one Loss per piece of the source the target cannot hold, or had to invent

Statically, ``result.value`` is the target's value type (``phi_wire.convert.values``): a
``PhiCoreValue`` for ``target="phi-core"`` (the default), ``ClarkAgentValue``,
``OperatorUseValue``; ``AnyValue`` when the target is a ``str`` known at run time only.

Each ``Loss`` names a JSON pointer into the *source* document and a reason. Nothing is lost
silently: a piece of the source that no loss names survives a round trip source -> target ->
source. Converters exist between phi-core and every other format (``CONVERTERS``); the mapping
tables they implement are in ``docs/conversions/<format>.md``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, Literal, NamedTuple, overload

from typing_extensions import TypeVar

from phi_wire.formats import FORMATS, version_of

if TYPE_CHECKING:  # the value types import every format's models; convert itself does not
    from phi_wire.operator_use import SessionFileEntry
    from phi_wire.operator_use_api import SessionFileLines

    from .values import (
        AnyValue,
        ClarkAgentValue,
        Convertible,
        OperatorUseValue,
        PhiCoreItem,
        PhiCoreValue,
    )

__all__ = [
    "CONVERTERS",
    "SESSION_WRITERS",
    "Conversion",
    "Loss",
    "UnsupportedConversion",
    "convert",
    "to_session_file",
]


class Loss(NamedTuple):
    """One piece of the source that the target cannot hold, or that the target needed and the
    source did not have."""

    pointer: str
    """RFC 6901 pointer into the source document ("" is the whole document)."""
    kind: Literal["dropped", "invented", "changed"]
    """``dropped``: the target has no place for it; ``invented``: the target requires a value the
    source lacks, so one was made up (the reason says which); ``changed``: kept, but not exactly
    (a timestamp rounded to the target's precision, a value mapped to its nearest counterpart)."""
    reason: str


Value = TypeVar("Value", default="AnyValue")
"""The type of a conversion's value: the target format's (``phi_wire.convert.values``)."""


class Conversion(NamedTuple, Generic[Value]):
    """A converted value and what the conversion lost."""

    value: Value
    losses: tuple[Loss, ...]


class UnsupportedConversion(ValueError):
    """No converter between these formats, or not for this type of value."""


CONVERTERS: dict[tuple[str, str], str] = {
    ("clark-agent", "phi-core"): "phi_wire.convert._clark_agent:to_phi_core",
    ("phi-core", "clark-agent"): "phi_wire.convert._clark_agent:from_phi_core",
    ("operator-use", "phi-core"): "phi_wire.convert._operator_use:to_phi_core",
    ("phi-core", "operator-use"): "phi_wire.convert._operator_use:from_phi_core",
}
"""``(source, target)`` -> ``"module:function"`` of the converter (imported on first use). Each
function takes a model of the source format and returns a ``Conversion``."""


def _converter(source: str, target: str) -> Callable[[Any], Conversion[Any]]:
    location = CONVERTERS.get((source, target))
    if location is None:
        pairs = ", ".join(f"{a} -> {b}" for a, b in sorted(CONVERTERS)) or "none yet"
        raise UnsupportedConversion(f"no converter from {source} to {target} (there are: {pairs})")
    module, _, function = location.partition(":")
    converter: Callable[[Any], Conversion[Any]] = getattr(importlib.import_module(module), function)
    return converter


@overload
def convert(
    value: Convertible, *, source: str | None = None, target: Literal["phi-core"] = "phi-core"
) -> Conversion[PhiCoreValue]: ...
@overload
def convert(
    value: Convertible, *, source: str | None = None, target: Literal["clark-agent"]
) -> Conversion[ClarkAgentValue]: ...
@overload
def convert(
    value: Convertible, *, source: str | None = None, target: Literal["operator-use"]
) -> Conversion[OperatorUseValue]: ...
@overload
def convert(
    value: Convertible, *, source: str | None = None, target: str
) -> Conversion[AnyValue]: ...
def convert(value: Any, *, source: str | None = None, target: str = "phi-core") -> Conversion[Any]:
    """``value`` (a model of ``source``; by default the format whose module defines it) as a model
    of ``target``, with the losses."""
    if source is None:
        # a list (of messages, or a session file's entries) is in the format of its items
        entry = version_of(value[0] if isinstance(value, list) and value else value)
        if entry is None:
            raise UnsupportedConversion(f"{type(value).__name__} is not a wire type; name source=")
        source = entry.format
    for name in (source, target):
        if name not in FORMATS:
            raise UnsupportedConversion(f"unknown format {name!r}; known: {', '.join(FORMATS)}")
    if source == target:
        return Conversion(value, ())
    return _converter(source, target)(value)


SESSION_WRITERS: dict[str, str] = {
    "operator-use": "phi_wire.convert._operator_use:session_from_phi_core",
}
"""target -> ``"module:function"`` writing a list of phi-core messages as that format's session
file (what it stores a conversation as)."""


@overload
def to_session_file(
    messages: Sequence[PhiCoreItem],
    *,
    target: Literal["operator-use"] = "operator-use",
    cwd: str = ".",
) -> Conversion[SessionFileLines[SessionFileEntry]]: ...
@overload
def to_session_file(
    messages: Sequence[PhiCoreItem], *, target: str, cwd: str = "."
) -> Conversion[AnyValue]: ...
def to_session_file(
    messages: Sequence[Any], *, target: str = "operator-use", cwd: str = "."
) -> Conversion[Any]:
    """A list of phi-core messages (the newest version's models) as a session file of
    ``target``: for Operator-Use a ``SessionFileLines`` (a fresh header with ``cwd``, one message
    entry per message, each the child of the one before), the ids it invents among the losses."""
    location = SESSION_WRITERS.get(target)
    if location is None:
        raise UnsupportedConversion(f"{target} has no session file to write messages to")
    module, _, function = location.partition(":")
    writer: Callable[..., Conversion[Any]] = getattr(importlib.import_module(module), function)
    return writer(list(messages), cwd=cwd)
