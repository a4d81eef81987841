"""Does a JSON document look like Operator-Use's, and which of its types? Cheap enough for the
command line to ask of every file before it imports pydantic or any model.

``recognise(document)`` looks only at key names and tag values of a parsed JSON value (a session
file: its first line) and answers with the Operator-Use type name (``SessionFileEntry``,
``AgentMessage``, ``Content``, ``Usage``, ``UsageCost``, ``MessageMeta``, ``SessionContext``) or
None. It says what the document *is meant to be*, not whether it is valid: validate it with that
type next. The keys it looks for are the ones no other known format uses: ``contents`` (not
``content``), ``args``, ``images``, ``stop_reason`` with ``tool_calls``, snake_case session
entries with float timestamps, ``input_tokens`` with ``cache_read_tokens``.

``layout_of(document)`` tells the two layouts apart: ``d1cdaad8`` writes an LLM message's
``role`` after its other keys and knows ``terminate_message`` and ``channel_message_id``; a
document with none of those reads the same in both (``d0da87a6``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["CONTENT_TAGS", "ENTRY_TAGS", "LAYOUTS", "ROLES", "layout_of", "recognise"]

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


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_message(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    role = value.get("role")
    if role in LLM_ROLES:
        return "contents" in value  # clark-agent, pi and phi-core say "content"
    return role in _SESSION_ONLY_FIELDS and bool(_SESSION_ONLY_FIELDS[role] & value.keys())


def recognise(document: Any) -> str | None:
    """The Operator-Use type ``document`` (a parsed JSON value) is meant to be, or None."""
    if not isinstance(document, dict):
        return None
    tag = document.get("type")
    if tag == "session":
        # pi's header is the same but for its ISO-8601 timestamp
        header = "cwd" in document and _is_number(document.get("timestamp"))
        return "SessionFileEntry" if header else None
    if (
        tag in ENTRY_TAGS
        and ("id" in document or "parent_id" in document)
        and (
            _is_number(document.get("timestamp"))
            or (tag == "message" and _is_message(document.get("message")))
        )
    ):
        return "SessionFileEntry"
    if _is_message(document):
        return "AgentMessage"
    if isinstance(tag, str) and CONTENT_TAGS.get(tag, frozenset()) & document.keys():
        if tag in ("text", "thinking") and "text" in document:
            return None  # pi / phi-core / clark-agent text: "text", not "content"
        return "Content"
    keys = document.keys()
    if {"messages", "thinking_level"} <= keys <= _CONTEXT_KEYS:
        return "SessionContext"
    if len(_USAGE_KEYS & keys) >= 2:
        return "Usage"
    if keys and keys <= _COST_KEYS and "cache_read" in keys and "total" in keys:
        return "UsageCost"
    if keys and keys <= _META_KEYS:
        return "MessageMeta"
    return None


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
            if node.get("role") in LLM_ROLES and "contents" in node and next(iter(node)) != "role":
                return LAYOUTS[1]
            stack.extend(value for value in node.values() if isinstance(value, dict | list))
    return LAYOUTS[0]
