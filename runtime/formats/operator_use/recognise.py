"""Does a JSON document look like Operator-Use's, and which of its types? Cheap enough for the
command line to ask of every file before it imports pydantic or any model.

``recognise(document)`` looks only at key names and tag values of a parsed JSON value (a session
file: its first line) and answers with the Operator-Use type name (``SessionFileEntry``,
``AgentMessage``, ``Content``, ``Usage``, ``UsageCost``, ``MessageMeta``, ``SessionContext``) or
None; a bare string of one of its enums is a ``Role``, ``StopReason``, ``ThinkingLevel`` or
``ToolKind``. It says what the document *is meant to be*, not whether it is valid: validate it
with that type next. The keys it looks for are the ones no other known format uses: ``contents``
(not ``content``), ``args``, ``images``, snake_case session entries with float timestamps,
``input_tokens`` with ``cache_read_tokens``. ``claim(document)`` says whether such a mark was
found (``(type, certain)``) or the JSON is one other formats could have written too (a bare
string, ``{"input_tokens": 1, "output_tokens": 2}``, which is clark-agent's ``Usage`` as well).

``layout_of(document)`` tells the two layouts apart: ``d1cdaad8`` writes an LLM message's
``role`` after its other keys and knows ``terminate_message`` and ``channel_message_id``; a
document with none of those reads the same in both (``d0da87a6``).
"""

from __future__ import annotations

from typing import Any

from phi_wire.formats.shapes import tag_of, unit_enum

__all__ = [
    "CONTENT_TAGS",
    "ENTRY_TAGS",
    "LAYOUTS",
    "ROLES",
    "UNIT_ENUMS",
    "claim",
    "layout_of",
    "recognise",
]

LAYOUTS = ("d0da87a6", "d1cdaad8")
ROLES = frozenset(
    {"system", "user", "assistant", "tool", "custom", "branch_summary", "compaction_summary"}
)
LLM_ROLES = frozenset({"system", "user", "assistant", "tool"})
ENTRY_TAGS = frozenset(
    {
        "session",
        "message",
        "thinking_level_change",
        "model_change",
        "compaction",
        "branch_summary",
        "label",
        "custom",
        "session_info",
        "custom_message",
        "leaf",
        "channel",
    }
)
CONTENT_TAGS: dict[str, frozenset[str]] = {
    "text": frozenset({"content"}),
    "image": frozenset({"images"}),
    "audio": frozenset({"audio"}),
    "thinking": frozenset({"content"}),
    "tool_call": frozenset({"args", "kind", "metadata"}),
    "tool_result": frozenset({"content", "is_error", "terminate", "metadata"}),
}
_SESSION_ONLY_FIELDS = {
    "custom": {"custom_type"},
    "branch_summary": {"from_id"},
    "compaction_summary": {"tokens_before"},
}
_CONTEXT_KEYS = frozenset({"messages", "thinking_level", "model_id", "provider_id"})
_META_KEYS = frozenset({"reply_to", "channel_message_id", "attachments", "reactions"})
_USAGE_KEYS = frozenset(
    {"input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"}
)
_COST_KEYS = frozenset({"input", "output", "cache_read", "cache_write", "total"})


UNIT_ENUMS: dict[str, tuple[str, ...]] = {
    "Role": tuple(sorted(ROLES)),
    "StopReason": ("stop", "length", "tool_calls", "content_filter", "abort", "error"),
    "ThinkingLevel": ("off", "minimal", "low", "medium", "high", "xhigh", "max"),
    "ToolKind": (
        "read",
        "edit",
        "write",
        "execute",
        "web",
        "cron",
        "agent",
        "workflow",
        "plan",
        "automation",
        "mcp",
        "unknown",
    ),
}
"""String enums (a bare string document), first match wins."""
_OWN_ENTRY_TAGS = frozenset({"leaf", "channel"})
"""Entry kinds pi's sessions do not have."""
_BLOCK_KEYS = frozenset({"type", "id", "content", "is_error", "terminate", "metadata", "signature"})
"""The keys of Operator-Use's untagged-looking blocks (pydantic's smart union reads
``{"id": "c"}`` as a tool result, ``{"signature": "s"}`` as thinking)."""
Claim = tuple[str, bool]


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_message(value: Any) -> bool:
    """An Operator-Use message by its keys: ``contents`` (the others say ``content``), or a
    role only Operator-Use spells so, or its custom message (``custom_type``, float seconds)."""
    if not isinstance(value, dict):
        return False
    role = tag_of(value, "role")
    if "contents" in value and (role is not None or {"id", "timestamp"} & value.keys()):
        return True
    if role in ROLES and "id" in value and isinstance(value.get("timestamp"), float):
        return True  # a message id and float seconds: no other format has both
    if role in ("branch_summary", "compaction_summary"):
        return True
    if role == "custom":
        return "custom_type" in value or isinstance(value.get("timestamp"), float)
    return False


