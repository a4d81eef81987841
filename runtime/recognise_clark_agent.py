"""Does a parsed JSON document look like clark-agent 0.4's JSON, and as which type?

``recognise(document)`` answers from the document's tags and keys alone (no validation, no
pydantic: the command line may call it for every file before it knows whether any model is
needed). It returns the name of the clark-agent wire type whose shape the document has, e.g.
``"AgentMessage"`` for ``{"role": "tool_result", ...}``, or None. Only ``loads`` judges whether
the document is *valid* as that type.

A document can have the shape of more than one format: a user message whose content is an array
of text blocks, with a timestamp, is both clark-agent's and phi-core's; a bare ``"aborted"`` is
a clark ``StopReason`` and a phi-core ``StopReason``. Callers that know several formats decide the
order; clark-agent's own tags (``tool_result``, ``stop_reason``, snake_case event names, string
user content) never occur in phi-core JSON.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TAGGED", "UNIT_ENUMS", "recognise"]

TAGGED: dict[str, dict[str, tuple[str, frozenset[str]]]] = {
    # tag key -> tag value -> (type, keys the variant requires besides the tag)
    "role": {
        "system": ("AgentMessage", frozenset({"content"})),
        "user": ("AgentMessage", frozenset({"content"})),
        "assistant": ("AgentMessage", frozenset({"content", "stop_reason"})),
        "tool_result": ("AgentMessage", frozenset({"tool_call_id", "tool_name", "content"})),
        "custom": ("AgentMessage", frozenset({"kind"})),
    },
    "type": {
        "agent_start": ("AgentEvent", frozenset()),
        "run_identified": ("AgentEvent", frozenset({"identity"})),
        "agent_end": ("AgentEvent", frozenset({"messages"})),
        "turn_start": ("AgentEvent", frozenset()),
        "turn_end": ("AgentEvent", frozenset({"message", "tool_results"})),
        "message_start": ("AgentEvent", frozenset({"message"})),
        "message_update": ("AgentEvent", frozenset({"partial", "chunk"})),
        "message_end": ("AgentEvent", frozenset({"message"})),
        "tool_execution_start": ("AgentEvent", frozenset({"tool_call_id", "tool_name", "args"})),
        "tool_execution_update": (
            "AgentEvent",
            frozenset({"tool_call_id", "tool_name", "partial"}),
        ),
        "tool_execution_end": (
            "AgentEvent",
            frozenset({"tool_call_id", "tool_name", "result", "is_error"}),
        ),
        "output_tokens_escalation": ("AgentEvent", frozenset({"attempt", "prev_cap", "new_cap"})),
        "context_transform_applied": (
            "AgentEvent",
            frozenset({"iteration", "plugin", "before", "after"}),
        ),
        "tool_gate_applied": ("AgentEvent", frozenset({"iteration", "plugin"})),
        "tool_gate_conflict_resolved": (
            "AgentEvent",
            frozenset({"iteration", "plugins", "allow", "reason"}),
        ),
        "provider_request_prepared": (
            "AgentEvent",
            frozenset({"iteration", "system_prompt", "messages", "tools"}),
        ),
        "text": ("UserBlock", frozenset({"text"})),
        "image": ("UserBlock", frozenset({"source"})),
        "thinking": ("AssistantBlock", frozenset({"text"})),
        "reasoning": ("AssistantBlock", frozenset({"text"})),
        "reasoning_details": ("AssistantBlock", frozenset({"details"})),
        "tool_call": ("AssistantBlock", frozenset({"id", "name", "arguments"})),
        "reasoning.text": ("ReasoningItem", frozenset({"format", "text"})),
        "reasoning.summary": ("ReasoningItem", frozenset({"format", "summary"})),
        "reasoning.encrypted": ("ReasoningItem", frozenset({"format", "data"})),
    },
    "kind": {
        "text": ("AssistantStreamChunk", frozenset({"delta"})),
        "thinking": ("AssistantStreamChunk", frozenset({"delta"})),
        "reasoning": ("AssistantStreamChunk", frozenset({"delta"})),
        "reasoning_details": ("AssistantStreamChunk", frozenset({"delta"})),
        "tool_call_delta": ("AssistantStreamChunk", frozenset({"index"})),
        "run_started": ("TrajectoryPayload", frozenset({"identity"})),
        "run_ended": ("TrajectoryPayload", frozenset({"outcome", "new_messages"})),
        "turn_started": ("TrajectoryPayload", frozenset()),
        "turn_ended": ("TrajectoryPayload", frozenset({"assistant", "tool_results"})),
        "message_appended": ("TrajectoryPayload", frozenset({"message"})),
        "tool_started": ("TrajectoryPayload", frozenset({"tool_call_id", "tool_name", "args"})),
        "tool_ended": (
            "TrajectoryPayload",
            frozenset({"tool_call_id", "tool_name", "result", "is_error"}),
        ),
        "provider_request_prepared": (
            "TrajectoryPayload",
            frozenset({"iteration", "system_prompt_chars", "message_count", "tool_count"}),
        ),
        "context_transform_applied": (
            "TrajectoryPayload",
            frozenset({"iteration", "plugin", "before_count", "after_count"}),
        ),
        "tool_gate_applied": ("TrajectoryPayload", frozenset({"iteration", "plugin"})),
        "tool_gate_conflict_resolved": (
            "TrajectoryPayload",
            frozenset({"iteration", "plugins", "allow", "reason"}),
        ),
        "output_tokens_escalation": (
            "TrajectoryPayload",
            frozenset({"attempt", "prev_cap", "new_cap"}),
        ),
    },
}
"""The internally tagged enums, by tag key and value."""

UNIT_ENUMS: dict[str, tuple[str, ...]] = {
    "StopReason": ("end_turn", "tool_use", "max_tokens", "error", "aborted", "other"),
    "ExecutionMode": ("parallel", "sequential"),
    "ReasoningEffort": ("none", "minimal", "low", "medium", "high", "xhigh"),
    "StreamErrorKind": (
        "transient",
        "provider_rate_limited",
        "zero_output_transport",
        "fatal",
        "inconsistent_tool_history",
        "empty",
        "aborted",
        "context_overflow",
    ),
    "ReasoningFormat": (
        "anthropic-claude-v1",
        "google-gemini-v1",
        "openai-responses-v1",
        "azure-openai-responses-v1",
        "xai-responses-v1",
        "unknown",
    ),
}
"""Unit-variant enums and their names, first match wins ("aborted" is a StopReason)."""

_STRUCTS: tuple[tuple[str, frozenset[str], frozenset[str]], ...] = (
    # type, keys it requires, keys it may have: checked in order, after the tagged enums
    (
        "TrajectoryRecord",
        frozenset({"seq", "recorded_at_unix_ms", "payload"}),
        frozenset({"schema_version", "run_id", "parent_run_id", "depth"}),
    ),
    ("ProviderRequestSummary", frozenset({"system_prompt_bytes", "message_counts"}), frozenset()),
    ("ProviderContentCounts", frozenset({"system_message_bytes", "user_text_blocks"}), frozenset()),
    (
        "ProviderMessageCounts",
        frozenset({"system", "user", "assistant", "tool_result", "custom"}),
        frozenset(),
    ),
    (
        "RunIdentity",
        frozenset({"run_id"}),
        frozenset({"parent_run_id", "depth", "conversation_id", "deadline_unix_ms"}),
    ),
    (
        "ToolResult",
        frozenset({"content"}),
        frozenset({"is_error", "details", "terminate", "narration"}),
    ),
    ("ToolSchema", frozenset({"name", "description", "parameters"}), frozenset()),
    ("ToolCall", frozenset({"id", "name", "arguments"}), frozenset()),
    ("ReasoningDetailsContent", frozenset({"details"}), frozenset()),
    ("ImageContent", frozenset({"source"}), frozenset({"media_type", "alt"})),
    ("TextContent", frozenset({"text"}), frozenset()),
)
"""Untagged structs. The big ones are told by keys only they have (unknown keys allowed); the
small generic ones (``{"text"}``, ``{"id", "name", "arguments"}``) only by their exact keys."""

_OPEN = frozenset({"TrajectoryRecord", "ProviderRequestSummary", "ProviderContentCounts"})

_USAGE_KEYS = frozenset(
    {"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}
)
_MESSAGE_FIELDS = ("message", "partial", "assistant")
_MESSAGE_LISTS = ("messages", "before", "after", "tool_results", "new_messages")


def _tagged(document: dict[str, Any], tag_key: str) -> str | None:
    tag_value = document[tag_key]
    found = TAGGED[tag_key].get(tag_value) if isinstance(tag_value, str) else None
    if found is None or not found[1] <= document.keys():
        return None
    # events and records that carry messages: the messages must be clark-agent's too (pi's
    # events have the same snake_case names, with pi messages inside)
    for key in _MESSAGE_FIELDS:
        if key == "partial" and tag_value != "message_update":
            continue  # tool_execution_update's partial is a ToolResult
        if key in document and _object_type(document[key]) != "AgentMessage":
            return None
    for key in _MESSAGE_LISTS:
        items = document.get(key)
        if isinstance(items, list) and any(_object_type(item) != "AgentMessage" for item in items):
            return None
    if tag_key == "role" and tag_value == "user" and not _user_content(document["content"]):
        return None
    return found[0]


def _user_content(content: Any) -> bool:
    """A string, or blocks that are all clark-agent's text or image blocks."""
    if isinstance(content, str):
        return True
    return isinstance(content, list) and all(
        isinstance(block, dict) and _object_type(block) == "UserBlock" for block in content
    )


