"""phi-core 0.10 -> Operator-Use: messages, message lists and a fresh session file
(``convert`` says what each mapping decides)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

import phi_wire.operator_use as ou
import phi_wire.v0_10 as phi
from phi_wire.convert import Conversion, EntryIds, Loss, LossKind, UnsupportedConversion, derived_id
from phi_wire.convert import Losses as _Losses

from ._content_from_phi import blocks_from_phi
from ._from_phi_words import (
    ENTRY_IDS_INVENTED,
    HEADER_INVENTED,
    custom_from_phi,
    may_carry_a_message,
)
from ._shared import MODEL_IN_ENTRIES, STOP_REASONS_FROM_PHI, _json, _only_messages
from .api import SessionFileLines, layout_of

_OU_MESSAGES = list[ou.AgentMessage]
"""One object: ``loads`` keeps one TypeAdapter per type object (a new ``list[...]`` per call would
build a new one every time)."""

# --- phi-core -> Operator-Use -------------------------------------------------------------------


def from_phi_core(value: Any, *, name: str = "") -> Conversion[Any]:
    """A phi-core value as Operator-Use d0da87a6 (see the module docstring); ``name``, the
    input's, seeds the ids it invents (``phi_wire.convert``'s ``derived_id``)."""
    losses = _Losses()
    if isinstance(value, list):
        _no_events(value)
        _only_messages(value, "phi-core -> Operator-Use")
        texts = [str(phi.dumps(item)) for item in value]
        parsed = json.loads("[" + ",".join(texts) + "]")
        documents = [(f"/{index}", item, texts[index]) for index, item in enumerate(parsed)]
        return Conversion(_messages_from_phi(documents, losses, name), tuple(losses))
    kind = type(value).__name__
    if kind == "Usage":
        usage = _usage_from_phi("", _json(value, phi.dumps), losses)
        return Conversion(ou.loads(ou.Usage, json.dumps(usage)), tuple(losses))
    if kind == "StopReason":
        target, note = STOP_REASONS_FROM_PHI[value.value]
        if note:
            losses.add("", "changed", note)
        return Conversion(ou.StopReason(target), tuple(losses))
    if hasattr(value, "role"):
        return Conversion(
            _messages_from_phi(
                [("", json.loads(text := str(phi.dumps(value))), text)], losses, name
            ),
            tuple(losses),
        )
    _no_events([value])
    raise UnsupportedConversion(f"no phi-core -> Operator-Use conversion for {kind}")


def _no_events(values: list[Any]) -> None:
    """An event stream has no counterpart: said in one line, naming the first event."""
    for index, item in enumerate(values):
        if isinstance(getattr(item, "type", None), str) and not hasattr(item, "role"):
            raise UnsupportedConversion(
                "Operator-Use has no event stream (its session files hold messages): phi-core's "
                f"{type(item).__name__} (item {index}) has no counterpart there"
            )


def session_from_phi_core(
    messages: Sequence[Any], cwd: str = ".", *, name: str = ""
) -> Conversion[Any]:
    """A phi-core message list as an Operator-Use session file: a header (an id derived from the
    input's ``name`` and the messages, the first message's time, ``cwd``) and one message entry
    per message, each the child of the one before; before an assistant message whose model or
    provider is not the one in effect, a ``model_change`` entry (where Operator-Use keeps them),
    so they are not lost. Entry ids are ``EntryIds`` of the name and the header's id."""
    converted = from_phi_core(list(messages), name=name)
    models = [  # an extension message of an assistant's role is no assistant (a custom one)
        (message.model, message.provider)
        for message in messages
        if message.role == "assistant" and "kind" not in type(message).model_fields
    ]
    # every assistant's model and provider is kept, in a model_change entry
    losses = [loss for loss in converted.losses if loss.reason != MODEL_IN_ENTRIES]
    first = converted.value[0].timestamp if converted.value else 0.0
    # a message id is derived from its content already; a custom message has none
    content = "\n".join(
        getattr(message, "id", None) or ou.dumps(message) for message in converted.value
    )
    header = ou.SessionHeader(id=derived_id(name, "session", content), timestamp=first, cwd=cwd)
    losses.append(Loss("", "invented", HEADER_INVENTED + repr(cwd)))
    entry_id = EntryIds(name, header.id or content)
    entries: list[Any] = [header]
    parent: str | None = None
    in_effect = ("", "")  # before any model_change, Operator-Use's context names no model
    assistants = iter(models)
    for index, message in enumerate(converted.value):
        message = _in_this_layout(message, f"/{index}", losses)
        if message.role == "assistant":
            model = next(assistants)
            if model != in_effect:
                change = ou.ModelChangeEntry(
                    id=entry_id(len(entries)),
                    model_id=model[0],
                    provider_id=model[1],
                    parent_id=parent,
                    timestamp=message.timestamp,
                )
                entries.append(change)
                parent = change.id
                in_effect = model
        entry = ou.MessageEntry(
            id=entry_id(len(entries)),
            message=message,
            parent_id=parent,
            timestamp=message.timestamp,
        )
        entries.append(entry)
        parent = entry.id
    if len(entries) > 1:
        losses.append(Loss("", "invented", ENTRY_IDS_INVENTED))
    return Conversion(SessionFileLines(entries), tuple(losses))


