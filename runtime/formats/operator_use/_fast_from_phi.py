"""phi-core 0.10 messages -> an Operator-Use d0da87a6 session file without the models: the
messages as JSON gives them (each with its text as phi-core writes it, the seed of its id), the
session file's entries (header first) as Operator-Use's writer writes them, and the same losses,
in the same order, as ``_from_phi.session_from_phi_core`` gives from the models.

The messages are converted by the model path's own ``message_dicts``; what Operator-Use's reader
would add (its defaults: a tool result's ``metadata`` and ``terminate``, a usage's ``cost``, a
custom message's ``contents``) is filled in here, in its fields' order, so pydantic-core's
``to_json`` of an entry is byte for byte ``model_dump_json(exclude_none=True)`` of its model.
What this cannot convert so raises ``FastUnsupported``: an extension message that carries an
Operator-Use message (read by its layout's models), a free-form value (tool-call arguments,
extension data) whose keys are not sorted as phi-core's ``Value`` sorts them, or with a number
the writers print otherwise (``checked_number``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError, to_json

import phi_wire.operator_use as ou
from phi_wire.convert import (
    EntryIds,
    FastUnsupported,
    Loss,
    Losses,
    LossKind,
    checked_number,
    derived_id,
)

from ._from_phi import ENTRY_IDS_INVENTED, HEADER_INVENTED, message_dicts
from ._shared import MODEL_IN_ENTRIES

__all__ = ["session_file_from_phi"]

_NO_COST = ou.UsageCost().model_dump(mode="json")
"""A usage's ``cost`` as Operator-Use's reader fills it in (never changed: shared)."""
_CWD = "."


def _checked_free(value: Any) -> None:
    """``FastUnsupported`` for a free-form value that phi-core would write otherwise than it
    came (an object's keys not sorted: phi-core's ``Value`` sorts them) or with a number it
    reads otherwise (``checked_number``)."""
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is dict:
            keys = list(item)
            if keys != sorted(keys):
                raise FastUnsupported("a free-form object whose keys are not sorted")
            pending += item.values()
        elif kind is list:
            pending += item
        elif kind is int or kind is float:
            checked_number(item)


def _checked(message: dict[str, Any]) -> None:
    """What ``message_dicts`` would convert otherwise than exactly here."""
    if "kind" in message:
        _checked_free(message["data"])
        return
    for block in message["content"]:
        if block["type"] == "toolCall":
            _checked_free(block["arguments"])


def _as_written(message: Any) -> dict[str, Any]:
    """An Operator-Use message's JSON as its writer writes the model its reader reads."""
    if isinstance(message, BaseModel):
        raise FastUnsupported("an extension message that carries an Operator-Use message")
    role = message["role"]
    if role == "tool":
        for result in message["contents"]:
            result["metadata"] = {}
            result["terminate"] = False
    elif role == "assistant":
        message["usage"]["cost"] = _NO_COST
    elif role == "custom":
        custom = {
            "role": "custom",
            "custom_type": message["custom_type"],
            "timestamp": message["timestamp"],
            "contents": [],
        }
        if message["details"] is not None:
            custom["details"] = message["details"]
        return custom
    return message  # type: ignore[no-any-return]


class _Losses(Losses):
    """``Losses`` whose ``add`` builds the tuple without ``Loss``'s own constructor (called a few
    times for every message), and leaves out the model and provider of an assistant, which a
    session file keeps (``session_from_phi_core`` takes those losses out after)."""

    def add(self, pointer: str, kind: LossKind, reason: str) -> None:
        if reason != MODEL_IN_ENTRIES:
            self.append(tuple.__new__(Loss, (pointer, kind, reason)))


def _json(document: dict[str, Any]) -> str:
    try:
        return to_json(document).decode()
    except PydanticSerializationError as error:  # a lone surrogate: the model path says it
        raise FastUnsupported(str(error)) from None


def session_file_from_phi(
    documents: list[dict[str, Any]], texts: Sequence[str], name: str
) -> tuple[str, list[Loss]]:
    """phi-core messages (their JSON, and their text as phi-core writes it) as the Operator-Use
    session file that ``session_from_phi_core(messages, name=name)`` writes (one line per entry,
    the header first, each ending with a line end), and its losses (pointers: ``/<index>`` into
    the message list, or "")."""
    for message in documents:
        _checked(message)
    losses = _Losses()
    converted = message_dicts(
        [(f"/{index}", message, texts[index]) for index, message in enumerate(documents)],
        losses,
        name,
    )
    messages = [_as_written(message) for message in converted]
    kept: list[Loss] = losses
    first = messages[0]["timestamp"] if messages else 0.0
    content = "\n".join(message.get("id") or _json(message) for message in messages)
    header_id = derived_id(name, "session", content)
    entries: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": header_id, "timestamp": first, "cwd": _CWD}
    ]
    kept.append(Loss("", "invented", HEADER_INVENTED + repr(_CWD)))
    entry_id = EntryIds(name, header_id)
    models = iter(
        (message["model"], message["provider"])
        for message in documents
        if message["role"] == "assistant" and "kind" not in message
    )
    parent: str | None = None
    in_effect = ("", "")
    for message in messages:
        if message["role"] == "assistant":
            model = next(models)
            if model != in_effect:
                change = {"id": entry_id(len(entries)), "timestamp": message["timestamp"]}
                if parent is not None:
                    change["parent_id"] = parent
                change["type"] = "model_change"
                change["model_id"], change["provider_id"] = model
                entries.append(change)
                parent = change["id"]
                in_effect = model
        entry: dict[str, Any] = {"id": entry_id(len(entries)), "timestamp": message["timestamp"]}
        if parent is not None:
            entry["parent_id"] = parent
        entry["type"] = "message"
        entry["message"] = message
        entries.append(entry)
        parent = entry["id"]
    if len(entries) > 1:
        kept.append(Loss("", "invented", ENTRY_IDS_INVENTED))
    try:  # pydantic-core's writer: Operator-Use's (one decode: the file is UTF-8 throughout)
        written = b"\n".join([to_json(entry) for entry in entries]) + b"\n"
    except PydanticSerializationError as error:  # a lone surrogate: the model path says it
        raise FastUnsupported(str(error)) from None
    return written.decode(), kept
