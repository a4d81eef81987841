"""The toolkit every format's recogniser reads a document with (``phi_wire.recognise`` asks each
format folder's ``recognise`` module; both import this, which imports nothing of phi-wire).

* ``tag_of``: a tag as recognition reads it. serde and pydantic write the tag of a variant as a
  JSON string (``"type": "text"``, ``"role": "user"``, ``"kind": "run_started"``), so a tag key
  that holds anything else (an array, an object, a number, true, null) names no variant of any
  format. Every recogniser reads its tags through ``tag_of``, never with ``document.get(key)``: a
  value that is not a string is never looked up in a table of tags (an array or an object would
  not even hash, and ``{"type": ["a"]}`` is JSON like any other: recognising it must not raise).
* ``unit_enum``: a bare JSON string as a unit enum: serde (and pydantic) write a unit variant as
  its name alone, so ``"stop"`` or ``"end_turn"`` is recognised by which of a format's enums has
  that name.
* ``parse``: JSON parsed for recognition, as leniently about UTF-8 as serde_json may be: a byte
  that is not UTF-8 stands in as U+FFFD. serde_json skips an unknown key's value without checking
  its UTF-8 (``ignore_str``, see ``phi_wire.serde``'s ``_ignored``), so bytes that are not UTF-8
  do not make a document invalid by themselves: only the format's ``loads`` can say. Python's
  ``json.loads`` refuses such bytes outright; reading them as U+FFFD keeps the document's shape
  (the byte can only be inside a string: anywhere else it is a syntax error either way), so its
  format and type are recognised as for any other document.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["parse", "tag_of", "unit_enum"]


def tag_of(document: Any, key: str) -> str | None:
    """The string ``document[key]`` when ``document`` is a JSON object whose ``key`` holds a
    string; None otherwise (not an object, no such key, or a value of another kind)."""
    if isinstance(document, dict):
        value = document.get(key)
        if isinstance(value, str):
            return value
    return None


def unit_enum(value: object, enums: Mapping[str, tuple[str, ...]]) -> str | None:
    """The first enum of ``enums`` (name: its variants' wire names) naming ``value``, else None
    (always None for a value that is not a string: a unit variant is written as its name)."""
    if not isinstance(value, str):
        return None
    for enum, names in enums.items():
        if value in names:
            return enum
    return None


def parse(raw: bytes | str) -> Any:
    """``json.loads(raw)``, except that bytes that are not UTF-8 read as U+FFFD; ``ValueError``
    (or ``RecursionError``) when ``raw`` is not one JSON value."""
    try:
        return json.loads(raw)
    except UnicodeDecodeError:
        if isinstance(raw, str):
            raise
        return json.loads(raw.decode("utf-8", "replace"))
