"""Operator-Use -> phi-core 0.10: message lines, message lists and a session file's active branch
(``convert`` says what each mapping decides)."""

from __future__ import annotations

import base64
import json
import math
from collections.abc import MutableMapping, Sequence
from typing import Any, TypeAlias

import phi_wire.operator_use as ou
import phi_wire.v0_10 as phi
from phi_wire.convert import (
    MISREAD_BY_SERDE,
    SORTED_BY_PHI_CORE,
    Conversion,
    LossColumns,
    UnsupportedConversion,
    misread_floats,
    reordered_by_sorting,
    with_sorted_keys,
)
from phi_wire.convert import Losses as _Losses
from phi_wire.formats import version_of

from ._shared import (
    _IMAGE_MAGIC,
    _PHI_MESSAGES,
    EXTENSION_KIND,
    SECOND_LANE,
    STOP_REASONS_TO_PHI,
    U64_MAX,
    _json,
    _json_list,
    _only_messages,
)
from .api import ContextParts, SessionFileLines, context_parts

_Sink: TypeAlias = _Losses | LossColumns
"""Where the losses go: a list of them (the models' path), or columns (the dict converter's:
each ``Loss`` made only when read)."""

# --- Operator-Use -> phi-core -------------------------------------------------------------------


def to_phi_core(value: Any, *, name: str = "") -> Conversion[Any]:
    """An Operator-Use value as phi-core 0.10 (see the module docstring for what becomes what)."""
    losses = _Losses()
    if isinstance(value, SessionFileLines):
        return Conversion(_session_to_phi(value, losses), tuple(losses))
    if isinstance(value, list):
        _only_messages(value, "Operator-Use -> phi-core")
        sources: list[tuple[str, Any, Any]] = [
            (f"/{index}", item, None) for index, item in enumerate(_json_list(value, ou.dumps))
        ]
        return Conversion(_messages_to_phi(sources, losses), tuple(losses))
    name = type(value).__name__
    if name == "SessionContext":
        document = _json(value, ou.dumps)
        model = (document.get("model_id"), document.get("provider_id"))
        sources = [
            (f"/messages/{index}", message, model)  # the context's model for every message
            for index, message in enumerate(document["messages"])
        ]
        messages = _messages_to_phi(sources, losses)
        for key in ("thinking_level", "model_id", "provider_id"):
            if key in document:
                reason = "phi-core messages have no thinking level"
                if key != "thinking_level":
                    reason = "the context's model: written into each assistant message instead"
                losses.add(f"/{key}", "dropped", reason)
        return Conversion(messages, tuple(losses))
    if hasattr(value, "role"):
        return Conversion(
            _messages_to_phi([("", _json(value, ou.dumps), None)], losses), tuple(losses)
        )
    if name == "Usage":
        usage = _usage_to_phi("", _json(value, ou.dumps), losses)
        return Conversion(phi.loads(phi.Usage, json.dumps(usage)), tuple(losses))
    if name == "StopReason":
        reason = _stop_reason_to_phi("", value.value, losses)
        return Conversion(phi.StopReason(reason), tuple(losses))
    raise UnsupportedConversion(f"no Operator-Use -> phi-core conversion for {name}")


def _session_to_phi(entries: SessionFileLines, losses: _Sink) -> list[Any]:
    parts = context_parts(entries)
    module = _layout_module(entries[0]) if entries else ou
    context = module.build_session_context(entries)
    documents = _json_list(context.messages, module.dumps)
    return _messages_to_phi(session_sources(entries, parts, documents, losses), losses)


