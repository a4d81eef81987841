"""pi (0.73 or 1.5) -> phi-core 0.10: messages of every role, content blocks, usage, a
``SessionContext``, and a session file's active branch as pi's ``buildSessionContext`` rebuilds
it (``convert`` says what each mapping decides; the table is ``docs/conversions/pi.md``)."""

from __future__ import annotations

from typing import Any

import phi_wire.v0_10 as phi
from phi_wire.convert import SORTED_BY_PHI_CORE, Losses, UnsupportedConversion, reordered_by_sorting
from phi_wire.pointer import extended as at

from ._shared import (
    CARRIED_KEY,
    EXTENSION_KIND,
    STOP_REASON_TO_PHI,
    U64_MAX,
    USAGE_KEYS,
    drop_others,
)
from .context import context_entries

NO_PLACE = "phi-core's {what} has no {{key}}"


def _free(value: Any, key: str, pointer: str, losses: Losses) -> Any:
    """A free-form value: kept whole, its keys written sorted by phi-core."""
    if reordered_by_sorting(value):
        losses.add(pointer, "changed", SORTED_BY_PHI_CORE.format(key=key))
    return value


def timestamp_to_phi(message: dict[str, Any], pointer: str, losses: Losses) -> int:
    """A message's timestamp (a JavaScript number) as phi-core's u64."""
    stamp: int = message["timestamp"]
    if stamp > U64_MAX:
        losses.add(at(pointer, "timestamp"), "changed", "above phi-core's u64: its largest")
        return U64_MAX
    return stamp


def block_to_phi(block: dict[str, Any], pointer: str, losses: Losses) -> Any:
    """One pi content block (text, thinking, image, toolCall)."""
    kind = block.get("type")
    if kind == "text":
        drop_others(block, {"type", "text"}, pointer, losses, NO_PLACE.format(what="text block"))
        return phi.TextContent(text=block["text"])
    if kind == "thinking":
        kept = {"type", "thinking", "thinkingSignature"}
        drop_others(block, kept, pointer, losses, NO_PLACE.format(what="thinking block"))
        return phi.ThinkingContent(
            thinking=block["thinking"], signature=block.get("thinkingSignature")
        )
    if kind == "image":
        kept = {"type", "data", "mimeType"}
        drop_others(block, kept, pointer, losses, NO_PLACE.format(what="image block"))
        return phi.ImageContent(data=block["data"], mime_type=block["mimeType"])
    if kind == "toolCall":
        kept = {"type", "id", "name", "arguments"}
        drop_others(block, kept, pointer, losses, NO_PLACE.format(what="toolCall block"))
        arguments = _free(block["arguments"], "arguments", pointer, losses)
        return phi.ToolCallContent(id=block["id"], name=block["name"], arguments=arguments)
    raise UnsupportedConversion(f"not a pi content block: type {kind!r}")


def _blocks(blocks: list[dict[str, Any]], pointer: str, losses: Losses) -> list[Any]:
    return [block_to_phi(block, at(pointer, index), losses) for index, block in enumerate(blocks)]


def usage_to_phi(usage: dict[str, Any], pointer: str, losses: Losses) -> Any:
    """pi's token counts (its ``cost`` and ``cacheWrite1h`` have no place in phi-core)."""
    counts: dict[str, int] = {}
    for key, name in USAGE_KEYS.items():
        count = usage.get(key)
        if count is None:
            continue
        if not 0 <= count <= U64_MAX:
            losses.add(at(pointer, key), "changed", "outside phi-core's u64 counter: clamped")
            count = min(max(count, 0), U64_MAX)
        counts[name] = count
    if usage.get("reasoning") == 0:
        losses.add(at(pointer, "reasoning"), "changed", "0: it comes back absent")
    if "totalTokens" not in usage:
        losses.add(pointer, "invented", "phi-core's total_tokens: 0 (pi wrote no totalTokens)")
    drop_others(usage, set(USAGE_KEYS), pointer, losses, NO_PLACE.format(what="Usage"))
    return phi.Usage(**counts)


def _user(message: dict[str, Any], pointer: str, losses: Losses) -> Any:
    content = message["content"]
    if isinstance(content, str):
        blocks = [phi.TextContent(text=content)]
    else:
        if len(content) == 1 and content[0].get("type") == "text" and len(content[0]) == 2:
            losses.add(
                at(pointer, "content"),
                "changed",
                "one text block: phi-core cannot tell it from string content, which it comes "
                "back as",
            )
        blocks = _blocks(content, at(pointer, "content"), losses)
    return phi.LlmUserMessage(content=blocks, timestamp=timestamp_to_phi(message, pointer, losses))


def _assistant(message: dict[str, Any], pointer: str, losses: Losses) -> Any:
    stop, reason = STOP_REASON_TO_PHI[message["stopReason"]]
    if reason is not None:
        losses.add(at(pointer, "stopReason"), "changed", reason)
    return phi.LlmAssistantMessage(
        content=_blocks(message["content"], at(pointer, "content"), losses),
        stop_reason=phi.StopReason(stop),
        model=message["model"],
        provider=message["provider"],
        usage=usage_to_phi(message["usage"], at(pointer, "usage"), losses),
        timestamp=timestamp_to_phi(message, pointer, losses),
        error_message=message.get("errorMessage"),
    )


