"""serde_json's number reading (runtime/_numbers.py), checked against values phi-core produced."""

from __future__ import annotations

import pytest

from phi_wire import ToolCallContent, Usage, WireError, dumps, loads
from phi_wire._numbers import serde_number


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
    ],
)
def test_serde_number_values(lexeme: str, value: float) -> None:
    result = serde_number(lexeme)
    assert type(result) is type(value) and repr(result) == repr(value)


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
        with pytest.raises(WireError, match="floating point"):
            loads(Usage, text)
