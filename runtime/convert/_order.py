"""phi-core holds every free-form JSON value (tool-call arguments, an extension's data, a tool
result's details) as a ``serde_json::Value``, whose objects are ``BTreeMap``\\ s: it writes their
keys sorted. clark-agent and Operator-Use keep an object's keys in the order they were given, so a
value taken into phi-core and back comes back reordered: a ``changed`` loss, once per value, at
the object that holds the value (its reason names the key: a loss never names a tool call's
arguments themselves, which are kept whole)."""

from __future__ import annotations

import itertools
from typing import Any

__all__ = ["SORTED_BY_PHI_CORE", "reordered_by_sorting", "with_sorted_keys"]

SORTED_BY_PHI_CORE = (
    "phi-core writes {key}'s object keys sorted (a serde_json::Value): their order is not kept"
)
"""The reason of the loss of a free-form value whose keys phi-core reorders (``{key}``: where the
holding object has it)."""


def reordered_by_sorting(value: Any) -> bool:
    """Whether writing ``value`` (JSON, or a model's plain dict/list) with every object's keys
    sorted changes its order."""
    if isinstance(value, dict):
        keys = list(value)
        if any(a > b for a, b in itertools.pairwise(keys)):
            return True
        return any(reordered_by_sorting(item) for item in value.values())
    if isinstance(value, list):
        return any(reordered_by_sorting(item) for item in value)
    return False


def with_sorted_keys(value: Any) -> Any:
    """``value`` (JSON) with every object's keys sorted, as phi-core writes it (a copy where an
    object is reordered; the value itself where nothing is)."""
    if not reordered_by_sorting(value):
        return value
    if isinstance(value, dict):
        return {key: with_sorted_keys(value[key]) for key in sorted(value)}
    return [with_sorted_keys(item) for item in value]
