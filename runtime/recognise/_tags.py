"""A tag as recognition reads it: serde and pydantic write the tag of a variant as a JSON string
(``"type": "text"``, ``"role": "user"``, ``"kind": "run_started"``), so a tag key that holds
anything else (an array, an object, a number, true, null) names no variant of any format.

Every recogniser reads its tags through ``tag_of``, never with ``document.get(key)``: a value that
is not a string is never looked up in a table of tags (an array or an object would not even hash,
and ``{"type": ["a"]}`` is JSON like any other: recognising it must not raise).
"""

from __future__ import annotations

from typing import Any

__all__ = ["tag_of"]


def tag_of(document: Any, key: str) -> str | None:
    """The string ``document[key]`` when ``document`` is a JSON object whose ``key`` holds a
    string; None otherwise (not an object, no such key, or a value of another kind)."""
    if isinstance(document, dict):
        value = document.get(key)
        if isinstance(value, str):
            return value
    return None
