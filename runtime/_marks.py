"""How a validator function inside the models tells the validate fast path what it does.

The fast path (``phi_wire.validate``) compiles a model's pydantic-core schema into a regular
expression that matches only documents ``loads`` accepts. A Python validator function is opaque
to that compiler, so a function it may look through carries ``FAST_PATH_ROLE`` saying why that is
safe; any other function makes its type ineligible (``loads`` then judges every document). The
fast path's equivalence tests check each promise against ``loads``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

__all__ = ["CANONICAL_TIMESTAMP", "FAST_PATH_ROLE", "TRANSPARENT", "FastPathRole", "fast_path_role"]

FastPathRole = Literal["transparent", "canonical-timestamp"]

FAST_PATH_ROLE = "__phi_wire_fast_path__"
"""The attribute that holds a validator's role."""

TRANSPARENT: FastPathRole = "transparent"
"""Never rejects a value its inner schema accepts (it may change the value, or accept more)."""

CANONICAL_TIMESTAMP: FastPathRole = "canonical-timestamp"
"""Accepts every canonical chrono ``DateTime<Utc>`` text on a day every year has."""

F = TypeVar("F", bound=Callable[..., Any])


def fast_path_role(role: FastPathRole) -> Callable[[F], F]:
    """Decorator: mark a validator function (or class) with its role for the fast path."""

    def mark(function: F) -> F:
        setattr(function, FAST_PATH_ROLE, role)
        return function

    return mark
