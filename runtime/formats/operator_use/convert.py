"""Operator-Use (pi-style rewrite) <-> phi-core 0.10: the mapping table of
``docs/conversions/operator-use.md``, with every loss named by a pointer into the source.

Both directions work on the JSON of the source (its models dumped as their format writes them)
and build the target through that format's own ``loads``, so the result is exactly what the
target implementation reads. Pointers are into the source document: a message
(``/contents/0/signature``), a list of messages (``/3/contents/0``), a ``SessionContext``
(``/messages/3/...``) or a session file, read as the array of its lines (``/7/message/id``).

To phi-core (``to_phi_core``): a message, a list of messages, a ``SessionContext`` or a session
file (its active branch, as ``build_session_context`` rebuilds it) becomes a list of phi-core
``AgentMessage``s (a ``tool`` message holds one ``tool_result`` block per call; phi-core has one
``toolResult`` message per call); a ``Usage`` a ``Usage``; a ``StopReason`` a ``StopReason``.

From phi-core (``from_phi_core``): a message or a list of them becomes a list of Operator-Use
messages (consecutive ``toolResult`` messages with one timestamp become one ``tool`` message);
``Usage`` and ``StopReason`` likewise. ``session_from_phi_core`` writes a list as a session file.
"""

from __future__ import annotations

import base64
import json
import math
import uuid
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

import phi_wire.operator_use as ou
import phi_wire.v0_10 as phi
from phi_wire.convert import Conversion, Loss, UnsupportedConversion
from phi_wire.formats import version_of

from .api import SessionFileLines, context_parts, layout_of

__all__ = [
    "STOP_REASONS_FROM_PHI",
    "STOP_REASONS_TO_PHI",
    "from_phi_core",
    "session_from_phi_core",
    "to_phi_core",
]

U64_MAX = 2**64 - 1
SECOND_LANE = ("system", "custom", "branch_summary", "compaction_summary")
"""Operator-Use roles phi-core has no message for: carried whole in an ExtensionMessage."""
EXTENSION_KIND = "operator-use.{role}"
"""An ExtensionMessage's kind for an Operator-Use message of that role; data is its JSON."""

STOP_REASONS_TO_PHI: dict[str, tuple[str, str | None]] = {
    "stop": ("stop", None),
    "length": ("length", None),
    "tool_calls": ("toolUse", None),
    "error": ("error", None),
    "abort": ("aborted", None),
    "content_filter": (
        "guardRail",
        "phi-core has no content-filter stop reason: guardRail is the nearest (it maps back)",
    ),
}
"""Operator-Use stop reason -> (phi-core stop reason, the loss reason when not exact)."""

STOP_REASONS_FROM_PHI: dict[str, tuple[str, str | None]] = {
    "stop": ("stop", None),
    "length": ("length", None),
    "toolUse": ("tool_calls", None),
    "error": ("error", None),
    "aborted": ("abort", None),
    "guardRail": ("content_filter", None),
    "maxTurns": ("stop", "Operator-Use has no maxTurns stop reason: written as stop"),
    "userStop": ("abort", "Operator-Use has no userStop stop reason: written as abort"),
    "handoff": ("stop", "Operator-Use has no handoff stop reason: written as stop"),
    "contextCompacted": ("stop", "Operator-Use has no contextCompacted stop reason: stop"),
    "paused": ("stop", "Operator-Use has no paused stop reason: written as stop"),
}
"""phi-core stop reason -> (Operator-Use stop reason, the loss reason when not exact)."""

MODEL_IN_ENTRIES = "Operator-Use keeps the model in model_change entries, not in messages"
"""The loss of an assistant's model and provider (a message list; a session file keeps them)."""

_PHI_MESSAGES = list[phi.AgentMessage]
_OU_MESSAGES = list[ou.AgentMessage]
"""One object each: ``loads`` keeps one TypeAdapter per type object (a new ``list[...]`` per call
would build a new one every time)."""

