"""Operator-Use's ``SessionManager.build_session_context()``: the active branch of a session
file, rebuilt as the message list its agent sends to the model.

The facts, as Operator-Use's manager has them (d0da87a6):

* the index skips the header; the active leaf is the last entry's id, except that a ``leaf``
  entry makes its ``target_id`` the leaf (None: no leaf, an empty context);
* the branch is walked from the leaf through ``parent_id`` while the parent is known: a
  dangling parent ends it, so a file whose parent ids point at dropped entries (the d0da87a6
  ``create_branched_session`` bug, which drops label entries but keeps the children's
  ``parent_id`` pointing at them) rebuilds a truncated context, exactly as Operator-Use does;
* thinking level (default ``off``) and model come from the last such entry on the branch;
* messages come from ``message`` entries (the message itself), ``custom_message`` entries
  (a ``CustomMessage``) and ``branch_summary`` entries (a ``BranchSummaryMessage``); with a
  compaction on the branch, the last one's summary comes first, then the entries before it from
  ``first_kept_entry_id`` on, then the entries after it.

One deliberate difference: Operator-Use d0da87a6 loops forever on a ``parent_id`` cycle (only a
hand-edited file has one); this walk stops at the first entry it has seen (d1cdaad8 is
cycle-safe the same way).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

__all__ = ["ContextParts", "context_builder", "context_parts", "is_chain"]


def _active_branch(entries: Sequence[Any]) -> list[Any]:
    body = [entry for entry in entries if entry.type != "session"]
    chained = _chained(body)
    return chained if chained is not None else _walked(body)


def _walked(body: list[Any]) -> list[Any]:
    """The branch from the leaf through the parent ids (``body``: the entries but the header)."""
    by_id: dict[str, Any] = {}
    leaf: str | None = None
    for entry in body:
        by_id[entry.id] = entry
        leaf = entry.target_id if entry.type == "leaf" else entry.id
    path: list[Any] = []
    seen: set[str] = set()
    cursor = leaf
    while cursor and cursor not in seen:
        seen.add(cursor)
        current = by_id.get(cursor)
        if current is None:
            break
        path.append(current)
        cursor = current.parent_id
    path.reverse()
    return path


def _chained(body: list[Any]) -> list[Any] | None:
    """The branch of entries written one after the other, each the child of the one before
    (how a session without branches is written), found in one ordered pass (lists compared in
    C) instead of walking a dict of ids: every entry, when the last is no ``leaf`` entry, every
    id is a distinct non-empty text and each parent id is the id before it (the first's parent,
    whatever it is, ends the walk: unknown, or an id already seen). None: walk it."""
    if not body:
        return None
    ids = [entry.id for entry in body]
    parents = [entry.parent_id for entry in body[1:]]
    return body if is_chain(ids, parents, body[-1].type) else None


def is_chain(ids: list[Any], parent_ids: list[Any], last_type: Any) -> bool:
    """Whether entries (but the header) whose ids are ``ids``, the parent ids of all but the
    first ``parent_ids`` and the last one's type ``last_type`` are written one after the other,
    each the child of the one before: then the active branch is all of them (``_chained``)."""
    if last_type == "leaf" or parent_ids != ids[:-1]:
        return False
    # each test over the whole list in C (a generator's step per id cost more than the rest)
    return set(map(type, ids)) == {str} and all(ids) and len(set(ids)) == len(ids)


class ContextParts(NamedTuple):
    """What ``build_session_context`` reads off the active branch."""

    branch: list[Any]
    """The active branch, root first."""
    sources: list[Any]
    """The entries the messages come from, in message order (the compaction entry first when
    there is one: its summary is the first message)."""
    thinking_level: Any
    model_id: str | None
    provider_id: str | None
    models: dict[int, tuple[str, str]]
    """``id(entry)`` -> the (model, provider) in effect at that entry, for entries after a
    ``model_change``."""


def context_parts(entries: Sequence[Any]) -> ContextParts:
    """The active branch of ``entries`` and the entries its context messages come from."""
    branch = _active_branch(entries)
    thinking_level: Any = "off"
    model: tuple[str, str] | None = None
    models: dict[int, tuple[str, str]] = {}
    compaction: Any = None
    for entry in branch:
        if entry.type == "thinking_level_change":
            thinking_level = entry.thinking_level
        elif entry.type == "model_change":
            model = (entry.model_id, entry.provider_id)
        elif entry.type == "compaction":
            compaction = entry
        if model is not None:
            models[id(entry)] = model
    makes_message = ("message", "custom_message", "branch_summary")
    if compaction is None:
        sources = [entry for entry in branch if entry.type in makes_message]
    else:
        at = next(index for index, entry in enumerate(branch) if entry is compaction)
        kept = False
        sources = [compaction]
        for entry in branch[:at]:
            kept = kept or entry.id == compaction.first_kept_entry_id
            if kept and entry.type in makes_message:
                sources.append(entry)
        sources.extend(entry for entry in branch[at + 1 :] if entry.type in makes_message)
    model_id, provider_id = model if model is not None else (None, None)
    return ContextParts(branch, sources, thinking_level, model_id, provider_id, models)


def context_builder(
    context: type[Any], custom: type[Any], branch_summary: type[Any], compaction_summary: type[Any]
) -> Callable[[Sequence[Any]], Any]:
    """``build_session_context(entries)`` for one layout's classes."""

    def message_of(entry: Any) -> Any:
        if entry.type == "message":
            return entry.message
        if entry.type == "custom_message":
            return custom(
                custom_type=entry.custom_type,
                contents=entry.content,
                timestamp=entry.timestamp,
                details=entry.details,
            )
        if entry.type == "branch_summary":
            return branch_summary(
                summary=entry.summary, from_id=entry.from_id, timestamp=entry.timestamp
            )
        return compaction_summary(
            summary=entry.summary, tokens_before=entry.tokens_before, timestamp=entry.timestamp
        )

    def build_session_context(entries: Sequence[Any]) -> Any:
        """The ``SessionContext`` Operator-Use's ``build_session_context()`` gives for a session
        file's entries (``loads(SessionFile, text)``)."""
        parts = context_parts(entries)
        return context(
            messages=[message_of(entry) for entry in parts.sources],
            thinking_level=parts.thinking_level,
            model_id=parts.model_id,
            provider_id=parts.provider_id,
        )

    return build_session_context
