"""serde_json's number reading, applied to the JSON text before pydantic parses it.

Serde fact (serde_json 1.0.150, default features: no ``float_roundtrip``, no
``arbitrary_precision``): a number is read as u64 or i64 when it is an integer in range, else as
an f64 built by ``f64_from_parts``: the decimal significand (digits past u64 are dropped) times or
divided by an entry of a table of powers of ten. That differs from Python's correctly rounded
``float()`` in ways that change what phi-core accepts or writes back:

* ``-0`` is the float ``-0.0``, not the integer 0;
* an integer above u64::MAX or below i64::MIN becomes an f64;
* some decimals are 1 ULP off (``123456789012345680000.0`` reads as ``1.2345678901234567e+20``),
  and ``1e400`` is an error ("number out of range"), not infinity (except in an unknown key's
  value, which serde skips unread: see ``_ignored``);
* the exponent's value counts, not its digits (``1e0000000001`` is 10.0); past i32::MAX it reads
  as zero, or is out of range for a non-zero significand and a positive exponent;
* after an integer part too long for u64, fraction digits still join the significand while it
  fits (``18446744073709551616.0`` has the significand 18446744073709551610).

``needs_rewrite`` tells, per lexeme, whether serde and pydantic read it differently (``loads``
asks it from the one ``json.loads`` pass it makes anyway, see ``_scan``); only then is the
document tokenised and those numbers rewritten to text that pydantic reads as exactly serde's
value. Every function here takes a lexeme of any length in time linear in it (Python's 4,300-digit
limit on ``int()`` never applies: no long digit string is converted).
"""

from __future__ import annotations

import re

from ..errors import json_syntax_error

__all__ = [
    "I64_MIN",
    "U64_MAX",
    "NumberOutOfRange",
    "describe_lexeme",
    "needs_rewrite",
    "rewrite_numbers",
    "serde_f64",
    "serde_number",
]

U64_MAX = 2**64 - 1
I64_MIN = -(2**63)
_I32_MAX = 2**31 - 1
_I32_MIN = -(2**31)

# serde_json's POW10 table: the f64 nearest to each power of ten up to 1e308.
_POW10 = [float(f"1e{exponent}") for exponent in range(309)]

# Longer lexemes are always rewritten to serde's value: pydantic's parser gives up on integer
# parts past 4,300 digits, and short text is cheaper to read anyway.
_LONG_LEXEME = 100

_LEXEME = re.compile(r"(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?)([0-9]+))?")

# The exact pass: strings are skipped whole, numbers are captured.
_TOKEN = re.compile(
    rb'"[^"\\]*(?:\\.[^"\\]*)*"|(?<![\w."])(-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)(?![\w.])'
    rb"|(?<![\w\"])(-?)(NaN|Infinity)(?!\w)"
)


class NumberOutOfRange(ValueError):
    """serde_json rejects a number whose f64 would be infinite ("number out of range")."""

    def __init__(self, offset: int) -> None:
        super().__init__("number out of range")
        self.offset = offset
        """Where serde stops, from the lexeme's start: its error column is this character's."""


def serde_f64(negative: bool, significand: int, exponent: int) -> float:
    """``f64_from_parts``: one rounding for the significand, one per power-of-ten step.

    Raises ``NumberOutOfRange`` (its offset is left to the caller) when the value is infinite.
    """
    value = float(significand)
    while True:
        if abs(exponent) < len(_POW10):
            if exponent >= 0:
                value *= _POW10[exponent]
                if value == float("inf"):
                    raise NumberOutOfRange(0)
            else:
                value /= _POW10[-exponent]
            break
        if value == 0.0:
            break
        if exponent >= 0:
            raise NumberOutOfRange(0)
        value /= 1e308  # at most three rounds before a u64 significand underflows to zero
        exponent += 308
    return -value if negative else value


def _fitting_prefix(digits: str) -> int:
    """How many leading digits serde accumulates before the next one would overflow a u64
    (``digits`` starts with a non-zero digit, or is "0")."""
    if len(digits) < 20:
        return len(digits)
    return 20 if int(digits[:20]) <= U64_MAX else 19


def _absorb_fraction(significand: int, fraction: str) -> tuple[int, int]:
    """``parse_decimal``'s loop: (significand, fraction digits absorbed into it)."""
    if significand == 0:
        nonzero = fraction.lstrip("0")  # zeros never overflow a zero significand
        absorbed = len(fraction) - len(nonzero)
        if not nonzero:
            return 0, absorbed
        kept = _fitting_prefix(nonzero)
        return int(nonzero[:kept]), absorbed + kept
    absorbed = 0
    for digit in fraction:  # at most 20 rounds: a non-zero significand grows tenfold each
        candidate = significand * 10 + ord(digit) - 48
        if candidate > U64_MAX:
            break  # parse_decimal_overflow: the rest is ignored
        significand = candidate
        absorbed += 1
    return significand, absorbed


def _integer_value(negative: bool, significand: int) -> int | float:
    if not negative:
        return significand
    if significand == 0 or -significand < I64_MIN:
        return -float(significand)  # -0 and anything below i64::MIN become floats
    return -significand


