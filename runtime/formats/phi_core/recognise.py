"""Which phi-core wire type a document is: detection (always a type, for judging a document known
to be phi-core) and recognition (a type or None, for telling phi-core from other formats).

Detection works from the set of top-level keys, whatever their order (``jq -S`` and
``sort_keys=True`` change nothing). The first rule that matches decides: ``session_id`` +
``loops``: Session; ``loop_id`` + ``events``: LoopRecord; ``sequence`` + ``event``: LoopEvent;
``turn_id`` + ``output_message``: Turn; ``type``: AgentEvent; ``role``: AgentMessage (LlmMessage
and ExtensionMessage alike); any other object, an array, a scalar or no JSON at all: AgentEvent.
An invalid AgentMessage is reported as the lane it names (``report_as``): with ``kind``, as an
ExtensionMessage; otherwise as an LlmMessage, whose role picks the variant (or is unknown).

Recognition (``recognise``, ``claim``) answers only for documents with phi-core's shape: the keys
of the rules above, a PascalCase event tag, a message whose role and keys are phi-core's (camelCase
``stopReason``, ``toolCallId``; snake_case usage), its content blocks, its string enums. Some of
that JSON is other implementations' too (pi-ai's messages, a text block), so a claim says whether
the document carries something only phi-core writes (``certain``). Nothing here imports pydantic.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from itertools import combinations
from typing import Any

from phi_wire.formats.shapes import parse, tag_of, unit_enum

__all__ = [
    "EVENT_TAGS",
    "FALLBACK",
    "MARKERS",
    "RULES",
    "UNIT_ENUMS",
    "claim",
    "detect_raw",
    "detect_type",
    "detected_as",
    "recognise",
    "report_as",
    "type_from_text",
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

EVENT_TAGS = frozenset(
    {
        "AgentStart",
        "AgentEnd",
        "TurnStart",
        "TurnRequest",
        "TurnEnd",
        "MessageStart",
        "MessageUpdate",
        "MessageEnd",
        "ToolExecutionStart",
        "ToolExecutionUpdate",
        "ToolExecutionEnd",
        "ProgressMessage",
        "InputRejected",
        "ParallelLoopStart",
        "ParallelLoopEnd",
        "CompactionStarted",
        "CompactionEnded",
        "PrunApplied",
        "RevertApplied",
        # StreamEvent (provider streams): the same tag key and casing
        "Start",
        "TextDelta",
        "ThinkingDelta",
        "ToolCallStart",
        "ToolCallDelta",
        "ToolCallEnd",
        "Done",
        "Error",
    }
)
"""The ``type`` tags of phi-core's AgentEvent and StreamEvent variants (PascalCase)."""

UNIT_ENUMS: dict[str, tuple[str, ...]] = {
    "StopReason": (
        "stop",
        "length",
        "toolUse",
        "error",
        "aborted",
        "maxTurns",
        "userStop",
        "handoff",
        "guardRail",
        "contextCompacted",
        "paused",
    ),
    "ThinkingLevel": ("off", "minimal", "low", "medium", "high"),
    "LoopStatus": ("Pending", "Running", "Completed", "Rejected", "Aborted"),
    "TurnTrigger": ("User", "SubAgent", "Continuation", "Branch"),
    "SessionScope": ("ephemeral", "persistent"),
    "TagKind": ("lesson", "finding", "outcome", "checkpoint"),
    "RevertCategory": ("failure", "tangent", "completion", "step-summary"),
}
"""String enums (a bare string document), first match wins."""

_MESSAGE_ROLES = frozenset({"user", "assistant", "toolResult"})
_CONTENT_KEYS = {
    "text": frozenset({"text"}),
    "image": frozenset({"data", "mimeType"}),
    "thinking": frozenset({"thinking"}),
    "toolCall": frozenset({"id", "name", "arguments"}),
}
_PHI_ONLY_MESSAGE_KEYS = frozenset({"turnId", "nodeId", "parentId", "tags", "provenanceHint"})
_USAGE_KEYS = frozenset(
    {"input", "output", "reasoning", "cache_read", "cache_write", "total_tokens"}
)
_TOOL_DEFINITION_KEYS = frozenset({"name", "description", "parameters"})
_TOOL_RESULT_KEYS = frozenset({"content", "details", "child_loop_id"})
_SNAKE_USAGE = frozenset({"cache_read", "cache_write", "total_tokens"})
"""phi-core's own usage keys (``reasoning`` is pi 1.5's too)."""


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