def session_sources(
    entries: Sequence[Any], parts: ContextParts, documents: Sequence[Any], losses: _Sink
) -> list[tuple[str, Any, Any]]:
    """The losses of the entries of a session file that make no message (in file order), then
    those of each message's envelope; and each message's (pointer, JSON, model) for
    ``phi_dicts``. ``entries`` have their fields as attributes (models, or any object that
    reads a dict so), ``documents`` are the JSON of the messages of ``parts.sources``."""
    index_of = {id(entry): index for index, entry in enumerate(entries)}
    used = {id(entry) for entry in parts.sources}
    on_branch = {id(entry) for entry in parts.branch}
    for index, entry in enumerate(entries):
        if id(entry) in used:
            continue
        if entry.type == "session":
            reason = "the session header (id, cwd, version): phi-core messages have no session"
        elif id(entry) not in on_branch:
            reason = "not on the active branch, which is what build_session_context rebuilds"
        elif entry.type in ("message", "custom_message", "branch_summary"):
            reason = "before the compaction's first kept entry: replaced by its summary"
        elif entry.type == "model_change":
            reason = (
                "model change: its model and provider are written into later assistant messages"
            )
        else:
            reason = f"a {entry.type} entry makes no message"
        losses.add(f"/{index}", "dropped", reason)
    sources = []
    add, models = losses.add, parts.models  # (once: a big file has ~200,000 such losses)
    for document, entry in zip(documents, parts.sources, strict=True):
        at = f"/{index_of[id(entry)]}"
        message = entry.type == "message"
        if getattr(entry, "id", None) is not None:
            add(at + "/id", "dropped", _ENVELOPE)
        if message and getattr(entry, "timestamp", None) is not None:
            add(at + "/timestamp", "dropped", _ENVELOPE)
        if getattr(entry, "parent_id", None) is not None:
            add(at + "/parent_id", "dropped", _ENVELOPE)
        if getattr(entry, "meta", None) is not None:
            add(at + "/meta", "dropped", _ENVELOPE)
        sources.append((at + "/message" if message else at, document, models.get(id(entry))))
    return sources


_ENVELOPE = "the session entry's envelope"
"""Why a message's entry's id, timestamp (a message entry's), parent id and meta are lost."""


def _layout_module(entry: Any) -> Any:
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


def _messages_to_phi(
    sources: Sequence[tuple[str, dict[str, Any], Any]],
    losses: _Sink,
    tool_names: MutableMapping[str, str] | None = None,
) -> list[Any]:
    """Each (pointer, Operator-Use message JSON, (model, provider) or None) as phi-core
    AgentMessages (``tool_names``: as ``phi_dicts``)."""
    if tool_names is None:
        tool_names = {}
    dicts: list[dict[str, Any]] = []
    for source in sources:  # a message's losses together, as a stream gives them batch by batch
        dicts += phi_dicts((source,), losses, tool_names)
        _misread(source, losses)
    # read as phi-core reads them, all in one loads (per-call work dominated one per message)
    return list(phi.loads(_PHI_MESSAGES, json.dumps(dicts)))


def _misread(source: tuple[str, dict[str, Any], Any], losses: _Sink) -> None:
    """A ``changed`` loss at each float of a message's free-form values that phi-core reads as
    another (``misread_floats``: tool-call arguments, a second-lane message kept as extension
    data). The dict path hands such a float back (``free_value``): only the models' path looks."""
    pointer, message, _ = source
    if message["role"] in SECOND_LANE:
        if _written_for_an_extension(message):
            found = misread_floats(message.get("details"), pointer + "/details")
        else:
            found = misread_floats(message, pointer)
        for at in found:
            losses.add(at, "changed", MISREAD_BY_SERDE)
        return
    for index, block in enumerate(message["contents"]):
        if block["type"] == "tool_call":
            for at in misread_floats(block["args"], f"{pointer}/contents/{index}/args"):
                losses.add(at, "changed", MISREAD_BY_SERDE)


