"""An Operator-Use session file's message entries hold each phi-core message converted, its id a
uuid5 of the message's phi-core text: this builds those entries' texts from phi-core message
dicts in one pass per batch, the losses placed (pointers written) only when kept.

It is ``_from_phi.message_dicts`` and what the writer did after it, fused: each message is
checked (its free-form values: ``checked_free``; those a first step sorted and checked,
clark-agent's, are not walked again), converted straight to the JSON Operator-Use's writer
writes of the model its reader reads (its defaults filled in, in its fields' order), and
its entry's text made, with no list of intermediate dicts, no second walk, and no pointer string
built for a loss that is only counted (a run without ``-v``, ``--output-format json`` or
``--loss-report``). The losses are ``message_dicts``' own, in its order (the model and provider
of an assistant left out: a session file keeps them in ``model_change`` entries); the tests of
``_fast_from_phi`` compare every corpus message, corruption and generated one with the model
path. A message of a kind that path converts otherwise (an extension carrying an Operator-Use
message: ``_from_phi.carried_message``) raises ``FastUnsupported``. No model is imported for the
rest (``_from_phi_words``: the custom message and the tables), so a conversion that writes a
session file without models loads none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic_core import PydanticSerializationError, to_json

from phi_wire.convert import DerivedIds, FastUnsupported, Loss, LossKind, checked_number

from ._content_from_phi import Check, Lose, blocks_from_phi
from ._from_phi_words import STOP_REASONS_FROM_PHI, custom_from_phi, may_carry_a_message

__all__ = ["NO_COST", "EntryMaker", "checked_free", "written_json"]

NO_COST = {"input": 0.0, "output": 0.0, "cache_read": 0.0, "cache_write": 0.0, "total": 0.0}
"""A usage's ``cost`` as Operator-Use's reader fills it in (``UsageCost()``'s JSON, written out
here so that no model is imported: a test compares the two; never changed: shared)."""

_ID_INVENTED = (
    "Operator-Use messages have an id: a uuid5 of the input's name, the message's pointer and "
    "its JSON"
)
_ID_LOSS = ("invented", _ID_INVENTED)
_DROPPED_KEYS = tuple(
    (key, "/" + key, "Operator-Use messages have no " + key)
    for key in ("turnId", "nodeId", "parentId", "tags", "provenanceHint")
)
_DROPPED = frozenset(key for key, _, _ in _DROPPED_KEYS)
_NEAREST_DOUBLE = "Operator-Use's float seconds hold it to the nearest double"
_EMPTY_ERROR = "Operator-Use's error is empty when there is none: an empty one comes back absent"
_USAGE_KEYS = tuple(
    (key, "/usage/" + key, f"Operator-Use usage has no {key}")
    for key in ("reasoning", "total_tokens")
)
_TEXT_ONLY = "an Operator-Use tool result is text only"
_JOINED = "several text blocks: joined into one string"
_NO_BLOCK = (
    "no block: an Operator-Use tool result is one string, which comes back as one empty text block"
)
_NO_TOOL_NAME = "Operator-Use tool results have no tool name"
_MESSAGE = b'\t"type":"message","message":'
_ROLES = frozenset({"user", "assistant", "toolResult"})


def checked_free(value: Any) -> None:
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


def written_json(document: Any) -> bytes:
    """A document as pydantic-core writes it; ``FastUnsupported`` for what it cannot write."""
    try:
        return to_json(document)
    except PydanticSerializationError as error:  # a lone surrogate: the model path says it
        raise FastUnsupported(str(error)) from None


def _seconds_text(seconds: float) -> bytes:
    """A timestamp as pydantic-core writes it: from 1 to 1e15 seconds, as Python's ``repr``
    writes it (both write the shortest digits that read back, without an exponent there)."""
    if 1.0 <= seconds < 1e15:
        return b"%r" % seconds
    return to_json(seconds)


class EntryMaker:
    """A session file's entries made from phi-core messages, batch after batch: ``made`` gives
    each message entry's text after its id (``<timestamp>\\t<the rest>``, as
    ``_fast_from_phi.SessionFileWriter`` hands them on), preceded by a ``model_change`` entry
    where an assistant's model or provider is not the one in effect; ``content`` gets each
    message's id (a custom message's JSON: it has none), a batch's at once, the seed of the
    header's id."""

    def __init__(
        self, name: str, content: Callable[[list[bytes]], None], free_checked: bool = False
    ) -> None:
        """``free_checked``: every free-form value (a tool call's arguments, an extension
        message's data) was made by a first step that sorts its keys and checks its numbers as
        ``checked_free`` does (clark-agent's, on the way through phi-core): not walked again."""
        self.ids = DerivedIds(name)
        self.free_checked = free_checked
        self.content = content
        self.seeds: list[bytes] = []
        """The ids (a custom message's JSON) of the batch's entries, given to ``content``."""
        self.first: float | None = None
        """The timestamp of the first Operator-Use message (the header's)."""
        self.in_effect = ("", "")

    def made(
        self,
        documents: list[dict[str, Any]],
        texts: Sequence[str | bytes],
        start: int,
        kept: list[Loss] | None,
        counts: dict[tuple[str, str], int],
    ) -> list[bytes]:
        """The entries of ``documents`` (messages ``start``... of the whole list; ``texts``:
        each one's text as phi-core writes it), their losses appended to ``kept`` (pointers
        ``/<index>...`` into the whole list) or, when it is None, counted in ``counts``. A tool
        result that the one before joins (one ``tool`` message: the same timestamp in seconds)
        is given in the same call (``SessionFileWriter.convert`` says where a batch may end)."""
        if kept is None:

            def lose(index: int, rest: str, kind: LossKind, reason: str) -> None:
                key = (kind, reason)
                counts[key] = counts.get(key, 0) + 1

        else:
            add = kept.append
            new = tuple.__new__

            def lose(index: int, rest: str, kind: LossKind, reason: str) -> None:
                add(new(Loss, (f"/{index}{rest}", kind, reason)))

        # once counted, each message's invented id is counted with the batch's (no call each)
        batched = kept is None and _ID_LOSS in counts
        try:
            entries, ids = self._made(documents, texts, start, lose, batched)
            if batched:
                counts[_ID_LOSS] += ids
        except PydanticSerializationError as error:  # a lone surrogate: the model path says it
            raise FastUnsupported(str(error)) from None
        finally:
            self.content(self.seeds)  # the header's seed: one hash update per batch
            self.seeds = []
        return entries

    def _made(
        self,
        documents: list[dict[str, Any]],
        texts: Sequence[str | bytes],
        start: int,
        lose: Lose,
        batched: bool,
    ) -> tuple[list[bytes], int]:
        """The entries, and how many ids were invented (``batched``: their losses left to the
        caller to count, else each one given to ``lose``)."""
        entries: list[bytes] = []
        ids = 0
        pending: dict[str, Any] | None = None  # a tool message more results may join
        pending_seconds = 0.0
        message_id = self.ids.of
        check = None if self.free_checked else checked_free
        for offset, message in enumerate(documents):
            index = start + offset
            if "kind" in message:
                if pending is not None:
                    self._entry(pending, entries)
                    pending = None
                if check is not None:
                    check(message["data"])
                self._extension(message, index, lose, entries)
                continue
            role = message.get("role")
            if role not in _ROLES:
                raise FastUnsupported(f"a message of role {role!r}")
            if not _DROPPED.isdisjoint(message):  # one look at the keys: seldom any
                for key, rest, reason in _DROPPED_KEYS:
                    if key in message:
                        lose(index, rest, "dropped", reason)
            milliseconds = message["timestamp"]
            seconds = milliseconds / 1000
            if round(seconds * 1000) != milliseconds:
                lose(index, "/timestamp", "changed", _NEAREST_DOUBLE)
            if role == "toolResult":
                if pending is not None and pending_seconds == seconds:
                    pending["contents"].append(_tool_result(message, index, lose, check))
                    continue
                if pending is not None:
                    self._entry(pending, entries)
                ids += 1
                if not batched:
                    lose(index, "", "invented", _ID_INVENTED)
                pending = {
                    "role": "tool",
                    "contents": [_tool_result(message, index, lose, check)],
                    "id": message_id(index, texts[offset]),
                    "timestamp": seconds,
                }
                pending_seconds = seconds
                continue
            if pending is not None:
                self._entry(pending, entries)
                pending = None
            ids += 1
            if not batched:
                lose(index, "", "invented", _ID_INVENTED)
            identity = message_id(index, texts[offset])
            if role == "user":
                converted = {
                    "role": "user",
                    "contents": blocks_from_phi(message["content"], index, lose, check),
                    "id": identity,
                    "timestamp": seconds,
                }
            else:
                converted = _assistant(message, index, identity, seconds, lose, check)
                model = (message["model"], message["provider"])
                if model != self.in_effect:
                    entries.append(
                        _seconds_text(seconds)
                        + b"\t"
                        + written_json(
                            {"type": "model_change", "model_id": model[0], "provider_id": model[1]}
                        )[1:]
                    )
                    self.in_effect = model
                self._entry(converted, entries, _seconds_text(seconds))
                continue
            self._entry(converted, entries)
        if pending is not None:
            self._entry(pending, entries)
        return entries, ids

    def _entry(
        self, message: dict[str, Any], entries: list[bytes], seconds: bytes | None = None
    ) -> None:
        """A message entry's text (after its id); the message's id kept for ``content``.
        ``seconds``: its timestamp's text; None: the message's last field is its timestamp (a
        user or tool message's), whose text is taken from the message's JSON (a float's ``repr``
        costs more than the JSON's)."""
        if self.first is None:
            self.first = message["timestamp"]
        written = to_json(message)  # PydanticSerializationError: ``made`` says FastUnsupported
        message_id = message.get("id")
        self.seeds.append(written if message_id is None else message_id.encode())
        if seconds is None:
            seconds = written[written.rindex(b":") + 1 : -1]  # after the last key: the number
        entries.append(b"".join((seconds, _MESSAGE, written, b"}")))  # one copy, not three

    def _extension(
        self, message: dict[str, Any], index: int, lose: Lose, entries: list[bytes]
    ) -> None:
        """An ExtensionMessage: a custom message (``custom_from_phi``), or ``FastUnsupported``
        for one that carries an Operator-Use message (only its layout's models tell, imported
        for such a message only: it takes the model path)."""
        if not _DROPPED.isdisjoint(message):  # one look at the keys: seldom any
            for key, rest, reason in _DROPPED_KEYS:
                if key in message:
                    lose(index, rest, "dropped", reason)
        if may_carry_a_message(message):
            from ._from_phi import carried_message  # the models: only for such a message

            if carried_message(message) is not None:
                raise FastUnsupported("an extension message that carries an Operator-Use message")
        custom = custom_from_phi(
            message, lambda rest, kind, reason: lose(index, rest, kind, reason)
        )
        written: dict[str, Any] = {
            "role": "custom",
            "custom_type": custom["custom_type"],
            "timestamp": custom["timestamp"],
            "contents": [],
        }
        if custom["details"] is not None:
            written["details"] = custom["details"]
        self._entry(written, entries, _seconds_text(custom["timestamp"]))


