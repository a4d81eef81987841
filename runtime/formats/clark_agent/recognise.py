"""Does a parsed JSON document look like clark-agent 0.4's JSON, and as which type?

``recognise(document)`` answers from the document's tags and keys alone (no validation, no
pydantic: the command line may call it for every file before it knows whether any model is
needed). It returns the name of the clark-agent wire type whose shape the document has, e.g.
``"AgentMessage"`` for ``{"role": "tool_result", ...}``, or None. Only ``loads`` judges whether
the document is *valid* as that type: a message serde would reject still has the shape when its
keys are clark-agent's (``{"role": "tool", "tool_call_id": ...}``).

A document can have the shape of more than one format: a user message whose content is an array
of text blocks, with a timestamp, is both clark-agent's and phi-core's; a bare ``"aborted"`` is
a clark ``StopReason`` and a phi-core ``StopReason``; ``{"type": "agent_start"}`` is pi-agent-core's
too. ``claim(document)`` says which: ``(type, certain)``, ``certain`` when the document holds a
tag or key only clark-agent writes (``tool_result``, ``stop_reason``, snake_case tool events,
trajectory records). ``phi_wire.recognise`` decides between formats.
"""

from __future__ import annotations

from typing import Any

from phi_wire.formats.shapes import tag_of, unit_enum

__all__ = ["TAGGED", "UNIT_ENUMS", "claim", "recognise"]

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


_POSSIBLE_TAGS = frozenset(
    {("type", "agent_start"), ("type", "turn_start"), ("type", "text"), ("role", "system")}
)
"""Tagged variants whose JSON other formats write the same way (pi-agent-core's field-less events,
a text block, pi 1.x's system message of a string); the other tags and keys are clark-agent's
own."""
_CARRIERS = frozenset({"agent_end", "turn_end", "message_start", "message_end"})
"""Events that are clark-agent's only when the messages they carry are (pi's have the same
snake_case names, with pi messages inside)."""
_MESSAGE_KEYS = frozenset(
    {
        "role",
        "content",
        "timestamp",
        "stop_reason",
        "error_message",
        "usage",
        "tool_call_id",
        "tool_name",
        "is_error",
        "narration",
        "details",
        "kind",
        "payload",
    }
)
_OWN_MESSAGE_KEYS = frozenset({"stop_reason", "tool_call_id", "tool_name", "narration", "payload"})
"""Keys of clark-agent's messages that phi-core's, pi's and Operator-Use's messages never have."""
_OWN_ROLES = frozenset({"system", "tool_result", "custom"})
"""Roles phi-core's and pi 0.73's messages do not have (Operator-Use's system and custom messages
have other keys: ``contents``, ``custom_type``; pi 1.x's system message is clark-agent's JSON,
which its tag says: ``_POSSIBLE_TAGS``)."""
Claim = tuple[str, bool]


_SHARED_TAGS = frozenset(
    {
        ("role", "system"),
        ("role", "user"),
        ("role", "assistant"),
        ("role", "custom"),
        *(
            ("type", tag)
            for tag in (
                "text",
                "image",
                "thinking",
                "tool_call",
                "agent_start",
                "agent_end",
                "turn_start",
                "turn_end",
                "message_start",
                "message_update",
                "message_end",
                "tool_execution_start",
                "tool_execution_update",
                "tool_execution_end",
            )
        ),
    }
)
"""Tags other formats use too (pi-agent-core's events, Operator-Use's and phi-core's blocks)."""
_OWN_KEYS = frozenset(
    {
        "tool_call_id",
        "tool_name",
        "stop_reason",
        "is_error",
        "narration",
        "payload",
        "prev_cap",
        "new_cap",
        "before_count",
        "after_count",
        "system_prompt_chars",
        "media_type",
    }
)
"""Keys that tell clark-agent's messages and snake_case events from pi's (camelCase) and
Operator-Use's messages (phi-core's events have ``tool_call_id`` too, but PascalCase tags)."""


def _tagged(document: dict[str, Any], tag_key: str) -> Claim | None:
    tag_value = tag_of(document, tag_key)
    if tag_value is None:
        return None
    found = TAGGED[tag_key].get(tag_value)
    if found is None:
        if tag_key == "type" and tag_value.startswith("reasoning."):
            return "ReasoningItem", False  # OpenRouter's item types are open-ended
        return None
    if not found[1] <= document.keys():
        # a field serde needs is missing: still clark-agent's if the tag or a key is its own
        if (tag_key, tag_value) not in _SHARED_TAGS or _OWN_KEYS & document.keys():
            return found[0], False
        return None
    certain = (tag_key, tag_value) not in _POSSIBLE_TAGS
    carried: list[Any] = []
    for key in _MESSAGE_FIELDS:
        if key == "partial" and tag_value != "message_update":
            continue  # tool_execution_update's partial is a ToolResult
        if key in document:
            carried.append(document[key])
    for key in _MESSAGE_LISTS:
        items = document.get(key)
        if isinstance(items, list):
            carried.extend(items)
    claims = [_object_claim(item) for item in carried]
    if any(found_claim is None or found_claim[0] != "AgentMessage" for found_claim in claims):
        return None  # the messages it carries must be clark-agent's too
    if tag_value in _CARRIERS:
        certain = any(found_claim is not None and found_claim[1] for found_claim in claims)
    if tag_key == "role" and tag_value == "user":
        content = _user_content(document["content"])
        if content is None:
            return None
        certain = content
    if tag_key == "role" and not document.keys() <= _MESSAGE_KEYS:
        certain = False  # keys clark-agent's messages never have (phi-core's model, provider...)
    return found[0], certain


