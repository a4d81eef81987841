"""Which wire type a document is, when no type is forced: from the set of its top-level keys,
whatever their order (``jq -S`` and ``sort_keys=True`` change nothing).

The first rule that matches decides: ``session_id`` + ``loops``: Session; ``loop_id`` +
``events``: LoopRecord; ``sequence`` + ``event``: LoopEvent; ``turn_id`` + ``output_message``:
Turn; ``type``: AgentEvent; ``role``: AgentMessage (LlmMessage and ExtensionMessage alike); any
other object, an array, a scalar or no JSON at all: AgentEvent.

An invalid AgentMessage is reported as the lane it names (``report_as``): with ``kind``, as an
ExtensionMessage; otherwise as an LlmMessage, whose role picks the variant (or is unknown).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from itertools import combinations
from typing import Any

__all__ = [
    "FALLBACK",
    "MARKERS",
    "RULES",
    "detect_raw",
    "detect_type",
    "detected_as",
    "report_as",
    "type_of_keys",
]

RULES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("session_id", "loops"), "Session"),
    (("loop_id", "events"), "LoopRecord"),
    (("sequence", "event"), "LoopEvent"),
    (("turn_id", "output_message"), "Turn"),
    (("type",), "AgentEvent"),
    (("role",), "AgentMessage"),
)
"""(keys that must all be present, type), in order: the first match decides."""
FALLBACK = "AgentEvent"
"""The type of a document no rule matches."""
MARKERS = frozenset(key for keys, _ in RULES for key in keys)
"""The only keys detection looks at."""


def type_of_keys(keys: Collection[str]) -> str:
    """The type of an object with these top-level keys."""
    for needed, name in RULES:
        if all(key in keys for key in needed):
            return name
    return FALLBACK


def detect_type(document: Any) -> str:
    """The wire type a parsed document is judged as."""
    return type_of_keys(document.keys()) if isinstance(document, dict) else FALLBACK


_FIRST_KEY = re.compile(rb'\s*\{\s*"([a-z_]+)"\s*:')
_MARKER_KEYS = re.compile(
    rb'"(' + b"|".join(key.encode() for key in sorted(MARKERS, key=len, reverse=True)) + rb')"'
)
_RULE_SETS = tuple((frozenset(key.encode() for key in needed), name) for needed, name in RULES)


def _from_text(raw: bytes) -> str | None:
    """The type, when the text settles it without parsing (else None): the first key is
    certainly a top-level key, and a key whose quoted name is nowhere in the text (nor any
    ``\\u`` escape that could spell it) is certainly not one. A rule that needs only the first
    key decides; a rule that needs a key nowhere in the text is passed over; any other needs
    parsing."""
    match = _FIRST_KEY.match(raw, 0, 64)
    if match is None or b"\\u" in raw:
        return None
    first = match.group(1)
    present = set(_MARKER_KEYS.findall(raw))  # one pass over the text
    present.add(first)
    for needed, name in _RULE_SETS:
        if needed <= present:
            return name if needed == {first} else None
    return FALLBACK


def detect_raw(raw: bytes) -> str:
    """The type of one document (bytes as read): from its text when that settles it (as for the
    documents phi-core writes, whose first key names their type), else from its parsed keys."""
    found = _from_text(raw)
    if found is not None:
        return found
    try:
        return detect_type(json.loads(raw))
    except (ValueError, RecursionError):
        return FALLBACK


def detected_as(required: Collection[str], optional: Collection[str]) -> str | None:
    """The type every object whose keys are ``required`` plus any of ``optional`` is detected as;
    None when it depends on which optional keys are present. (The fast path vouches for a
    document only as the type detection gives it.)"""
    choices = sorted(MARKERS.intersection(optional) - set(required))
    found = {
        type_of_keys({*required, *present})
        for count in range(len(choices) + 1)
        for present in combinations(choices, count)
    }
    return found.pop() if len(found) == 1 else None


def report_as(document: Any) -> str | None:
    """For an invalid AgentMessage: the type whose errors say what is wrong with it (the lane
    its keys name), or None when they name none."""
    if not isinstance(document, dict) or "role" not in document:
        return None
    return "ExtensionMessage" if "kind" in document else "LlmMessage"
