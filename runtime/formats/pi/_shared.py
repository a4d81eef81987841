"""What both directions of pi <-> phi-core 0.10 share: the tables of ``docs/conversions/pi.md``
(stop reasons, usage keys, the roles phi-core has no message for), the losses of one conversion
and pointers. pi's messages are handled as the JSON pi writes (``dumps`` read back: key order
kept), so that every key a converter does not map is found and named."""

from __future__ import annotations

import json
import re
from typing import Any

from phi_wire.convert import Losses
from phi_wire.pointer import extended as at

EXTENSION_ROLES = ("system", "custom", "bashExecution", "branchSummary", "compactionSummary")
"""pi's roles phi-core has no message for (pi-ai's ``system`` of 1.5, the coding agent's custom
roles): each is carried whole in an ``ExtensionMessage`` (role ``extension``, kind
``pi.<role>``, data: the message's other keys), so it comes back as it was."""
EXTENSION_KIND = "pi.{role}"
"""An ExtensionMessage's kind for a pi message of that role."""
CARRIED_KEY = "phi-core"
"""The key of a pi ``custom`` message's ``details`` that carries a phi-core ``ExtensionMessage``
of its own kind (``{"phi-core": {"role": ..., "data": ...}}``), so that it comes back exactly."""

STOP_REASON_TO_PHI: dict[str, tuple[str, str | None]] = {
    "stop": ("stop", None),
    "length": ("length", None),
    "toolUse": ("toolUse", None),
    "error": ("error", None),
    "aborted": ("aborted", None),
    "pending": ("stop", "phi-core has no pending (a streamed partial's): stop"),
    "deferred": ("stop", "phi-core has no deferred (a batch request submitted): stop"),
}
"""pi stop reason -> (phi-core stop reason, the loss reason when not exact)."""

STOP_REASON_FROM_PHI: dict[str, tuple[str, str | None]] = {
    "stop": ("stop", None),
    "length": ("length", None),
    "toolUse": ("toolUse", None),
    "error": ("error", None),
    "aborted": ("aborted", None),
    "maxTurns": ("stop", "pi has no maxTurns stop reason: stop"),
    "userStop": ("aborted", "pi has no userStop stop reason: aborted"),
    "handoff": ("stop", "pi has no handoff stop reason: stop"),
    "guardRail": ("error", "pi has no guardRail stop reason: error"),
    "contextCompacted": ("stop", "pi has no contextCompacted stop reason: stop"),
    "paused": ("stop", "pi has no paused stop reason: stop"),
}
"""phi-core stop reason -> (pi stop reason, the loss reason when not exact)."""

USAGE_KEYS: dict[str, str] = {
    "input": "input",
    "output": "output",
    "cacheRead": "cache_read",
    "cacheWrite": "cache_write",
    "reasoning": "reasoning",
    "totalTokens": "total_tokens",
}
"""pi Usage key -> phi-core Usage attribute (its wire key is the same but ``cache_read``,
``cache_write``, ``total_tokens``). pi's ``cost`` and Anthropic's ``cacheWrite1h`` have no
phi-core counterpart."""

U64_MAX = 2**64 - 1


def as_json(value: Any, dumps: Any) -> Any:
    """A model as the JSON its format writes (objects keep the order written)."""
    return json.loads(dumps(value))


def drop_others(
    document: dict[str, Any], kept: set[str], pointer: str, losses: Losses, reason: str
) -> None:
    """A ``dropped`` loss for every key of ``document`` not in ``kept``."""
    for key in document:
        if key not in kept:
            losses.add(at(pointer, key), "dropped", reason.format(key=key))


_LONE = re.compile("[\ud800-\udfff]")
LONE_SURROGATE = (
    "a lone surrogate (JavaScript strings may hold one): phi-core's strings are UTF-8, so it is "
    "written U+FFFD"
)


def well_formed(value: Any, pointer: str, losses: Losses) -> Any:
    """``value`` (pi's JSON) with every lone surrogate of its strings (keys included) replaced by
    U+FFFD, a ``changed`` loss at each string changed."""
    if isinstance(value, str):
        if _LONE.search(value):
            losses.add(pointer, "changed", LONE_SURROGATE)
            return _LONE.sub("\ufffd", value)
        return value
    if isinstance(value, list):
        return [well_formed(item, at(pointer, index), losses) for index, item in enumerate(value)]
    if isinstance(value, dict):
        fixed = {}
        for key, item in value.items():
            inner = at(pointer, key)
            if _LONE.search(key):
                losses.add(inner, "changed", LONE_SURROGATE)
                key = _LONE.sub("\ufffd", key)
            fixed[key] = well_formed(item, inner, losses)
        return fixed
    return value