def _tool_result(message: dict[str, Any], pointer: str, losses: Losses) -> Any:
    return phi.LlmToolResultMessage(
        tool_call_id=message["toolCallId"],
        tool_name=message["toolName"],
        content=_blocks(message["content"], at(pointer, "content"), losses),
        is_error=message["isError"],
        timestamp=timestamp_to_phi(message, pointer, losses),
    )


MESSAGE_KEYS: dict[str, tuple[Any, set[str]]] = {
    "user": (_user, {"role", "content", "timestamp"}),
    "assistant": (
        _assistant,
        {
            "role",
            "content",
            "provider",
            "model",
            "usage",
            "stopReason",
            "timestamp",
            "errorMessage",
        },
    ),
    "toolResult": (
        _tool_result,
        {"role", "toolCallId", "toolName", "content", "isError", "timestamp"},
    ),
}
"""phi-core's message roles: their converter and the pi keys it maps."""


def message_to_phi(message: dict[str, Any], pointer: str, losses: Losses) -> Any:
    """One pi message (its JSON): user, assistant, toolResult as phi-core's; every other role
    (system, custom, bashExecution, branchSummary, compactionSummary) as an ExtensionMessage
    carrying it whole (role "extension", as phi-core's ``ExtensionMessage::new`` writes; pi's
    role is in its kind)."""
    role = message["role"]
    if role in MESSAGE_KEYS:
        convert, kept = MESSAGE_KEYS[role]
        drop_others(message, kept, pointer, losses, NO_PLACE.format(what=f"{role} message"))
        return convert(message, pointer, losses)
    carried = _carried(message)
    if carried is not None:
        if message["timestamp"]:
            losses.add(at(pointer, "timestamp"), "dropped", "phi-core's ExtensionMessage has none")
        return phi.ExtensionMessage(
            role=carried["role"], kind=message["customType"], data=carried["data"]
        )
    data = {key: value for key, value in message.items() if key != "role"}
    if reordered_by_sorting(data):
        losses.add(
            pointer,
            "changed",
            "phi-core writes an ExtensionMessage's data sorted: pi's key order comes back as "
            "pi's constructor writes it",
        )
    return phi.ExtensionMessage(role="extension", kind=EXTENSION_KIND.format(role=role), data=data)


def _carried(message: dict[str, Any]) -> dict[str, Any] | None:
    """The phi-core ExtensionMessage a pi ``custom`` message carries (``from_phi_core`` writes
    one for an ExtensionMessage of its own kind), or None."""
    if message["role"] != "custom" or set(message) != {
        "role",
        "customType",
        "content",
        "display",
        "details",
        "timestamp",
    }:
        return None
    details = message["details"]
    if message["content"] not in ("", []) or message["display"] is not False:
        return None
    if not isinstance(details, dict) or set(details) != {CARRIED_KEY}:
        return None
    carried = details[CARRIED_KEY]
    if not isinstance(carried, dict) or set(carried) != {"role", "data"}:
        return None
    return carried if isinstance(carried["role"], str) else None


def messages_to_phi(messages: list[dict[str, Any]], pointer: str, losses: Losses) -> list[Any]:
    return [
        message_to_phi(message, at(pointer, index), losses)
        for index, message in enumerate(messages)
    ]


def context_to_phi(context: dict[str, Any], losses: Losses) -> list[Any]:
    """A ``SessionContext``: its messages (its thinking level and model have no place)."""
    drop_others(context, {"messages"}, "", losses, "a phi-core message list has no {key}")
    return messages_to_phi(context["messages"], "/messages", losses)


ENTRY_KEYS = {"type", "id", "parentId", "timestamp"}


def session_to_phi(lines: list[dict[str, Any]], losses: Losses) -> list[Any]:
    """A session file (its lines' JSON, the header first): the messages of its active branch, as
    ``buildSessionContext`` rebuilds them; every other line, and every key of an entry that is
    not its message, a loss at the line."""
    losses.add("/0", "dropped", "a phi-core message list has no session header")
    projected = context_entries(lines)
    used = {index for index, _ in projected}
    for index, entry in enumerate(lines[1:], start=1):
        if index not in used:
            losses.add(at("", index), "dropped", _why_not_in_context(entry))
    messages: list[Any] = []
    for index, projection in projected:
        entry = lines[index]
        pointer = at("", index)
        for key in ENTRY_KEYS:
            if key in entry and (key != "timestamp" or entry.get("type") == "message"):
                losses.add(at(pointer, key), "dropped", "a phi-core message has no entry record")
        for message, where, note in projection:
            if note is not None:
                losses.add(pointer + where, "changed", note)
            messages.append(message_to_phi(message, pointer + where, losses))
    return messages


def _why_not_in_context(entry: dict[str, Any]) -> str:
    kind = entry.get("type")
    if kind in ("message", "custom_message", "branch_summary", "compaction"):
        return "not in the active branch's context (another branch, or summarised by compaction)"
    return f"a {kind} entry has no phi-core message"
