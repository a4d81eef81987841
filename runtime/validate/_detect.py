"""Which wire type a document is, when ``--type`` does not say: from its keys.

``session_id`` + ``loops``: Session; ``loop_id`` + ``events``: LoopRecord; ``sequence`` +
``event``: LoopEvent; ``turn_id`` + ``output_message``: Turn; ``type``: AgentEvent; ``role``:
AgentMessage (Message and ExtensionMessage alike); anything else is judged as an AgentEvent. For
documents as phi-core writes them the first key decides, without parsing the document twice.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["detect_raw", "detect_type", "type_of_first_key"]


def detect_type(document: Any) -> str:
    """The wire type a parsed document looks like, from its keys."""
    if isinstance(document, dict):
        keys = document.keys()
        if "loops" in keys and "session_id" in keys:
            return "Session"
        if "events" in keys and "loop_id" in keys:
            return "LoopRecord"
        if "sequence" in keys and "event" in keys:
            return "LoopEvent"
        if "turn_id" in keys and "output_message" in keys:
            return "Turn"
        if "type" in keys:
            return "AgentEvent"
        if "role" in keys:
            return "AgentMessage"
    return "AgentEvent"


# The first key of what phi-core writes tells the type without parsing the document.
_FIRST_KEY = re.compile(rb'\s*\{\s*"([a-z_]+)"')
_BY_FIRST_KEY = {
    b"type": "AgentEvent",
    b"content": "AgentMessage",  # an LlmMessage: keys sorted
    b"role": "AgentMessage",  # a bare Message or an ExtensionMessage
    b"sequence": "LoopEvent",
    b"turn_id": "Turn",
    b"loop_id": "LoopRecord",
    b"session_id": "Session",
}


def detect_raw(raw: bytes) -> str:
    """The type of one document: by its first key when that settles it, else by all its keys."""
    match = _FIRST_KEY.match(raw, 0, 64)
    if match is not None and match.group(1) in _BY_FIRST_KEY:
        return _BY_FIRST_KEY[match.group(1)]
    try:
        return detect_type(json.loads(raw))
    except (ValueError, RecursionError):
        return "AgentEvent"


def type_of_first_key(key: str) -> str | None:
    """The type ``detect_raw`` gives every document whose first key is ``key`` (None: it depends
    on the other keys)."""
    if re.fullmatch(r"[a-z_]+", key) is None:
        return None
    return _BY_FIRST_KEY.get(key.encode())
