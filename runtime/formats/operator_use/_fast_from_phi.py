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

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError, to_json

import phi_wire.operator_use as ou
from phi_wire.convert import (
    DerivedId,
    EntryIds,
    FastUnsupported,
    Loss,
    Losses,
    LossKind,
    checked_number,
)

from ._from_phi import ENTRY_IDS_INVENTED, HEADER_INVENTED, message_dicts
from ._shared import MODEL_IN_ENTRIES

__all__ = ["SessionFileWriter", "session_file_from_phi"]

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


class _Counted(Losses):
    """The same losses counted by (kind, reason), in the order each first comes, never built:
    a run that only says how many (no ``-v``, no loss report)."""

    def __init__(self, counts: dict[tuple[str, str], int]) -> None:
        super().__init__()
        self.counts = counts

    def add(self, pointer: str, kind: LossKind, reason: str) -> None:
        if reason != MODEL_IN_ENTRIES:
            key = (kind, reason)
            self.counts[key] = self.counts.get(key, 0) + 1


def _json(document: dict[str, Any]) -> bytes:
    try:
        return to_json(document)
    except PydanticSerializationError as error:  # a lone surrogate: the model path says it
        raise FastUnsupported(str(error)) from None


def _alone(message: dict[str, Any]) -> bool:
    """Whether no message can join this one: only a ``toolResult`` message with one timestamp
    as the one before joins it (``message_dicts`` makes one ``tool`` message of them)."""
    return "kind" in message or message["role"] != "toolResult"


def _joined(message: dict[str, Any], before: dict[str, Any]) -> bool:
    """Whether ``message`` becomes one ``tool`` message with ``before`` (as ``message_dicts``
    decides it: the same timestamp in seconds)."""
    return (
        not _alone(message)
        and not _alone(before)
        and message["timestamp"] / 1000 == before["timestamp"] / 1000
    )


class SessionFileWriter:
    """phi-core messages written as the Operator-Use session file ``session_from_phi_core(messages,
    name=name)`` writes, given a batch at a time (``convert``: the messages converted, their
    entries' text without ids, and the losses); once all are given, ``header`` and ``entries``
    write the file, ``finish`` gives its last losses. The entries' ids are derived from the
    header's, and the header's from every message: a caller holds the entries meanwhile (a file
    of any size: ``phi_wire.convert`` spools them to disk), never the messages.

    An entry given by ``convert`` is its text after its id: ``<timestamp>\\t<the rest>`` (the
    rest from its ``type`` on: no raw tab or line end in JSON text), so ``entries`` writes it with
    its id and parent link, byte for byte as pydantic-core writes the whole entry."""

    def __init__(self, name: str, counts: dict[tuple[str, str], int] | None = None) -> None:
        """``counts``: the losses counted there, not kept (``convert`` gives none)."""
        self.name = name
        self.counts = counts
        self.taken = 0
        """The messages converted so far (the next one's index in the whole list)."""
        self.made = 0
        """The entries made so far (the header not counted)."""
        self.first: float | None = None
        """The timestamp of the first Operator-Use message (the header's)."""
        self._content = DerivedId(name, "session")
        self._in_effect = ("", "")

    def convert(
        self, documents: list[dict[str, Any]], texts: Sequence[str], final: bool
    ) -> tuple[list[bytes], list[Loss], int]:
        """The entries of the first messages of ``documents`` (their texts as phi-core writes
        them), the losses (kept: pointers ``/<index>`` into the whole list of messages) and how
        many were converted: all if ``final``, else all but those that the next batch's first
        message may still join (give them again with it)."""
        taken = len(documents)
        if not final:
            while taken and not _alone(documents[taken - 1]):
                taken -= 1  # a run of tool results: up to its start
                if taken and not _joined(documents[taken], documents[taken - 1]):
                    break
        for message in documents[:taken]:
            _checked(message)
        losses = _Losses() if self.counts is None else _Counted(self.counts)
        start = self.taken
        converted = message_dicts(
            [(f"/{start + index}", documents[index], texts[index]) for index in range(taken)],
            losses,
            self.name,
        )
        self.taken += taken
        models = iter(
            (message["model"], message["provider"])
            for message in documents[:taken]
            if message["role"] == "assistant" and "kind" not in message
        )
        entries: list[bytes] = []
        content = self._content
        for message in map(_as_written, converted):
            timestamp = to_json(message["timestamp"])
            if self.first is None:
                self.first = message["timestamp"]
            if message["role"] == "assistant":
                model = next(models)
                if model != self._in_effect:
                    entries.append(
                        timestamp
                        + b"\t"
                        + _json(
                            {"type": "model_change", "model_id": model[0], "provider_id": model[1]}
                        )[1:]
                    )
                    self._in_effect = model
            written = _json(message)
            message_id = message.get("id")
            content.add(written if message_id is None else message_id.encode())
            entries.append(timestamp + b'\t"type":"message","message":' + written + b"}")
        self.made += len(entries)
        return entries, losses, taken

    def finish(self) -> list[Loss]:
        """The losses of the header and the entries' ids (counted, when the others are)."""
        losses = _Losses() if self.counts is None else _Counted(self.counts)
        losses.add("", "invented", HEADER_INVENTED + repr(_CWD))
        if self.made:
            losses.add("", "invented", ENTRY_IDS_INVENTED)
        return losses

    def header(self) -> bytes:
        """The header entry's text (once every message is converted)."""
        first = 0.0 if self.first is None else self.first
        return _json(
            {
                "type": "session",
                "version": 3,
                "id": self._content.id(),
                "timestamp": first,
                "cwd": _CWD,
            }
        )

    def entries(self, made: Iterable[bytes], index: int) -> list[bytes]:
        """The texts of entries ``convert`` made (``index``: the first one's among all: 1, after
        the header, for the first), each with its id and its parent's."""
        entry_id = self._entry_ids().ascii
        texts: list[bytes] = []
        parent = entry_id(index - 1) if index > 1 else None
        for entry in made:
            timestamp, _, rest = entry.partition(b"\t")
            own = entry_id(index)
            index += 1
            if parent is None:
                texts.append(b'{"id":"%s","timestamp":%s,%s' % (own, timestamp, rest))
            else:
                texts.append(
                    b'{"id":"%s","timestamp":%s,"parent_id":"%s",%s'
                    % (own, timestamp, parent, rest)
                )
            parent = own
        return texts

    def _entry_ids(self) -> EntryIds:
        return EntryIds(self.name, self._content.id())


def session_file_from_phi(
    documents: list[dict[str, Any]], texts: Sequence[str], name: str
) -> tuple[str, list[Loss]]:
    """phi-core messages (their JSON, and their text as phi-core writes them) as the Operator-Use
    session file that ``session_from_phi_core(messages, name=name)`` writes (one line per entry,
    the header first, each ending with a line end), and its losses (pointers: ``/<index>`` into
    the message list, or "")."""
    writer = SessionFileWriter(name)
    made, losses, _ = writer.convert(documents, texts, True)
    losses += writer.finish()
    written = b"\n".join([writer.header(), *writer.entries(made, 1)]) + b"\n"
    return written.decode(), losses
