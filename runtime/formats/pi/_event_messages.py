"""The messages inside pi's events, converted as pi's messages are (``_to_phi``, the message
converter): one message, a JSON view (a dict in pi's key order, lone surrogates kept), as a
``Conversion`` whose loss pointers are relative to the message.

pi fact: an event carries the very ``Message`` pi stores in a session (a streamed partial is one
with stop reason ``pending``), and a 1.5 CLI line's ``usage`` is pi-ai's ``Usage``: no second
mapping of either.
"""

from __future__ import annotations

from typing import Any

import phi_wire.v0_10 as phi
from phi_wire.convert import Conversion, Loss, Losses

from . import _to_phi
from ._shared import STOP_REASON_TO_PHI, well_formed

__all__ = ["EXACT_STOP_REASONS", "content_to_phi", "message_to_phi", "usage_losses"]

EXACT_STOP_REASONS = frozenset(
    reason for reason, (_, loss) in STOP_REASON_TO_PHI.items() if loss is None
)
"""pi's stop reasons phi-core has as they are (the others are a ``changed`` loss)."""


def message_to_phi(message: dict[str, Any]) -> Conversion[Any]:
    """One pi message as phi-core's (``_to_phi.message_to_phi``), its strings made UTF-8: a bare
    ``Message`` (events put it in the LLM lane themselves, or not: a ``TurnEnd``'s), or an
    ``ExtensionMessage``."""
    losses = Losses()
    value = _to_phi.message_to_phi(well_formed(message, "", losses), "", losses)
    if not isinstance(value, phi.ExtensionMessage):
        value = value.as_llm()  # pi's messages carry no turn id: nothing is left behind
    return Conversion(value, tuple(losses))


def usage_losses(usage: dict[str, Any], pointer: str) -> tuple[Loss, ...]:
    """What converting pi's ``Usage`` at ``pointer`` to phi-core's loses."""
    losses = Losses()
    _to_phi.usage_to_phi(usage, pointer, losses)
    return tuple(losses)


def content_to_phi(blocks: list[dict[str, Any]]) -> Conversion[list[Any]]:
    """A list of pi content blocks (a tool result's, in an event) as phi-core's, pointers
    relative to the list."""
    losses = Losses()
    content = [
        _to_phi.block_to_phi(block, f"/{index}", losses)
        for index, block in enumerate(well_formed(blocks, "", losses))
    ]
    return Conversion(content, tuple(losses))
