"""Does a JSON document look like pi's (pi-ai, pi-agent-core, pi-coding-agent: 0.73 or 1.5), which
of its types, and which line (``version_of``: a document holding something only 1.5 writes is 1.5's,
any other 0.73's, which 1.5 reads alike)?

pi-ai's messages are the model phi-core's were made from, so most of them have phi-core's shape:
phi-core reads them, dropping what it has no field for (``api``, ``cost``, ``errorMessage``,
``thinkingSignature``, ``details``...). A claim is ``certain`` only when the document carries one
of those marks (the keys ``PI_ONLY_KEYS``, pi-agent-core's camelCase event fields, pi-ai's
streaming events, pi-coding-agent's ISO-8601 session entries, its own message roles);
``{"type": "agent_start"}``, a user message of text and an image block are pi's too, and only
possible (clark-agent and phi-core write them the same way). Nothing here imports pydantic.
"""

from __future__ import annotations

import re
from typing import Any

from phi_wire.formats.shapes import tag_of

__all__ = [
    "AGENT_EVENT_TAGS",
    "FALLBACK",
    "PI_ONLY_KEYS",
    "PROVIDER_EVENT_TAGS",
    "SESSION_TYPES",
    "WIDER_TYPES",
    "claim",
    "describe",
    "recognise",
    "version_of",
    "version_of_group",
]

PI_ONLY_KEYS = frozenset(
    {
        "api",
        "errorMessage",
        "responseId",
        "responseModel",
        "diagnostics",
        "cost",
        "cacheRead",
        "cacheWrite",
        "totalTokens",
        "thinkingSignature",
        "textSignature",
        "thoughtSignature",
        "redacted",
        "details",
        "partialJson",
    }
)
"""Keys of pi-ai's messages, blocks and usage that phi-core's have no field for."""

