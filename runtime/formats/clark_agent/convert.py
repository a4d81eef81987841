"""clark-agent 0.4 <-> phi-core 0.10: messages, blocks, usage, stop reasons, tool results, history
rows, and event streams both ways.

The mapping tables are in ``docs/conversions/clark-agent.md`` (the tests read its stop-reason
and usage tables and compare them with ``STOP_REASON_TO_PHI``, ``STOP_REASON_FROM_PHI`` and
``USAGE_FIELDS``). The decisions this module implements, in short:

* ``system`` has no phi-core message: it becomes an ``ExtensionMessage`` of kind
  ``SYSTEM_KIND`` whose data is ``{"content": ..., "timestamp": ...}``; ``custom`` becomes an
  ``ExtensionMessage`` with the same kind and ``data`` = payload (its timestamp has no place).
  Both come back as they were.
* ``reasoning`` <-> ``thinking``; clark's tag-elicited ``thinking`` becomes a phi-core
  ``thinking`` too and comes back as ``reasoning`` (a named loss); ``reasoning_details`` travels
  as an empty ``thinking`` block whose ``signature`` (phi-core's opaque echo-back token) is the
  compact JSON of clark's ``ReasoningDetailsContent``, key order kept.
* ``image``: a base64 ``data:`` URL splits into ``data`` + ``mimeType``; any other URL is kept
  verbatim in ``data`` (base64 never holds ``:``, so it is recognised on the way back).
* user content: a string is one text block; one text block comes back as a string.
* usage: an absent clark usage is an all-zero phi-core usage, and an all-zero one comes back as
  absent; counters outside the other side's range are clamped (named).

Every loss names a JSON pointer into the *source* document (wire key names).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from phi_wire.convert import FastConverter, PlacedLosses

from ._fast_from_phi import events_from_phi, message_from_phi, messages_from_phi
from ._fast_to_phi import messages_to_phi
from ._shared import STOP_REASON_FROM_PHI, STOP_REASON_TO_PHI, SYSTEM_KIND, USAGE_FIELDS

if TYPE_CHECKING:
    from ._events_from_phi import from_phi_core
    from ._to_phi import EventStreamToPhi, to_phi_core

__all__ = [
    "FAST_CONVERTERS",
    "FUSED_SECOND_STEPS",
    "STOP_REASON_FROM_PHI",
    "STOP_REASON_TO_PHI",
    "SYSTEM_KIND",
    "USAGE_FIELDS",
    "EventStreamToPhi",
    "from_phi_core",
    "to_phi_core",
]

FAST_CONVERTERS: dict[tuple[str, str, str], FastConverter] = {
    ("clark-agent", "phi-core", "AgentMessage"): messages_to_phi,
    ("phi-core", "clark-agent", "AgentMessage"): messages_from_phi,
    ("phi-core", "clark-agent", "AgentEvent"): events_from_phi,
}
"""(source, target, type) -> the dict converter of the lines the source's fast path vouches
for (``phi_wire.convert``'s seam: ``FastConverter``). clark-agent's events, whose conversion
carries the run's state, have theirs on the stream converter: ``EventStreamToPhi.convert_dicts``."""

FUSED_SECOND_STEPS: dict[
    tuple[str, str, str], Callable[[dict[str, Any], int, PlacedLosses], dict[str, Any]]
] = {("phi-core", "clark-agent", "AgentMessage"): message_from_phi}
"""(source, target, type) -> the second step of a conversion through phi-core, fused with the
first (``phi_wire.convert``'s ``_fused``): one phi-core message as the first step made it (its
free values checked there), its index in the input's phi-core form and the losses (kept with
their places) -> the document ``FAST_CONVERTERS``' converter makes of it."""

_MODEL_CONVERTERS = {
    "from_phi_core": "._events_from_phi",
    "EventStreamToPhi": "._to_phi",
    "to_phi_core": "._to_phi",
}
"""The converters of models, imported (with the models) when first used: the dict converters
above need neither, and a fast conversion imports only them."""

if not TYPE_CHECKING:  # hidden from type checkers: a wrong name stays an error for them

    def __getattr__(name: str) -> object:
        home = _MODEL_CONVERTERS.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home, __package__), name)
        globals()[name] = value
        return value
