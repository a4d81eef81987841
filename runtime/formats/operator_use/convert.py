"""Operator-Use (pi-style rewrite) <-> phi-core 0.10: the mapping table of
``docs/conversions/operator-use.md``, with every loss named by a pointer into the source.

Both directions work on the JSON of the source (its models dumped as their format writes them)
and build the target through that format's own ``loads``, so the result is exactly what the
target implementation reads. Pointers are into the source document: a message
(``/contents/0/signature``), a list of messages (``/3/contents/0``), a ``SessionContext``
(``/messages/3/...``) or a session file, read as the array of its lines (``/7/message/id``).

To phi-core (``to_phi_core``): a message, a list of messages, a ``SessionContext`` or a session
file (its active branch, as ``build_session_context`` rebuilds it) becomes a list of phi-core
``AgentMessage``s (a ``tool`` message holds one ``tool_result`` block per call; phi-core has one
``toolResult`` message per call); a ``Usage`` a ``Usage``; a ``StopReason`` a ``StopReason``.

From phi-core (``from_phi_core``): a message or a list of them becomes a list of Operator-Use
messages (consecutive ``toolResult`` messages with one timestamp become one ``tool`` message);
``Usage`` and ``StopReason`` likewise. ``session_from_phi_core`` writes a list as a session file.

Without the models (``FAST_CONVERTERS``: ``_fast_to_phi``): message lines and session files to
phi-core, dict to dict, the same JSON and losses as the models give, for ``phi-wire convert``
(``FUSED_FIRST_STEPS``: the same messages one at a time, for a second step fused with it);
(``FAST_SESSION_FILES``: ``_fast_from_phi``) phi-core messages (a JSONL file's, or a Session's)
to a session file likewise (``STREAMED_SESSION_FILES``: a batch at a time; both in
``session_files``, which imports no model).

Batch by batch (``MessageStreamToPhi``: ``phi_wire.convert``'s streamed input): message lines to
phi-core, the tool names of the calls met so far carried from one batch to the next.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from typing import TYPE_CHECKING, Any

from phi_wire.convert import FastConverter, PlacedLosses

from ._fast_to_phi import phi_messages, to_phi_core_dicts
from ._non_finite import written_changes
from ._shared import STOP_REASONS_FROM_PHI, STOP_REASONS_TO_PHI
from ._stream_to_phi import MessageStreamToPhi
from ._to_phi import to_phi_core
from .session_files import FAST_SESSION_FILES, STREAMED_SESSION_FILES

if TYPE_CHECKING:
    from ._from_phi import from_phi_core, session_from_phi_core

__all__ = [
    "FAST_CONVERTERS",
    "FAST_SESSION_FILES",
    "FUSED_FIRST_STEPS",
    "STOP_REASONS_FROM_PHI",
    "STOP_REASONS_TO_PHI",
    "STREAMED_SESSION_FILES",
    "MessageStreamToPhi",
    "from_phi_core",
    "session_from_phi_core",
    "to_phi_core",
    "written_changes",
]

FAST_CONVERTERS: dict[tuple[str, str, str], FastConverter] = {
    ("operator-use", "phi-core", "AgentMessage"): to_phi_core_dicts,
    ("operator-use", "phi-core", "SessionFile"): to_phi_core_dicts,
}
"""(source, target, type) -> the dict converter (``phi_wire.convert``'s seam: ``FastConverter``)
of message lines (``AgentMessage``) and of a session file's entries (``SessionFile``), read whole
(``phi_wire.convert``'s ``_fast_whole``): the target's documents and the losses, exactly as the
model converter's; ``FastUnsupported`` for a document it cannot convert so (the input then takes
the model path)."""

FUSED_FIRST_STEPS: dict[
    tuple[str, str, str],
    Callable[
        [list[dict[str, Any]], str, MutableMapping[str, str], PlacedLosses],
        Iterator[dict[str, Any]],
    ],
] = {
    ("operator-use", "phi-core", "AgentMessage"): phi_messages,
    ("operator-use", "phi-core", "SessionFile"): phi_messages,
}
"""(source, target, type) -> the first step of a conversion through phi-core, fused with the second
(``phi_wire.convert``'s ``_fused``): the documents' phi-core messages made one at a time (as
``FAST_CONVERTERS``' converter makes them), the call id -> tool name map carried, the losses
added to the sink given; also each message of a conversion to phi-core written as it is made."""


def _model_converters() -> dict[str, object]:
    from ._from_phi import from_phi_core, session_from_phi_core

    return {"from_phi_core": from_phi_core, "session_from_phi_core": session_from_phi_core}


_LAZY = {
    "from_phi_core": _model_converters,
    "session_from_phi_core": _model_converters,
}
"""What imports the models (the model converters from phi-core), read when first used: a
conversion to phi-core imports none of them."""

if not TYPE_CHECKING:  # hidden from type checkers: a wrong name stays an error for them

    def __getattr__(name: str) -> object:
        made = _LAZY.get(name)
        if made is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        found = made()
        globals().update(found)
        return found[name]