_IMAGE_MAGIC = (
    ("iVBORw0KGgo", "image/png"),
    ("/9j/", "image/jpeg"),
    ("R0lGOD", "image/gif"),
    ("UklGR", "image/webp"),
)


class _Losses(list[Loss]):
    def add(self, pointer: str, kind: Any, reason: str) -> None:
        self.append(Loss(pointer, kind, reason))


def _only_messages(values: list[Any], direction: str) -> None:
    """A list converts as a message list: anything else in it is refused, naming the first."""
    for index, item in enumerate(values):
        if not isinstance(getattr(item, "role", None), str):
            raise UnsupportedConversion(
                f"no {direction} conversion for {type(item).__name__} (item {index}): a list "
                "converts as a list of messages"
            )


def _json(value: Any, dumps: Any) -> Any:
    return json.loads(dumps(value))


def _json_list(values: Sequence[Any], dumps: Any) -> list[Any]:
    """``_json`` of each value, in one parse."""
    return json.loads("[" + ",".join(dumps(value) for value in values) + "]")  # type: ignore[no-any-return]


# --- Operator-Use -> phi-core -------------------------------------------------------------------


def to_phi_core(value: Any) -> Conversion[Any]:
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


def _session_to_phi(entries: SessionFileLines, losses: _Losses) -> list[Any]:
    index_of = {id(entry): index for index, entry in enumerate(entries)}
    parts = context_parts(entries)
    module = _layout_module(entries[0]) if entries else ou
    context = module.build_session_context(entries)
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
    documents = _json_list(context.messages, module.dumps)
    for document, entry in zip(documents, parts.sources, strict=True):
        index = index_of[id(entry)]
        for key in ("id", "timestamp", "parent_id", "meta"):
            if getattr(entry, key, None) is not None and not (
                key == "timestamp" and entry.type != "message"
            ):
                losses.add(f"/{index}/{key}", "dropped", "the session entry's envelope")
        pointer = f"/{index}/message" if entry.type == "message" else f"/{index}"
        sources.append((pointer, document, parts.models.get(id(entry))))
    return _messages_to_phi(sources, losses)


def _layout_module(entry: Any) -> Any:
    entry_version = version_of(entry)
    return entry_version.load() if entry_version is not None else ou


def _messages_to_phi(
    sources: Sequence[tuple[str, dict[str, Any], Any]], losses: _Losses
) -> list[Any]:
    """Each (pointer, Operator-Use message JSON, (model, provider) or None) as phi-core
    AgentMessages."""
    tool_names: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for pointer, message, model in sources:
        role = message["role"]
        if role in SECOND_LANE:
            kind = EXTENSION_KIND.format(role=role)
            out.append({"role": "extension", "kind": kind, "data": message})
            continue
        losses.add(f"{pointer}/id", "dropped", "phi-core messages have no id")
        timestamp = _ms(f"{pointer}/timestamp", message["timestamp"], losses)
        blocks: list[dict[str, Any]] = []
        results: list[tuple[str, dict[str, Any]]] = []
        previous_image = False
        for index, block in enumerate(message.get("contents", [])):
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
            out.append({"role": "user", "content": blocks, "timestamp": timestamp})
    # read as phi-core reads them, all in one loads (per-call work dominated one per message)
    return list(phi.loads(_PHI_MESSAGES, json.dumps(out)))


def _ms(pointer: str, seconds: Any, losses: _Losses) -> int:
    """Float seconds as u64 milliseconds; a loss when the milliseconds do not give them back."""
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


