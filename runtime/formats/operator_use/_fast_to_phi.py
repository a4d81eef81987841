"""Operator-Use -> phi-core without the models: message lines or a session file's entries, parsed
by ``json.loads``, become the JSON of phi-core AgentMessages and the same losses, in the same
order, as ``_to_phi`` gives from the models.

Each Operator-Use object is first made what its writer would write of the model (``_fast``'s
checks; the defaults filled in), then converted by ``_to_phi``'s own ``phi_dicts`` and
``session_sources``, which write the defaults phi-core's reader fills in (the usage's other
counts, 0); so the JSON written (``json.dumps``, sorted keys, compact, raw UTF-8: phi-core's
writer) is byte for byte what the model path writes. What this cannot read as the models do
raises ``FastUnsupported``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, MutableMapping
from typing import Any

from phi_wire.convert import NULL_READ_AS_ABSENT, PlacedLosses

from . import _wire_shapes as shapes
from ._fast import (
    FastUnsupported,
    free_value,
    known,
    number,
    text,
    truth,
    without_nulls,
)
from ._to_phi import (
    ENVELOPE,
    HEADER_DROPPED,
    MODEL_CHANGE_DROPPED,
    NO_MESSAGE,
    phi_dicts,
    session_sources,
)
from .session_tree import context_parts, is_chain

__all__ = ["message_dicts_to_phi", "phi_messages", "to_phi_core_dicts"]

_MESSAGES: dict[str, shapes.Shape] = {
    "user": shapes.USER_MESSAGE,
    "assistant": shapes.ASSISTANT_MESSAGE,
    "tool": shapes.TOOL_MESSAGE,
}
"""The roles converted here (the second lane's, carried whole as extension data, are not)."""
_FIELDS = {role: shape.keys for role, shape in _MESSAGES.items()}
_TEXT_KEYS = shapes.TEXT_CONTENT.keys
_USAGE_KEYS = shapes.USAGE.keys
_COST_FIELDS = shapes.USAGE_COST.keys
_STOP_REASONS = shapes.STOP_REASONS
_TOOL_KINDS = shapes.TOOL_KINDS
_COST_KEYS = shapes.COST_KEYS
_COUNT_KEYS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
_TREE_ENTRIES: dict[str, shapes.Shape] = {
    "message": shapes.MESSAGE_ENTRY,
    "model_change": shapes.MODEL_CHANGE_ENTRY,
    "thinking_level_change": shapes.THINKING_LEVEL_CHANGE_ENTRY,
    "label": shapes.LABEL_ENTRY,
    "leaf": shapes.LEAF_ENTRY,
    "session_info": shapes.SESSION_INFO_ENTRY,
}
"""The entries taken here: messages, and those that make no message (a compaction, a custom
message or a branch summary does one of the second lane: not taken)."""
_HEADER: dict[str, shapes.Shape] = {"session": shapes.SESSION_HEADER}
_NULL_READ_AS_ABSENT = NULL_READ_AS_ABSENT.format(format="operator-use")
_TREE_KEYS = ("id", "parent_id", "target_id", "model_id", "provider_id", "label", "name")
_TEXTS = {
    shape.name: tuple(key for key in _TREE_KEYS if key in shape.keys)
    for shape in _TREE_ENTRIES.values()
}
"""Each entry shape's keys of ``_TREE_KEYS`` (texts where present): it holds no others."""
_READ = (
    "type",
    "id",
    "parent_id",
    "timestamp",
    "meta",
    "target_id",
    "thinking_level",
    "model_id",
    "provider_id",
    "first_kept_entry_id",
)
"""What ``context_parts`` and ``session_sources`` read of an entry."""


def to_phi_core_dicts(
    documents: list[dict[str, Any]], kind: str
) -> tuple[list[dict[str, Any]], PlacedLosses]:
    """Operator-Use ``documents`` (``kind``: ``AgentMessage``, message lines; ``SessionFile``, a
    session file's entries, the header first) as phi-core AgentMessage JSON and the losses (a
    pointer's first token: the document's index); ``FastUnsupported`` where the models differ."""
    if kind == "AgentMessage":
        return message_dicts_to_phi(documents, {})
    if kind == "SessionFile":
        return _session_file_dicts(documents)
    raise FastUnsupported(kind)


def message_dicts_to_phi(
    documents: list[dict[str, Any]], tool_names: MutableMapping[str, str]
) -> tuple[list[dict[str, Any]], PlacedLosses]:
    """Operator-Use message lines as phi-core AgentMessage JSON and the losses (as
    ``to_phi_core_dicts``), ``tool_names`` (call id -> tool name) holding the calls of the lines
    before them and given theirs: only once every line is taken (``FastUnsupported`` leaves it
    as it was)."""
    losses = PlacedLosses()
    sources = [((None, index), _message(item), None) for index, item in enumerate(documents)]
    return list(phi_dicts(sources, losses, tool_names)), losses


def phi_messages(
    documents: list[dict[str, Any]],
    kind: str,
    tool_names: MutableMapping[str, str],
    losses: PlacedLosses,
) -> Iterator[dict[str, Any]]:
    """The phi-core messages of Operator-Use ``documents`` (``kind`` as ``to_phi_core_dicts``),
    each made only when the one before it has been taken (the first step of a conversion
    through phi-core, fused with the second: no message of the whole input is held), as
    ``to_phi_core_dicts`` builds them.
    Their losses go to ``losses``, as ``to_phi_core_dicts`` gives them (the documents' own,
    checked and read as absent, before the first message); ``tool_names`` as
    ``message_dicts_to_phi``'s. Every free-form value (tool arguments) is one ``free_value``
    took. ``FastUnsupported`` as ``to_phi_core_dicts`` raises it."""
    if kind == "AgentMessage":
        sources = [((None, index), _message(item), None) for index, item in enumerate(documents)]
    elif kind == "SessionFile":
        sources = _session_sources(documents, losses)
    else:
        raise FastUnsupported(kind)
    yield from phi_dicts(sources, losses, tool_names)  # each made as it is taken


def _session_file_dicts(
    documents: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], PlacedLosses]:
    """A session file's entries converted; its losses kept with their places (a big file has
    hundreds of thousands: no pointer is written unless they are read, ``PlacedLosses``)."""
    losses = PlacedLosses()
    sources = _session_sources(documents, losses)  # the nulls read as absent first
    return list(phi_dicts(sources, losses)), losses


