"""phi-core 0.8's wire format: every wire type under its phi-core name, and the codecs for them.

The types come from ``generated.v0_8`` (made from ``schemas/phi-core/0.8`` by tools/codegen);
``loads``, ``dumps`` and ``WireError`` are version-independent, ``schema`` reads this version's
schema files.
"""

from __future__ import annotations

from ._codec import dumps, loads
from ._errors import Problem, WireError
from ._helpers import OVERFLOW_PHRASES, CostRates, convert_to_llm, install
from ._schema import schema_for
from ._stream import MessageAccumulator, translate_stream
from ._timestamp import Timestamp
from .generated.v0_8 import *  # noqa: F403
from .generated.v0_8 import __all__ as _WIRE_TYPES

install(globals())

PHI_CORE_VERSION = "0.8"
"""The phi-core minor version whose wire format this module speaks."""


def schema(tp: object) -> dict[str, object]:
    """A self-contained JSON Schema (draft 2020-12) for the wire type ``tp`` (or its name)."""
    return schema_for(PHI_CORE_VERSION, tp)


__all__ = [
    *_WIRE_TYPES,
    "PHI_CORE_VERSION",
    "CostRates",
    "MessageAccumulator",
    "OVERFLOW_PHRASES",
    "Problem",
    "Timestamp",
    "WireError",
    "convert_to_llm",
    "dumps",
    "loads",
    "schema",
    "translate_stream",
]
