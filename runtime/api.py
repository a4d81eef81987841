"""The version-independent half of phi-wire's API, which every version module re-exports.

Each version module (``phi_wire.v0_8``, ``phi_wire.v0_10``: the generated packages, see
``phi_wire.formats``) adds its own wire types, ``schema`` bound to its schema files and
``user_message``. Import these names from a version module or from ``phi_wire``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from .errors import Problem, WireError
from .formats.phi_core.helpers import OVERFLOW_PHRASES, CostRates, convert_to_llm, llm_message
from .formats.phi_core.stream import MessageAccumulator, atranslate_stream, translate_stream
from .serde import Timestamp, dumps, loads, meta_schemas, prepare, schema_for

if TYPE_CHECKING:
    from typing_extensions import TypeForm

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
    "llm_message",
    "loads",
    "meta_schemas",
    "prepare",
    "translate_stream",
]


class SchemaFunction(Protocol):
    """The type of a version module's ``schema``."""

    def __call__(self, tp: TypeForm[object] | str) -> dict[str, object]:
        """A self-contained JSON Schema (draft 2020-12) for the wire type ``tp`` (or its name)."""
        ...


def schema_function(folder: str) -> SchemaFunction:
    """``schema(tp)`` for the version whose schema files are in ``schemas/<folder>``."""

    def schema(tp: TypeForm[object] | str) -> dict[str, object]:
        """A self-contained JSON Schema (draft 2020-12) for the wire type ``tp`` (or its name)."""
        return schema_for(folder, tp)

    return schema
