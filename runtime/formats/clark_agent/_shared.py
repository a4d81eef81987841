"""What both directions of clark-agent 0.4 <-> phi-core 0.10 share: the stop-reason and usage
tables (``docs/conversions/clark-agent.md``) and the conversion of timestamps. No models: the
dict converters (``_fast_*``) use it without importing them (each direction's model converter
holds its own message classes and usage conversion)."""

from __future__ import annotations

import functools
import re
import time
import typing
from typing import Any

SYSTEM_KIND = "clark-agent.system"
"""The ExtensionMessage kind that carries a clark-agent ``system`` message through phi-core."""

STOP_REASON_TO_PHI: dict[str, str] = {
    "end_turn": "stop",
    "tool_use": "toolUse",
    "max_tokens": "length",
    "error": "error",
    "aborted": "aborted",
    "other": "stop",  # changed: phi-core has no "other"
}
STOP_REASON_FROM_PHI: dict[str, str] = {
    "stop": "end_turn",
    "toolUse": "tool_use",
    "length": "max_tokens",
    "error": "error",
    "aborted": "aborted",
    "maxTurns": "other",
    "userStop": "other",
    "handoff": "other",
    "guardRail": "other",
    "contextCompacted": "other",
    "paused": "other",
}

USAGE_FIELDS: dict[str, str] = {
    "input_tokens": "input",
    "output_tokens": "output",
    "cache_creation_input_tokens": "cache_write",
    "cache_read_input_tokens": "cache_read",
}
"""clark-agent Usage key -> phi-core Usage key."""


def union_members(alias: Any) -> tuple[type[Any], ...]:
    """The classes a generated union lists, in its order: the type alias's value is
    ``Annotated[A | B | ..., Field(discriminator=...)]`` (or the bare union)."""
    union = alias.__value__
    if typing.get_origin(union) is typing.Annotated:
        union = typing.get_args(union)[0]
    return typing.get_args(union)


@functools.cache
def phi_events() -> tuple[type[Any], ...]:
    """phi-core 0.10's event classes, ``AgentEvent``'s variants (the models imported here, when a
    conversion meets an event stream, not before)."""
    import phi_wire.v0_10 as phi

    return union_members(phi.AgentEvent)


_I64_MAX = 2**63 - 1
_DATA_URL = re.compile(r"data:([^;,]+);base64,(.*)", re.DOTALL)
_EPOCH = "1970-01-01T00:00:00Z"


# --- shared pieces -----------------------------------------------------------------------------


def _ms_to_rfc3339(ms: int) -> str:
    """Unix milliseconds as chrono writes a DateTime<Utc>: 0 or 3 fraction digits, ``Z``."""
    seconds, millis = divmod(ms, 1000)
    try:
        text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    except (OverflowError, OSError, ValueError):
        return _EPOCH
    if not text[:4].isdigit() or len(text) != 19:
        return _EPOCH
    return text + (f".{millis:03d}" if millis else "") + "Z"


def _is_zero_usage(usage: Any) -> bool:
    return not any(getattr(usage, name) for name in type(usage).model_fields)
