"""The numbers of the fast path's expressions (``_pattern``): each reader's, and those ``loads``'
exact values take.

Wire fact they rest on: serde_json reads an integer inside u64 or i64 as that integer and any
other number as an f64 (one division of its decimal digits by a power of ten, exact for at most
15 digits), where Python reads every integer exactly and a decimal correctly rounded; pydantic's
lax readers read any JSON number as a float where one is expected. An expression's number matches
only what its reader and Python read as the same value.
"""

from __future__ import annotations

__all__ = [
    "EXACT_NUMBER",
    "LAX_NUMBER",
    "NUMBER",
    "NUMBER_LEVELS",
    "SHORT_EXACT_NUMBER",
    "at_most",
]

# Numbers serde reads as finite and of the same kind as Python does: no exponent, under 10**20
# (integers in range for u64/i64 or read as a float, which a serde_json::Value holds as well).
NUMBER = rb"-?(?:0|[1-9][0-9]{0,19})(?:\.[0-9]{1,20})?"
# A pydantic lax reader's (``_pattern.LAX_FORMATS``), which reads any JSON number as a float where
# one is expected: pydantic-core writes small and big floats with an exponent (``3e-05``,
# ``1e+16``) or many fraction digits (``0.000030000000000000004``); an exponent of two digits
# stays finite.
LAX_NUMBER = rb"-?(?:0|[1-9][0-9]{0,19})(?:\.[0-9]{1,40})?(?:[eE][-+]?[0-9]{1,2})?"


def at_most(limit: int) -> bytes:
    """Decimal integers from 1 to ``limit``, without leading zeros, each a whole run of digits
    (never followed by another digit). The shorter ones come first (the common case); those as
    long as ``limit`` are compared with it digit by digit, each of its digits written once (a
    smaller digit ends the comparison, the run's length having been checked first), not once per
    prefix: ``exact_values``' expressions write this bound at every number of a
    ``serde_json::Value`` (15 per Value, 256 in AgentEvent's), and its code is what a fresh
    process's first ``loads`` reads, converts and compiles (750 code words for u64's bound
    written per prefix, 337 so)."""
    text = str(limit)
    if limit < 1:
        raise ValueError(f"no integer from 1 to {limit}")

    def compared(index: int) -> bytes:
        """The digits from ``index`` on, given that those before it equal ``limit``'s."""
        digit, low = int(text[index]), int(index == 0)
        if index == len(text) - 1:
            return b"[%d-%d]" % (low, digit) if digit > low else b"%d" % digit
        equal = b"%d" % digit + compared(index + 1)
        if digit == low:
            return equal
        smaller = b"[%d-%d]" % (low, digit - 1) if digit - 1 > low else b"%d" % low
        return b"(?:" + smaller + b"|" + equal + b")"  # smaller: any digits after it

    if len(text) == 1:
        return b"(?:" + compared(0) + b")"
    shorter = rb"[1-9][0-9]{0,%d}+(?![0-9])" % (len(text) - 2)
    as_long = rb"(?=[0-9]{%d}(?![0-9]))" % len(text) + compared(0) + rb"[0-9]*+"
    return rb"(?:" + shorter + rb"|" + as_long + rb")"


# Numbers serde and Python read as the same value (``exact_values``): integers other than -0 in
# [i64::MIN, u64::MAX]; decimals of at most 15 digits and no exponent (significand and power of
# ten are then exact in an f64, so serde's one division is Python's correctly rounded reading).
EXACT_NUMBER = (
    rb"(?:-?(?=[0-9.]{1,16}(?![0-9.]))(?:0|[1-9][0-9]*+)\.[0-9]++|0|"
    + at_most(2**64 - 1)
    + rb"|-"
    + at_most(2**63)
    + rb")"
)
# The same without the integers of 19 digits and more, which need no bound (``at_most``'s
# comparison is some 700 code words a number, 90 so): for the numbers deep inside a
# ``serde_json::Value`` (``NUMBER_LEVELS``), 12 of its 15 (a first ``loads`` reads, converts and
# compiles AgentEvent's code: issue 21). A document with such an integer there takes ``loads``'
# exact path: the same verdict.
SHORT_EXACT_NUMBER = (
    rb"(?:-?(?=[0-9.]{1,16}(?![0-9.]))(?:0|[1-9][0-9]*+)\.[0-9]++|0|-?[1-9][0-9]{0,17}+(?![0-9]))"
)
NUMBER_LEVELS = 2
"""How many levels of a ``serde_json::Value`` take every number with ``exact_values``: the value
itself and its items or members (where phi-core's extension data hold u64 and i64 ids)."""
