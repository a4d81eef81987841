"""clark-agent 0.4 history rows -> phi-core 0.10 messages, dict to dict: the rows as ``json.loads``
gives them (lines clark-agent's fast path vouched for), the messages built in phi-core's writer
key order (an LlmMessage is written through a ``serde_json::Value``: every key sorted; an
ExtensionMessage in declaration order, its ``data`` sorted), the same losses at the same pointers
as ``_to_phi`` (``PlacedLosses``: written only when a loss is read). A row this cannot convert
exactly (a missing timestamp, which the reader stamps with the time of reading; a null, which it
may read as absent; a number phi-wire's writer prints otherwise than Python's ``json``) raises
``FastUnsupported``: it takes the model path."""

from __future__ import annotations

import json
from typing import Any

from phi_wire.convert import (
    SORTED_BY_PHI_CORE,
    FastUnsupported,
    Place,
    PlacedLosses,
    checked_number,
)

from ._shared import _DATA_URL, STOP_REASON_TO_PHI, SYSTEM_KIND, USAGE_FIELDS

__all__ = ["checked_free", "messages_to_phi"]

_CARRIER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def _sorted_free(value: Any) -> tuple[Any, bool]:
    """A free-form value with every object's keys sorted (as phi-core writes it), and whether
    that changed an order; ``FastUnsupported`` for a number the writers print differently."""
    kind = type(value)
    if kind is dict:
        keys = list(value)
        ordered = sorted(keys)
        reordered = keys != ordered
        out = {}
        for key in ordered:
            item = value[key]
            if type(item) is str:  # most leaves: no call
                out[key] = item
            else:
                out[key], inner = _sorted_free(item)
                reordered = reordered or inner
        return out, reordered
    if kind is list:
        items = []
        reordered = False
        for item in value:
            if type(item) is str:
                items.append(item)
                continue
            converted, inner = _sorted_free(item)
            items.append(converted)
            reordered = reordered or inner
        return items, reordered
    if kind is int or kind is float:
        checked_number(value)
    return value, False


def checked_free(value: Any) -> None:
    """``FastUnsupported`` for a number of a free-form value (kept as it is) that the writers
    print differently (``checked_number``)."""
    if type(value) is dict:
        for item in value.values():
            checked_free(item)
    elif type(value) is list:
        for item in value:
            checked_free(item)
    elif type(value) in (int, float):
        checked_number(value)


def _free(value: Any, key: str, place: Place, losses: PlacedLosses) -> Any:
    converted, reordered = _sorted_free(value)
    if reordered:
        losses.lose((place, "changed", SORTED_BY_PHI_CORE.format(key=key)))
    return converted


def _image(block: dict[str, Any], place: Place, losses: PlacedLosses) -> dict[str, Any]:
    if block.get("alt", "") is None or block.get("media_type", "") is None:
        raise FastUnsupported("a null the reader reads as absent")
    source = block["source"]
    media_type = block.get("media_type")
    match = _DATA_URL.fullmatch(source)
    if match is not None:
        mime, data = match.group(1), match.group(2)
        if media_type is None:
            losses.lose(
                (
                    place,
                    "changed",
                    "no media_type: converting back writes the data URL's type",
                )
            )
        elif media_type != mime:
            losses.lose(
                (
                    (place, "media_type"),
                    "dropped",
                    f"phi-core's mimeType is the data URL's type ({mime})",
                )
            )
    else:
        data = source
        mime = media_type or ""
        losses.lose(
            (
                (place, "source"),
                "changed",
                "not a base64 data: URL: phi-core's image data holds base64 bytes, so the URL is "
                "kept in data as-is (fetch it before sending the message to a provider)",
            )
        )
        if media_type is None:
            losses.lose((place, "invented", "phi-core requires a mimeType: empty"))
    if "alt" in block:
        losses.lose(((place, "alt"), "dropped", "phi-core's image has no alt text"))
    return {"data": data, "mimeType": mime, "type": "image"}


_NO_MEDIA_TYPE = "no media_type: converting back writes the data URL's type"
_THINKING_CHANGED = (
    "phi-core has one thinking block for clark-agent's tag-elicited thinking and its "
    "provider-native reasoning: this one comes back as a reasoning block"
)


def _block(block: dict[str, Any], place: Place, losses: PlacedLosses) -> dict[str, Any]:
    """A block other than text (``_blocks``' own) as phi-core's."""
    kind = block.get("type")
    if kind == "tool_call":
        if block.get("arguments") is None:
            raise FastUnsupported("no arguments")
        arguments = _free(block["arguments"], "arguments", place, losses)
        return {
            "arguments": arguments,
            "id": block["id"],
            "name": block["name"],
            "type": "toolCall",
        }
    if kind == "reasoning":
        return {"thinking": block["text"], "type": "thinking"}
    if kind == "image":
        return _image(block, place, losses)
    if kind == "thinking":
        losses.lose(((place, "type"), "changed", _THINKING_CHANGED))
        return {"thinking": block["text"], "type": "thinking"}
    if kind == "reasoning_details":
        details = block["details"]
        _sorted_free(details)  # its numbers checked: the carrier is written as clark writes it
        carrier = '{"details":' + _CARRIER(details) + "}"
        return {"signature": carrier, "thinking": "", "type": "thinking"}
    raise FastUnsupported(f"a block of type {kind!r}")


def _blocks(blocks: list[Any], place: Place, losses: PlacedLosses) -> list[dict[str, Any]]:
    out = []
    for index, block in enumerate(blocks):
        if block.get("type") == "text":  # most blocks: no call, no place made
            out.append({"text": block["text"], "type": "text"})
        else:
            out.append(_block(block, (place, index), losses))
    return out