def _assistant(
    message: dict[str, Any], index: int, identity: str, seconds: float, lose: Lose, check: Check
) -> dict[str, Any]:
    """An assistant message as Operator-Use's writer writes it (``_assistant_from_phi``, a
    usage's ``cost`` filled in)."""
    error = message.get("error_message")
    if error == "":
        lose(index, "/error_message", "dropped", _EMPTY_ERROR)
    target, note = STOP_REASONS_FROM_PHI[message["stopReason"]]
    if note:
        lose(index, "/stopReason", "changed", note)
    contents = blocks_from_phi(message["content"], index, lose, check)
    usage = message["usage"]
    for key, rest, reason in _USAGE_KEYS:
        if usage.get(key):
            lose(index, rest, "dropped", reason)
    return {
        "role": "assistant",
        "contents": contents,
        "id": identity,
        "timestamp": seconds,
        "usage": {
            "input_tokens": usage["input"],
            "output_tokens": usage["output"],
            "cache_read_tokens": usage.get("cache_read", 0),
            "cache_write_tokens": usage.get("cache_write", 0),
            "cost": NO_COST,
        },
        "stop_reason": target,
        "error": error or "",
    }


def _tool_result(message: dict[str, Any], index: int, lose: Lose, check: Check) -> dict[str, Any]:
    """A toolResult message as one result of a ``tool`` message (``_tool_result_from_phi``,
    its reader's defaults filled in)."""
    texts = []
    content = message["content"]
    for position, block in enumerate(content):
        if block["type"] == "text":
            texts.append(block["text"])
        else:
            if block["type"] == "toolCall" and check is not None:
                check(block["arguments"])
            lose(index, f"/content/{position}", "dropped", _TEXT_ONLY)
    if len(texts) > 1:
        lose(index, "/content", "changed", _JOINED)
    elif not content:
        lose(index, "/content", "changed", _NO_BLOCK)
    if message["toolName"]:
        lose(index, "/toolName", "dropped", _NO_TOOL_NAME)
    return {
        "type": "tool_result",
        "id": message["toolCallId"],
        "content": "".join(texts),
        "is_error": message["isError"],
        "metadata": {},
        "terminate": False,
    }