AGENT_EVENT_TAGS = frozenset(
    {
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
    }
)
"""pi-agent-core's own ``AgentEvent`` tags; the others are the coding agent's
(``AgentSessionEvent``)."""
_EVENT_TAGS = AGENT_EVENT_TAGS | frozenset(
    {
        # pi-coding-agent's AgentSessionEvent
        "auto_compaction_start",
        "auto_compaction_end",
        "auto_retry_start",
        "auto_retry_end",
        "queue_update",
        "compaction_start",
        "compaction_end",
        "session_info_changed",
        "thinking_level_changed",
        # pi 1.5's
        "agent_settled",
        "entry_appended",
        "bash_execution_update",
        "summarization_retry_scheduled",
        "summarization_retry_attempt_start",
        "summarization_retry_finished",
    }
)
_EVENT_CAMEL_KEYS = frozenset(
    {"toolCallId", "toolName", "isError", "partialResult", "toolResults", "assistantMessageEvent"}
)
PROVIDER_EVENT_TAGS = frozenset(
    {
        "start",
        "text_start",
        "text_delta",
        "text_end",
        "thinking_start",
        "thinking_delta",
        "thinking_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_end",
        "done",
        "error",
    }
)
"""pi-ai's AssistantMessageEvent (a provider stream)."""
_STREAM_KEYS = frozenset({"partial", "contentIndex", "message", "reason", "error", "delta"})
_ENTRY_TAGS = frozenset(
    {
        "session",
        "message",
        "thinking_level_change",
        "model_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
        # pi 1.5's
        "usage",
        "context_edit",
    }
)
_ENTRY_CAMEL_KEYS = frozenset(
    {
        "parentId",
        "thinkingLevel",
        "modelId",
        "firstKeptEntryId",
        "firstKeptEntryIndex",
        "tokensBefore",
        "customType",
        "targetId",
        "fromId",
        "branchedFrom",
        "parentSession",
    }
)
_ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
_ROLES = frozenset({"user", "assistant", "toolResult"})
_SYSTEM_KEYS = frozenset({"sections", "toolsAdded", "toolsRemoved"})
"""pi 1.x's system message (``role: "system"``, string content): the keys that only it has
(clark-agent's system message is ``{role, content, timestamp}`` too)."""
_OWN_ROLES: dict[str, frozenset[str]] = {
    "bashExecution": frozenset({"command"}),
    "custom": frozenset({"customType"}),
    "branchSummary": frozenset({"summary", "fromId"}),
    "compactionSummary": frozenset({"summary", "tokensBefore"}),
}
_BLOCKS: dict[str, frozenset[str]] = {
    "text": frozenset({"text"}),
    "image": frozenset({"data", "mimeType"}),
    "thinking": frozenset({"thinking"}),
    "toolCall": frozenset({"id", "name", "arguments"}),
}
_USAGE_KEYS = frozenset(
    {
        "input",
        "output",
        "cacheRead",
        "cacheWrite",
        "reasoning",
        "totalTokens",
        "cost",
        "cacheWrite1h",
    }
)
_TOOL_RESULT_KEYS = frozenset(
    {"content", "details", "terminate", "structuredContent", "usage", "isError"}
)
_TOOL_RESULT_OWN_KEYS = frozenset({"structuredContent", "usage", "isError"})
"""pi 1.5's AgentToolResult keys (``terminate`` is clark-agent's too)."""
"""pi-agent-core's AgentToolResult (a tool's result and partial results): text and image
blocks, with what the tool adds (``details``), and ``terminate``."""
Claim = tuple[str, bool]
_DESCRIPTIONS = {
    "AgentMessage": ("a pi-ai message", "pi-ai messages"),
    "Content": ("a pi-ai content block", "pi-ai content blocks"),
    "Usage": ("pi-ai usage", "pi-ai usages"),
    "AssistantMessageEvent": ("a pi-ai stream event", "pi-ai stream events"),
    "AgentEvent": ("a pi-agent-core event", "pi-agent-core events"),
    "AgentToolResult": ("a pi-agent-core tool result", "pi-agent-core tool results"),
    "SessionHeader": ("a pi-coding-agent session header", "pi-coding-agent session headers"),
    "SessionEntry": ("a pi-coding-agent session entry", "pi-coding-agent session entries"),
    "SessionFile": ("a pi-coding-agent session file", "lines of a pi-coding-agent session file"),
    "SessionContext": ("a pi-coding-agent session context", "pi-coding-agent session contexts"),
}


def describe(type_name: str, plural: bool = False) -> str:
    """``AgentMessage`` -> ``a pi-ai message`` (``plural``: ``pi-ai messages``): what documents
    of the type are, in words."""
    bare = type_name.removeprefix("list[").removesuffix("]")
    one, many = _DESCRIPTIONS.get(bare, (f"pi's {bare}", f"pi's {bare}s"))
    if bare != type_name:
        return f"lists of {many}" if plural else f"a list of {many}"
    return many if plural else one


def _marked(value: Any) -> bool:
    """Whether a message, block or usage holds a key only pi writes (searched two levels down:
    a message's usage and blocks)."""
    if not isinstance(value, dict):
        return False
    if PI_ONLY_KEYS & value.keys():
        return True
    for inner in value.values():
        if isinstance(inner, dict) and PI_ONLY_KEYS & inner.keys():
            return True
        if isinstance(inner, list):
            for item in inner[:64]:
                if isinstance(item, dict) and PI_ONLY_KEYS & item.keys():
                    return True
    return False


def _content(content: Any) -> bool:
    """A string, or blocks of pi-ai's kinds."""
    if isinstance(content, str):
        return True
    return isinstance(content, list) and all(
        isinstance(block, dict) and _BLOCKS.get(tag_of(block, "type") or "", {""}) <= block.keys()
        for block in content[:64]
    )