def _block_to_phi(pointer: str, block: dict[str, Any], losses: _Losses) -> list[dict[str, Any]]:
    kind = block["type"]
    if kind == "text":
        return [{"type": "text", "text": block["content"]}]
    if kind == "thinking":
        out = {"type": "thinking", "thinking": block["content"]}
        if block["signature"]:
            out["signature"] = block["signature"]
        return [out]
    if kind == "tool_call":
        if "kind" in block:
            losses.add(f"{pointer}/kind", "dropped", "phi-core tool calls have no kind")
        if block["metadata"]:
            losses.add(f"{pointer}/metadata", "dropped", "phi-core tool calls have no metadata")
        return [
            {
                "type": "toolCall",
                "id": block["id"],
                "name": block["name"],
                "arguments": block["args"],
            }
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
            images.append({"type": "image", "data": data, "mimeType": _image_mime(data)})
        return images
    losses.add(pointer, "dropped", f"phi-core has no {kind} content")
    return []


def _is_base64(data: str) -> bool:
    try:
        base64.b64decode(data, validate=True)
    except ValueError:
        return False
    return True


def _tool_result_to_phi(
    pointer: str,
    block: dict[str, Any],
    timestamp: int,
    tool_names: dict[str, str],
    losses: _Losses,
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
        "role": "toolResult",
        "toolCallId": block["id"],
        "toolName": name or "",
        "content": [{"type": "text", "text": block["content"]}],
        "isError": block["is_error"],
        "timestamp": timestamp,
    }


def _usage_to_phi(pointer: str, usage: dict[str, Any], losses: _Losses) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for source, target in (
        ("input_tokens", "input"),
        ("output_tokens", "output"),
        ("cache_read_tokens", "cache_read"),
        ("cache_write_tokens", "cache_write"),
    ):
        count = usage[source]
        if not 0 <= count <= U64_MAX:
            losses.add(f"{pointer}/{source}", "changed", "outside phi-core's u64: clamped")
            count = min(max(count, 0), U64_MAX)
        out[target] = count
    for key, amount in usage["cost"].items():
        if amount != 0 or math.copysign(1.0, amount) < 0:
            losses.add(f"{pointer}/cost/{key}", "dropped", "phi-core usage has no cost")
    return out


def _stop_reason_to_phi(pointer: str, reason: str, losses: _Losses) -> str:
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
    losses: _Losses,
) -> dict[str, Any]:
    model_id, provider_id = model if model else (None, None)
    if not model_id or not provider_id:
        losses.add(
            pointer,
            "invented",
            "phi-core assistant messages name their model and provider; Operator-Use keeps them "
            'in model_change entries: written as "" where unknown',
        )
    out = {
        "role": "assistant",
        "content": blocks,
        "stopReason": _stop_reason_to_phi(f"{pointer}/stop_reason", message["stop_reason"], losses),
        "model": model_id or "",
        "provider": provider_id or "",
        "usage": _usage_to_phi(f"{pointer}/usage", message["usage"], losses),
        "timestamp": timestamp,
    }
    if message["error"]:
        out["error_message"] = message["error"]
    return out


# --- phi-core -> Operator-Use -------------------------------------------------------------------


def from_phi_core(value: Any) -> Conversion[Any]:
    """A phi-core value as Operator-Use d0da87a6 (see the module docstring)."""
    losses = _Losses()
    if isinstance(value, list):
        _only_messages(value, "phi-core -> Operator-Use")
        documents = [(f"/{index}", item) for index, item in enumerate(_json_list(value, phi.dumps))]
        return Conversion(_messages_from_phi(documents, losses), tuple(losses))
    name = type(value).__name__
    if name == "Usage":
        usage = _usage_from_phi("", _json(value, phi.dumps), losses)
        return Conversion(ou.loads(ou.Usage, json.dumps(usage)), tuple(losses))
    if name == "StopReason":
        target, note = STOP_REASONS_FROM_PHI[value.value]
        if note:
            losses.add("", "changed", note)
        return Conversion(ou.StopReason(target), tuple(losses))
    if hasattr(value, "role"):
        return Conversion(
            _messages_from_phi([("", _json(value, phi.dumps))], losses), tuple(losses)
        )
    raise UnsupportedConversion(f"no phi-core -> Operator-Use conversion for {name}")