class _Entry:
    """What the tree walk (``context_parts``) and ``session_sources`` read of an entry, as the
    model's attributes (absent: None), taken out of its dict once: read from a few small
    objects, not from each entry's dict again and again (scattered over the whole input's
    memory: most of those reads' time)."""

    __slots__ = (*_READ, "message")

    def __init__(self, document: dict[str, Any], message: dict[str, Any] | None) -> None:
        get = document.get
        self.type = get("type")
        self.id = get("id")
        self.parent_id = get("parent_id")
        self.timestamp = get("timestamp")
        self.meta = get("meta")
        self.target_id = get("target_id")
        self.thinking_level = get("thinking_level")
        self.model_id = get("model_id")
        self.provider_id = get("provider_id")
        self.first_kept_entry_id = get("first_kept_entry_id")
        self.message = message
        """A message entry's message as its writer writes it (``_message``)."""


def _session_sources(
    documents: list[dict[str, Any]], losses: PlacedLosses
) -> list[tuple[Any, dict[str, Any], Any]]:
    """Each message of the session file's active branch (place, JSON as its writer writes it,
    (model, provider) or None) for ``phi_dicts``, the losses of the entries (their nulls read
    as absent, those that make no message, the messages' envelopes) added to ``losses``; a file
    written as one chain in one pass (``_chain_sources``), any other one through its tree."""
    if _is_chain(documents):
        return _chain_sources(documents, losses)
    return _tree_sources(documents, losses)


