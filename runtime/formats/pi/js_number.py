"""How pi writes a number: every JSON number is a JavaScript double, and ``JSON.stringify`` writes
it with ``Number.prototype.toString`` (ECMA-262 Number::toString): the shortest digits that read
back as the same double, integral values without a fraction (``0``, not ``0.0``), positional
notation from 1e-6 up to 1e21 (``0.00007500000000000001``, ``100000000000000000000``) and
exponent form outside it (``6e-7``, ``1e+21``, ``1.5e-10``); ``-0`` as ``0``; NaN and infinities
as ``null``.

Python's ``repr`` gives the same shortest digits (both pick, among the shortest, the one nearest the
double); only the layout differs (``6e-07``, ``1e+21``, ``123.0``), so the digits are taken from
``repr`` and laid out by ECMA-262's rules. And how pi reads one: ``JSON.parse`` rounds every number
to a double, so an integer past 2^53 is the nearest double's value.
"""

from __future__ import annotations

import math

__all__ = ["SAFE_INTEGER", "js_double", "js_integer", "number_text"]

SAFE_INTEGER = 2**53
"""Integers up to this magnitude are doubles exactly (``Number.MAX_SAFE_INTEGER`` + 1)."""


def number_text(value: float) -> str:
    """``JSON.stringify(value)`` for a double: ``Number.prototype.toString``, or ``null`` for NaN
    and the infinities."""
    if not math.isfinite(value):
        return "null"
    if value == 0:
        return "0"  # -0 too
    text = repr(value)
    sign = ""
    if text[0] == "-":
        sign, text = "-", text[1:]
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    return sign + _layout(digits, point)


def _layout(digits: str, n: int) -> str:
    """ECMA-262 Number::toString for the value 0.<digits> x 10^n (no leading or trailing zero)."""
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    exponent = n - 1
    mark = "+" if exponent >= 0 else "-"
    head = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{head}e{mark}{abs(exponent)}"


def js_integer(text: str) -> int | float:
    """A JSON integer as ``JSON.parse`` reads it: exact up to 2^53, else the nearest double's
    (integral) value; too large for a double, infinity (``JSON.parse`` gives ``Infinity``)."""
    if len(text.lstrip("-")) <= 15:  # below 10^15 < 2^53: exact
        return int(text)
    return js_double(text)


def js_double(text: str) -> int | float:
    """A JSON number as ``JSON.parse`` reads it: the nearest double; an integral one as ``int``
    (JavaScript does not tell 1 from 1.0: both are written ``1``), infinity when too large."""
    value = float(text)
    if value.is_integer():
        return int(value)
    return value