def type_from_text(raw: bytes) -> str | None:
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
    found = type_from_text(raw)
    if found is not None:
        return found
    try:
        return detect_type(parse(raw))
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


# --- recognition ------------------------------------------------------------------------------


def _content_block(value: Any) -> bool:
    kind = tag_of(value, "type")
    needed = _CONTENT_KEYS.get(kind) if kind is not None else None
    return needed is not None and needed <= value.keys()


def _message(document: dict[str, Any]) -> tuple[str, bool] | None:
    role = tag_of(document, "role")
    if role == "extension":
        return ("AgentMessage", True) if {"kind", "data"} & document.keys() else None
    if role not in _MESSAGE_ROLES:
        return None
    content = document.get("content")
    if not isinstance(content, list) or not all(_content_block(block) for block in content):
        return None  # a string (clark-agent, pi) or blocks of another format
    keys = document.keys()
    if role == "assistant" and "stopReason" not in keys and not {"model", "provider"} & keys:
        return None  # clark-agent's and Operator-Use's say stop_reason
    if role == "toolResult" and "toolCallId" not in keys:
        return None
    usage = document.get("usage")
    certain = bool(
        _PHI_ONLY_MESSAGE_KEYS & keys
        or (isinstance(usage, dict) and _SNAKE_USAGE & usage.keys())
        or (role == "assistant" and "error_message" in keys)
    )
    return "AgentMessage", certain


def claim(document: Any) -> tuple[str, bool] | None:
    """(type, certain) when ``document`` (parsed JSON) has phi-core's shape, else None.
    ``certain``: it holds something no other known format writes (the keys of a Session,
    LoopRecord, LoopEvent or Turn, a PascalCase event tag, an extension message, a message's
    ``turnId``/``nodeId``/... or snake_case usage); a message or block pi-ai would write the same
    way is only possible."""
    if isinstance(document, str):
        enum = unit_enum(document, UNIT_ENUMS)
        return None if enum is None else (enum, False)
    if not isinstance(document, dict):
        return None
    keys = document.keys()
    for needed, name in RULES[:4]:
        if all(key in keys for key in needed):
            return name, True
    if "type" in keys:
        if tag_of(document, "type") in EVENT_TAGS:
            return "AgentEvent", True
        return ("Content", False) if _content_block(document) else None
    if "role" in keys:
        return _message(document)
    if {"input", "output"} <= keys <= _USAGE_KEYS:
        return "Usage", bool(_SNAKE_USAGE & keys)
    if keys == _TOOL_DEFINITION_KEYS:
        return "ToolDefinition", False  # clark-agent's ToolSchema is the same JSON
    content = document.get("content")
    if (
        keys <= _TOOL_RESULT_KEYS
        and isinstance(content, list)
        and all(_content_block(block) for block in content)
    ):
        return "ToolResult", "child_loop_id" in keys
    return None


def recognise(document: Any) -> str | None:
    """The phi-core wire type ``document`` (parsed JSON) has the shape of, or None."""
    found = claim(document)
    return found[0] if found is not None else None


# What phi_wire.recognise asks of every format's recogniser besides ``claim``:
LIST_ITEM_TYPES = frozenset({"AgentMessage", "AgentEvent"})
"""The types an array's items may have for the array to be a ``list[T]`` of phi-core's (a
message list, an event stream)."""


def type_of(document: Any) -> str:
    """The type ``document`` is judged as: detection by its keys (``detect_type``)."""
    return detect_type(document)


def names_type(document: Any) -> bool:
    """Whether ``document`` holds a key detection goes by (``type``, ``role``,
    ``session_id``...)."""
    return isinstance(document, dict) and not MARKERS.isdisjoint(document)
