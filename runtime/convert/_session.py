"""A phi-core ``Session`` (what ``save_session`` writes) as the message list the other formats
store a conversation as: each loop's ``messages``, loop after loop in the order the session
records them. Everything else of the session is a loss at its pointer: the session's and each
loop's other keys (ids, times, status, config, turns, events, usage, compaction...) are
``dropped``, and where the loops form a tree (a rerun or a branch continues an earlier loop, not
the one before it) their messages are written one after another all the same (``changed``, at the
loop's ``parent_loop_id``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from phi_wire.pointer import escape

from ._types import Conversion, Loss

__all__ = ["from_session", "is_session"]

_KEPT = frozenset({"loops"})
_LOOP_KEPT = frozenset({"messages", "loop_id", "parent_loop_id"})


def is_session(value: Any) -> bool:
    """Whether ``value`` is a phi-core ``Session`` model (any version)."""
    return type(value).__name__ == "Session" and hasattr(value, "loops")


def _set_keys(model: Any, kept: frozenset[str]) -> list[str]:
    """The wire keys of the fields ``model`` was read with (not None), but ``kept``."""
    fields = type(model).model_fields
    return [
        fields[name].alias or name
        for name in fields
        if name in model.model_fields_set and name not in kept and getattr(model, name) is not None
    ]


def from_session(
    session: Any, convert_messages: Callable[[list[Any]], Conversion[Any]]
) -> Conversion[Any]:
    """``convert_messages`` of the session's messages, its losses' pointers (``/<index>...``
    into the message list) turned into the session's (``/loops/<i>/messages/<j>...``), with the
    losses of what a message list cannot hold."""
    losses: list[Loss] = [
        Loss("/" + escape(key), "dropped", "a message list has no session record")
        for key in _set_keys(session, _KEPT)
    ]
    messages: list[Any] = []
    where: list[str] = []
    previous: str | None = None
    for index, loop in enumerate(session.loops):
        at = f"/loops/{index}"
        for key in _set_keys(loop, _LOOP_KEPT):
            losses.append(
                Loss(f"{at}/{escape(key)}", "dropped", "a message list has no loop record")
            )
        losses.append(Loss(f"{at}/loop_id", "dropped", "a message list has no loop record"))
        if loop.parent_loop_id is not None and loop.parent_loop_id != previous:
            losses.append(
                Loss(
                    f"{at}/parent_loop_id",
                    "changed",
                    "this loop continues an earlier one, not the one before it: a message list "
                    "has no tree, its messages follow the loop before",
                )
            )
        elif loop.parent_loop_id is not None:
            losses.append(
                Loss(f"{at}/parent_loop_id", "dropped", "a message list has no loop record")
            )
        previous = loop.loop_id
        for number, message in enumerate(loop.messages):
            messages.append(message)
            where.append(f"{at}/messages/{number}")
    converted = convert_messages(messages)
    for loss in converted.losses:
        item, slash, rest = loss.pointer[1:].partition("/")
        if loss.pointer.startswith("/") and item.isdecimal() and int(item) < len(where):
            losses.append(Loss(where[int(item)] + slash + rest, loss.kind, loss.reason))
        else:
            losses.append(loss)
    return Conversion(converted.value, tuple(losses))