def session_from_phi_core(messages: Sequence[Any], cwd: str = ".") -> Conversion[Any]:
    """A phi-core message list as an Operator-Use session file: a header (fresh uuid7-style id,
    the first message's time, ``cwd``) and one message entry per message, each the child of the
    one before; before an assistant message whose model or provider is not the one in effect, a
    ``model_change`` entry (where Operator-Use keeps them), so they are not lost."""
    converted = from_phi_core(list(messages))
    models = [
        (message.model, message.provider) for message in messages if message.role == "assistant"
    ]
    # every assistant's model and provider is kept, in a model_change entry
    losses = [loss for loss in converted.losses if loss.reason != MODEL_IN_ENTRIES]
    first = converted.value[0].timestamp if converted.value else 0.0
    header = ou.SessionHeader(id=str(uuid.uuid4()), timestamp=first, cwd=cwd)
    losses.append(Loss("", "invented", "the session header: a fresh id, cwd " + repr(cwd)))
    entries: list[Any] = [header]
    parent: str | None = None
    in_effect = ("", "")  # before any model_change, Operator-Use's context names no model
    assistants = iter(models)
    for message in converted.value:
        if message.role == "assistant":
            model = next(assistants)
            if model != in_effect:
                change = ou.ModelChangeEntry(
                    model_id=model[0],
                    provider_id=model[1],
                    parent_id=parent,
                    timestamp=message.timestamp,
                )
                entries.append(change)
                parent = change.id
                in_effect = model
        entry = ou.MessageEntry(message=message, parent_id=parent, timestamp=message.timestamp)
        entries.append(entry)
        parent = entry.id
    if len(entries) > 1:
        losses.append(Loss("", "invented", "entry ids (8 hex characters) and parent links"))
    return Conversion(SessionFileLines(entries), tuple(losses))


def _messages_from_phi(documents: Sequence[tuple[str, Any]], losses: _Losses) -> list[Any]:
    out: list[Any] = []  # JSON to read as d0da87a6, or a model already read
    previous_tool: tuple[float, dict[str, Any]] | None = None
    for pointer, message in documents:
        role = message.get("role")
        for key in ("turnId", "nodeId", "parentId", "tags", "provenanceHint"):
            if key in message:
                losses.add(f"{pointer}/{key}", "dropped", "Operator-Use messages have no " + key)
        if role in ("user", "assistant", "toolResult"):
            seconds = message["timestamp"] / 1000
            if role == "toolResult" and previous_tool is not None and previous_tool[0] == seconds:
                previous_tool[1]["contents"].append(_tool_result_from_phi(pointer, message, losses))
                continue
            losses.add(pointer, "invented", "Operator-Use messages have an id: a fresh uuid4")
        if role == "user":
            blocks = _blocks_from_phi(f"{pointer}/content", message["content"], losses)
            out.append(
                {"role": "user", "contents": blocks, "id": str(uuid.uuid4()), "timestamp": seconds}
            )
            previous_tool = None
        elif role == "assistant":
            out.append(_assistant_from_phi(pointer, message, seconds, losses))
            previous_tool = None
        elif role == "toolResult":
            result = _tool_result_from_phi(pointer, message, losses)
            tool = {
                "role": "tool",
                "contents": [result],
                "id": str(uuid.uuid4()),
                "timestamp": seconds,
            }
            out.append(tool)
            previous_tool = (seconds, tool)
        else:
            out.append(_extension_from_phi(pointer, message, losses))
            previous_tool = None
    # the JSON ones read as Operator-Use reads them, all in one loads
    texts = [item for item in out if not isinstance(item, BaseModel)]
    read = iter(ou.loads(_OU_MESSAGES, json.dumps(texts)) if texts else ())
    return [item if isinstance(item, BaseModel) else next(read) for item in out]