_THIS_LAYOUT = ou.MessageEntry.__module__.rpartition(".")[0]
"""The package of the session file's layout's models (a message read by another layout's is
not one its ``MessageEntry`` holds)."""


def _in_this_layout(message: Any, pointer: str, losses: list[Loss]) -> Any:
    """``message`` as a message of the session file's layout (``ou``'s). A message read in the
    other layout (an extension message carried it; ``from_phi_core`` reads it in the layout its
    key order shows) is this layout's when this layout reads all of it; else it becomes the
    custom message that carries it whole, named."""
    if type(message).__module__.rpartition(".")[0] == _THIS_LAYOUT:
        return message
    data = json.loads(message.model_dump_json())
    try:  # phi-core sorted its keys, the other layout's mark: it may be this layout's
        same = ou.loads(ou.AgentMessage, json.dumps(data))
    except ValueError:
        same = None
    if same is not None and json.loads(same.model_dump_json()) == data:
        return same
    losses.append(
        Loss(
            pointer,
            "changed",
            f"an Operator-Use message of another layout than this session file's ({ou.VERSION}): "
            "written as a custom message that carries it",
        )
    )
    return ou.loads(
        ou.AgentMessage,
        json.dumps(
            {
                "role": "custom",
                "custom_type": f"operator-use.{data.get('role')}",
                "timestamp": 0.0,
                "details": data,
            }
        ),
    )


def _messages_from_phi(
    documents: Sequence[tuple[str, Any, str]], losses: _Losses, name: str
) -> list[Any]:
    """Each (pointer, phi-core message JSON, its text) as Operator-Use messages; a message's id is
    a uuid5 of ``name``, its pointer and its text as phi-core writes it (``derived_id``)."""
    out = message_dicts(documents, losses, name)
    # the JSON ones read as Operator-Use reads them, all in one loads
    texts = [item for item in out if not isinstance(item, BaseModel)]
    read = iter(ou.loads(_OU_MESSAGES, json.dumps(texts)) if texts else ())
    return [item if isinstance(item, BaseModel) else next(read) for item in out]


def message_dicts(
    documents: Sequence[tuple[str, Any, str]], losses: _Losses, name: str
) -> list[Any]:
    """``_messages_from_phi`` before Operator-Use reads them: each message's JSON (as given to
    its reader: defaults not filled in), or a model already read (a message of the other layout
    an extension message carried); the dict converter (``_entries_from_phi``) makes the same
    in one pass with the entries' texts, and its tests compare the two."""
    out: list[Any] = []  # JSON to read as d0da87a6, or a model already read
    previous_tool: tuple[float, dict[str, Any]] | None = None
    for pointer, message, text in documents:
        # an ExtensionMessage (kind + data) may have any role, "user" too
        role = "extension" if "kind" in message else message.get("role")
        for key in ("turnId", "nodeId", "parentId", "tags", "provenanceHint"):
            if key in message:
                losses.add(f"{pointer}/{key}", "dropped", "Operator-Use messages have no " + key)
        if role in ("user", "assistant", "toolResult"):
            seconds = _seconds(f"{pointer}/timestamp", message["timestamp"], losses)
            if role == "toolResult" and previous_tool is not None and previous_tool[0] == seconds:
                previous_tool[1]["contents"].append(_tool_result_from_phi(pointer, message, losses))
                continue
            losses.add(
                pointer,
                "invented",
                "Operator-Use messages have an id: a uuid5 of the input's name, the message's "
                "pointer and its JSON",
            )
            message_id = derived_id(name, pointer, text)
        if role == "user":
            blocks = _blocks_from_phi(pointer, message["content"], losses)
            out.append({"role": "user", "contents": blocks, "id": message_id, "timestamp": seconds})
            previous_tool = None
        elif role == "assistant":
            out.append(_assistant_from_phi(pointer, message, seconds, message_id, losses))
            previous_tool = None
        elif role == "toolResult":
            result = _tool_result_from_phi(pointer, message, losses)
            tool = {
                "role": "tool",
                "contents": [result],
                "id": message_id,
                "timestamp": seconds,
            }
            out.append(tool)
            previous_tool = (seconds, tool)
        else:
            out.append(_extension_from_phi(pointer, message, losses))
            previous_tool = None
    return out