def serde_number(lexeme: str) -> int | float:
    """The value serde_json reads for a JSON number lexeme (int when it fits u64/i64).

    Raises ``NumberOutOfRange`` where serde_json does, ``ValueError`` for text that is not a JSON
    number.
    """
    match = _LEXEME.fullmatch(lexeme)
    if match is None:
        raise ValueError(f"not a JSON number: {lexeme[:40]!r}")
    sign, integer, fraction, exponent_sign, exponent_digits = match.groups()
    negative = sign == "-"
    kept = _fitting_prefix(integer)
    significand = int(integer[:kept])
    exponent = len(integer) - kept  # parse_long_integer: further integer digits only scale
    if fraction is None and exponent_digits is None and exponent == 0:
        return _integer_value(negative, significand)
    if fraction is not None:
        significand, absorbed = _absorb_fraction(significand, fraction)
        exponent -= absorbed
    if exponent_digits is not None:
        value_digits = exponent_digits.lstrip("0") or "0"
        if len(value_digits) > 10 or int(value_digits) > _I32_MAX:  # parse_exponent_overflow
            if significand != 0 and exponent_sign != "-":
                leading_zeros = len(exponent_digits) - len(value_digits)
                significant = 10 if int(value_digits[:10]) <= _I32_MAX else 9
                raise NumberOutOfRange(match.start(5) + leading_zeros + significant)
            return -0.0 if negative else 0.0
        literal = int(value_digits)
        exponent += -literal if exponent_sign == "-" else literal
        exponent = max(_I32_MIN, min(_I32_MAX, exponent))  # saturating_add / saturating_sub
    try:
        return serde_f64(negative, significand, exponent)
    except NumberOutOfRange:
        raise NumberOutOfRange(len(lexeme) - 1) from None


def _line_column(raw: bytes, offset: int) -> tuple[int, int]:
    line_start = raw.rfind(b"\n", 0, offset) + 1
    return raw.count(b"\n", 0, offset) + 1, offset - line_start + 1


def _python_reading(lexeme: str) -> int | float:
    """What pydantic's parser reads for a lexeme shorter than ``_LONG_LEXEME`` (it agrees with
    Python's ``int``/``float`` there)."""
    if "." in lexeme or "e" in lexeme or "E" in lexeme:
        return float(lexeme)
    return int(lexeme)


def needs_rewrite(lexeme: str) -> bool:
    """True when serde reads this number lexeme as a different value than pydantic does (or
    rejects it).

    Cheap for the common case: short integers and short plain decimals are read alike.
    """
    if len(lexeme) < 16 and "e" not in lexeme and "E" not in lexeme and "." not in lexeme:
        return lexeme == "-0"
    if len(lexeme) > _LONG_LEXEME:
        return True
    try:
        value = serde_number(lexeme)
    except NumberOutOfRange:  # the rewrite reports where
        return True
    python = _python_reading(lexeme)
    return type(value) is not type(python) or repr(value) != repr(python)


def _short(lexeme: str) -> str:
    if len(lexeme) <= 40:
        return lexeme
    return f"{lexeme[:24]}...({len(lexeme)} characters)"


def describe_lexeme(lexeme: str) -> str | None:
    """The number as written, and how serde reads it, for a lexeme that ``loads`` rewrote
    (e.g. ``integer 18446744073709551616, which serde_json reads as floating point
    1.8446744073709552e+19``); None when it needs no rewrite."""
    if not needs_rewrite(lexeme):
        return None
    try:
        value = serde_number(lexeme)
    except NumberOutOfRange:
        return None  # rejected before validation: never found in a validation error
    form = "floating point" if "." in lexeme or "e" in lexeme or "E" in lexeme else "integer"
    read = f"floating point {value!r}" if isinstance(value, float) else f"integer {value}"
    return f"{form} {_short(lexeme)}, which serde_json reads as {read}"


def _serde_text(raw: bytes, number: bytes, offset: int, type_name: str) -> bytes:
    """Text for one number lexeme that pydantic reads as exactly serde's value."""
    text = number.decode()
    try:
        value = serde_number(text)
    except NumberOutOfRange as error:
        line, column = _line_column(raw, offset + error.offset)
        raise json_syntax_error(type_name, str(error), line, column) from None
    if isinstance(value, int):
        return number
    float_form = "." in text or "e" in text or "E" in text
    if float_form and len(text) <= _LONG_LEXEME and repr(float(text)) == repr(value):
        return number  # pydantic reads the same double
    return repr(value).encode()


def rewrite_numbers(raw: bytes, type_name: str) -> bytes:
    """Rewrite every number token of ``raw`` whose serde value differs from pydantic's reading
    (``loads`` calls it only when ``_scan`` found such a number); raise ``WireError`` at the first
    number serde_json rejects, with serde's message and column."""

    def rewrite(match: re.Match[bytes]) -> bytes:
        number, minus, non_finite = match.group(1), match.group(2), match.group(3)
        if non_finite is not None:
            line, column = _line_column(raw, match.start(3))
            # serde: a bare NaN is no value at all; after a minus sign it is a malformed number
            reason = "invalid number" if minus else "expected value"
            raise json_syntax_error(type_name, reason, line, column)
        if number is None:
            return match.group(0)  # a string, skipped whole
        return _serde_text(raw, number, match.start(1), type_name)

    return _TOKEN.sub(rewrite, raw)
