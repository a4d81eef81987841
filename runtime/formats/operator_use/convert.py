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
"""

from __future__ import annotations

from ._from_phi import from_phi_core, session_from_phi_core
from ._shared import STOP_REASONS_FROM_PHI, STOP_REASONS_TO_PHI
from ._to_phi import to_phi_core

__all__ = [
    "STOP_REASONS_FROM_PHI",
    "STOP_REASONS_TO_PHI",
    "from_phi_core",
    "session_from_phi_core",
    "to_phi_core",
]