def _blocks_from_phi(pointer: str, blocks: list[dict[str, Any]], losses: _Losses) -> list[Any]:
    out: list[dict[str, Any]] = []
    for index, block in enumerate(blocks):
        kind = block["type"]
        if kind == "text":
            out.append({"type": "text", "content": block["text"]})
        elif kind == "thinking":
            out.append(
                {
                    "type": "thinking",
                    "content": block["thinking"],
                    "signature": block.get("signature", ""),
                }
            )
        elif kind == "toolCall":
            arguments = block["arguments"]
            if not isinstance(arguments, dict):
                losses.add(
                    f"{pointer}/{index}/arguments",
                    "changed",
                    'Operator-Use args are an object: {"value": ...}',
                )
                arguments = {"value": arguments}
            out.append(
                {
                    "type": "tool_call",
                    "id": block["id"],
                    "name": block["name"],
                    "args": arguments,
                    "metadata": {},
                }
            )
        elif kind == "image":
            losses.add(
                f"{pointer}/{index}/mimeType", "dropped", "Operator-Use images have no MIME type"
            )
            if out and out[-1]["type"] == "image":
                out[-1]["images"].append(block["data"])
            else:
                out.append({"type": "image", "images": [block["data"]]})
    return out


def _assistant_from_phi(
    pointer: str, message: dict[str, Any], seconds: float, losses: _Losses
) -> dict[str, Any]:
    for key in ("model", "provider"):
        if message[key]:
            losses.add(
                f"{pointer}/{key}",
                "dropped",
                MODEL_IN_ENTRIES,
            )
    target, note = STOP_REASONS_FROM_PHI[message["stopReason"]]
    if note:
        losses.add(f"{pointer}/stopReason", "changed", note)
    return {
        "role": "assistant",
        "contents": _blocks_from_phi(f"{pointer}/content", message["content"], losses),
        "id": str(uuid.uuid4()),
        "timestamp": seconds,
        "usage": _usage_from_phi(f"{pointer}/usage", message["usage"], losses),
        "stop_reason": target,
        "error": message.get("error_message") or "",
    }


def _usage_from_phi(pointer: str, usage: dict[str, Any], losses: _Losses) -> dict[str, Any]:
    for key in ("reasoning", "total_tokens"):
        if usage.get(key):
            losses.add(f"{pointer}/{key}", "dropped", f"Operator-Use usage has no {key}")
    return {
        "input_tokens": usage["input"],
        "output_tokens": usage["output"],
        "cache_read_tokens": usage.get("cache_read", 0),
        "cache_write_tokens": usage.get("cache_write", 0),
    }


def _tool_result_from_phi(pointer: str, message: dict[str, Any], losses: _Losses) -> dict[str, Any]:
    texts = []
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            texts.append(block["text"])
        else:
            losses.add(
                f"{pointer}/content/{index}", "dropped", "an Operator-Use tool result is text only"
            )
    if len(texts) > 1:
        losses.add(f"{pointer}/content", "changed", "several text blocks: joined into one string")
    if message["toolName"]:
        losses.add(f"{pointer}/toolName", "dropped", "Operator-Use tool results have no tool name")
    return {
        "type": "tool_result",
        "id": message["toolCallId"],
        "content": "".join(texts),
        "is_error": message["isError"],
    }


def _extension_from_phi(pointer: str, message: dict[str, Any], losses: _Losses) -> Any:
    """The Operator-Use message an ExtensionMessage carries (a model), or a custom one (JSON)."""
    kind, data = message["kind"], message["data"]
    role = kind.removeprefix("operator-use.")
    if kind != role and isinstance(data, dict) and data.get("role") == role:
        module = ou.layout(layout_of(data))  # a d1cdaad8 message stays a d1cdaad8 model
        try:
            return module.loads(module.AgentMessage, json.dumps(data))
        except ValueError:
            pass
    losses.add(
        pointer, "invented", "an extension message becomes a custom message with timestamp 0.0"
    )
    if message["role"] != "extension":
        losses.add(f"{pointer}/role", "dropped", "a custom message's role is custom")
    return {"role": "custom", "custom_type": kind, "timestamp": 0.0, "details": data}