def _entry(document: dict[str, Any], tag: str | None) -> bool:
    """A session line: a kind of entry with its id and float-seconds timestamp (pi's entries
    carry ISO-8601 strings), a kind only Operator-Use has, or an Operator-Use message."""
    if tag == "session":  # pi's header is the same but for its ISO-8601 timestamp
        return "cwd" in document and _is_number(document.get("timestamp"))
    if tag in _OWN_ENTRY_TAGS:
        return True
    if tag is None or not ({"id", "parent_id"} & document.keys()):
        return False
    if _is_number(document.get("timestamp")):
        return True
    return tag in ENTRY_TAGS and _is_message(document.get("message"))


def claim(document: Any) -> Claim | None:
    """(type, certain) when ``document`` (a parsed JSON value) has Operator-Use's shape, else
    None. ``certain``: it holds what only Operator-Use writes (``contents``, ``args``,
    ``images``, float-seconds entries, ``cache_read_tokens``...); a bare string, a usage of
    ``input_tokens``/``output_tokens`` alone (clark-agent's too) or a block of generic keys is
    only possible."""
    if isinstance(document, str):
        enum = unit_enum(document, UNIT_ENUMS)
        return None if enum is None else (enum, False)
    if not isinstance(document, dict):
        return None
    tag = tag_of(document, "type")
    keys = document.keys()
    if "type" in keys and _entry(document, tag):
        return "SessionFileEntry", True
    if _is_message(document):
        return "AgentMessage", True
    if keys == {"type"} and tag in CONTENT_TAGS:  # every field has a default
        return "Content", tag in ("tool_call", "tool_result", "audio")
    if tag is not None and CONTENT_TAGS.get(tag, frozenset()) & keys:
        if tag in ("text", "thinking") and "text" in keys:
            return None  # pi / phi-core / clark-agent text: "text", not "content"
        return "Content", True
    if {"messages", "thinking_level"} <= keys <= _CONTEXT_KEYS:
        return "SessionContext", True
    if keys and keys <= _USAGE_KEYS | {"cost"}:
        return "Usage", bool(keys - {"input_tokens", "output_tokens"})
    if keys and keys <= _COST_KEYS and "total" in keys:
        return "UsageCost", "cache_read" in keys
    if keys and keys <= _META_KEYS:
        return "MessageMeta", True
    if keys and keys <= _BLOCK_KEYS - {"type"} and {"id", "signature"} & keys:
        return "Content", False  # untagged: pydantic's smart union picks the block
    if keys and keys <= {"type", "content"} and isinstance(document.get("content"), str):
        return "Content", False
    return None


def recognise(document: Any) -> str | None:
    """The Operator-Use type ``document`` (a parsed JSON value) is meant to be, or None."""
    found = claim(document)
    return found[0] if found is not None else None


def layout_of(document: Any) -> str:
    """``d1cdaad8`` when ``document`` (a parsed JSON value: an entry, a message, a block...)
    carries something only that layout writes; else ``d0da87a6``."""
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            if "terminate_message" in node or "channel_message_id" in node:
                return LAYOUTS[1]
            role_first = next(iter(node), None) == "role"
            if tag_of(node, "role") in LLM_ROLES and "contents" in node and not role_first:
                return LAYOUTS[1]
            stack.extend(value for value in node.values() if isinstance(value, dict | list))
    return LAYOUTS[0]


# What phi_wire.recognise asks of every format's recogniser besides ``claim``:
FALLBACK = "AgentMessage"
"""The type a document whose shape names none is judged as: its most common document, a message
line."""
SESSION_TYPES = frozenset({"SessionFileEntry"})
"""The types of a session file's lines: a JSONL file of them is one ``SessionFile``."""


def version_of(document: Any) -> str:
    """The layout ``document`` is written in (``layout_of``)."""
    return layout_of(document)


def version_of_group(versions: set[str]) -> str | None:
    """A group of documents is the later layout if any of them is: the earlier one's documents
    are the later's too."""
    return LAYOUTS[1] if LAYOUTS[1] in versions else None
