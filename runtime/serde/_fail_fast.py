"""Judging an invalid document at a bounded cost: the same validator, but each array stops at its
first invalid item.

pydantic reports every failing item of every array, each error holding a copy of its input: a
300 kB session of 100,000 empty loops makes a million errors and half a gigabyte before any of
them is looked at. With pydantic-core's own ``fail_fast`` on every array the verdict is the same
(an array is valid exactly when every item is) and the errors are those of each array's first
failing item, so their number is bounded by the schema, not by the document.

pydantic-core builds a ``model`` node from the model class's own validator when the class is
complete (built: once a model was made or validated directly), ignoring the node's inner schema,
and so the ``fail_fast`` set there: a program that had made a ``Turn`` got every error of every
item again. Such classes are marked incomplete while this validator is built, and complete again
right after (under a lock; meanwhile pydantic at worst builds another validator of its own).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from pydantic_core import SchemaValidator

from ..primitives import adapter

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


def _model_classes(node: Any) -> set[type]:
    """The classes of the ``model`` nodes of a core schema."""
    if isinstance(node, Mapping):
        found = {cls for value in node.values() for cls in _model_classes(value)}
        if node.get("type") == "model" and isinstance(node.get("cls"), type):
            found.add(node["cls"])
        return found
    if isinstance(node, list):
        return {cls for item in node for cls in _model_classes(item)}
    return set()


_BUILDING = threading.Lock()


@contextmanager
def _built_from_the_schema(classes: set[type]) -> Iterator[None]:
    """While the block runs, none of ``classes`` counts as complete to pydantic-core (see above)."""
    with _BUILDING:
        complete = [cls for cls in classes if cls.__dict__.get("__pydantic_complete__") is True]
        for cls in complete:
            cls.__pydantic_complete__ = False  # type: ignore[attr-defined]
        try:
            yield
        finally:
            for cls in complete:
                cls.__pydantic_complete__ = True  # type: ignore[attr-defined]


def fail_fast_validator(tp: Any) -> SchemaValidator:
    """The validator of ``tp`` whose arrays stop at their first invalid item (built once)."""
    entry = _VALIDATORS.get(id(tp))
    if entry is None or entry[0] is not tp:
        schema = _failing_fast(adapter(tp).core_schema)
        with _built_from_the_schema(_model_classes(schema)):
            validator = SchemaValidator(schema)
        entry = _VALIDATORS[id(tp)] = (tp, validator)
    return entry[1]
