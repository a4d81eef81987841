"""phi-core content blocks -> Operator-Use's ``contents``, one list per message (the model path,
``_from_phi``, and the one-pass entry maker, ``_entries_from_phi``, both call it).

Wire facts: Operator-Use's blocks are tagged ``text``/``thinking``/``tool_call``/``image`` with
``content`` where phi-core has ``text``/``thinking``; a tool call's ``args`` is an object (any
other JSON value goes in as ``{"value": ...}``, a named loss), with an empty ``metadata``;
consecutive images share one block's ``images`` list, and no MIME type is kept (a loss each).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from phi_wire.convert import LossKind

__all__ = ["Check", "Lose", "blocks_from_phi"]

_NO_MIME_TYPE = "Operator-Use images have no MIME type"
_ARGS_OBJECT = 'Operator-Use args are an object: {"value": ...}'

Lose = Callable[[int, str, LossKind, str], None]
"""``(message index, the pointer's rest after it, kind, reason)``: a loss kept or counted."""

Check = Callable[[Any], None] | None
"""What checks a tool call's arguments (``checked_free``; None: they were checked already)."""


def blocks_from_phi(
    blocks: list[dict[str, Any]], index: int, lose: Lose, check: Check
) -> list[dict[str, Any]]:
    """A message's content as Operator-Use's; ``lose`` is told each loss with the message's
    ``index`` and the pointer's rest after it (the model path's and ``EntryMaker``'s alike)."""
    out: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        kind = block["type"]
        if kind == "text":
            out.append({"type": "text", "content": block["text"]})
        elif kind == "thinking":
            out.append(
                {
                    "type": "thinking",
                    "content": block["thinking"],
                    "signature": block.get("signature", ""),
                }
            )
        elif kind == "toolCall":
            arguments = block["arguments"]
            if check is not None:
                check(arguments)
            if type(arguments) is not dict:
                lose(index, f"/content/{position}/arguments", "changed", _ARGS_OBJECT)
                arguments = {"value": arguments}
            out.append(
                {
                    "type": "tool_call",
                    "id": block["id"],
                    "name": block["name"],
                    "args": arguments,
                    "metadata": {},
                }
            )
        elif kind == "image":
            lose(index, f"/content/{position}/mimeType", "dropped", _NO_MIME_TYPE)
            if out and out[-1]["type"] == "image":
                out[-1]["images"].append(block["data"])
            else:
                out.append({"type": "image", "images": [block["data"]]})
    return out