def _seconds(pointer: str, milliseconds: int, losses: _Losses) -> float:
    """phi-core's u64 milliseconds as Operator-Use's float seconds (exact below about 2**53 / 1000
    seconds; above, the nearest double, a named loss)."""
    seconds = milliseconds / 1000
    if round(seconds * 1000) != milliseconds:
        losses.add(pointer, "changed", "Operator-Use's float seconds hold it to the nearest double")
    return seconds


def _blocks_from_phi(pointer: str, blocks: list[dict[str, Any]], losses: _Losses) -> list[Any]:
    """``blocks_from_phi`` with each loss added to ``losses`` at ``pointer`` (the message's)."""

    def lose(_index: int, rest: str, kind: LossKind, reason: str) -> None:
        losses.add(pointer + rest, kind, reason)

    return blocks_from_phi(blocks, 0, lose, None)


def _assistant_from_phi(
    pointer: str, message: dict[str, Any], seconds: float, message_id: str, losses: _Losses
) -> dict[str, Any]:
    for key in ("model", "provider"):
        if message[key]:
            losses.add(
                f"{pointer}/{key}",
                "dropped",
                MODEL_IN_ENTRIES,
            )
    _error_from_phi(pointer, message, losses)
    target, note = STOP_REASONS_FROM_PHI[message["stopReason"]]
    if note:
        losses.add(f"{pointer}/stopReason", "changed", note)
    return {
        "role": "assistant",
        "contents": _blocks_from_phi(pointer, message["content"], losses),
        "id": message_id,
        "timestamp": seconds,
        "usage": _usage_from_phi(f"{pointer}/usage", message["usage"], losses),
        "stop_reason": target,
        "error": message.get("error_message") or "",
    }


def _error_from_phi(pointer: str, message: dict[str, Any], losses: _Losses) -> None:
    if message.get("error_message") == "":
        losses.add(
            f"{pointer}/error_message",
            "dropped",
            "Operator-Use's error is empty when there is none: an empty one comes back absent",
        )


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
    elif not message["content"]:
        losses.add(
            f"{pointer}/content",
            "changed",
            "no block: an Operator-Use tool result is one string, which comes back as one empty "
            "text block",
        )
    if message["toolName"]:
        losses.add(f"{pointer}/toolName", "dropped", "Operator-Use tool results have no tool name")
    return {
        "type": "tool_result",
        "id": message["toolCallId"],
        "content": "".join(texts),
        "is_error": message["isError"],
    }


def carried_message(message: dict[str, Any]) -> Any:
    """The Operator-Use message (a model of its layout) an ExtensionMessage carries, or None:
    it is a custom message."""
    if not may_carry_a_message(message):
        return None
    data = message["data"]
    module = ou.layout(layout_of(data))  # a d1cdaad8 message stays a d1cdaad8 model
    try:
        return module.loads(module.AgentMessage, json.dumps(data))
    except ValueError:
        return None


def _extension_from_phi(pointer: str, message: dict[str, Any], losses: _Losses) -> Any:
    """The Operator-Use message an ExtensionMessage carries (a model), or a custom one (JSON)."""
    carried = carried_message(message)
    if carried is not None:
        return carried
    return custom_from_phi(
        message, lambda rest, kind, reason: losses.add(pointer + rest, kind, reason)
    )
