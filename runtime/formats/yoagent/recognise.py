"""Does a JSON document look like yoagent 0.13 or later (phi-core's parent project, since 0.13
in pi's camelCase), and which of its types? Enough to name it: phi-wire does not speak it.

yoagent up to 0.12 writes phi-core's JSON (``provider_metadata`` on a tool call aside, which
phi-core ignores): that is phi-core's to recognise. From 0.13 its events are tagged in camelCase
(``agentStart``, ``messageEnd``, ``inputRejected``...) and its tool calls carry
``providerMetadata``: those marks are its own (``certain``). Nothing here imports pydantic.
"""

from __future__ import annotations

from typing import Any

from phi_wire.formats.shapes import tag_of

__all__ = ["EVENT_TAGS", "claim", "describe", "recognise"]

EVENT_TAGS = frozenset(
    {
        "agentStart",
        "agentEnd",
        "turnStart",
        "turnEnd",
        "messageStart",
        "messageUpdate",
        "messageEnd",
        "toolExecutionStart",
        "toolExecutionUpdate",
        "toolExecutionEnd",
        "progressMessage",
        "inputRejected",
        "loopDetected",
        "contextCompacted",
    }
)
"""yoagent's AgentEvent tags (camelCase since 0.13)."""


def _tool_call_metadata(document: dict[str, Any]) -> bool:
    content = document.get("content")
    return isinstance(content, list) and any(
        isinstance(block, dict) and "providerMetadata" in block for block in content[:64]
    )


def claim(document: Any) -> tuple[str, bool] | None:
    """(type, certain) when ``document`` (parsed JSON) has yoagent 0.13+'s shape, else None."""
    if not isinstance(document, dict):
        return None
    if tag_of(document, "type") in EVENT_TAGS:
        return "AgentEvent", True
    if tag_of(document, "role") == "assistant" and _tool_call_metadata(document):
        return "AgentMessage", True
    return None


def describe(type_name: str, plural: bool = False) -> str:
    """``AgentEvent`` -> ``a yoagent (0.13+) event``: what documents of the type are, in words."""
    word = {"AgentEvent": "event", "AgentMessage": "message"}.get(type_name, type_name)
    return f"yoagent (0.13+) {word}s" if plural else f"a yoagent (0.13+) {word}"


def recognise(document: Any) -> str | None:
    """The yoagent type ``document`` (parsed JSON) has the shape of, or None."""
    found = claim(document)
    return found[0] if found is not None else None