def _timestamp(message: dict[str, Any]) -> int:
    if "timestamp" not in message:
        raise FastUnsupported("no timestamp: the reader stamps the time of reading")
    timestamp = message["timestamp"]
    if timestamp is None:
        raise FastUnsupported("a null timestamp")
    return int(timestamp)


_ONE_TEXT_BLOCK = (
    "one text block: phi-core cannot tell it from plain string content, which it comes back as"
)
_NO_OTHER = 'phi-core has no "other": stop (end_turn back)'
_I64_NEGATIVE = "negative: phi-core's u64 counter holds 0"
_NO_MODEL = "phi-core requires model; clark-agent has none: empty"
_NO_PROVIDER = "phi-core requires provider; clark-agent has none: empty"
_TOOL_RESULT_DROPPED = tuple(
    (key, f"phi-core's toolResult has no {key}") for key in ("narration", "details")
)


def _clamped(usage: dict[str, Any], place: Place, losses: PlacedLosses) -> tuple[int, ...]:
    """A usage with a negative counter: each one 0 (phi-core's u64), a loss each, in
    ``USAGE_FIELDS``' order; (input, output, cache write, cache read)."""
    counts: dict[str, int] = {}
    for clark_key, phi_key in USAGE_FIELDS.items():
        count = usage.get(clark_key, 0)
        if count < 0:
            losses.lose((((place, "usage"), clark_key), "changed", _I64_NEGATIVE))
            count = 0
        counts[phi_key] = count
    return counts["input"], counts["output"], counts["cache_write"], counts["cache_read"]


def _assistant(message: dict[str, Any], place: Place, losses: PlacedLosses) -> dict[str, Any]:
    timestamp = _timestamp(message)
    stop = message["stop_reason"]
    if stop == "other":
        losses.lose(
            (
                (place, "stop_reason"),
                "changed",
                'phi-core has no "other": stop (end_turn back)',
            )
        )
    losses.lose((place, "invented", _NO_MODEL))
    losses.lose((place, "invented", _NO_PROVIDER))
    usage = message.get("usage")
    if usage is None:
        if "usage" in message:
            raise FastUnsupported("a null usage")
        losses.lose((place, "invented", "no usage: phi-core requires one: all zero"))
        input_ = output = cache_write = cache_read = 0
    else:
        if not any(usage.values()):
            losses.lose(((place, "usage"), "changed", "all zero: it comes back as no usage at all"))
        get = usage.get
        input_ = get("input_tokens", 0)
        output = get("output_tokens", 0)
        cache_write = get("cache_creation_input_tokens", 0)
        cache_read = get("cache_read_input_tokens", 0)
        if input_ < 0 or output < 0 or cache_write < 0 or cache_read < 0:
            input_, output, cache_write, cache_read = _clamped(usage, place, losses)
    out: dict[str, Any] = {"content": _blocks(message["content"], (place, "content"), losses)}
    if "error_message" in message:
        error = message["error_message"]
        if error is None:
            raise FastUnsupported("a null error_message")
        out["error_message"] = error
    out["model"] = ""
    out["provider"] = ""
    out["role"] = "assistant"
    out["stopReason"] = STOP_REASON_TO_PHI[stop]
    out["timestamp"] = timestamp
    out["usage"] = {
        "cache_read": cache_read,
        "cache_write": cache_write,
        "input": input_,
        "output": output,
        "reasoning": 0,
        "total_tokens": 0,
    }
    return out


def _message(message: dict[str, Any], place: Place, losses: PlacedLosses) -> dict[str, Any]:
    role = message.get("role")
    if role == "assistant":
        return _assistant(message, place, losses)
    if role == "tool_result":
        timestamp = _timestamp(message)
        for key, reason in _TOOL_RESULT_DROPPED:
            if key in message:
                if message[key] is None:
                    raise FastUnsupported(f"a null {key}")
                losses.lose(((place, key), "dropped", reason))
        return {
            "content": _blocks(message["content"], (place, "content"), losses),
            "isError": message.get("is_error", False),
            "role": "toolResult",
            "timestamp": timestamp,
            "toolCallId": message["tool_call_id"],
            "toolName": message["tool_name"],
        }
    if role == "user":
        timestamp = _timestamp(message)
        content = message["content"]
        if type(content) is str:
            blocks = [{"text": content, "type": "text"}]
        else:
            if len(content) == 1 and content[0]["type"] == "text":
                losses.lose(((place, "content"), "changed", _ONE_TEXT_BLOCK))
            blocks = _blocks(content, (place, "content"), losses)
        return {"content": blocks, "role": "user", "timestamp": timestamp}
    if role == "system":
        data: dict[str, Any] = {"content": message["content"], "timestamp": _timestamp(message)}
        return {"role": "extension", "kind": SYSTEM_KIND, "data": data}
    if role == "custom":
        _timestamp(message)
        losses.lose(
            ((place, "timestamp"), "dropped", "phi-core's ExtensionMessage has no timestamp")
        )
        payload = _free(message.get("payload"), "payload", place, losses)
        return {"role": "extension", "kind": message["kind"], "data": payload}
    raise FastUnsupported(f"a message of role {role!r}")


def messages_to_phi(
    documents: list[dict[str, Any]], kind: str
) -> tuple[list[dict[str, Any]], PlacedLosses]:
    """History rows (``AgentMessage``) as phi-core messages, and the losses."""
    if kind != "AgentMessage":
        raise FastUnsupported(kind)
    losses = PlacedLosses()
    converted = [
        _message(document, (None, index), losses) for index, document in enumerate(documents)
    ]
    return converted, losses
