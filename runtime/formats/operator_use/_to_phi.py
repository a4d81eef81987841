"""Operator-Use -> phi-core 0.10: message lines, message lists and a session file's active branch
(``convert`` says what each mapping decides).

Every loss is kept with its place (``PlacedLosses``: its pointer written only when it is read), on
the models' path as on the dict converter's (``_fast_to_phi``), which share ``phi_dicts`` and
``session_sources``; the models and phi-core's reader are imported only by the model path's
functions (a fast conversion imports none)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, MutableMapping, Sequence
from typing import Any

from phi_wire.convert import (
    MISREAD_BY_SERDE,
    SORTED_BY_PHI_CORE,
    Conversion,
    Place,
    PlacedLosses,
    UnsupportedConversion,
    misread_floats,
    pointer_of,
    reordered_by_sorting,
    with_sorted_keys,
)

from ._messages_json import messages_json, without_unset_id
from ._non_finite import null_carried, source_json
from ._shared import (
    EXTENSION_KIND,
    SECOND_LANE,
    STOP_REASONS_TO_PHI,
    U64_MAX,
    _only_messages,
    image_mime,
    is_base64,
)

_Source = tuple[Place, dict[str, Any], Any]
"""A message to convert: its place (where its losses point), its JSON as Operator-Use's writer
writes it, and the (model, provider) in effect (None: none known)."""

# --- Operator-Use -> phi-core -------------------------------------------------------------------


def to_phi_core(value: Any, *, name: str = "") -> Conversion[Any]:
    """An Operator-Use value as phi-core 0.10 (see the module docstring for what becomes what)."""
    import phi_wire.operator_use as ou  # the model path's: a fast conversion imports no model
    import phi_wire.v0_10 as phi

    from .api import SessionFileLines

    losses = PlacedLosses()
    if isinstance(value, SessionFileLines):
        return Conversion(_session_to_phi(value, losses), tuple(losses))
    if isinstance(value, list):
        _only_messages(value, "Operator-Use -> phi-core")
        documents, non_finite = messages_json(value, ou.dumps)
        sources: list[_Source] = [
            ((None, index), item, None) for index, item in enumerate(documents)
        ]
        return Conversion(messages_to_phi(sources, losses, None, non_finite), tuple(losses))
    name = type(value).__name__
    if name == "SessionContext":
        (document,), non_finite = source_json([value], ou.dumps)
        for message, item in zip(value.messages, document["messages"], strict=True):
            without_unset_id(message, item)
        model = (document.get("model_id"), document.get("provider_id"))
        messages_at: Place = (None, "messages")
        sources = [
            ((messages_at, index), message, model)  # the context's model for every message
            for index, message in enumerate(document["messages"])
        ]
        messages = messages_to_phi(sources, losses, None, non_finite)
        for key in ("thinking_level", "model_id", "provider_id"):
            if key in document:
                reason = "phi-core messages have no thinking level"
                if key != "thinking_level":
                    reason = "the context's model: written into each assistant message instead"
                losses.lose((None, key, "dropped", reason))
        return Conversion(messages, tuple(losses))
    if hasattr(value, "role"):
        (document,), non_finite = messages_json([value], ou.dumps)
        return Conversion(
            messages_to_phi([(None, document, None)], losses, None, non_finite), tuple(losses)
        )
    if name == "Usage":
        (document,), _ = source_json([value], ou.dumps)  # a NaN cost: dropped, as any cost
        usage = _usage_to_phi(None, document, losses)
        return Conversion(phi.loads(phi.Usage, json.dumps(usage)), tuple(losses))
    if name == "StopReason":
        reason = _stop_reason_to_phi(None, value.value, losses)
        return Conversion(phi.StopReason(reason), tuple(losses))
    raise UnsupportedConversion(f"no Operator-Use -> phi-core conversion for {name}")


def _session_to_phi(entries: Any, losses: PlacedLosses) -> list[Any]:
    import phi_wire.operator_use as ou

    from .api import context_parts

    parts = context_parts(entries)
    module = _layout_module(entries[0]) if entries else ou
    context = module.build_session_context(entries)
    documents, non_finite = messages_json(context.messages, module.dumps)
    sources = session_sources(entries, parts, documents, losses)
    return messages_to_phi(sources, losses, None, non_finite)


def session_sources(
    entries: Sequence[Any], parts: Any, documents: Sequence[Any], losses: PlacedLosses
) -> list[_Source]:
    """The losses of the entries of a session file that make no message (in file order), then
    those of each message's envelope; and each message's (place, JSON, model) for
    ``phi_dicts``. ``entries`` have their fields as attributes (models, or any object that
    reads a dict so), ``parts`` is their ``context_parts``, ``documents`` are the JSON of the
    messages of ``parts.sources``."""
    lose = losses.lose
    # the keys a model's source had (one its reader filled is not dropped): a dict's, all
    models = bool(entries) and hasattr(entries[0], "model_fields_set")
    index_of = {id(entry): index for index, entry in enumerate(entries)}
    used = {id(entry) for entry in parts.sources}
    on_branch = {id(entry) for entry in parts.branch}
    for index, entry in enumerate(entries):
        if id(entry) in used:
            continue
        if entry.type == "session":
            reason = HEADER_DROPPED
        elif id(entry) not in on_branch:
            reason = "not on the active branch, which is what build_session_context rebuilds"
        elif entry.type in ("message", "custom_message", "branch_summary"):
            reason = "before the compaction's first kept entry: replaced by its summary"
        elif entry.type == "model_change":
            reason = MODEL_CHANGE_DROPPED
        else:
            reason = NO_MESSAGE.format(type=entry.type)
        lose(((None, index), "dropped", reason))
    sources: list[_Source] = []
    add, model_at = sources.append, parts.models.get  # (once: a big file has ~200,000 such losses)
    for document, entry in zip(documents, parts.sources, strict=True):
        key = id(entry)
        at = (None, index_of[key])
        # every entry has an id, a parent id and a timestamp (a message entry a meta): read
        # directly, in the order their losses come
        given = entry.model_fields_set if models else _FILLED_ON_READ
        if entry.id is not None and "id" in given:
            lose((at, "id", "dropped", ENVELOPE))
        if entry.type == "message":
            if entry.timestamp is not None and "timestamp" in given:
                lose((at, "timestamp", "dropped", ENVELOPE))
            if entry.parent_id is not None:
                lose((at, "parent_id", "dropped", ENVELOPE))
            if entry.meta is not None:
                lose((at, "meta", "dropped", ENVELOPE))
            add(((at, "message"), document, model_at(key)))
            continue
        if entry.parent_id is not None:
            lose((at, "parent_id", "dropped", ENVELOPE))
        add((at, document, model_at(key)))
    return sources


_FILLED_ON_READ = frozenset({"id", "timestamp"})
"""The envelope's keys a reader fills when missing: a dict converter's entry has both."""

ENVELOPE = "the session entry's envelope"
"""Why a message's entry's id, timestamp (a message entry's), parent id and meta are lost."""
HEADER_DROPPED = "the session header (id, cwd, version): phi-core messages have no session"
MODEL_CHANGE_DROPPED = (
    "model change: its model and provider are written into later assistant messages"
)
NO_MESSAGE = "a {type} entry makes no message"
"""Why an entry on the active branch that makes no message is lost (but a model change)."""


def _layout_module(entry: Any) -> Any:
    import phi_wire.operator_use as ou
    from phi_wire.formats import version_of

    entry_version = version_of(entry)
    return entry_version.load() if entry_version is not None else ou


def _written_for_an_extension(message: dict[str, Any]) -> bool:
    """Whether a custom message is exactly what a phi-core ExtensionMessage of another format's
    kind becomes here (``_from_phi``: its kind the custom type, its data the details, absent
    when null, no contents, timestamp 0.0): read back as that extension, nothing is lost."""
    return (
        message.keys() - {"details"} == {"role", "custom_type", "timestamp", "contents"}
        and message["role"] == "custom"
        and message["contents"] == []
        and message["timestamp"] == 0.0
        and isinstance(message["custom_type"], str)
        and not message["custom_type"].startswith(EXTENSION_KIND.format(role=""))
    )


def messages_to_phi(
    sources: Sequence[_Source],
    losses: PlacedLosses,
    tool_names: MutableMapping[str, str] | None = None,
    non_finite: bool = False,
) -> list[Any]:
    """Each (place, Operator-Use message JSON, (model, provider) or None) as phi-core
    AgentMessages, read by phi-core's reader (``tool_names``: as ``phi_dicts``; ``non_finite``:
    the JSON holds a NaN or an infinity, ``source_json``'s)."""
    import phi_wire.v0_10 as phi

    tool_names = {} if tool_names is None else tool_names  # one map for every message
    dicts: list[dict[str, Any]] = []
    for source in sources:  # a message's losses together, as a stream gives them batch by batch
        if non_finite:
            null_carried(source[0], source[1], source[1]["role"] in SECOND_LANE, losses)
        dicts += phi_dicts((source,), losses, tool_names)
        _misread(source, losses)
    # read as phi-core reads them, all in one loads (per-call work dominated one per message)
    return list(phi.loads(_phi_messages(), json.dumps(dicts)))


_PHI_MESSAGES: list[Any] = []
"""``list[phi.AgentMessage]``, made once (``loads`` keeps one TypeAdapter per type object: a new
``list[...]`` per call would build a new one every time)."""


def _phi_messages() -> Any:
    if not _PHI_MESSAGES:
        import phi_wire.v0_10 as phi

        _PHI_MESSAGES.append(list[phi.AgentMessage])
    return _PHI_MESSAGES[0]


def _misread(source: _Source, losses: PlacedLosses) -> None:
    """A ``changed`` loss at each float of a message's free-form values that phi-core reads as
    another (``misread_floats``: tool-call arguments, a second-lane message kept as extension
    data). The dict path hands such a float back (``free_value``): only the models' path looks."""
    place, message, _ = source
    pointer = pointer_of(place)
    if message["role"] in SECOND_LANE:
        if _written_for_an_extension(message):
            found = misread_floats(message.get("details"), pointer + "/details")
        else:
            found = misread_floats(message, pointer)
    else:
        found = (
            at
            for index, block in enumerate(message["contents"])
            if block["type"] == "tool_call"
            for at in misread_floats(block["args"], f"{pointer}/contents/{index}/args")
        )
    for at in found:
        losses.lose((at, "changed", MISREAD_BY_SERDE))


_ROUNDED = "rounded to whole milliseconds (phi-core: u64 ms)"
_NO_ID = "phi-core messages have no id"


def phi_dicts(
    sources: Sequence[_Source],
    losses: PlacedLosses,
    tool_names: MutableMapping[str, str] | None = None,
) -> Iterator[dict[str, Any]]:
    """Each (place, Operator-Use message JSON as its writer writes it, (model, provider) or
    None) as the JSON of phi-core AgentMessages (a usage's counts phi-core's reader fills in: 0),
    every object's keys in the order phi-core writes them, sorted (so the dict converter writes
    them as they are built: ``_fast_to_phi``). ``tool_names`` (call id -> tool name, a tool
    result's name) holds the calls of the messages before these (a file converted batch by
    batch) and gets these ones' (None: no messages before). Each made as it is taken."""
    if tool_names is None:
        tool_names = {}
    lose = losses.lose
    for place, message, model in sources:
        role = message["role"]
        if role in SECOND_LANE:
            if reordered_by_sorting(message.get("details")):  # a custom message's free value
                lose((place, "changed", SORTED_BY_PHI_CORE.format(key="details")))
            if _written_for_an_extension(message):  # back to the extension it was
                kind, data = message["custom_type"], message.get("details")
                yield {"data": with_sorted_keys(data), "kind": kind, "role": "extension"}
                continue
            kind = EXTENSION_KIND.format(role=role)
            yield {"data": with_sorted_keys(message), "kind": kind, "role": "extension"}
            continue
        if "id" in message:  # not there: the source had none (``messages_json``)
            lose((place, "id", "dropped", _NO_ID))
        seconds = message["timestamp"]
        if type(seconds) is float and seconds >= 0.0 and seconds * 1000 < _U64_END:
            timestamp = round(seconds * 1000)  # the usual time (``_ms``'s first case), inline
            if timestamp / 1000 != seconds:
                lose((place, "timestamp", "changed", _ROUNDED))
        else:
            timestamp = _ms((place, "timestamp"), seconds, losses)
        blocks: list[dict[str, Any]] = []
        results: list[tuple[Place, dict[str, Any]]] = []
        previous_image = False
        for index, block in enumerate(message.get("contents", ())):
            kind = block["type"]
            if kind == "text":  # most blocks: nothing lost, no place made
                blocks.append({"text": block["content"], "type": "text"})
                previous_image = False
                continue
            block_place = ((place, "contents"), index)
            if kind == "tool_result":
                results.append((block_place, block))
                if role != "tool":
                    lose((block_place, "changed", _RESULT_MOVED.format(role=role)))
                previous_image = False
                continue
            if kind == "image" and previous_image:
                lose((block_place, "changed", _ADJACENT_IMAGES))
            previous_image = kind == "image"
            blocks.extend(_block_to_phi(block_place, block, losses))
            if kind == "tool_call":
                tool_names[block["id"]] = block["name"]
        for result_place, result in results:
            yield _tool_result_to_phi(result_place, result, timestamp, tool_names, losses)
        if role == "assistant":
            yield _assistant_to_phi(place, message, blocks, timestamp, model, losses)
        elif role == "user" and not blocks and results:
            lose((place, "changed", "a user message of tool results only: no user message"))
        elif role == "user" or blocks:
            if role == "tool":
                lose(((place, "contents"), "changed", _OTHER_BLOCKS))
            yield {"content": blocks, "role": "user", "timestamp": timestamp}


_U64_END = 2.0**64  # a float is below it iff below U64_MAX (none between): float to float, faster
_OTHER_BLOCKS = "blocks other than tool_result in a tool message: a phi-core user message"
_RESULT_MOVED = (
    "a tool_result block in a {role} message becomes a phi-core toolResult message (before the "
    "rest of the message); it comes back in a tool message"
)
_ADJACENT_IMAGES = (
    "an image block right after another: phi-core has one block per image, and adjacent images "
    "come back as one Operator-Use image block"
)


def _ms(place: Place, seconds: Any, losses: PlacedLosses) -> int:
    """Float seconds as u64 milliseconds; a loss when the milliseconds do not give them back."""
    lose = losses.lose
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or math.isnan(seconds):
        lose((place, "changed", "not a number (NaN is written null): 0 ms"))
        return 0
    if math.isinf(seconds) or seconds * 1000 >= U64_MAX:
        lose((place, "changed", "beyond phi-core's u64 milliseconds: the largest u64"))
        return U64_MAX
    if seconds < 0:
        lose((place, "changed", "a negative time: phi-core's u64 milliseconds start at 0"))
        return 0
    milliseconds = round(seconds * 1000)
    if milliseconds / 1000 != seconds:
        lose((place, "changed", _ROUNDED))
    return milliseconds


def _block_to_phi(
    place: Place, block: dict[str, Any], losses: PlacedLosses
) -> list[dict[str, Any]]:
    kind = block["type"]
    lose = losses.lose
    if kind == "text":
        return [{"text": block["content"], "type": "text"}]
    if kind == "thinking":
        if block["signature"]:
            return [
                {"signature": block["signature"], "thinking": block["content"], "type": "thinking"}
            ]
        return [{"thinking": block["content"], "type": "thinking"}]
    if kind == "tool_call":
        if "kind" in block:
            lose((place, "kind", "dropped", "phi-core tool calls have no kind"))
        if block["metadata"]:
            lose((place, "metadata", "dropped", "phi-core tool calls have no metadata"))
        arguments = block["args"]
        if reordered_by_sorting(arguments):
            lose((place, "changed", SORTED_BY_PHI_CORE.format(key="args")))
            arguments = with_sorted_keys(arguments)
        return [
            {"arguments": arguments, "id": block["id"], "name": block["name"], "type": "toolCall"}
        ]
    if kind == "image":
        images = []
        if not block["images"]:
            lose((place, "dropped", "an image block without images"))
        images_at: Place = (place, "images")
        for index, data in enumerate(block["images"]):
            item = (images_at, index)
            if data.startswith(("http://", "https://", "file:", "data:")) or not is_base64(data):
                lose((item, "dropped", "not base64 data: phi-core images are inline base64"))
                continue
            lose((item, "invented", "phi-core needs a mimeType: detected from the data"))
            images.append({"data": data, "mimeType": image_mime(data), "type": "image"})
        return images
    lose((place, "dropped", f"phi-core has no {kind} content"))
    return []


_NO_TOOL_NAME = 'phi-core needs the tool\'s name: no earlier tool call with this id, written as ""'


def _tool_result_to_phi(
    place: Place,
    block: dict[str, Any],
    timestamp: int,
    tool_names: MutableMapping[str, str],
    losses: PlacedLosses,
) -> dict[str, Any]:
    name = tool_names.get(block["id"])
    if name is None:
        losses.lose((place, "invented", _NO_TOOL_NAME))
    for key, default in (("metadata", {}), ("terminate", False), ("terminate_message", None)):
        if block.get(key, default) != default:
            losses.lose((place, key, "dropped", f"phi-core tool results have no {key}"))
    return {
        "content": [{"text": block["content"], "type": "text"}],
        "isError": block["is_error"],
        "role": "toolResult",
        "timestamp": timestamp,
        "toolCallId": block["id"],
        "toolName": name or "",
    }


_USAGE_COUNTS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
"""Operator-Use's counts, in the order their losses come."""
_NO_COST = "phi-core usage has no cost"
_copysign = math.copysign


def _usage_to_phi(place: Place, usage: dict[str, Any], losses: PlacedLosses) -> dict[str, Any]:
    counts = [usage["input_tokens"], usage["output_tokens"], usage["cache_read_tokens"]]
    counts.append(usage["cache_write_tokens"])  # (``_USAGE_COUNTS``: not a comprehension's call)
    if min(counts) < 0 or max(counts) > U64_MAX:  # rare: each count looked at
        for index, count in enumerate(counts):
            if not 0 <= count <= U64_MAX:
                losses.lose(
                    (place, _USAGE_COUNTS[index], "changed", "outside phi-core's u64: clamped")
                )
                counts[index] = min(max(count, 0), U64_MAX)
    cost_at: Place = None
    for key, amount in usage["cost"].items():
        if amount or _copysign(1.0, amount) < 0:  # any amount but 0 and 0.0 (-0.0: one)
            if cost_at is None:
                cost_at = (place, "cost")
            losses.lose((cost_at, key, "dropped", _NO_COST))
    given, made, read, write = counts  # phi-core's other counts: 0, as its reader fills them in
    return {
        "cache_read": read,
        "cache_write": write,
        "input": given,
        "output": made,
        "reasoning": 0,
        "total_tokens": 0,
    }


def _stop_reason_to_phi(place: Place, reason: str, losses: PlacedLosses) -> str:
    target, note = STOP_REASONS_TO_PHI[reason]
    if note:
        losses.lose((place, "changed", note))
    return target


_NO_MODEL = (
    "phi-core assistant messages name their model and provider; Operator-Use keeps them in "
    'model_change entries: written as "" where unknown'
)


def _assistant_to_phi(
    place: Place,
    message: dict[str, Any],
    blocks: list[dict[str, Any]],
    timestamp: int,
    model: Any,
    losses: PlacedLosses,
) -> dict[str, Any]:
    model_id, provider_id = model if model else (None, None)
    if not model_id or not provider_id:
        losses.lose((place, "invented", _NO_MODEL))
    out: dict[str, Any] = {"content": blocks}
    if message["error"]:
        out["error_message"] = message["error"]
    out["model"] = model_id or ""
    out["provider"] = provider_id or ""
    out["role"] = "assistant"
    stop_reason = message["stop_reason"]
    target, note = STOP_REASONS_TO_PHI[stop_reason]
    if note:
        losses.lose((place, "stop_reason", "changed", note))
    out["stopReason"] = target
    out["timestamp"] = timestamp
    out["usage"] = _usage_to_phi((place, "usage"), message["usage"], losses)
    return out
