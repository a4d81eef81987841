"""Which of pi's stream converters a value goes to: a provider stream (pi-ai's
``AssistantMessageEvent``s) becomes phi-wire's provider ``StreamEvent``s; an agent or session
event stream (pi-agent-core's ``AgentEvent``s, the coding agent's ``AgentSessionEvent``s, the 1.5
CLI's JSON/RPC lines, with a session header line or RPC responses among them) becomes phi-core
``AgentEvent``s. One event alone converts as a stream of one (a lone value gives a lone value).

pi fact: both kinds are tagged by ``type``; the tags of the two kinds are disjoint, and neither
shares one with a message (``role``) or a session entry (whose tags are entry kinds).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from phi_wire.convert import Conversion

from ._events_to_phi import AGENT_EVENTS, SESSION_ONLY, agent_events_to_phi
from ._provider_stream import PROVIDER_EVENTS, provider_stream_to_phi
from ._stream_shared import js_view

__all__ = ["stream_to_phi_core"]

EVENT_TAGS = AGENT_EVENTS | (SESSION_ONLY.keys() - {"session"})


def _tags(values: list[Any]) -> set[Any] | None:
    tags = set()
    for value in values:
        if not isinstance(value, dict) or "role" in value:
            return None
        tags.add(value.get("type"))
    return tags


def _models(value: Any) -> bool:
    """Whether ``value`` is pi's models (what ``loads`` read: each event as pi's types say),
    not plain JSON the converters would have to judge themselves."""
    items = value if isinstance(value, list) else [value]
    return all(isinstance(item, BaseModel) for item in items)


def stream_to_phi_core(value: Any, *, name: str = "") -> Conversion[Any] | None:
    """``value`` (a pi model or a list of them) converted if it is an event stream; None if it
    is not (a message, a session, ...)."""
    if not _models(value):
        return None
    lone = not isinstance(value, list)
    views = [js_view(value)] if lone else js_view(value)
    tags = _tags(views)
    if not tags:
        return None
    if tags <= PROVIDER_EVENTS:
        converted = provider_stream_to_phi(views)
    elif tags & EVENT_TAGS and tags <= EVENT_TAGS | PROVIDER_EVENTS | {"session"}:
        converted = agent_events_to_phi(views, name=name)
    else:
        return None
    if not lone:
        return converted
    (single,) = converted.value or [None]
    losses = tuple(loss._replace(pointer=loss.pointer[2:]) for loss in converted.losses)
    return Conversion(single, losses)