def _object_type(value: Any) -> str | None:
    return _object(value) if isinstance(value, dict) else None


def _object(document: dict[str, Any]) -> str | None:
    keys = frozenset(document)
    for tag_key in TAGGED:
        if tag_key in document:
            found = _tagged(document, tag_key)
            if found is not None:
                return found
    if len(document) == 1:
        ((name, body),) = document.items()
        if body is None:  # a unit variant in map form: {"end_turn": null}
            return _unit(name)
    for name, required, optional in _STRUCTS:
        if required <= keys and (name in _OPEN or keys <= required | optional):
            if name == "ToolResult" and not (
                isinstance(document["content"], list) and _user_content(document["content"])
            ):
                continue  # its blocks are text and image blocks, as a user's
            return name
    if keys and keys <= _USAGE_KEYS:
        return "Usage"
    return None


def _unit(name: Any) -> str | None:
    for enum, names in UNIT_ENUMS.items():
        if name in names:
            return enum
    return None


def _array(document: list[Any]) -> str | None:
    """serde's sequence form of a tagged enum: ``[tag, field1, ...]``."""
    if not document or not isinstance(document[0], str):
        return None
    for tag_key in ("role", "type", "kind"):
        found = TAGGED[tag_key].get(document[0])
        if found is not None:
            return found[0]
    return None


def recognise(document: Any) -> str | None:
    """The clark-agent wire type ``document`` (parsed JSON) has the shape of, or None."""
    if isinstance(document, dict):
        return _object(document)
    if isinstance(document, str):
        return _unit(document)
    if isinstance(document, list):
        return _array(document)
    return None
