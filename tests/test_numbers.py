"""serde_json's number reading (runtime/serde/_numbers.py), checked against values phi-core
produced."""

from __future__ import annotations

import contextlib
import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phi_wire import ToolCallContent, Usage, WireError, dumps, loads
from phi_wire.serde._numbers import NumberOutOfRange, needs_rewrite, rewrite_numbers, serde_number
from phi_wire.serde._scan import scan


@pytest.mark.parametrize(
    ("lexeme", "value"),
    [
        ("0", 0),
        ("-0", -0.0),
        ("18446744073709551615", 2**64 - 1),
        ("18446744073709551616", 1.8446744073709552e19),
        ("-9223372036854775808", -(2**63)),
        ("-9223372036854775809", -9.223372036854776e18),
        ("123456789012345678901234567890", 1.2345678901234568e29),
        ("123456789012345680000.0", 1.2345678901234567e20),  # 1 ULP below the exact value
        ("0e0", 0.0),
        ("10e-1", 1.0),
        ("5e-324", 5e-324),
        ("1.7976931348623157e308", 1.7976931348623157e308),
        ("1e-400", 0.0),
        ("0.30000000000000004", 0.30000000000000004),
        # the exponent's value counts, not its digits
        ("1e" + "0" * 4300 + "1", 10.0),
        ("-2.5E-" + "0" * 5000 + "1", -0.25),
        ("1e2147483647", None),  # i32::MAX itself: f64_from_parts, out of range
        ("1e2147483648", None),  # past i32::MAX with a non-zero significand: out of range
        ("0e2147483648", 0.0),  # ... with a zero significand: zero
        ("-1e-2147483648", -0.0),  # ... negative: zero, keeping the sign
        ("1" + "0" * 5000 + "e-5000", 1.0),  # 4981 extra integer digits only scale
        ("0." + "0" * 5000 + "1", 0.0),
        # after a too-long integer part, fraction digits join the significand while it fits
        ("1844674407370955161992.4783735156905544E-0018", 1844.6744073709551),
        ("-18446744073709551618.2666678313511323E-142", -1.844674407370955e-123),
    ],
)
def test_serde_number_values(lexeme: str, value: float | None) -> None:
    if value is None:
        with pytest.raises(NumberOutOfRange):
            serde_number(lexeme)
        return
    result = serde_number(lexeme)
    assert type(result) is type(value) and repr(result) == repr(value)


def test_any_lexeme_length_is_read_in_linear_time() -> None:
    """Python's int() refuses more than 4,300 digits; serde_number never converts long text."""
    for lexeme in ["9" * 1_000_000, "0." + "0" * 1_000_000 + "5", "1e" + "0" * 1_000_000 + "3"]:
        start = time.perf_counter()
        needs_rewrite(lexeme)
        with contextlib.suppress(NumberOutOfRange):
            serde_number(lexeme)
        assert time.perf_counter() - start < 1.0  # about 5 ms; quadratic would be minutes
    assert serde_number("1e" + "0" * 1_000_000 + "3") == 1000.0


def test_long_lexemes_are_rewritten_to_serdes_value() -> None:
    """pydantic's parser gives up on integer parts past 4,300 digits: serde reads 1.0 here."""
    text = "1" + "0" * 5000 + "e-5000"
    assert needs_rewrite(text)
    assert arguments(f'{{"x":{text}}}').endswith('"arguments":{"x":1.0}}')


def arguments(text: str) -> str:
    return dumps(
        loads(ToolCallContent, f'{{"type":"toolCall","id":"c","name":"n","arguments":{text}}}')
    )


def test_rewrites_apply_only_outside_strings() -> None:
    assert arguments('{"s":"-0, 18446744073709551616, 1e400","n":-0}').endswith(
        '{"n":-0.0,"s":"-0, 18446744073709551616, 1e400"}}'
    )


@pytest.mark.parametrize("text", ["[1e400]", "[-1e309]", "[NaN]", "[Infinity]", "[-Infinity]"])
def test_out_of_range_and_non_finite_are_errors(text: str) -> None:
    with pytest.raises(WireError, match="invalid JSON"):
        arguments(text)


def test_u64_field_rejects_what_serde_reads_as_float() -> None:
    for text in ['{"input":-0,"output":1}', '{"input":18446744073709551616,"output":1}']:
        with pytest.raises(WireError, match="serde_json reads as floating point"):
            loads(Usage, text)


@pytest.mark.parametrize(
    ("number", "stop"),
    [
        ("1e400", "1e400"),  # serde stops at the last digit
        ("1e00021474836489", "1e0002147483648"),  # ... or at the exponent digit that overflows
        ("-1e21474836470", "-1e21474836470"),
    ],
)
def test_out_of_range_is_reported_where_serde_stops(number: str, stop: str) -> None:
    text = f'{{"type":"toolCall","id":"c","name":"n","arguments":[0,{number}]}}'
    with pytest.raises(WireError, match="number out of range") as caught:
        loads(ToolCallContent, text)
    assert (caught.value.line, caught.value.column) == (1, text.index(number) + len(stop))


NUMBER_TEXT = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(
        ["-0", "-0.0", "0e0", "1E400", "1e-400", "123456789012345680000.0", "-9223372036854775809"]
    ),
    st.from_regex(r"-?[1-9][0-9]{0,22}(\.[0-9]{1,22})?([eE][+-]?[0-9]{1,3})?", fullmatch=True),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["a", "id", "6e3d-0a"]), NUMBER_TEXT), max_size=4),
    st.sampled_from([",", ", ", ",\n  "]),
    st.sampled_from([":", ": "]),
    st.sampled_from(
        [
            r'"2026-05-25T09:41:07Z 6e3d"',
            r'"quoted \": -0, [1e5, 18446744073709551616 x"',
            r'"C:\\dir\\ \": -0, 1e400"',
        ]
    ),
)
def test_scan_flags_exactly_the_documents_that_need_a_rewrite(
    pairs: list[tuple[str, str]], comma: str, colon: str, text: str
) -> None:
    """loads rewrites numbers only when the scan says so: it must never miss one."""
    body = comma.join(f'"{key}"{colon}{number}' for key, number in pairs)
    raw = ('{"s":' + text + (comma + body if body else "") + "}").encode()
    json.loads(raw)  # the document is JSON, so both passes see real tokens
    found = scan(raw)
    assert found is not None
    try:
        rewritten = rewrite_numbers(raw, "T")
    except WireError:
        assert found.numbers_differ
        return
    assert found.numbers_differ == (rewritten != raw)
