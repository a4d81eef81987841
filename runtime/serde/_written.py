"""``dumps``'s one call into pydantic-core: a value of the wrong type raised, never written.

pydantic-core fact: ``SchemaSerializer.to_json(warnings="error")`` raises at a value of the wrong
type (one put in a model unvalidated) instead of writing a guess, but reading that string costs
1.0 us a call, a sixth of an event's ``dumps``: its ``WarningsArg`` tries a bool first, and the
failed try builds a Python error. ``warnings=True`` costs 0.2 us and reports the same problems in
one ``UserWarning`` ("Pydantic serializer warnings: ...") after writing, issued from the Python
frame that called ``to_json``: this module's.

So this module makes that warning an error with a filter of its own (``warnings`` matches a
filter's ``module`` against the issuing frame's module name), put first at import, and passes the
bool only while that filter is still first in ``warnings.filters``. A program that puts a filter
of its own before it, or resets them (pytest does, for each test), gets the string again: slower,
never a value written. Python-mode calls, and ``model_dump_json``, issue from other modules: their
warnings stay warnings.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Literal

from pydantic_core import PydanticSerializationError, SchemaSerializer

from ._interrupts import NOTES, notes, passed_through

__all__ = ["filter_in_force", "written_json"]

_WARNINGS = "Pydantic serializer warnings"
"""How pydantic-core's warning about values of the wrong type begins."""

warnings.filterwarnings("error", _WARNINGS, UserWarning, re.escape(__name__) + r"\Z")
_AS_ERROR = warnings.filters[0]


def filter_in_force() -> bool:
    """Whether this module's filter is first in ``warnings.filters``: ``written_json`` then passes
    the bool."""
    filters = warnings.filters
    return bool(filters) and filters[0] is _AS_ERROR


def written_json(serializer: SchemaSerializer, value: Any, indent: int | None) -> bytes:
    """``serializer.to_json(value, indent=indent)``, a value of the wrong type an error, run as
    ``_interrupts.serialized`` runs a call (without the generic call's packing of arguments:
    ``dumps`` runs it once per document)."""
    filters = warnings.filters  # filter_in_force(), inline: no Python call per document
    strictly: Literal["error"] | bool = True if filters and filters[0] is _AS_ERROR else "error"
    try:
        noted: list[Any] = NOTES.noted
    except AttributeError:
        noted = notes()
    outermost = noted[0] == 0
    if outermost:
        noted[1] = None
    noted[0] += 1
    try:
        result: bytes = serializer.to_json(value, indent=indent, warnings=strictly)
    except PydanticSerializationError as error:
        original = noted[1] or passed_through(error)
        if original is None:
            raise
        raise original from None
    except UserWarning as warning:  # the filter's error: what "error" would have raised
        if not str(warning).startswith(_WARNINGS):
            raise
        raise noted[1] or PydanticSerializationError(str(warning)) from None
    finally:
        noted[0] -= 1
        kept = noted[1]
        if outermost:
            noted[1] = None
    if kept is not None:
        raise kept
    return result
