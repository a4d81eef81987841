"""``sort_json`` (serde_json's BTreeMap order, run on every ``LlmMessage`` that ``dumps`` writes)
gives the plain recursive sort's result on any value: JSON values, subclasses of dict and list,
and values that are no JSON at all (returned as they are)."""

from __future__ import annotations

from collections import OrderedDict, UserList
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from phi_wire.serde import sort_json


def reference(value: Any) -> Any:
    """The plain recursive sort (sort_json as it was written before it was made faster)."""
    if isinstance(value, dict):
        return {key: reference(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [reference(item) for item in value]
    return value


class Listed(list[Any]):
    """A list subclass: sorted inside like a list."""


scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=5)
    | st.tuples(st.integers())  # not JSON: kept as it is
    | st.builds(UserList, st.lists(st.integers(), max_size=2))  # a list in name only
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=4), inner, max_size=4)
        | st.builds(OrderedDict, st.dictionaries(st.text(max_size=4), inner, max_size=3))
        | st.builds(Listed, st.lists(inner, max_size=3))
    ),
    max_leaves=20,
)


def shape(value: Any) -> Any:
    """The value with each dict's key order and each container's type made visible."""
    if isinstance(value, dict):
        return (type(value), [(key, shape(item)) for key, item in value.items()])
    if isinstance(value, list):
        return (type(value), [shape(item) for item in value])
    return (type(value), value)


@given(values)
def test_sort_json_sorts_exactly_as_the_plain_recursion(value: Any) -> None:
    assert shape(sort_json(value)) == shape(reference(value))


def test_sort_json_sorts_at_every_depth_and_keeps_scalars() -> None:
    value = {"b": [{"z": 1, "a": OrderedDict(y=True, x=None)}], "a": 1.5, "c": "é"}
    assert shape(sort_json(value)) == shape(
        {"a": 1.5, "b": [{"a": {"x": None, "y": True}, "z": 1}], "c": "é"}
    )
