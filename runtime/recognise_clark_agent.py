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

_STRUCTS: tuple[tuple[str, frozenset[str]], ...] = (
    # type, keys that only it has (checked in order, after the tagged enums)
    ("TrajectoryRecord", frozenset({"seq", "recorded_at_unix_ms", "payload"})),
    ("ProviderRequestSummary", frozenset({"system_prompt_bytes", "message_counts"})),
    ("ProviderContentCounts", frozenset({"system_message_bytes", "user_text_blocks"})),
    ("ProviderMessageCounts", frozenset({"system", "user", "assistant", "tool_result", "custom"})),
    ("RunIdentity", frozenset({"run_id"})),
    ("ToolSchema", frozenset({"name", "description", "parameters"})),
    ("ToolCall", frozenset({"id", "name", "arguments"})),
    ("ReasoningDetailsContent", frozenset({"details"})),
    ("ImageContent", frozenset({"source"})),
    ("TextContent", frozenset({"text"})),
)

_USAGE_KEYS = frozenset(
    {"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}
)
_TOOL_RESULT_KEYS = frozenset({"content", "is_error", "details", "terminate", "narration"})


def _tagged(tag_value: Any, keys: frozenset[str], tag_key: str) -> str | None:
    found = TAGGED[tag_key].get(tag_value) if isinstance(tag_value, str) else None
    if found is None or not found[1] <= keys:
        return None
    return found[0]


def _object(document: dict[str, Any]) -> str | None:
    keys = frozenset(document)
    for tag_key in TAGGED:
        if tag_key in document:
            found = _tagged(document[tag_key], keys, tag_key)
            if found is not None:
                return found
    if len(document) == 1:
        ((name, body),) = document.items()
        if body is None:  # a unit variant in map form: {"end_turn": null}
            return _unit(name)
    for name, required in _STRUCTS:
        if required <= keys:
            return name
    if keys & _USAGE_KEYS:
        return "Usage"
    if "content" in keys and isinstance(document["content"], list) and keys <= _TOOL_RESULT_KEYS:
        return "ToolResult"
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
