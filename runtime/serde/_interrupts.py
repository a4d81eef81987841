"""Ctrl-C out of pydantic's serializer as itself: pydantic-core catches whatever a Python function
raises while it serializes, ``KeyboardInterrupt``, ``SystemExit`` and ``MemoryError`` included,
and either

* reports it as a ``PydanticSerializationError`` (a ``ValueError``, which ``dumps`` made a
  ``WireError``): in JSON mode as text only (``Error serializing to JSON: KeyboardInterrupt: ``),
  through a serializer function as ``Error calling function `sort_json`: KeyboardInterrupt: ``
  (with the original as its cause in Python mode only); or
* inside a union (an event's message, a list of content blocks) drops it and tries the next
  variant, which then succeeds: the interrupt is gone.

So phi-wire's own serializer functions run through ``keeps``, which notes what passes through
them, and every entry point that runs the serializer (``serialized``: ``dumps``, and
``model_dump``/``model_dump_json`` of every model, ``InterruptibleModel``) raises the interrupt
noted, or the one an error stands for, instead of returning or raising a ``WireError``.

Out of reach: a Ctrl-C whose handler CPython runs on the very first instruction of a Python
function pydantic calls inside a union, before that function's ``try``, is dropped by
pydantic-core unseen. The command line notes the signal itself, so it never loses one (``cli``).
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

__all__ = [
    "NOTES",
    "OWN_SERIALIZER",
    "PASS_THROUGH",
    "InterruptibleModel",
    "keeps",
    "note_passing",
    "notes",
    "passed_through",
    "serialized",
]

T = TypeVar("T")
P = ParamSpec("P")

PASS_THROUGH: tuple[type[BaseException], ...] = (KeyboardInterrupt, SystemExit, MemoryError)
"""What must leave every entry point unchanged, never as an error about the data."""

# pydantic-core's text for a Python exception raised while serializing: its own prefixes, then
# the exception as ``Type: message``. Anchored at both ends, so no text inside a value (a
# PydanticSerializationUnexpectedValue quotes the value) can stand for an interrupt.
_WRAPPED = re.compile(
    r"(?:Error serializing to JSON: )?"
    r"(?:(?:PydanticSerializationError: )?Error calling function `[^`]*`: )*"
    r"(KeyboardInterrupt|SystemExit|MemoryError)(?:: ?(.*))?",
    re.DOTALL,
)


NOTES = threading.local()
"""This thread's notes (``notes``), read inline by the entry points that run on every document."""

OWN_SERIALIZER = "__phi_wire_pydantic_serializer__"
"""The class attribute that keeps pydantic's own serializer of a class ``dumps``'s serializer was
installed on (``_write``): ``model_dump_json`` runs it when given an option that serializer does
not honour as pydantic's does."""

_AS_DUMPS_WRITES = frozenset({"indent", "ensure_ascii", "warnings"})
"""``model_dump_json``'s options that an installed serializer honours exactly as pydantic's own:
they change how the JSON is written, never which keys."""


def notes() -> list[Any]:
    """This thread's ``[depth, kept]``: how many ``serialized`` calls are running (one inside
    another), and the first interrupt that passed through a serializer function since the
    outermost began."""
    try:
        noted: list[Any] = NOTES.noted
    except AttributeError:
        noted = NOTES.noted = [0, None]
    return noted


def keeps(function: Callable[P, T]) -> Callable[P, T]:
    """``function``, a serializer function pydantic calls, noting an interrupt, an exit or memory
    running out that passes through it before pydantic catches it."""

    @functools.wraps(function)
    def keeping(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return function(*args, **kwargs)
        except PASS_THROUGH as error:
            note_passing(error)
            raise

    return keeping


def note_passing(error: BaseException) -> None:
    """Note ``error`` (one of ``PASS_THROUGH``), raised in a serializer function, for the entry
    point running the serializer (``serialized``) to raise: what ``keeps`` does, for a function
    that catches it itself."""
    noted = notes()
    if noted[1] is None:
        noted[1] = error


def passed_through(error: PydanticSerializationError) -> BaseException | None:
    """The ``KeyboardInterrupt``, ``SystemExit`` or ``MemoryError`` that ``error`` stands for
    (the original when pydantic kept it, else one made from its text), or None."""
    seen: set[int] = set()
    cause = error.__cause__
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, PASS_THROUGH):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__
    match = _WRAPPED.fullmatch(str(error))
    if match is None:
        return None
    text = match[2] or ""
    if match[1] == "SystemExit":
        return SystemExit(int(text) if text.lstrip("-").isdecimal() else text or None)
    if match[1] == "MemoryError":
        return MemoryError(text) if text else MemoryError()
    return KeyboardInterrupt(text) if text else KeyboardInterrupt()


def serialized(call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``call(*args, **kwargs)``, which runs pydantic's serializer (``BaseModel.model_dump_json``
    ...): its result or its errors unchanged, except that an interrupt, an exit or memory
    running out inside it leaves as itself, even one pydantic dropped."""
    try:
        noted: list[Any] = NOTES.noted  # notes(), inline: this runs on every dumps
    except AttributeError:
        noted = notes()
    outermost = noted[0] == 0
    if outermost:
        noted[1] = None
    noted[0] += 1
    try:
        result = call(*args, **kwargs)
    except PydanticSerializationError as error:
        original = noted[1] or passed_through(error)
        if original is None:
            raise
        raise original from None
    finally:
        noted[0] -= 1
        kept = noted[1]
        if outermost:  # an inner call leaves it to the outermost, which clears it
            noted[1] = None
    if kept is not None:  # dropped inside a union: the run went on without it
        raise kept
    return result


class InterruptibleModel(BaseModel):
    """A model whose ``model_dump`` and ``model_dump_json`` let an interrupt, an exit or memory
    running out leave as itself (the base of phi-wire's model bases: ``dumps``, ``convert`` and a
    caller's own ``model_dump`` all go through these)."""

    if not TYPE_CHECKING:  # keeps pydantic's signatures for the type checker

        def model_dump(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return serialized(BaseModel.model_dump, self, *args, **kwargs)

        def model_dump_json(self, *args: Any, **kwargs: Any) -> str:
            if kwargs.keys() - _AS_DUMPS_WRITES:
                own = type(self).__dict__.get(OWN_SERIALIZER)
                if own is not None:  # pydantic's own serializer honours every option
                    return serialized(own.to_json, self, *args, **kwargs).decode()
            return serialized(BaseModel.model_dump_json, self, *args, **kwargs)
