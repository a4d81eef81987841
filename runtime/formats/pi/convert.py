"""pi (0.73 and 1.5) <-> phi-core 0.10, through the hub: messages of every role, a message list, a
``SessionContext`` and a session file's active branch to phi-core; phi-core messages (a
``Session``'s loops' messages, as the route flattens them) to pi 1.5's messages, or a pi session v3
file (``session_from_phi_core``). The mapping table, and why each choice, is
``docs/conversions/pi.md``. In short:

* ``user``, ``assistant``, ``toolResult`` <-> phi-core's; ``thinkingSignature`` <-> ``signature``;
  ``errorMessage`` <-> ``error_message``; usage counts by name (``cost`` and ``cacheWrite1h`` are
  dropped, and invented as zeros on the way back); a string user content <-> one text block.
* pi's other roles (1.5's ``system``, the coding agent's ``custom``, ``bashExecution``,
  ``branchSummary``, ``compactionSummary``) ride whole in an ``ExtensionMessage`` (role
  ``extension``, kind ``pi.<role>``): they come back as they were. A phi-core ExtensionMessage
  of another kind becomes a pi ``custom`` message that carries it in ``details`` and comes back
  as it was.
* Every key pi writes that phi-core has no place for (``api``, ``responseId``, ``durationMs``,
  ``details``, ``textSignature``...) is a ``dropped`` loss at its pointer; every value pi requires
  and phi-core lacks (``api``, ``cost``) an ``invented`` one.

pi's streams (pi-ai's provider stream, the agent's and the coding agent's event streams, the 1.5
CLI's lines) go to ``_stream_convert``: their tables are in the same document.
"""

from __future__ import annotations

import json
from typing import Any

import phi_wire.pi as pi
import phi_wire.v0_10 as phi
from phi_wire.convert import Conversion, Losses, UnsupportedConversion

from . import _from_phi, _to_phi
from ._from_phi import session_from_phi_core
from ._shared import LONE_SURROGATE, well_formed
from ._stream_convert import stream_to_phi_core
from .base import JsModel
from .codec import dumps
from .versions import fit as fit_to_version

__all__ = [
    "LONE_SURROGATE",
    "fit_to_version",
    "from_phi_core",
    "session_from_phi_core",
    "to_phi_core",
]

MESSAGE_CLASSES = frozenset(
    {
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "SystemMessage",
        "CustomMessage",
        "BashExecutionMessage",
        "BranchSummaryMessage",
        "CompactionSummaryMessage",
    }
)
BLOCK_CLASSES = frozenset({"TextContent", "ThinkingContent", "ImageContent", "ToolCall"})


def _is_pi(value: Any) -> bool:
    return type(value).__module__.startswith("phi_wire.pi_")


def _kind(value: Any) -> str:
    return type(value).__name__ if _is_pi(value) else ""


def _json(value: Any, losses: Losses, pointer: str = "") -> Any:
    """A pi value as the JSON pi writes, its strings well-formed for phi-core."""
    return well_formed(json.loads(dumps(value)), pointer, losses)


def to_phi_core(value: Any, *, name: str = "") -> Conversion[Any]:
    """A pi value (0.73's or 1.5's models): a message, a list of messages, a ``SessionContext``,
    a session file (``loads(Session, ...)``), a content block or ``Usage``, as phi-core 0.10's."""
    stream = stream_to_phi_core(value, name=name)
    if stream is not None:
        return stream
    losses = Losses()
    if isinstance(value, list) and value and _kind(value[0]) == "SessionHeader":
        lines = [_json(line, losses, f"/{index}") for index, line in enumerate(value)]
        converted: Any = _to_phi.session_to_phi(lines, losses)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if _kind(item) not in MESSAGE_CLASSES:
                raise UnsupportedConversion(
                    f"pi's {type(item).__name__} (item {index}): a list converts as a list of "
                    "messages or as a session file"
                )
        documents = well_formed(
            json.loads("[" + ",".join(dumps(item) for item in value) + "]"), "", losses
        )
        converted = _to_phi.messages_to_phi(documents, "", losses)
    else:
        converted = _value_to_phi(value, losses)
    return Conversion(converted, tuple(losses))


def _value_to_phi(value: Any, losses: Losses) -> Any:
    kind = _kind(value)
    if kind in MESSAGE_CLASSES:
        return _to_phi.message_to_phi(_json(value, losses), "", losses)
    if kind == "SessionContext":
        return _to_phi.context_to_phi(_json(value, losses), losses)
    if kind in BLOCK_CLASSES:
        return _to_phi.block_to_phi(_json(value, losses), "", losses)
    if kind == "Usage":
        return _to_phi.usage_to_phi(_json(value, losses), "", losses)
    raise UnsupportedConversion(
        f"no phi-core counterpart for pi's {type(value).__name__} here (convertible: messages and "
        "message lists, SessionContext, session files, content blocks, Usage)"
    )


def from_phi_core(value: Any, *, name: str = "") -> Conversion[Any]:
    """A phi-core 0.10 value (a message, a list of messages, a content block, ``Usage``) as pi
    1.5's; a list of messages as a session file: ``session_from_phi_core``."""
    losses = Losses()
    if isinstance(value, list):
        converted: Any = _from_phi.messages_from_phi(value, losses)
    elif isinstance(value, phi.Usage):
        converted = pi.Usage.model_validate(_from_phi.usage_from_phi(value, "", losses))
    elif isinstance(value, BLOCKS):
        converted = _block_from_phi(value, losses)
    else:
        converted = _from_phi.message_from_phi(value, "", losses)
    return Conversion(converted, tuple(losses))


BLOCKS = (phi.TextContent, phi.ImageContent, phi.ThinkingContent, phi.ToolCallContent)
BLOCK_TYPES: dict[str, type[JsModel]] = {
    "text": pi.TextContent,
    "image": pi.ImageContent,
    "thinking": pi.ThinkingContent,
    "toolCall": pi.ToolCall,
}


def _block_from_phi(block: Any, losses: Losses) -> Any:
    """A content block as pi's (an image in a user's lane, the others in an assistant's)."""
    lane = "user" if isinstance(block, phi.ImageContent) else "assistant"
    converted = _from_phi.block_from_phi(block, "", losses, lane)
    return None if converted is None else BLOCK_TYPES[converted["type"]].model_validate(converted)
