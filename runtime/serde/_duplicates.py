"""Duplicate keys, as serde treats them.

Serde fact: a derived struct (or struct variant) rejects a repeated *known* field with
``duplicate field `x```; unknown keys may repeat; inside ``serde_json::Value`` (and so inside an
``LlmMessage``, which phi-core parses through ``Value``) the last occurrence wins. pydantic's JSON
parser always lets the last one win, so ``loads`` looks for the rejected case after validation,
also inside serde's sequence forms (``_sequence``), whose elements are the fields in order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from ..pointer import join
from ._sequence import positional_fields
from ._wire import LlmMessageBase

__all__ = ["Duplicate", "find_rejected_duplicate"]


@dataclass(frozen=True)
class Duplicate:
    pointer: str
    key: str


class _Pairs(list[tuple[str, Any]]):
    """A JSON object with its key/value pairs in document order, repeats kept."""


def _walk(raw: Any, value: Any, pointer: str) -> Duplicate | None:
    if isinstance(value, LlmMessageBase):
        return None  # parsed through serde_json::Value: last wins
    if isinstance(value, BaseModel) and isinstance(raw, _Pairs):
        fields = type(value).model_fields
        wire_names = {info.alias or name: name for name, info in fields.items()}
        seen: set[str] = set()
        last: dict[str, Any] = {}
        for key, item in raw:
            if key in wire_names and key in seen:
                return Duplicate(pointer, key)
            seen.add(key)
            last[key] = item
        for key, name in wire_names.items():
            if key in last:
                found = _walk(last[key], getattr(value, name), pointer + join(key))
                if found is not None:
                    return found
        return None
    if isinstance(value, BaseModel) and isinstance(raw, list) and not isinstance(raw, _Pairs):
        # a sequence form: element i is the i-th field (a tag, if any, is every variant's first)
        positions = positional_fields(type(value))
        for index, ((name, _), raw_item) in enumerate(zip(positions, raw, strict=False)):
            found = _walk(raw_item, getattr(value, name), f"{pointer}/{index}")
            if found is not None:
                return found
        return None
    if isinstance(value, list) and isinstance(raw, list) and not isinstance(raw, _Pairs):
        for index, (raw_item, item) in enumerate(zip(raw, value, strict=False)):
            found = _walk(raw_item, item, f"{pointer}/{index}")
            if found is not None:
                return found
    return None  # scalars, enums and serde_json::Value subtrees


def find_rejected_duplicate(raw: bytes, value: Any) -> Duplicate | None:
    """The first repeated key that serde would reject in ``raw`` (which repeats some key),
    parsed as ``value``."""
    return _walk(json.loads(raw, object_pairs_hook=_Pairs), value, "")
