"""``phi_wire.convert``: one implementation's JSON as another's, saying exactly what is lost.

    from phi_wire.convert import convert

    result = convert(clark_message, source="clark-agent", target="phi-core")
    result.value    # a model of the target format (phi-core: the newest version's)
    result.losses   # one Loss per piece of the source the target cannot hold, or had to invent

Statically, ``result.value`` is the target's value type (``phi_wire.convert.values``): a
``PhiCoreValue`` for ``target="phi-core"`` (the default), ``ClarkAgentValue``,
``OperatorUseValue``; ``AnyValue`` when the target is a ``str`` known at run time only.

Each ``Loss`` names a JSON pointer into the *source* document and a reason. Nothing is lost
silently: a piece of the source that no loss names survives a round trip source -> target ->
source. Converters exist between phi-core and every other format (``CONVERTERS``); the mapping
tables they implement are in ``docs/conversions/<format>.md``.
"""

from __future__ import annotations

from ._files import (
    MAX_INPUT_BYTES,
    Converted,
    ConvertError,
    Input,
    Named,
    convert_input,
    inputs_named,
    output_name,
    read_input,
    write_atomically,
)
from ._ids import EntryIds, derived_id
from ._order import SORTED_BY_PHI_CORE, reordered_by_sorting
from ._route import CONVERTERS, SESSION_WRITERS, convert, to_session_file
from ._types import Conversion, Loss, UnsupportedConversion

__all__ = [
    "CONVERTERS",
    "MAX_INPUT_BYTES",
    "SESSION_WRITERS",
    "SORTED_BY_PHI_CORE",
    "Conversion",
    "ConvertError",
    "Converted",
    "EntryIds",
    "Input",
    "Loss",
    "Named",
    "UnsupportedConversion",
    "convert",
    "convert_input",
    "derived_id",
    "inputs_named",
    "output_name",
    "read_input",
    "reordered_by_sorting",
    "to_session_file",
    "write_atomically",
]
