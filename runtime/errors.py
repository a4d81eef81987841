"""``WireError`` and ``Problem``: what is wrong with a document, where (JSON pointer) and under
which variant (``AgentEvent MessageEnd /message/stopReason: expected one of ...``).

Cheap to import (no pydantic): the command line builds its records with these.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

__all__ = ["Problem", "WireError", "describe_value", "json_syntax_error"]


class Problem(NamedTuple):
    """One reason a document is invalid (a named tuple: ``dataclasses`` imports ``inspect``,
    some 15 ms of every ``phi-wire validate`` start)."""

    pointer: str
    """RFC 6901 JSON pointer to the offending value ("" is the whole document)."""
    message: str
    """What was expected and what was found."""
    variant: str = ""
    """The union variants the document was judged as, e.g. "MessageEnd assistant"."""

    def render(self, type_name: str) -> str:
        judged = " ".join(part for part in (type_name, self.variant) if part)
        return f"{judged} {self.pointer or '/'}: {self.message}"


class WireError(ValueError):
    """A document phi-core would reject; ``problems`` lists each problem once, the main first."""

    def __init__(
        self,
        type_name: str,
        pointer: str,
        message: str,
        *,
        variant: str = "",
        problems: Sequence[Problem] = (),
        line: int | None = None,
        column: int | None = None,
        omitted: int = 0,
        first_invalid_items_only: bool = False,
    ) -> None:
        self.type_name = type_name
        self.problems: tuple[Problem, ...] = tuple(problems) or (
            Problem(pointer, message, variant),
        )
        self.line = line
        self.column = column
        self.omitted = omitted
        """Further problems found but not listed (``loads(..., max_problems=N)``)."""
        self.first_invalid_items_only = first_invalid_items_only
        """Some array was judged up to its first invalid item only (a document of many values,
        or ``loads(..., fail_fast=True)``): its later items may hold problems that are neither
        listed nor counted."""
        super().__init__(self._text())

    @property
    def pointer(self) -> str:
        return self.problems[0].pointer

    def _text(self) -> str:
        first = self.problems[0].render(self.type_name)
        more = len(self.problems) - 1 + self.omitted
        notes = [f"and {more} more problem{'s' * (more > 1)}"] if more else []
        if self.first_invalid_items_only:
            notes.append("each array judged up to its first invalid item")
        return first + (f" ({'; '.join(notes)})" if notes else "")


def describe_value(value: Any) -> str:
    """A short, JSON-flavoured description of a found value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {'true' if value else 'false'}"
    if isinstance(value, int):
        return f"integer {value}"
    if isinstance(value, float):
        return f"floating point {value!r}"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        if len(text) > 60:
            text = text[:56] + '..."'
        return f"string {text}"
    if isinstance(value, list):
        return f"an array of {len(value)}"
    if isinstance(value, dict):
        return "an object" if value else "an empty object"
    return type(value).__name__


def json_syntax_error(type_name: str, message: str, line: int, column: int) -> WireError:
    return WireError(
        type_name,
        "",
        f"invalid JSON: {message} at line {line} column {column}",
        line=line,
        column=column,
    )
