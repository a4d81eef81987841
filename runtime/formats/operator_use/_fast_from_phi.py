"""phi-core 0.10 messages -> an Operator-Use d0da87a6 session file without the models: the
messages as JSON gives them (each with its text as phi-core writes it, the seed of its id), the
session file's entries (header first) as Operator-Use's writer writes them, and the same losses,
in the same order, as ``_from_phi.session_from_phi_core`` gives from the models.

The messages are converted in one pass per batch (``_entries_from_phi.EntryMaker``: the model
path's ``message_dicts`` fused with the entry's text): what Operator-Use's reader would add (its
defaults: a tool result's ``metadata`` and ``terminate``, a usage's ``cost``, a custom message's
``contents``) is filled in, in its fields' order, so pydantic-core's ``to_json`` of an entry is
byte for byte ``model_dump_json(exclude_none=True)`` of its model. What this cannot convert so
raises ``FastUnsupported``: an extension message that carries an Operator-Use message (read by
its layout's models), a free-form value (tool-call arguments, extension data) whose keys are not
sorted as phi-core's ``Value`` sorts them, or with a number the writers print otherwise
(``checked_number``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from phi_wire.convert import DerivedId, EntryIds, Loss

from ._entries_from_phi import EntryMaker, written_json
from ._from_phi_words import ENTRY_IDS_INVENTED, HEADER_INVENTED

__all__ = ["SessionFileWriter", "session_file_from_phi"]

_CWD = "."


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

    def __init__(
        self,
        name: str,
        counts: dict[tuple[str, str], int] | None = None,
        free_checked: bool = False,
    ) -> None:
        """``counts``: the losses counted there, not kept (``convert`` gives none);
        ``free_checked``: the messages' free-form values (tool-call arguments, extension
        data) come from a first step that sorted their keys and checked their numbers
        (``EntryMaker``)."""
        self.name = name
        self.counts = counts
        self.taken = 0
        """The messages converted so far (the next one's index in the whole list)."""
        self.made = 0
        """The entries made so far (the header not counted)."""
        self._content = DerivedId(name, "session")
        self._maker = EntryMaker(name, self._content.add_lines, free_checked)

    def convert(
        self, documents: list[dict[str, Any]], texts: Sequence[str | bytes], final: bool
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
        losses: list[Loss] = []
        entries = self._maker.made(
            documents[:taken] if taken < len(documents) else documents,
            texts,
            self.taken,
            losses if self.counts is None else None,
            {} if self.counts is None else self.counts,
        )
        self.taken += taken
        self.made += len(entries)
        return entries, losses, taken

    def finish(self) -> list[Loss]:
        """The losses of the header and the entries' ids (counted, when the others are)."""
        found = [HEADER_INVENTED + repr(_CWD)] + ([ENTRY_IDS_INVENTED] if self.made else [])
        if self.counts is None:
            return [Loss("", "invented", reason) for reason in found]
        for reason in found:
            self.counts["invented", reason] = self.counts.get(("invented", reason), 0) + 1
        return []

    def header(self) -> bytes:
        """The header entry's text (once every message is converted)."""
        first = 0.0 if self._maker.first is None else self._maker.first
        return written_json(
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
    documents: list[dict[str, Any]], texts: Sequence[str | bytes], name: str
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
