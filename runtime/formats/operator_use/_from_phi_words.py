"""What phi-core 0.10 -> Operator-Use decides without a model (so the dict writers of a session
file import none): the stop-reason table, the losses a written session file invents (its header,
its entry ids), and the custom message an ExtensionMessage becomes when it carries no
Operator-Use message (its ``kind`` is Operator-Use's ``custom_type``, its ``data`` the details).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from phi_wire.convert import LossKind

__all__ = [
    "CUSTOM_INVENTED",
    "CUSTOM_ROLE_DROPPED",
    "ENTRY_IDS_INVENTED",
    "HEADER_INVENTED",
    "STOP_REASONS_FROM_PHI",
    "custom_from_phi",
    "may_carry_a_message",
]

STOP_REASONS_FROM_PHI: dict[str, tuple[str, str | None]] = {
    "stop": ("stop", None),
    "length": ("length", None),
    "toolUse": ("tool_calls", None),
    "error": ("error", None),
    "aborted": ("abort", None),
    "guardRail": ("content_filter", None),
    "maxTurns": ("stop", "Operator-Use has no maxTurns stop reason: written as stop"),
    "userStop": ("abort", "Operator-Use has no userStop stop reason: written as abort"),
    "handoff": ("stop", "Operator-Use has no handoff stop reason: written as stop"),
    "contextCompacted": ("stop", "Operator-Use has no contextCompacted stop reason: stop"),
    "paused": ("stop", "Operator-Use has no paused stop reason: written as stop"),
}
"""phi-core stop reason -> (Operator-Use stop reason, the loss reason when not exact)."""

HEADER_INVENTED = "the session header: a derived id, cwd "
"""The loss of a written session file's header (its ``cwd``'s repr follows)."""
ENTRY_IDS_INVENTED = "entry ids (8 hex characters) and parent links"

CUSTOM_INVENTED = "an extension message becomes a custom message with timestamp 0.0"
CUSTOM_ROLE_DROPPED = "a custom message's role is custom"


def may_carry_a_message(message: dict[str, Any]) -> bool:
    """Whether an ExtensionMessage may carry an Operator-Use message (its kind
    ``operator-use.<role>``, its data an object of that role): only its layout's models tell
    (else it is a custom message)."""
    kind, data = message["kind"], message["data"]
    role = kind.removeprefix("operator-use.")
    return kind != role and isinstance(data, dict) and data.get("role") == role


def custom_from_phi(
    message: dict[str, Any], lose: Callable[[str, LossKind, str], None]
) -> dict[str, Any]:
    """An ExtensionMessage that carries no Operator-Use message as Operator-Use's custom message
    (its JSON before the reader fills in its defaults); ``lose`` is told each loss with the
    pointer's rest after the message's own."""
    lose("", "invented", CUSTOM_INVENTED)
    if message["role"] != "extension":
        lose("/role", "dropped", CUSTOM_ROLE_DROPPED)
    return {
        "role": "custom",
        "custom_type": message["kind"],
        "timestamp": 0.0,
        "details": message["data"],
    }