def _message(document: dict[str, Any]) -> Claim | None:
    role = tag_of(document, "role")
    if role is None:
        return None
    if role == "system":  # pi 1.x
        if not isinstance(document.get("content"), str):
            return None
        return "AgentMessage", not _SYSTEM_KEYS.isdisjoint(document)
    needed = _OWN_ROLES.get(role)
    if needed is not None:
        return ("AgentMessage", True) if needed <= document.keys() else None
    if role not in _ROLES or not _content(document.get("content")):
        return None
    if role == "assistant" and not {"stopReason", "api"} & document.keys():
        return None
    if role == "toolResult" and "toolCallId" not in document:
        return None
    return "AgentMessage", _marked(document)


def _event(document: dict[str, Any], tag: str) -> Claim:
    if tag == "message_update" and "message" not in document and "usage" in document:
        return "JsonAgentSessionEvent", True  # 1.5's --mode json: the deltas only
    if tag not in AGENT_EVENT_TAGS or "willRetry" in document or "parentToolCallId" in document:
        return "AgentSessionEvent", True
    certain = bool(_EVENT_CAMEL_KEYS & document.keys())
    for key in ("message", "messages"):
        carried = document.get(key)
        items = carried if isinstance(carried, list) else [carried]
        for item in items[:64]:
            if isinstance(item, dict):
                found = _message(item)
                certain = certain or (found is not None and found[1])
    return "AgentEvent", certain


def _entry(document: dict[str, Any]) -> bool:
    timestamp = document.get("timestamp")
    iso = isinstance(timestamp, str) and _ISO_TIME.match(timestamp) is not None
    return iso or bool(_ENTRY_CAMEL_KEYS & document.keys())


_RPC_TAGS = {
    "response": "RpcResponse",
    "extension_error": "RpcExtensionError",
    "extension_ui_request": "RpcExtensionUIRequest",
}
"""pi 1.5's ``--mode rpc`` lines that are not events."""


def claim(document: Any) -> Claim | None:
    """(type, certain) when ``document`` (parsed JSON) has pi's shape, else None."""
    if not isinstance(document, dict):
        return None
    keys = document.keys()
    tag = tag_of(document, "type")
    if tag is not None:
        rpc = _RPC_TAGS.get(tag)
        if rpc is not None and ("command" in keys or "id" in keys or "error" in keys):
            return rpc, True
        if tag in _ENTRY_TAGS and _entry(document):
            return ("SessionHeader" if tag == "session" else "SessionEntry"), True
        if tag in _EVENT_TAGS:
            return _event(document, tag)
        if tag in PROVIDER_EVENT_TAGS and _STREAM_KEYS & keys:
            # 1.5's --mode json: the stream events of message_update lose ``partial``
            whole = "partial" in keys or tag in ("done", "error", "start")
            return ("AssistantMessageEvent" if whole else "JsonAssistantMessageEvent"), True
        needed = _BLOCKS.get(tag)
        if needed is not None and needed <= keys:
            return "Content", _marked(document)
        return None
    if "role" in keys:
        return _message(document)
    if {"messages", "thinkingLevel"} <= keys:
        return "SessionContext", True
    if {"input", "output"} <= keys <= _USAGE_KEYS and keys - {"input", "output"}:
        return "Usage", True
    content = document.get("content")
    if keys <= _TOOL_RESULT_KEYS and isinstance(content, list) and _content(content):
        # phi-core's and clark-agent's tool results are the same JSON, details too
        own = bool(_TOOL_RESULT_OWN_KEYS & keys)
        return "AgentToolResult", own or _marked({"content": content})
    return None


def recognise(document: Any) -> str | None:
    """The pi type ``document`` (parsed JSON) has the shape of, or None."""
    found = claim(document)
    return found[0] if found is not None else None


# What phi_wire.recognise asks of every format's recogniser besides ``claim``:
FALLBACK = "AgentMessage"
"""The type of a document whose shape names none (a message: the most common document)."""
SESSION_TYPES = frozenset({"SessionHeader", "SessionEntry"})
"""The types of a session file's lines: a JSONL file of them is one ``SessionFile``."""

