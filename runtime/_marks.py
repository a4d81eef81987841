"""How a validator function inside the models tells the validate fast path what it does.

The fast path (``phi_wire.validate``) compiles a model's pydantic-core schema into a regular
expression that matches only documents ``loads`` accepts. A Python validator function is opaque
to that compiler, so a function it may look through carries ``FAST_PATH_ROLE`` saying why that is
safe; any other function makes its type ineligible (``loads`` then judges every document). The
fast path's equivalence tests check each promise against ``loads``.

``loads`` has a fast path of its own (``_shortcut``): a document that the expression vouches for,
compiled with exact values (``phi_wire.fastpath``), goes straight to pydantic-core. There a
function may be replaced by a pydantic-core schema that gives the same result on every such
document without running Python code: the function says which with ``vouched_form``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

__all__ = [
    "CANONICAL_TIMESTAMP",
    "FAST_PATH_ROLE",
    "TRANSPARENT",
    "VOUCHED_FORM",
    "FastPathRole",
    "VouchedForm",
    "fast_path_role",
    "vouched_form",
]

FastPathRole = Literal["transparent", "canonical-timestamp"]

FAST_PATH_ROLE = "__phi_wire_fast_path__"
"""The attribute that holds a validator's role."""

TRANSPARENT: FastPathRole = "transparent"
"""Never rejects a value its inner schema accepts (it may change the value, or accept more)."""

CANONICAL_TIMESTAMP: FastPathRole = "canonical-timestamp"
"""Accepts every canonical chrono ``DateTime<Utc>`` text on a day every year has."""

VOUCHED_FORM = "__phi_wire_vouched_form__"
"""The attribute that holds a validator's replacement on vouched documents."""

VouchedForm = Callable[[Any, Any], Any]
"""Given the validator's inner core schema and the schema's definitions (by ref), the core schema
that replaces the validator (None: it stays)."""

F = TypeVar("F", bound=Callable[..., Any])


def fast_path_role(role: FastPathRole) -> Callable[[F], F]:
    """Decorator: mark a validator function (or class) with its role for the fast path."""

    def mark(function: F) -> F:
        setattr(function, FAST_PATH_ROLE, role)
        return function

    return mark


def vouched_form(form: VouchedForm) -> Callable[[F], F]:
    """Decorator: on a JSON document that ``loads``' fast path vouches for, this validator function
    over an inner schema ``S`` gives what the core schema ``form(S, definitions)`` gives
    (``_shortcut`` builds its validator with the replacement; its equivalence tests check the
    promise)."""

    def mark(function: F) -> F:
        setattr(function, VOUCHED_FORM, form)
        return function

    return mark
