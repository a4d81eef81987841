"""What pi's two stream converters share: pi's values as ``JSON.parse`` sees them (plain dicts in
pi's key order: the converters work on pi's JSON, which both lines write alike), and the losses
of one conversion, each at its RFC 6901 pointer into the source document.

pi fact: pi writes no key it does not mean, and validates nothing, so a converter must name every
key it does not carry (``Losses.leftover``), including the keys a future pi adds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from phi_wire.convert import SORTED_BY_PHI_CORE, Loss, reordered_by_sorting
from phi_wire.convert import Losses as ConvertLosses
from phi_wire.pointer import extended as at

from ._shared import LONE_SURROGATE
from .codec import dumps
from .js_json import parse

__all__ = [
    "CUT_CHARACTER",
    "LONE_SURROGATE",
    "Losses",
    "SurrogateJoiner",
    "at",
    "clean_json",
    "clean_text",
    "js_view",
]

JsObject = dict[str, Any]


def js_view(value: Any) -> Any:
    """A pi model (or a list of them) as ``JSON.parse(JSON.stringify(value))``: dicts in pi's
    key order, lone surrogates kept."""
    if isinstance(value, list):
        return [js_view(item) for item in value]
    if isinstance(value, dict):
        return value
    return parse(dumps(value))


class Losses(ConvertLosses):
    """The losses of one stream's conversion, in the order they were found: the convert
    package's list of losses, with the streams' helpers."""

    def leftover(
        self, document: Mapping[str, Any], carried: Iterable[str], pointer: str, reason: str
    ) -> None:
        """A ``dropped`` loss for each key of ``document`` not in ``carried``: ``reason`` says
        where phi-core has no place for it (``{key}`` is replaced by the key)."""
        kept = set(carried)
        for key in document:
            if key not in kept:
                self.add(at(pointer, key), "dropped", reason.format(key=key))

    def free_form(self, value: Any, key: str, pointer: str) -> Any:
        """``value``, a free-form JSON value held at ``key`` of the object at ``pointer``:
        phi-core writes its objects' keys sorted, so a ``changed`` loss at the holder when that
        reorders it (never at the value: tool calls' arguments are kept whole)."""
        if reordered_by_sorting(value):
            self.add(pointer, "changed", SORTED_BY_PHI_CORE.format(key=key))
        return value

    def extend(self, losses: Iterable[Loss], prefix: str = "") -> None:
        """Losses of a part converted on its own, their pointers moved under ``prefix``."""
        super().extend(Loss(prefix + loss.pointer, loss.kind, loss.reason) for loss in losses)


CUT_CHARACTER = (
    "a character outside the BMP cut in two by pi's delta boundary (JavaScript slices UTF-16): "
    "phi-core's delta holds it whole ({which})"
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _joined_pairs(text: str) -> str:
    return _PAIR.sub(
        lambda pair: chr(0x10000 + ((ord(pair[0][0]) - 0xD800) << 10) + ord(pair[0][1]) - 0xDC00),
        text,
    )


def clean_text(text: str, pointer: str, losses: Losses) -> str:
    """``text`` as phi-core can hold it: each lone surrogate U+FFFD, a ``changed`` loss."""
    if _SURROGATE.search(text) is None:
        return text
    losses.add(pointer, "changed", LONE_SURROGATE)
    return _SURROGATE.sub("\ufffd", text)


def clean_json(value: Any, pointer: str, losses: Losses, skip: frozenset[str]) -> Any:
    """A pi JSON view with every string (and key) as phi-core can hold it (``clean_text``),
    the keys in ``skip`` left as they are (their converters see the raw text)."""
    if isinstance(value, str):
        return clean_text(value, pointer, losses)
    if isinstance(value, list):
        return [
            clean_json(item, at(pointer, index), losses, skip) for index, item in enumerate(value)
        ]
    if isinstance(value, dict):
        return {
            clean_text(key, at(pointer, key), losses): (
                item if key in skip else clean_json(item, at(pointer, key), losses, skip)
            )
            for key, item in value.items()
        }
    return value


class SurrogateJoiner:
    """Text deltas as phi-core can hold them: pi's deltas are JavaScript string slices, which
    can cut a character outside the BMP in two (a delta ends with a high surrogate, the next
    starts with its low one). A trailing high surrogate is held back and joined with the next
    delta of the same block; any surrogate still alone becomes U+FFFD (``clean_text``)."""

    def __init__(self) -> None:
        self._held: dict[Any, str] = {}

    def feed(self, block: Any, delta: str, pointer: str, losses: Losses) -> str:
        held = self._held.pop(block, "")
        text = _joined_pairs(held + delta)
        if held and text[:1] != held:
            losses.add(pointer, "changed", CUT_CHARACTER.format(which="its first half"))
        if text and "\ud800" <= text[-1] <= "\udbff":
            losses.add(pointer, "changed", CUT_CHARACTER.format(which="moved to the next delta"))
            self._held[block] = text[-1]
            text = text[:-1]
        return clean_text(text, pointer, losses)

    def flush(self, block: Any, pointer: str, losses: Losses) -> str:
        """What is still held for ``block`` (at its end): a lone high surrogate, as U+FFFD."""
        return clean_text(self._held.pop(block, ""), pointer, losses)
