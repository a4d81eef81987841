"""Which messages a pi session file gives the model: pi's ``buildSessionContext`` (coding agent
1.5, which reads 0.73 files alike). The active branch is the path from the last entry to its root
(``parentId``); after its newest ``compaction`` the context is that compaction (its
``systemMessage`` if any, then a ``compactionSummary``), the entries from its ``firstKeptEntryId``
on (system messages left out) and everything after it; a ``context_edit`` replaces the content of
the message of its ``targetId`` (``null``: leaves the message out). ``custom_message`` and
``branch_summary`` entries give the messages pi builds from them; other entries give none."""

from __future__ import annotations

import calendar
import time
from typing import Any

__all__ = ["Projected", "context_entries", "iso_to_ms"]

Projected = tuple[dict[str, Any], str, str | None]
"""A message of the context, the pointer of its source within its entry ("/message", or "" for
a message pi builds from the entry's keys) and, when the context changed it, why."""


def iso_to_ms(text: Any) -> int:
    """``new Date(text).getTime()`` for the ISO timestamps pi writes (0 when it is not one)."""
    if not isinstance(text, str):
        return 0
    try:
        whole, _, fraction = text.rstrip("Z").partition(".")
        seconds = calendar.timegm(time.strptime(whole, "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return 0
    millis = int((fraction + "000")[:3]) if fraction.isdigit() else 0
    return seconds * 1000 + millis


def _path(entries: list[tuple[int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    by_id = {entry.get("id"): (index, entry) for index, entry in entries}
    if not entries:
        return []
    path = []
    current: tuple[int, dict[str, Any]] | None = entries[-1]
    seen: set[int] = set()
    while current is not None and current[0] not in seen:
        seen.add(current[0])
        path.append(current)
        parent = current[1].get("parentId")
        current = by_id.get(parent) if parent else None
    path.reverse()
    return path


def _messages(entry: dict[str, Any]) -> list[Projected]:
    kind = entry.get("type")
    if kind == "message":
        return [(entry["message"], "/message", None)]
    stamp = iso_to_ms(entry.get("timestamp"))
    if kind == "custom_message":
        message = {
            "role": "custom",
            "customType": entry.get("customType"),
            "content": entry.get("content", []),
            "display": entry.get("display"),
            "details": entry.get("details"),
            "timestamp": stamp,
        }
        if "details" not in entry:
            del message["details"]
        return [(message, "", None)]
    if kind == "branch_summary" and entry.get("summary"):
        message = {
            "role": "branchSummary",
            "summary": entry["summary"],
            "fromId": entry.get("fromId"),
            "timestamp": stamp,
        }
        return [(message, "", None)]
    if kind == "compaction":
        summary = {
            "role": "compactionSummary",
            "summary": entry.get("summary"),
            "tokensBefore": entry.get("tokensBefore"),
            "timestamp": stamp,
        }
        system = entry.get("systemMessage")
        return ([(system, "/systemMessage", None)] if system else []) + [(summary, "", None)]
    return []


def _edited(projected: list[Projected], edit: dict[str, Any]) -> list[Projected]:
    replacement = edit.get("replacement")
    if replacement is None:
        return []
    edited: list[Projected] = []
    for message, where, _ in projected:
        role = message.get("role")
        if role not in ("user", "assistant", "toolResult", "custom"):
            edited.append((message, where, None))
            continue
        content = replacement.get("content")
        if role in ("assistant", "toolResult") and isinstance(content, str):
            content = [{"type": "text", "text": content}]
        note = f"replaced by the context_edit entry {edit.get('id')!r}, as pi's context shows it"
        edited.append(({**message, "content": content}, where, note))
    return edited


def context_entries(lines: list[dict[str, Any]]) -> list[tuple[int, list[Projected]]]:
    """The context's entries (each's index among ``lines``, the header at 0) and the messages
    each gives, in order."""
    path = _path([(index, entry) for index, entry in enumerate(lines) if index > 0])
    newest = None
    for position, (_, entry) in enumerate(path):
        if entry.get("type") == "compaction":
            newest = position
    chosen = path
    if newest is not None:
        compaction = path[newest][1]
        chosen = [path[newest]]
        kept = False
        for index, entry in path[:newest]:
            if entry.get("id") == compaction.get("firstKeptEntryId"):
                kept = True
            is_system = entry.get("type") == "message" and entry["message"].get("role") == "system"
            if kept and not is_system:
                chosen.append((index, entry))
        chosen += path[newest + 1 :]
    edits = {
        entry.get("targetId"): entry for _, entry in chosen if entry.get("type") == "context_edit"
    }
    projected: list[tuple[int, list[Projected]]] = []
    for position, (index, entry) in enumerate(chosen):
        if entry.get("type") == "compaction" and position > 0:
            projected.append((index, []))
            continue
        messages = _messages(entry)
        edit = edits.get(entry.get("id"))
        projected.append((index, _edited(messages, edit) if edit is not None else messages))
    return [(index, messages) for index, messages in projected if messages]
