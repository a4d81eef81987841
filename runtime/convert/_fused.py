"""phi-core fact: a conversion between two other formats goes through phi-core's messages, the
first step (source -> phi-core) and the second (phi-core -> target), and the second step's losses
point into the phi-core form of the whole input. Fused here, dict to dict: each phi-core message
the first step makes is converted by the second at once, so no phi-core message of the input is
held, walked again later and freed with the rest; the second step does not check again what the
first one checked (the numbers of the free-form values). The documents and losses are exactly
those of the two steps one after the other (``_fast.via_hub``): the first step's losses, then the
second's, noted ``VIA_HUB``.

To phi-core itself, a source with a fused first step has each message written as it is made
(``fused_writer``): none of the input's held until all are made, then written and freed.

A format folder's ``convert`` module offers its step in a table: ``FUSED_FIRST_STEPS``
(``(source, "phi-core", type)`` -> ``FirstStep``) or ``FUSED_SECOND_STEPS`` (``("phi-core",
target, "AgentMessage")`` -> ``SecondStep``); a pair one of whose steps has none takes the two
steps (``via_hub``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from typing import Any, TypeAlias

from phi_wire.formats import FOLDERS, HUB

from ._fast import FastConverter
from ._placed import PlacedLosses
from ._route import VIA_HUB

__all__ = [
    "FirstStep",
    "SecondStep",
    "first_step",
    "fused_converter",
    "fused_writer",
    "second_step",
    "second_steps",
]

FirstStep: TypeAlias = Callable[
    [list[dict[str, Any]], str, MutableMapping[str, str], PlacedLosses],
    Iterator[dict[str, Any]],
]
"""``(documents, type, call id -> tool name, losses) -> phi-core messages``, made one at a time
(before phi-core's reader fills in its defaults), their free-form values checked; the losses
added (with their places) to the sink given; ``FastUnsupported`` as the format's dict converter
raises it."""

SecondStep: TypeAlias = Callable[[dict[str, Any], int, PlacedLosses], dict[str, Any]]
"""``(phi-core message, its index in the input's phi-core form, losses) -> the target's
document`` (one per message), its losses added with their places (a place's first token: that
index); ``FastUnsupported`` as the format's dict converter raises it."""


def _table(format: str, name: str) -> dict[tuple[str, str, str], Any]:
    if format not in FOLDERS:
        return {}
    found: dict[tuple[str, str, str], Any] = getattr(
        importlib.import_module(f"{FOLDERS[format]}.convert"), name, {}
    )
    return found


def first_step(source: str, kind: str) -> FirstStep | None:
    """The fused first step from ``source``'s documents of ``kind`` to phi-core's messages
    (None: it has none)."""
    found: FirstStep | None = _table(source, "FUSED_FIRST_STEPS").get((source, HUB, kind))
    return found


def second_step(target: str) -> SecondStep | None:
    """The fused second step from phi-core's messages to ``target`` (None: it has none)."""
    found: SecondStep | None = _table(target, "FUSED_SECOND_STEPS").get(
        (HUB, target, "AgentMessage")
    )
    return found


def second_steps(
    messages: Iterable[dict[str, Any]], second: SecondStep
) -> tuple[list[dict[str, Any]], PlacedLosses]:
    """Each phi-core message converted by ``second`` as it comes (the ``index``-th: its losses'
    pointers' first token), and the second step's losses (not yet noted ``VIA_HUB``)."""
    later = PlacedLosses()
    return [second(message, index, later) for index, message in enumerate(messages)], later


def _steps(source: str, target: str, kind: str) -> tuple[FirstStep, SecondStep] | None:
    if HUB in (source, target):
        return None
    first = first_step(source, kind)
    second = second_step(target)
    return None if first is None or second is None else (first, second)


def fused_converter(source: str, target: str, kind: str) -> FastConverter | None:
    """The dict converter of ``kind`` from ``source`` to ``target`` (a pair without phi-core)
    with its two steps fused; None: one of them has no fused step."""
    steps = _steps(source, target, kind)
    if steps is None:
        return None
    first, second = steps

    def converted(
        documents: list[dict[str, Any]], kind: str
    ) -> tuple[list[dict[str, Any]], PlacedLosses]:
        losses = PlacedLosses()
        out, later = second_steps(first(documents, kind, {}, losses), second)
        losses.extend(later, VIA_HUB)
        return out, losses

    return converted


def fused_writer(
    source: str, target: str, kind: str, write: Callable[[dict[str, Any]], str]
) -> Callable[[list[dict[str, Any]], str], tuple[list[str], PlacedLosses]] | None:
    """``fused_converter``'s documents each written by ``write`` as soon as it is made (neither
    a phi-core message nor a target's document of the input held: a whole input's), ``write``'s
    ``ValueError`` (a document it cannot write) raised as the converters' errors are. To
    phi-core (``target``), the first step's messages so written (the documents and losses of
    the source's dict converter to phi-core)."""
    if target == HUB and source != HUB:
        return _first_step_writer(source, kind, write)
    steps = _steps(source, target, kind)
    if steps is None:
        return None
    first, second = steps

    def written(documents: list[dict[str, Any]], kind: str) -> tuple[list[str], PlacedLosses]:
        losses = PlacedLosses()
        later = PlacedLosses()
        messages = enumerate(first(documents, kind, {}, losses))
        out = [write(second(message, index, later)) for index, message in messages]
        losses.extend(later, VIA_HUB)
        return out, losses

    return written


def _first_step_writer(
    source: str, kind: str, write: Callable[[dict[str, Any]], str]
) -> Callable[[list[dict[str, Any]], str], tuple[list[str], PlacedLosses]] | None:
    first = first_step(source, kind)
    if first is None:
        return None

    def written(documents: list[dict[str, Any]], kind: str) -> tuple[list[str], PlacedLosses]:
        losses = PlacedLosses()
        return [write(message) for message in first(documents, kind, {}, losses)], losses

    return written