def _checked(index: int, document: Any, losses: PlacedLosses) -> str:
    """An entry checked as its reader reads it (its nulls taken out, their losses added);
    its type."""
    kind: Any = document.get("type") if type(document) is dict else None
    shape = (_TREE_ENTRIES if index else _HEADER).get(kind) if type(kind) is str else None
    if shape is None:
        raise FastUnsupported(f"a {kind} entry")
    if None in document.values():  # taken out (as the reader's losses come: first)
        for key in without_nulls(document, shape):
            losses.lose(((None, index), key, "dropped", _NULL_READ_AS_ABSENT))
    if not shape.keys.issuperset(document):  # ``known``: its nulls are out
        raise FastUnsupported(shape.name)
    if index:
        get = document.get
        for key in _TEXTS[shape.name]:  # texts where present
            if type(get(key, "")) is not str:
                raise FastUnsupported(key)
        if "id" not in document:  # a missing one is a fresh uuid
            raise FastUnsupported("id")
        stamp = get("timestamp")  # a missing one is the time of reading
        if type(stamp) is not float or not math.isfinite(stamp):
            number(document, "timestamp")
        if "meta" in document:
            _meta(document["meta"])
    return kind  # type: ignore[no-any-return]


_MESSAGE_ENTRY_KEYS = shapes.MESSAGE_ENTRY.keys


def _plain_message_entry(index: int, document: Any) -> bool:
    """Whether an entry is a message entry without a null that ``_checked`` takes as it is (its
    checks of such an entry, written out: most entries are), ``FastUnsupported`` where it
    refuses one; False: any other entry, for ``_checked``."""
    if (
        not index
        or type(document) is not dict
        or document.get("type") != "message"
        or None in document.values()
    ):
        return False
    if not _MESSAGE_ENTRY_KEYS.issuperset(document):
        raise FastUnsupported(shapes.MESSAGE_ENTRY.name)
    get = document.get
    if type(get("id")) is not str or type(get("parent_id", "")) is not str:  # a missing id:
        raise FastUnsupported("id")  # a fresh uuid
    stamp = get("timestamp")  # a missing one is the time of reading
    if type(stamp) is not float or not math.isfinite(stamp):
        number(document, "timestamp")
    if "meta" in document:
        _meta(document["meta"])
    return True


def _is_chain(documents: list[Any]) -> bool:
    """Whether the file is a header and entries written one after the other, each the child of
    the one before (``is_chain``: how a session without branches is written), read from the
    entries as written (a null parent id is an absent one; any entry the checks refuse is
    refused on either way)."""
    if len(documents) < 2 or set(map(type, documents)) != {dict}:  # (in C: faster than all())
        return False
    if documents[0].get("type") != "session":
        return False
    body = documents[1:]
    ids: list[Any] = []
    parents: list[Any] = []
    add_id, add_parent = ids.append, parents.append
    for document in body:  # each entry reached once (most of the time: reaching it)
        add_id(document.get("id"))
        add_parent(document.get("parent_id"))
    return is_chain(ids, parents[1:], body[-1].get("type"))


