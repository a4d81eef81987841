"""``serde_json::Value`` written as serde writes it: object keys sorted at every depth.

Serde fact: serde_json's ``Value`` holds an object as a ``BTreeMap`` (phi-core does not enable
``preserve_order``), so its keys are written in byte order wherever they came from; phi-core
writes its whole ``LlmMessage`` through a ``Value`` too. UTF-8 byte order equals code point
order, which is how Python compares ``str``.

``sort_json`` sorts a value; ``sorted_json``, what every ``JsonValue`` is written with, returns a
value already in order as it is (phi-core's own documents, read or built, are), without a copy.
"""

from __future__ import annotations

from typing import Any

from ._interrupts import PASS_THROUGH, note_passing

__all__ = ["SORTED_VALUE_WRITER", "sort_json", "sorted_json"]


_LEAVES = frozenset({str, int, float, bool, type(None)})
"""Types ``sort_json`` returns as they are, known without a call (most values of a message)."""


def sort_json(value: Any) -> Any:
    """Return ``value`` with every object's keys in byte order, as serde_json's BTreeMap does.

    It runs on every ``LlmMessage`` pydantic's own serializer writes (``LlmMessageBase``) and on
    every ``JsonValue`` out of order, so plain dicts, lists and scalars are told apart by their
    exact type and a scalar costs no call; a subclass of dict or list takes the general way,
    with the same result.
    """
    kind = type(value)
    if kind is dict:
        # keys are unique: sorting the items compares keys only
        return {
            key: item if type(item) in _LEAVES else sort_json(item)
            for key, item in sorted(value.items())
        }
    if kind is list:
        return [item if type(item) in _LEAVES else sort_json(item) for item in value]
    if kind in _LEAVES:
        return value
    if isinstance(value, dict):
        return {key: sort_json(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [sort_json(item) for item in value]
    return value


def _in_order(value: Any) -> bool:
    """Whether ``value`` is plain JSON (exact dicts, lists and scalars) whose every object already
    has its keys in byte order: what phi-core's own documents hold, read or built, since serde
    writes them sorted. Keys and the types of leaves are compared in C (``sorted``,
    ``map(type, ...)``); only containers inside containers cost a Python call."""
    kind = type(value)
    if kind is dict:
        keys = list(value)
        if keys != sorted(keys):
            return False
        items: Any = value.values()
    elif kind is list:
        items = value
    else:
        return kind in _LEAVES
    return _LEAVES.issuperset(map(type, items)) or all(map(_in_order, items))


def sorted_json(value: Any) -> Any:
    """``sort_json(value)`` without the copy when ``value`` is plain JSON already in order
    (``_in_order``): written, the two are the same text. It writes every ``JsonValue``.

    One Python function for pydantic to call (no ``keeps`` wrapper: it notes an interrupt
    itself), and the common case, a flat object in order, decided without another call.
    """
    try:
        if type(value) is dict:
            keys = list(value)
            if keys == sorted(keys) and _LEAVES.issuperset(map(type, value.values())):
                return value
        return value if _in_order(value) else sort_json(value)
    except PASS_THROUGH as error:  # what ``keeps`` does: pydantic may drop it (``_interrupts``)
        note_passing(error)
        raise


SORTED_VALUE_WRITER = sorted_json
"""The one serializer function of every ``JsonValue`` (``_write`` finds it by identity)."""