def _user_content(content: Any) -> bool | None:
    """None unless a string or blocks that are all clark-agent's text or image blocks; True when
    some block is clark-agent's own (an image with a ``source``)."""
    if isinstance(content, str):
        return False  # pi writes a user's text the same way
    if not isinstance(content, list):
        return None
    certain = False
    for block in content:
        found = _object_claim(block)
        if found is None or found[0] != "UserBlock":
            return None
        certain = certain or found[1]
    return certain


def _object_claim(value: Any) -> Claim | None:
    return _object(value) if isinstance(value, dict) else None


def _object(document: dict[str, Any]) -> Claim | None:
    keys = frozenset(document)
    for tag_key in TAGGED:
        if tag_key in document:
            found = _tagged(document, tag_key)
            if found is not None:
                return found
    if len(document) == 1:
        ((name, body),) = document.items()
        unit = unit_enum(name, UNIT_ENUMS)
        if unit is not None:  # a unit variant in map form: {"end_turn": null}
            return unit, body is None
    for name, required, optional in _STRUCTS:
        if required <= keys and (name in _OPEN or keys <= required | optional):
            if name == "ToolResult":
                content = _user_content(document["content"])
                if content is None or isinstance(document["content"], str):
                    continue  # its blocks are text and image blocks, as a user's
            return name, name not in _GENERIC_STRUCTS
    if keys and keys <= _USAGE_KEYS:
        return "Usage", bool(keys - _SHARED_USAGE_KEYS)
    if keys >= _SHARED_USAGE_KEYS:
        return "Usage", False  # with a provider's other counters, which serde ignores
    if "source" in keys and keys <= {"type", "source", "media_type", "alt"}:
        return "UserBlock", False  # an image block with an unknown or missing tag
    payload = document.get("payload")
    if (
        isinstance(payload, dict)
        and {"seq", "schema_version", "recorded_at_unix_ms"} & keys
        and tag_of(payload, "kind") in TAGGED["kind"]
    ):
        return "TrajectoryRecord", False
    return _message_by_keys(document)


_GENERIC_STRUCTS = frozenset({"ToolResult", "ToolSchema", "ToolCall", "TextContent"})
"""Untagged structs whose keys are common words other formats use too."""
_SHARED_USAGE_KEYS = frozenset({"input_tokens", "output_tokens"})
"""Operator-Use's usage has these two as well."""


def _message_by_keys(document: dict[str, Any]) -> Claim | None:
    """A message clark-agent's serde would reject (a role missing, unknown, or without a field
    it needs) that is still plainly clark-agent's: only its message keys, and a role only it has
    or a key only its messages have. Possible, never certain."""
    keys = document.keys()
    if not keys <= _MESSAGE_KEYS:
        return None
    if tag_of(document, "role") in _OWN_ROLES or _OWN_MESSAGE_KEYS & keys:
        return "AgentMessage", False
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


def claim(document: Any) -> Claim | None:
    """(type, certain) when ``document`` (parsed JSON) has clark-agent's shape, else None.
    ``certain``: it holds a tag or key only clark-agent writes (``tool_result``,
    ``stop_reason``, a snake_case tool event, a trajectory record...); a bare string, a
    ``{"type":"agent_start"}``, a user message of text, a text block are only possible."""
    if isinstance(document, dict):
        return _object(document)
    if isinstance(document, str):
        unit = unit_enum(document, UNIT_ENUMS)
        return (unit, False) if unit is not None else None
    if isinstance(document, list):
        array = _array(document)
        return (array, False) if array is not None else None
    return None


def recognise(document: Any) -> str | None:
    """The clark-agent wire type ``document`` (parsed JSON) has the shape of, or None."""
    found = claim(document)
    return found[0] if found is not None else None


# What phi_wire.recognise asks of every format's recogniser besides ``claim``:
FALLBACK = "AgentMessage"
"""The type a document whose shape names none is judged as: its most common document, a history
row."""


def version_of(document: Any) -> str:
    """The version whose JSON ``document`` is: the one phi-wire speaks."""
    return "0.4"