def _chain_sources(
    documents: list[dict[str, Any]], losses: PlacedLosses
) -> list[tuple[Any, dict[str, Any], Any]]:
    """``_tree_sources`` of a file that is one chain, in one pass: its active branch is every
    entry but the header (``context_parts``), so its messages are those of its message
    entries, each with the model of the last model change before it, and no entry is off the
    branch or before a compaction (the fast path takes none). The losses come in the order
    ``session_sources`` adds them: the nulls, the entries that make no message, the
    envelopes."""
    skipped: list[Any] = []
    envelopes: list[Any] = []
    sources: list[tuple[Any, dict[str, Any], Any]] = []
    skip, wrap, add = skipped.append, envelopes.append, sources.append
    model: tuple[Any, Any] | None = None
    for index, document in enumerate(documents):
        at = (None, index)
        if _plain_message_entry(index, document):  # most entries: ``_checked``'s reads, once
            message = _message(document["message"])
            # read as ``session_sources`` reads the entry, in its order (an id and a timestamp:
            # always, ``_plain_message_entry``)
            wrap((at, "id", "dropped", ENVELOPE))
            wrap((at, "timestamp", "dropped", ENVELOPE))
            if "parent_id" in document:
                wrap((at, "parent_id", "dropped", ENVELOPE))
            if "meta" in document:
                wrap((at, "meta", "dropped", ENVELOPE))
            add(((at, "message"), message, model))
            continue
        kind = _checked(index, document, losses)
        if kind == "message":
            message = _message(document["message"])
            get = document.get  # read as ``session_sources`` reads the entry, in its order
            if get("id") is not None:
                wrap((at, "id", "dropped", ENVELOPE))
            if get("timestamp") is not None:
                wrap((at, "timestamp", "dropped", ENVELOPE))
            if get("parent_id") is not None:
                wrap((at, "parent_id", "dropped", ENVELOPE))
            if get("meta") is not None:
                wrap((at, "meta", "dropped", ENVELOPE))
            add(((at, "message"), message, model))
        elif not index:
            skip((at, "dropped", HEADER_DROPPED))
        elif kind == "model_change":
            model = (document.get("model_id"), document.get("provider_id"))
            skip((at, "dropped", MODEL_CHANGE_DROPPED))
        else:
            skip((at, "dropped", NO_MESSAGE.format(type=kind)))
    losses.entries += skipped
    losses.entries += envelopes
    return sources


def _tree_sources(
    documents: list[dict[str, Any]], losses: PlacedLosses
) -> list[tuple[Any, dict[str, Any], Any]]:
    entries = []
    for index, document in enumerate(documents):
        kind = _checked(index, document, losses)
        # a message entry's message: on the active branch or not, its reader drops keys all the same
        message = _message(document["message"]) if kind == "message" else None
        entries.append(_Entry(document, message))
    if not entries:
        raise FastUnsupported("no entries")
    parts = context_parts(entries)
    if any(entry.type != "message" for entry in parts.sources):
        raise FastUnsupported("a message of the second lane")
    messages = [entry.message for entry in parts.sources]
    return session_sources(entries, parts, messages, losses)


def _meta(meta: Any) -> None:
    """A message entry's meta (only its loss is written: its keys checked, as the reader's)."""
    known(meta, shapes.MESSAGE_META)
    for key in ("reply_to",):
        if key in meta:
            text(meta, key)
    for key in ("attachments", "reactions"):
        if type(meta.get(key, [])) is not list:
            raise FastUnsupported(key)
    for attachment in meta.get("attachments", []):
        known(attachment, shapes.MESSAGE_ATTACHMENT)
        text(attachment, "path")
        if "mime_type" in attachment:
            text(attachment, "mime_type")
    if any(type(reaction) is not str for reaction in meta.get("reactions", [])):
        raise FastUnsupported("reactions")


