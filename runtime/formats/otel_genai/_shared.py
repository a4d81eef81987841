"""What both directions between OpenTelemetry GenAI's documents and phi-core share: the finish
reasons against phi-core's stop reasons, the extension-message kinds that carry what phi-core has
no message for, and the loss list with its pointers."""

from __future__ import annotations

import json
from typing import Any

from phi_wire.convert import Losses as ConvertLosses
from phi_wire.pointer import extended as at

__all__ = [
    "CLARK_SYSTEM_KIND",
    "FINISH_REASON_FROM_PHI",
    "FINISH_REASON_TO_PHI",
    "MESSAGE_KIND",
    "SYSTEM_INSTRUCTIONS_KIND",
    "Losses",
    "at",
    "compact",
]

SYSTEM_INSTRUCTIONS_KIND = "otel-genai.system_instructions"
"""The ``ExtensionMessage`` kind whose data is a ``gen_ai.system_instructions`` document (phi-core
has no system message): a ``SystemInstructions`` document goes through phi-core as one."""

CLARK_SYSTEM_KIND = "clark-agent.system"
"""The ``ExtensionMessage`` kind of clark-agent's system message in phi-core (its folder's
``SYSTEM_KIND``; a format folder imports no other: a test checks the two agree). Its data's
``content`` is an OpenTelemetry ``system`` message of one text part, in its place among the input
messages, and such a message comes back as one."""

MESSAGE_KIND = "otel-genai.message"
"""The ``ExtensionMessage`` kind whose data is one OpenTelemetry message whose role phi-core has no
message for (``system``, openai-v2's ``developer``): it comes back in its place."""

FINISH_REASON_FROM_PHI: dict[str, str] = {
    "stop": "stop",
    "length": "length",
    "toolUse": "tool_call",
    "error": "error",
    "contextCompacted": "compaction",
}
"""phi-core stop reason -> the conventions' finish reason; phi-core's other reasons (``aborted``,
``maxTurns``, ``userStop``, ``handoff``, ``guardRail``, ``paused``) are written as they are (the
conventions allow any string) and come back the same."""

FINISH_REASON_TO_PHI: dict[str, str] = {
    **{otel: phi for phi, otel in FINISH_REASON_FROM_PHI.items()},
    **{phi: phi for phi in ("aborted", "maxTurns", "userStop", "handoff", "guardRail", "paused")},
    "content_filter": "guardRail",
}
"""The conventions' finish reason (and phi-core's own, written as they are) -> phi-core stop
reason; ``content_filter`` is phi-core's ``guardRail`` (a ``changed`` loss: it comes back as
``guardRail``); any other string is ``stop`` (``changed``)."""


def compact(value: Any) -> str:
    """``value``'s JSON as the converters hand it to a ``loads`` (compact, non-ASCII kept)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class Losses(ConvertLosses):
    """The losses of one conversion, in the order found, with the helpers of OpenTelemetry's
    converters."""

    def rest(self, value: dict[str, Any], pointer: str, kept: set[str], where: str) -> None:
        """A ``dropped`` loss for each key of ``value`` but ``kept`` (``where``: what has no
        place for it)."""
        for key in value:
            if key not in kept:
                self.add(at(pointer, key), "dropped", f"{where} has no {key!r}")
