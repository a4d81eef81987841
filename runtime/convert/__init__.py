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

Files (``phi-wire convert``'s work): ``read_input`` and ``convert_input`` read and convert one,
``plan_outputs`` settles where each output goes before anything is written (``OutputRefused``:
outputs that would clash), ``write_atomically`` and ``AtomicFile`` write one whole or not at all
(through a symbolic link, keeping a file's mode, gzip for a ``.gz`` name).
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
from ._outputs import OutputRefused, Outputs, plan_outputs
from ._route import CONVERTERS, SESSION_WRITERS, convert, to_session_file
from ._types import Conversion, Loss, UnsupportedConversion
from ._write import AtomicFile

__all__ = [
    "CONVERTERS",
    "MAX_INPUT_BYTES",
    "SESSION_WRITERS",
    "AtomicFile",
    "Conversion",
    "ConvertError",
    "Converted",
    "Input",
    "Loss",
    "Named",
    "OutputRefused",
    "Outputs",
    "UnsupportedConversion",
    "convert",
    "convert_input",
    "inputs_named",
    "output_name",
    "plan_outputs",
    "read_input",
    "to_session_file",
    "write_atomically",
]