WIDER_TYPES: dict[str, tuple[str, ...]] = {
    "AgentEvent": ("AgentSessionEvent", "JsonAgentSessionEvent"),
    "AgentSessionEvent": ("JsonAgentSessionEvent",),
    "AssistantMessageEvent": ("JsonAssistantMessageEvent",),
    "Message": ("AgentMessage",),
}
"""The types a document claimed as a type is read as when it is not that type, in turn (each
only where the version has it): the coding agent's events are the agent loop's and more, the
CLI's lines the coding agent's with delta-only updates."""

_ONLY_15_TAGS = frozenset(
    {
        "agent_settled",
        "entry_appended",
        "bash_execution_update",
        "summarization_retry_scheduled",
        "summarization_retry_attempt_start",
        "summarization_retry_finished",
        "usage",
        "context_edit",
        *_RPC_TAGS,
    }
)
_ONLY_15_TYPES = frozenset(
    {"JsonAssistantMessageEvent", "JsonAgentSessionEvent", *_RPC_TAGS.values()}
)
"""Types only pi 1.5 has (its CLI's lines)."""
_ONLY_15_KEYS = frozenset(
    {
        "rawStopReason",
        "endTurn",
        "durationMs",
        "namespace",
        "totalFromProvider",
        "cacheWrite1h",
        "parentToolCallId",
        "sections",
        "toolsAdded",
        "toolsRemoved",
        "deferred",
        "providerThinkingLevel",
        "argumentsError",
        "nestedCalls",
        "structuredContent",
        "estimatedTokensAfter",
    }
)
"""Keys only pi 1.5 writes (in messages, usage, events)."""
_ONLY_15_VALUES = {
    "stopReason": frozenset({"pending", "deferred"}),
    "reason": frozenset({"deferred"}),
    "role": frozenset({"system"}),
    "thinkingLevel": frozenset({"max"}),
    "level": frozenset({"max"}),
}
"""Values only pi 1.5 writes under these keys (a stop reason, a role, a thinking level)."""
_OPAQUE = frozenset({"arguments", "details", "data", "parameters", "partialJson", "sections"})
"""Caller data: its keys are not pi's."""
_SEARCHED = 10_000
"""At most this many JSON values of a document are looked at for a 1.5 mark."""


def version_of(document: Any) -> str:
    """``1.5`` when ``document`` holds something only pi 1.5 writes (a system message, a
    ``pending`` stop reason, ``durationMs``, a new event or entry kind...), else ``0.73`` (whose
    documents 1.5 reads alike)."""
    found = claim(document)
    if found is not None and found[0] in _ONLY_15_TYPES:
        return "1.5"
    if (
        found is not None
        and found[0] == "AgentToolResult"
        and _TOOL_RESULT_OWN_KEYS & document.keys()
    ):
        return "1.5"
    pending = [document]
    seen = 0
    while pending and seen < _SEARCHED:
        value = pending.pop()
        seen += 1
        if isinstance(value, list):
            pending.extend(value[:256])
        elif isinstance(value, dict):
            if _ONLY_15_KEYS & value.keys() or tag_of(value, "type") in _ONLY_15_TAGS:
                return "1.5"
            for key, values in _ONLY_15_VALUES.items():
                if tag_of(value, key) in values:
                    return "1.5"
            if tag_of(value, "type") == "message_update" and "message" not in value:
                return "1.5"
            if tag_of(value, "type") == "agent_end" and "willRetry" in value:
                return "1.5"  # 0.73's compaction events have willRetry, its agent_end not
            if tag_of(value, "role") == "assistant" and "thinkingLevel" in value:
                return "1.5"  # the 1.5 loop stamps its final assistant messages
            summarised = tag_of(value, "type") in ("compaction", "branch_summary")
            if summarised and {"usage", "systemMessage"} & value.keys():
                return "1.5"
            pending.extend(inner for key, inner in value.items() if key not in _OPAQUE)
    return "0.73"


def version_of_group(versions: set[str]) -> str:
    """The line of a group of documents (a file's lines): 1.5 when any of them is 1.5's."""
    return "1.5" if "1.5" in versions else "0.73"
