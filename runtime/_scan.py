"""One pass of the standard library's C JSON scanner over a document, for what pydantic hides.

pydantic's parser silently keeps the last of repeated keys and reads numbers as Python does. Two
serde facts need the raw document instead: repeated fields (an error in derived structs, see
``_duplicates``) and numbers serde reads differently (``-0``, integers past u64/i64, some long
decimals, out-of-range exponents, see ``_numbers``; ``NaN``/``Infinity`` are not JSON at all).
``json.loads`` with hooks finds both at C speed, so ``loads`` pays for one scan, not two.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ._numbers import needs_rewrite

__all__ = ["Scan", "scan"]


@dataclass
class Scan:
    repeated_keys: bool = False
    """Some object repeats a key."""
    numbers_differ: bool = False
    """Some number lexeme is read differently by serde (or is NaN/Infinity)."""


def scan(raw: bytes) -> Scan | None:
    """What the document holds; None when it is not JSON (pydantic then reports where)."""
    found = Scan()

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(items)
        if len(result) != len(items):
            found.repeated_keys = True
        return result

    def integer(lexeme: str) -> int | float:
        if needs_rewrite(lexeme):
            found.numbers_differ = True
        return 0

    def decimal(lexeme: str) -> float:
        if needs_rewrite(lexeme):
            found.numbers_differ = True
        return 0.0

    def constant(name: str) -> float:
        found.numbers_differ = True  # the exact pass reports NaN/Infinity with line and column
        return 0.0

    try:
        json.loads(
            raw,
            object_pairs_hook=pairs,
            parse_int=integer,
            parse_float=decimal,
            parse_constant=constant,
        )
    except ValueError:
        return None
    return found
