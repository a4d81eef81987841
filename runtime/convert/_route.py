"""Routing a conversion: which converter of the registry's format folders turns a value of one
format into another's (every converter goes to or from phi-core, the hub), and the session files a
format stores a list of phi-core messages as."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

from phi_wire.formats import FOLDERS, FORMATS, HUB, version_of

from ._session import from_session, is_session
from ._types import Conversion, Loss, UnsupportedConversion

if TYPE_CHECKING:  # the value types import every format's models; convert itself does not
    from phi_wire.formats.operator_use.api import SessionFileLines
    from phi_wire.operator_use import SessionFileEntry

    from .values import (
        AnyValue,
        ClarkAgentValue,
        Convertible,
        OperatorUseValue,
        PhiCoreItem,
        PhiCoreValue,
        PiValue,
    )

__all__ = [
    "CONVERTERS",
    "SESSION_WRITERS",
    "VIA_HUB",
    "convert",
    "noted_via_hub",
    "to_session_file",
]


CONVERTERS: dict[tuple[str, str], str] = {
    pair: f"{FOLDERS[format]}.convert:{function}"
    for format in FORMATS
    if format != HUB
    for pair, function in (((format, HUB), "to_phi_core"), ((HUB, format), "from_phi_core"))
}
"""``(source, target)`` -> ``"module:function"`` of the converter (imported on first use), for
every format of the registry and the hub, phi-core, both ways: each format folder's ``convert``
module. Each function takes a model of the source format (and, keyword, ``name``: the input's
name, the seed of the ids it invents) and returns a ``Conversion``."""


def _converter(source: str, target: str) -> Callable[..., Conversion[Any]]:
    location = CONVERTERS.get((source, target))
    if location is None:
        pairs = ", ".join(f"{a} -> {b}" for a, b in sorted(CONVERTERS)) or "none yet"
        raise UnsupportedConversion(f"no converter from {source} to {target} (there are: {pairs})")
    module, _, function = location.partition(":")
    converter: Callable[..., Conversion[Any]] = getattr(importlib.import_module(module), function)
    return converter


@overload
def convert(
    value: Convertible,
    *,
    source: str | None = None,
    target: Literal["phi-core"] = "phi-core",
    name: str = "",
) -> Conversion[PhiCoreValue]: ...
@overload
def convert(
    value: Convertible, *, source: str | None = None, target: Literal["clark-agent"], name: str = ""
) -> Conversion[ClarkAgentValue]: ...
@overload
def convert(
    value: Convertible,
    *,
    source: str | None = None,
    target: Literal["operator-use"],
    name: str = "",
) -> Conversion[OperatorUseValue]: ...
@overload
def convert(
    value: Convertible, *, source: str | None = None, target: Literal["pi"], name: str = ""
) -> Conversion[PiValue]: ...
@overload
def convert(
    value: Convertible, *, source: str | None = None, target: str, name: str = ""
) -> Conversion[AnyValue]: ...
def convert(
    value: Any, *, source: str | None = None, target: str = "phi-core", name: str = ""
) -> Conversion[Any]:
    """``value`` (a model of ``source``; by default the format whose module defines it) as a model
    of ``target``, with the losses. ``name`` (the input's: a file's path) seeds the ids the
    conversion invents (``derived_id``): the same value and name always give the same ids.

    A model cannot say which of its values its reader made up for a missing key (a timestamp
    clark-agent's reader stamps, an id or timestamp Operator-Use's fills at random or from the
    clock): they convert as any value, without a loss; ``convert_file`` and ``convert_stream``
    read the document beside the model, replace such values with ones derived from the input
    and name each as ``invented``. (An Operator-Use id its source did not set, outside the
    model's ``model_fields_set``, is not called ``dropped`` by a converter to phi-core.)"""
    if source is None:
        # a list (of messages, or a session file's entries) is in the format of its items
        entry = version_of(value[0] if isinstance(value, list) and value else value)
        if entry is None:
            raise UnsupportedConversion(f"{type(value).__name__} is not a wire type; name source=")
        source = entry.format
    for format in (source, target):
        if format not in FORMATS:
            raise UnsupportedConversion(f"unknown format {format!r}; known: {', '.join(FORMATS)}")
    if source == target:
        return Conversion(value, ())
    if HUB not in (source, target):  # through the hub: the second step's losses say so
        first = _converter(source, HUB)(value, name=name)
        second = convert(first.value, source=HUB, target=target, name=name)
        noted = map(noted_via_hub, second.losses)
        return Conversion(second.value, (*first.losses, *noted))
    if source == HUB and is_session(value):
        return from_session(value, lambda messages: _converter(HUB, target)(messages, name=name))
    return _converter(source, target)(value, name=name)


VIA_HUB = "(the second step, phi-core -> target: a pointer into the phi-core form)"
"""The note on each loss of a conversion's second step through phi-core (its pointer points into
the phi-core form of the source, not into the source)."""


def noted_via_hub(loss: Loss) -> Loss:
    """A loss of a conversion's second step through phi-core, noted so (``VIA_HUB``)."""
    return Loss(loss.pointer, loss.kind, f"{loss.reason} {VIA_HUB}")


SESSION_WRITERS: dict[str, str] = {
    "operator-use": f"{FOLDERS['operator-use']}.convert:session_from_phi_core",
    "pi": f"{FOLDERS['pi']}.convert:session_from_phi_core",
}
"""target -> ``"module:function"`` writing a list of phi-core messages as that format's session
file (what it stores a conversation as)."""


@overload
def to_session_file(
    messages: Sequence[PhiCoreItem],
    *,
    target: Literal["operator-use"] = "operator-use",
    cwd: str = ".",
    name: str = "",
) -> Conversion[SessionFileLines[SessionFileEntry]]: ...
@overload
def to_session_file(
    messages: Sequence[PhiCoreItem], *, target: str, cwd: str = ".", name: str = ""
) -> Conversion[AnyValue]: ...
def to_session_file(
    messages: Sequence[Any], *, target: str = "operator-use", cwd: str = ".", name: str = ""
) -> Conversion[Any]:
    """A list of phi-core messages (the newest version's models) as a session file of
    ``target``: for Operator-Use a ``SessionFileLines`` (a header with ``cwd``, one message
    entry per message, each the child of the one before), the ids it invents (derived from
    ``name``, the input's, and the messages) among the losses."""
    location = SESSION_WRITERS.get(target)
    if location is None:
        raise UnsupportedConversion(f"{target} has no session file to write messages to")
    module, _, function = location.partition(":")
    writer: Callable[..., Conversion[Any]] = getattr(importlib.import_module(module), function)
    return writer(list(messages), cwd=cwd, name=name)
