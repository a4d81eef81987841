"""serde_json's number reading, applied to the JSON text before pydantic parses it.

Serde fact (serde_json 1.0.150, default features: no ``float_roundtrip``, no
``arbitrary_precision``): a number is read as u64 or i64 when it is an integer in range, else as
an f64 built by ``f64_from_parts``: the decimal significand (digits past u64 are dropped) times or
divided by an entry of a table of powers of ten. That differs from Python's correctly rounded
``float()`` in three ways that change what phi-core writes back:

* ``-0`` is the float ``-0.0``, not the integer 0;
* an integer above u64::MAX or below i64::MIN becomes an f64;
* some decimals are 1 ULP off (``123456789012345680000.0`` reads as ``1.2345678901234567e+20``),
  and ``1e400`` is an error ("number out of range"), not infinity.

``needs_rewrite`` tells, per lexeme, whether serde and Python disagree (``loads`` asks it from the
one ``json.loads`` pass it makes anyway, see ``_scan``); only then is the document tokenised and
those numbers rewritten to text that pydantic reads as exactly serde's value.
"""

from __future__ import annotations

import re

from .errors import json_syntax_error

__all__ = [
    "I64_MIN",
    "U64_MAX",
    "NumberOutOfRange",
    "needs_rewrite",
    "rewrite_numbers",
    "serde_f64",
    "serde_number",
]

U64_MAX = 2**64 - 1
I64_MIN = -(2**63)

# serde_json's POW10 table: the f64 nearest to each power of ten up to 1e308.
_POW10 = [float(f"1e{exponent}") for exponent in range(309)]

# The exact pass: strings are skipped whole, numbers are captured.
_TOKEN = re.compile(
    rb'"[^"\\]*(?:\\.[^"\\]*)*"|(?<![\w."])(-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)(?![\w.])'
    rb"|(?<![\w\"])(-?(?:NaN|Infinity))(?!\w)"
)


class NumberOutOfRange(ValueError):
    """serde_json rejects a number whose f64 would be infinite."""


def serde_f64(negative: bool, significand: int, exponent: int) -> float:
    """``f64_from_parts``: one rounding for the significand, one per power-of-ten step."""
    value = float(significand)
    while True:
        if abs(exponent) < len(_POW10):
            if exponent >= 0:
                value *= _POW10[exponent]
                if value == float("inf"):
                    raise NumberOutOfRange
            else:
                value /= _POW10[-exponent]
            break
        if value == 0.0:
            break
        if exponent >= 0:
            raise NumberOutOfRange
        value /= 1e308
        exponent += 308
    return -value if negative else value


def serde_number(lexeme: str) -> int | float:
    """The value serde_json reads for a JSON number lexeme (int when it fits u64/i64)."""
    negative = lexeme.startswith("-")
    body = lexeme[negative:]
    mantissa, _, exponent_text = body.replace("E", "e").partition("e")
    integer_part, dot, fraction = mantissa.partition(".")
    significand = 0
    exponent = 0
    overflowed = False
    for digit in integer_part:
        if overflowed:
            exponent += 1  # parse_long_integer: further integer digits only scale
            continue
        candidate = significand * 10 + int(digit)
        if candidate > U64_MAX:
            overflowed = True
            exponent += 1
            continue
        significand = candidate
    if not dot and not exponent_text and not overflowed:
        if not negative:
            return significand
        if significand == 0 or -significand < I64_MIN:
            return -float(significand)  # -0 and anything below i64::MIN become floats
        return -significand
    for digit in fraction:
        candidate = significand * 10 + int(digit)
        if overflowed or candidate > U64_MAX:
            overflowed = True  # parse_decimal_overflow: further digits are ignored
            continue
        significand = candidate
        exponent -= 1
    if exponent_text:
        literal = int(exponent_text)
        if abs(literal) > 2**31 - 1:  # parse_exponent_overflow
            if significand != 0 and literal > 0:
                raise NumberOutOfRange
            return -0.0 if negative else 0.0
        exponent += literal
    return serde_f64(negative, significand, exponent)


def _line_column(raw: bytes, offset: int) -> tuple[int, int]:
    line_start = raw.rfind(b"\n", 0, offset) + 1
    return raw.count(b"\n", 0, offset) + 1, offset - line_start + 1


def needs_rewrite(lexeme: str) -> bool:
    """True when serde reads this number lexeme as a different value than Python's json does.

    Cheap for the common case: short integers and short plain decimals are read alike.
    """
    if len(lexeme) < 16 and "e" not in lexeme and "E" not in lexeme:
        return lexeme == "-0"
    try:
        value = serde_number(lexeme)
    except NumberOutOfRange:
        return True
    python = float(lexeme) if ("." in lexeme or "e" in lexeme or "E" in lexeme) else int(lexeme)
    return type(value) is not type(python) or repr(value) != repr(python)


def _serde_text(raw: bytes, number: bytes, offset: int, type_name: str) -> bytes:
    """Text for one number lexeme that pydantic reads as exactly serde's value."""
    text = number.decode()
    try:
        value = serde_number(text)
    except NumberOutOfRange:
        line, column = _line_column(raw, offset)
        raise json_syntax_error(type_name, "number out of range", line, column) from None
    if isinstance(value, int):
        return number
    float_form = "." in text or "e" in text or "E" in text
    if float_form and repr(float(text)) == repr(value):
        return number  # pydantic reads the same double
    return repr(value).encode()


def rewrite_numbers(raw: bytes, type_name: str) -> bytes:
    """Rewrite every number token of ``raw`` whose serde value differs from Python's reading
    (``loads`` calls it only when ``_scan`` found such a number)."""

    def rewrite(match: re.Match[bytes]) -> bytes:
        number, non_finite = match.group(1), match.group(2)
        if non_finite is not None:
            line, column = _line_column(raw, match.start(2))
            raise json_syntax_error(type_name, "expected value", line, column)
        if number is None:
            return match.group(0)  # a string, skipped whole
        return _serde_text(raw, number, match.start(1), type_name)

    return _TOKEN.sub(rewrite, raw)
