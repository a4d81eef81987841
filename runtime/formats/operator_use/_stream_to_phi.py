"""Operator-Use fact: a tool result names its call by id only (``tool_result.id``); phi-core's
toolResult carries the tool's name, which is in the earlier assistant message that made the call.
So a message JSONL file converted to phi-core batch by batch (``phi-wire convert``'s streamed
input) carries the names of the calls met so far from one batch to the next:
``MessageStreamToPhi`` gives, batch after batch, the messages and losses ``to_phi_core`` gives
for the whole list (each loss's pointer into its batch: ``/<index in the batch>...``).

Its state is one id and name per tool call of the file (a tool result may name any earlier
call): bounded by the file's calls, about a hundred bytes each, not by a batch's documents.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from phi_wire.convert import Conversion, FastUnsupported, PlacedLosses

from ._fast_to_phi import message_dicts_to_phi, phi_messages
from ._messages_json import messages_json
from ._shared import _only_messages
from ._to_phi import messages_to_phi

__all__ = ["MessageStreamToPhi"]


class _ToolNames(dict[str, str]):
    """Call id -> tool name, each write since ``begin`` noted so that ``undo`` can take the
    latest batch's calls back."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[tuple[str, str | None]] = []
        """(id, the name it had before: None, none) of each write since ``begin``."""

    def __setitem__(self, key: str, value: str) -> None:
        self.written.append((key, self.get(key)))
        super().__setitem__(key, value)

    def begin(self) -> None:
        self.written.clear()

    def undo(self) -> None:
        while self.written:  # the latest write first: a key written twice gets its first name
            key, before = self.written.pop()
            if before is None:
                super().__delitem__(key)
            else:
                super().__setitem__(key, before)


class MessageStreamToPhi:
    """Operator-Use message lines converted to phi-core a batch at a time, the tool names of
    the calls met so far carried from one batch to the next (by its model path, ``convert``,
    and its dict converter, ``convert_dicts``, alike)."""

    def __init__(self) -> None:
        self._tool_names = _ToolNames()

    def convert(self, messages: Sequence[Any]) -> Conversion[Any]:
        """The next batch's models, as ``to_phi_core`` converts a list of messages."""
        import phi_wire.operator_use as ou  # the model path's: a fast conversion imports none

        self._tool_names.begin()
        values = list(messages)
        _only_messages(values, "Operator-Use -> phi-core")
        losses = PlacedLosses()
        documents, non_finite = messages_json(values, ou.dumps)
        sources: list[tuple[Any, dict[str, Any], Any]] = [
            ((None, index), item, None) for index, item in enumerate(documents)
        ]
        return Conversion(
            messages_to_phi(sources, losses, self._tool_names, non_finite), tuple(losses)
        )

    def convert_dicts(
        self, documents: list[dict[str, Any]], kind: str
    ) -> tuple[list[dict[str, Any]], PlacedLosses]:
        """The next batch's lines (their JSON: lines Operator-Use's fast path vouched for) as
        phi-core's JSON, dict to dict (``_fast_to_phi``): what ``convert`` gives for their
        models. ``FastUnsupported`` leaves the state as it was."""
        if kind != "AgentMessage":
            raise FastUnsupported(kind)
        self._tool_names.begin()
        try:
            return message_dicts_to_phi(documents, self._tool_names)
        except FastUnsupported:
            self._tool_names.undo()
            raise

    def phi_messages(
        self, documents: list[dict[str, Any]], kind: str, losses: PlacedLosses
    ) -> Iterator[dict[str, Any]]:
        """The next batch's lines as phi-core messages made one at a time (``_fast_to_phi``'s
        ``phi_messages``: for a second step fused with this one), their losses into ``losses``.
        A caller that meets ``FastUnsupported`` (from here or its own step) calls ``undo``."""
        self._tool_names.begin()  # first: an ``undo`` after a refusal here takes nothing back
        if kind != "AgentMessage":
            raise FastUnsupported(kind)
        return phi_messages(documents, kind, self._tool_names, losses)

    def undo(self) -> None:
        """Forget the calls of the latest batch (a caller that hands that batch back after
        ``convert_dicts`` returned: it is converted again, line by line or by the models)."""
        self._tool_names.undo()