def _message(message: Any) -> dict[str, Any]:
    """An Operator-Use message as its writer writes it (every field, defaults filled in), made
    so in place (the dict parsed for this conversion alone: no copy of it is built). The
    checks of ``known`` and ``text`` written out: this runs once per message of every input."""
    role = message.get("role") if type(message) is dict else None
    fields = _FIELDS.get(role) if type(role) is str else None
    if fields is None:
        raise FastUnsupported(f"a {role} message")
    if not fields.issuperset(message):
        raise FastUnsupported(f"{_MESSAGES[str(role)].name}: an unknown key")
    contents = message.setdefault("contents", [])
    if type(contents) is not list or type(message.get("id")) is not str:  # missing: a uuid4
        raise FastUnsupported("contents or id")
    for block in contents:  # each made what its writer writes, in place
        if (  # a text block as written (most blocks), else ``_block``'s
            type(block) is not dict
            or block.get("type") != "text"
            or type(block.get("content")) is not str
            or not _TEXT_KEYS.issuperset(block)
        ):
            _block(block)
    if type(message.get("timestamp")) is not float:  # a missing one is the time of reading
        message["timestamp"] = number(message, "timestamp")
    if role == "assistant":
        usage = message.setdefault("usage", {})
        if type(usage) is not dict or not _USAGE_KEYS.issuperset(usage) or None in usage.values():
            raise FastUnsupported("Usage")
        cost = usage.setdefault("cost", {})
        if type(cost) is not dict or not _COST_FIELDS.issuperset(cost) or None in cost.values():
            raise FastUnsupported("UsageCost")
        stop_reason = message.setdefault("stop_reason", "stop")
        if type(stop_reason) is not str or stop_reason not in _STOP_REASONS:
            raise FastUnsupported("stop_reason")
        for key in _COUNT_KEYS:
            if type(usage.setdefault(key, 0)) is not int:
                raise FastUnsupported("a token count")  # a float or text the reader takes otherwise
        _costs(cost)
        if type(message.setdefault("error", "")) is not str:
            raise FastUnsupported("error")
    return message  # type: ignore[no-any-return]


def _costs(cost: dict[str, Any]) -> dict[str, Any]:
    """A usage's cost as its writer writes it (every amount a float, 0.0 where absent)."""
    for key in _COST_KEYS:
        amount = cost.setdefault(key, 0.0)
        if type(amount) is not float or not math.isfinite(amount):
            cost[key] = number(cost, key)  # an int, or refused
    return cost


def _block(item: Any) -> dict[str, Any]:
    """A content block as its writer writes it, made so in place (an untagged one is pydantic's
    smart union's to judge: not taken)."""
    if type(item) is not dict:
        raise FastUnsupported("a block that is no object")
    block: dict[str, Any] = item
    kind = block.get("type")
    if kind == "text":
        if type(block.setdefault("content", "")) is not str or not _TEXT_KEYS.issuperset(block):
            raise FastUnsupported("a text block")
        return block
    if kind == "thinking":
        known(block, shapes.THINKING_CONTENT)
        block["content"] = text(block, "content", "")
        block["signature"] = text(block, "signature", "")
        return block
    if kind == "tool_call":
        known(block, shapes.TOOL_CALL_CONTENT)
        block["id"] = text(block, "id", "")
        block["name"] = text(block, "name", "")
        if "kind" in block and block["kind"] not in _TOOL_KINDS:
            raise FastUnsupported("kind")
        block["args"] = _object(block, "args")
        block["metadata"] = _object(block, "metadata")
        return block
    if kind == "tool_result":
        known(block, shapes.TOOL_RESULT_CONTENT)
        block["id"] = text(block, "id", "")
        block["content"] = text(block, "content", "")
        block["is_error"] = truth(block, "is_error", False)
        block["metadata"] = _object(block, "metadata")
        block["terminate"] = truth(block, "terminate", False)
        return block
    if kind in ("image", "audio"):
        key = "images" if kind == "image" else "audio"
        known(block, shapes.IMAGE_CONTENT if kind == "image" else shapes.AUDIO_CONTENT)
        items = block.setdefault(key, [])
        if type(items) is not list or any(type(item) is not str for item in items):
            raise FastUnsupported(key)
        return block
    raise FastUnsupported(f"a {kind} block")


def _object(block: dict[str, Any], key: str) -> dict[str, Any]:
    """A ``dict[str, Any]`` field (default ``{}``), its numbers checked (``free_value``)."""
    value = block.get(key, {})
    if type(value) is not dict:
        raise FastUnsupported(key)
    return free_value(value)  # type: ignore[no-any-return]
