"""Operator-Use fact: its reader (pydantic on Python's ``json``) reads ``NaN``, ``Infinity`` and
``-Infinity`` (and ``1e400``; ``"inf"`` in a typed float) as floats, which its writer writes as
``null``; phi-core's reader (serde_json) holds no such number. So a conversion to phi-core reads
the JSON of a model (its writer's, ``dumps``) with each such float put back where the writer wrote
``null`` (``source_json``), and each one carried into phi-core is written as null with a
``changed`` loss at its pointer (``null_carried``). The others go with the field holding them (a
tool call's metadata, a cost: ``dropped``) or become a phi-core value with its own loss (a
timestamp: 0 ms). The dict converters refuse such floats (``_fast.free_value``, ``number``).
Written as Operator-Use (a same-format conversion), each is a loss too (``written_changes``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from phi_wire.convert import Place, PlacedLosses
from phi_wire.pointer import escape

__all__ = ["NOT_HELD", "WRITTEN_AS_NULL", "null_carried", "source_json", "written_changes"]

NOT_HELD = "NaN/Infinity: phi-core cannot hold it: written as null"
"""The reason of the ``changed`` loss at a non-finite float carried into phi-core."""


def source_json(values: Sequence[Any], dumps: Callable[[Any], str]) -> tuple[list[Any], bool]:
    """The JSON of each of ``values`` as Operator-Use's writer writes it (``dumps``), read in one
    parse, each non-finite float its writer wrote as ``null`` put back; and whether any was."""
    texts = [dumps(value) for value in values]
    documents: list[Any] = json.loads("[" + ",".join(texts) + "]")
    found = False
    for index, text in enumerate(texts):
        if "null" in text:  # the writer's only way to write a non-finite float (rare: a look)
            found |= _put_back(documents[index], values[index].model_dump())
    return documents, found


def _put_back(document: Any, value: Any) -> bool:
    """Puts each non-finite float of ``value`` (the Python form of the model ``document`` is the
    JSON of) back where ``document`` holds null; whether any was."""
    pairs: Iterable[tuple[Any, Any, Any]]
    if type(document) is dict and isinstance(value, dict):
        pairs = ((key, item, value.get(key)) for key, item in document.items())
    elif type(document) is list and isinstance(value, list | tuple) and len(value) == len(document):
        pairs = zip(range(len(document)), document, value, strict=True)
    else:
        return False
    found = False
    for key, item, held in pairs:  # a key's value replaced, none added: the walk holds
        if item is None:
            if type(held) is float and not math.isfinite(held):
                document[key] = held
                found = True
        elif type(item) is dict or type(item) is list:
            found |= _put_back(item, held)
    return found


def null_carried(
    place: Place, message: dict[str, Any], second_lane: bool, losses: PlacedLosses
) -> None:
    """Writes as null each non-finite float of an Operator-Use message's JSON (``source_json``'s)
    that phi-core would carry (a second-lane message whole, as extension data; a tool call's
    arguments), a ``changed`` loss at each; and its timestamp, whose loss the conversion gives
    (0 ms). The other fields' floats stay: their conversion drops them with a loss."""
    if second_lane:
        _null_in(place, message, losses)
        return
    if not _finite(message.get("timestamp")):
        message["timestamp"] = None
    contents_at: Place = (place, "contents")
    for index, block in enumerate(message.get("contents", ())):
        if block.get("type") == "tool_call":
            _null_in(((contents_at, index), "args"), block["args"], losses)


def _finite(value: Any) -> bool:
    return type(value) is not float or math.isfinite(value)


def _null_in(place: Place, value: Any, losses: PlacedLosses) -> None:
    items = (
        value.items() if type(value) is dict else enumerate(value) if type(value) is list else ()
    )
    for key, item in items:
        if type(item) is float and not math.isfinite(item):
            value[key] = None
            losses.lose((place, key, "changed", NOT_HELD))
        elif type(item) is dict or type(item) is list:
            _null_in((place, key), item, losses)


WRITTEN_AS_NULL = "NaN/Infinity: Operator-Use's writer cannot write it: written as null"
"""The reason of the ``changed`` loss at a non-finite float of an Operator-Use value written as
Operator-Use (a same-format conversion: its reader read it, its writer writes ``null``)."""


def written_changes(value: Any, texts: Sequence[str]) -> list[tuple[str, str, str]]:
    """(pointer, kind, reason) of each non-finite float of ``value`` (a model, or a list of them:
    a JSONL file's, a session file's entries), which Operator-Use's writer wrote as ``null`` in
    ``texts`` (what it wrote: none has a ``null``, none to look for)."""
    if not any("null" in text for text in texts):
        return []
    items = enumerate(value) if isinstance(value, list) else (("", value),)
    return [
        (pointer, "changed", WRITTEN_AS_NULL)
        for index, item in items
        for pointer in _non_finite_in(item.model_dump(), f"/{index}" if index != "" else "")
    ]


def _non_finite_in(value: Any, pointer: str) -> Iterator[str]:
    if type(value) is float and not math.isfinite(value):
        yield pointer
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _non_finite_in(item, f"{pointer}/{escape(str(key))}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _non_finite_in(item, f"{pointer}/{index}")
