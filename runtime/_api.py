"""The version-independent half of every ``phi_wire.v<major>_<minor>`` module.

Each version module re-exports these beside its generated wire types, binds ``schema`` to its
own schema files and hangs phi-core's enum constructors on its aliases (``install``).
"""

from __future__ import annotations

from collections.abc import Callable

from ._codec import dumps, loads
from ._errors import Problem, WireError
from ._helpers import OVERFLOW_PHRASES, CostRates, convert_to_llm
from ._schema import schema_for
from ._stream import MessageAccumulator, atranslate_stream, translate_stream
from ._timestamp import Timestamp

__all__ = [
    "OVERFLOW_PHRASES",
    "CostRates",
    "MessageAccumulator",
    "Problem",
    "Timestamp",
    "WireError",
    "atranslate_stream",
    "convert_to_llm",
    "dumps",
    "loads",
    "translate_stream",
]


def schema_function(version: str) -> Callable[[object], dict[str, object]]:
    """``schema(tp)`` for one phi-core version."""

    def schema(tp: object) -> dict[str, object]:
        """A self-contained JSON Schema (draft 2020-12) for the wire type ``tp`` (or its name)."""
        return schema_for(version, tp)

    return schema