def phi_dicts(
    sources: Sequence[tuple[str, dict[str, Any], Any]],
    losses: _Sink,
    tool_names: MutableMapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Each (pointer, Operator-Use message JSON as its writer writes it, (model, provider) or
    None) as the JSON of phi-core AgentMessages (before phi-core's reader fills its defaults),
    every object's keys in the order phi-core writes them, sorted (so the dict converter writes
    them as they are built: ``_fast_to_phi``). ``tool_names`` (call id -> tool name, a tool
    result's name) holds the calls of the messages before these (a file converted batch by
    batch) and gets these ones' (None: no messages before)."""
    if tool_names is None:
        tool_names = {}
    out: list[dict[str, Any]] = []
    for pointer, message, model in sources:
        role = message["role"]
        if role in SECOND_LANE:
            if reordered_by_sorting(message.get("details")):  # a custom message's free value
                losses.add(pointer, "changed", SORTED_BY_PHI_CORE.format(key="details"))
            if _written_for_an_extension(message):  # back to the extension it was
                kind, data = message["custom_type"], message.get("details")
                out.append({"data": with_sorted_keys(data), "kind": kind, "role": "extension"})
                continue
            kind = EXTENSION_KIND.format(role=role)
            out.append({"data": with_sorted_keys(message), "kind": kind, "role": "extension"})
            continue
        losses.add(pointer + "/id", "dropped", "phi-core messages have no id")
        timestamp = _ms(pointer + "/timestamp", message["timestamp"], losses)
        blocks: list[dict[str, Any]] = []
        results: list[tuple[str, dict[str, Any]]] = []
        previous_image = False
        for index, block in enumerate(message.get("contents", [])):
            if block["type"] == "text":  # most blocks: nothing lost, no pointer made
                blocks.append({"text": block["content"], "type": "text"})
                previous_image = False
                continue
            block_pointer = f"{pointer}/contents/{index}"
            if block["type"] == "tool_result":
                results.append((block_pointer, block))
                if role != "tool":
                    losses.add(
                        block_pointer,
                        "changed",
                        f"a tool_result block in a {role} message becomes a phi-core toolResult "
                        "message (before the rest of the message); it comes back in a tool message",
                    )
                previous_image = False
                continue
            if block["type"] == "image" and previous_image:
                losses.add(
                    block_pointer,
                    "changed",
                    "an image block right after another: phi-core has one block per image, and "
                    "adjacent images come back as one Operator-Use image block",
                )
            previous_image = block["type"] == "image"
            blocks.extend(_block_to_phi(block_pointer, block, losses))
            if block["type"] == "tool_call":
                tool_names[block["id"]] = block["name"]
        for block_pointer, block in results:
            out.append(_tool_result_to_phi(block_pointer, block, timestamp, tool_names, losses))
        if role == "assistant":
            out.append(_assistant_to_phi(pointer, message, blocks, timestamp, model, losses))
        elif role == "user" and not blocks and results:
            losses.add(pointer, "changed", "a user message of tool results only: no user message")
        elif role == "user" or blocks:
            if role == "tool":
                losses.add(
                    f"{pointer}/contents",
                    "changed",
                    "blocks other than tool_result in a tool message: a phi-core user message",
                )
            out.append({"content": blocks, "role": "user", "timestamp": timestamp})
    return out


def _ms(pointer: str, seconds: Any, losses: _Sink) -> int:
    """Float seconds as u64 milliseconds; a loss when the milliseconds do not give them back."""
    if type(seconds) is float and seconds >= 0.0 and seconds * 1000 < U64_MAX:
        # the usual time, first (what the checks below let through to the rounding: not NaN,
        # not infinite, in range)
        milliseconds = round(seconds * 1000)
        if milliseconds / 1000 != seconds:
            losses.add(pointer, "changed", "rounded to whole milliseconds (phi-core: u64 ms)")
        return milliseconds
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or math.isnan(seconds):
        losses.add(pointer, "changed", "not a number (NaN is written null): 0 ms")
        return 0
    if math.isinf(seconds) or seconds * 1000 >= U64_MAX:
        losses.add(pointer, "changed", "beyond phi-core's u64 milliseconds: the largest u64")
        return U64_MAX
    if seconds < 0:
        losses.add(pointer, "changed", "a negative time: phi-core's u64 milliseconds start at 0")
        return 0
    milliseconds = round(seconds * 1000)
    if milliseconds / 1000 != seconds:
        losses.add(pointer, "changed", "rounded to whole milliseconds (phi-core: u64 ms)")
    return milliseconds


def _image_mime(data: str) -> str:
    for prefix, mime in _IMAGE_MAGIC:
        if data.startswith(prefix):
            return mime
    return "image/png"


def _block_to_phi(pointer: str, block: dict[str, Any], losses: _Sink) -> list[dict[str, Any]]:
    kind = block["type"]
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
            losses.add(f"{pointer}/kind", "dropped", "phi-core tool calls have no kind")
        if block["metadata"]:
            losses.add(f"{pointer}/metadata", "dropped", "phi-core tool calls have no metadata")
        arguments = block["args"]
        if reordered_by_sorting(arguments):
            losses.add(pointer, "changed", SORTED_BY_PHI_CORE.format(key="args"))
            arguments = with_sorted_keys(arguments)
        return [
            {"arguments": arguments, "id": block["id"], "name": block["name"], "type": "toolCall"}
        ]
    if kind == "image":
        images = []
        if not block["images"]:
            losses.add(pointer, "dropped", "an image block without images")
        for index, data in enumerate(block["images"]):
            item = f"{pointer}/images/{index}"
            if data.startswith(("http://", "https://", "file:", "data:")) or not _is_base64(data):
                losses.add(item, "dropped", "not base64 data: phi-core images are inline base64")
                continue
            losses.add(item, "invented", "phi-core needs a mimeType: detected from the data")
            images.append({"data": data, "mimeType": _image_mime(data), "type": "image"})
        return images
    losses.add(pointer, "dropped", f"phi-core has no {kind} content")
    return []


def _is_base64(data: str) -> bool:
    """Base64's alphabet, padded or not (producers often strip the ``=``; an image's data
    carried to phi-core is carried as written)."""
    try:
        base64.b64decode(data + "=" * (-len(data) % 4), validate=True)
    except ValueError:
        return False
    return True


def _tool_result_to_phi(
    pointer: str,
    block: dict[str, Any],
    timestamp: int,
    tool_names: MutableMapping[str, str],
    losses: _Sink,
) -> dict[str, Any]:
    name = tool_names.get(block["id"])
    if name is None:
        losses.add(
            pointer,
            "invented",
            'phi-core needs the tool\'s name: no earlier tool call with this id, written as ""',
        )
    for key, default in (("metadata", {}), ("terminate", False), ("terminate_message", None)):
        if block.get(key, default) != default:
            losses.add(f"{pointer}/{key}", "dropped", f"phi-core tool results have no {key}")
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


def _usage_to_phi(pointer: str, usage: dict[str, Any], losses: _Sink) -> dict[str, Any]:
    counts = [usage[source] for source in _USAGE_COUNTS]
    if min(counts) < 0 or max(counts) > U64_MAX:  # rare: each count looked at
        for index, count in enumerate(counts):
            if not 0 <= count <= U64_MAX:
                losses.add(
                    f"{pointer}/{_USAGE_COUNTS[index]}",
                    "changed",
                    "outside phi-core's u64: clamped",
                )
                counts[index] = min(max(count, 0), U64_MAX)
    at = pointer + "/cost/"
    for key, amount in usage["cost"].items():
        if amount or math.copysign(1.0, amount) < 0:  # any amount but 0 and 0.0 (-0.0: one)
            losses.add(at + key, "dropped", "phi-core usage has no cost")
    read, write = counts[2:]
    return {"cache_read": read, "cache_write": write, "input": counts[0], "output": counts[1]}


def _stop_reason_to_phi(pointer: str, reason: str, losses: _Sink) -> str:
    target, note = STOP_REASONS_TO_PHI[reason]
    if note:
        losses.add(pointer, "changed", note)
    return target


def _assistant_to_phi(
    pointer: str,
    message: dict[str, Any],
    blocks: list[dict[str, Any]],
    timestamp: int,
    model: Any,
    losses: _Sink,
) -> dict[str, Any]:
    model_id, provider_id = model if model else (None, None)
    if not model_id or not provider_id:
        losses.add(
            pointer,
            "invented",
            "phi-core assistant messages name their model and provider; Operator-Use keeps them "
            'in model_change entries: written as "" where unknown',
        )
    out: dict[str, Any] = {"content": blocks}
    if message["error"]:
        out["error_message"] = message["error"]
    out["model"] = model_id or ""
    out["provider"] = provider_id or ""
    out["role"] = "assistant"
    out["stopReason"] = _stop_reason_to_phi(
        f"{pointer}/stop_reason", message["stop_reason"], losses
    )
    out["timestamp"] = timestamp
    out["usage"] = _usage_to_phi(f"{pointer}/usage", message["usage"], losses)
    return out
