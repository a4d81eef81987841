"""Judging an invalid document at a bounded cost: the same validator, but each array stops at its
first invalid item.

pydantic reports every failing item of every array, each error holding a copy of its input: a
300 kB session of 100,000 empty loops makes a million errors and half a gigabyte before any of
them is looked at. With pydantic-core's own ``fail_fast`` on every array the verdict is the same
(an array is valid exactly when every item is) and the errors are those of each array's first
failing item, so their number is bounded by the schema, not by the document.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic_core import SchemaValidator

from ._codec import adapter

__all__ = ["fail_fast_validator"]

_ARRAYS = frozenset({"list", "tuple", "set", "frozenset", "deque"})
"""The core schemas that take ``fail_fast``."""

# By identity, as ``adapter`` keeps its TypeAdapters.
_VALIDATORS: dict[int, tuple[Any, SchemaValidator]] = {}


def _failing_fast(node: Any) -> Any:
    """A copy of a core schema with ``fail_fast`` set on every array."""
    if isinstance(node, Mapping):
        copied = {key: _failing_fast(value) for key, value in node.items()}
        kind = copied.get("type")  # (in a model's fields, "type" may name a field)
        if isinstance(kind, str) and kind in _ARRAYS:
            copied["fail_fast"] = True
        return copied
    if isinstance(node, list):
        return [_failing_fast(item) for item in node]
    return node


def fail_fast_validator(tp: Any) -> SchemaValidator:
    """The validator of ``tp`` whose arrays stop at their first invalid item (built once)."""
    entry = _VALIDATORS.get(id(tp))
    if entry is None or entry[0] is not tp:
        schema = _failing_fast(adapter(tp).core_schema)
        entry = _VALIDATORS[id(tp)] = (tp, SchemaValidator(schema))
    return entry[1]
