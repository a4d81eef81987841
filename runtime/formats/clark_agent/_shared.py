"""What both directions of clark-agent 0.4 <-> phi-core 0.10 share: the stop-reason and usage
tables (``docs/conversions/clark-agent.md``), the message classes of each side, the losses of one
conversion and the conversions of usage and timestamps."""

from __future__ import annotations

import re
import time
from typing import Any

import phi_wire.clark_agent as clark
import phi_wire.v0_10 as phi
from phi_wire.convert import Losses as _Losses
from phi_wire.pointer import extended as _at

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

_I64_MAX = 2**63 - 1
_DATA_URL = re.compile(r"data:([^;,]+);base64,(.*)", re.DOTALL)
_EPOCH = "1970-01-01T00:00:00Z"

CLARK_MESSAGES = (
    clark.SystemMessage,
    clark.UserMessage,
    clark.AssistantMessage,
    clark.ToolResultMessage,
    clark.CustomMessage,
)
PHI_LLM = (phi.LlmUserMessage, phi.LlmAssistantMessage, phi.LlmToolResultMessage)
PHI_PLAIN = (phi.UserMessage, phi.AssistantMessage, phi.ToolResultMessage)


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


def _usage_to_phi(usage: Any, pointer: str, losses: _Losses) -> Any:
    values: dict[str, int] = {}
    for clark_key, phi_key in USAGE_FIELDS.items():
        count = getattr(usage, clark_key)
        if count < 0:
            losses.add(
                _at(pointer, clark_key), "changed", "negative: phi-core's u64 counter holds 0"
            )
            count = 0
        values[phi_key] = count
    return phi.Usage(**values)


def _usage_from_phi(usage: Any, pointer: str, losses: _Losses) -> Any:
    values: dict[str, int] = {}
    for clark_key, phi_key in USAGE_FIELDS.items():
        count = getattr(usage, phi_key)
        if count > _I64_MAX:
            losses.add(
                _at(pointer, phi_key), "changed", "above i64::MAX: clark-agent's i64 holds it"
            )
            count = _I64_MAX
        values[clark_key] = count
    for phi_key in ("reasoning", "total_tokens"):
        if getattr(usage, phi_key):
            losses.add(_at(pointer, phi_key), "dropped", "clark-agent's Usage has no such counter")
    return clark.Usage(**values)


def _is_zero_usage(usage: Any) -> bool:
    return not any(getattr(usage, name) for name in type(usage).model_fields)
