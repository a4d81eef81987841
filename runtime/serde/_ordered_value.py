"""``serde_json::Value`` with serde_json's ``preserve_order`` feature (clark-agent enables it).

Serde fact: with ``preserve_order`` a ``Value`` object is an ``IndexMap``: its keys are written in
the order they were read (or inserted), at every depth, instead of sorted; a key repeated in the
input keeps its *first* position and takes its *last* value (``IndexMap::insert``). pydantic's
JSON parser builds Python dicts the same way (a repeated key is assigned again in place), and a
dict keeps insertion order, so reading needs nothing; writing must simply not sort (compare
``JsonValue``, the default ``BTreeMap`` Value, which sorts).

Integers outside [i64::MIN, u64::MAX] are f64 in a Value, as without the feature.
"""

from __future__ import annotations

from typing import Annotated, Any

from ._wire import JSON_VALUE_CHECK

__all__ = ["OrderedJsonValue"]

OrderedJsonValue = Annotated[Any, JSON_VALUE_CHECK]
"""serde_json::Value with preserve_order: any JSON; keys written in insertion order."""
