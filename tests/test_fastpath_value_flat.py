"""Any JSON value (``_pattern._value``: tool arguments, details, pi's tools' JSON Schemas) is one
flat alternation, each alternative told by its first byte, where the scalars were a group nested
in it (issue 21, goal 1: some 5% less time on pi's system messages). The order of alternatives
that start with different bytes changes nothing matched: checked here against the nested form,
over generated values (compact, as the formats write them) and edits of them, for serde's
expression (phi-core, clark-agent) and pi's.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from phi_wire.fastpath._js import JS_STRING, JS_VALUE_DEPTH
from phi_wire.fastpath._pattern import _LAX_NUMBER, _NUMBER, _STRING, VALUE_DEPTH, _array, _value

SERDE = (VALUE_DEPTH, _NUMBER, _STRING, 1)
PI = (JS_VALUE_DEPTH, _LAX_NUMBER, JS_STRING, 2)


@functools.cache
def nested(depth: int, number: bytes, string: bytes, array_depth: int) -> bytes:
    """The form before: the scalars a group, then arrays, then objects."""
    scalar = rb"(?:" + string + rb"|" + number + rb"|true|false|null)"
    if depth <= 0:
        return scalar
    inner = nested(depth - 1, number, string, array_depth)
    items = nested(depth - array_depth, number, string, array_depth)
    obj = rb"\{(?:" + string + rb":" + inner + rb"(?:,(?=[^}])|(?=\})))*+\}"
    return rb"(?:" + scalar + rb"|" + _array(items) + rb"|" + obj + rb")"


EXPRESSIONS = {
    name: (re.compile(_value(*form)), re.compile(nested(*form)))
    for name, form in (("serde", SERDE), ("pi", PI))
}

texts = st.text(alphabet=st.sampled_from('ab"\\\n\t\x7fé/ u0'), max_size=6)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**22), 10**22),
    st.floats(allow_nan=False, allow_infinity=False),
    texts,
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(texts, inner, max_size=4)),
    max_leaves=25,
)


def edits(text: bytes, cut: int) -> list[bytes]:
    """The text, and the text with one byte dropped, doubled or replaced at ``cut``."""
    if not text:
        return [text]
    at = cut % len(text)
    return [
        text,
        text[:at] + text[at + 1 :],
        text[: at + 1] + text[at:],
        text[:at] + b"," + text[at + 1 :],
        text[:at] + b"]" + text[at + 1 :],
    ]


@settings(max_examples=400, deadline=None)
@given(value=values, cut=st.integers(0, 10**6), ascii_only=st.booleans())
def test_the_flat_value_matches_what_the_nested_one_matched(
    value: Any, cut: int, ascii_only: bool
) -> None:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=ascii_only).encode()
    for flat, reference in EXPRESSIONS.values():
        for edited in edits(text, cut):
            assert (flat.fullmatch(edited) is None) == (reference.fullmatch(edited) is None)


def test_values_deep_to_the_limit_and_past_it() -> None:
    """Nested objects and arrays at each format's depth limit are matched, one level more are
    not, alike in both forms."""
    for name, (depth, *_rest) in (("serde", SERDE), ("pi", PI)):
        flat, reference = EXPRESSIONS[name]
        for wrap in ('{"k":%s}', "[%s]"):
            text = "1"
            results = []
            for _ in range(depth + 3):
                text = wrap % text
                encoded = text.encode()
                results.append(flat.fullmatch(encoded) is not None)
                assert results[-1] == (reference.fullmatch(encoded) is not None), (name, text)
            assert results[0] and not results[-1], (name, wrap, results)
