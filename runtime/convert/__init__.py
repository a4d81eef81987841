"""``phi_wire.convert``: one implementation's JSON as another's, saying exactly what is lost.

    from phi_wire.convert import convert

    result = convert(clark_message, source="clark-agent", target="phi-core")
    result.value    # a model of the target format (phi-core: the newest version's)
    result.losses   # one Loss per piece of the source the target cannot hold, or had to invent

Statically, ``result.value`` is the target's value type (``phi_wire.convert.values``): a
``PhiCoreValue`` for ``target="phi-core"`` (the default), ``ClarkAgentValue``,
``OperatorUseValue``, ``PiValue``; ``AnyValue`` when the target is a ``str`` known at run time only.

Each ``Loss`` names a JSON pointer into the *source* document and a reason. Nothing is lost
silently: a piece of the source that no loss names survives a round trip source -> target ->
source. Converters exist between phi-core and every other format (``CONVERTERS``); any other pair
goes through phi-core in two steps (the second step's losses say so); the mapping tables they
implement are in ``docs/conversions/<format>.md``. ``name=`` (the input's name) seeds the ids a
conversion invents (``derived_id``, ``EntryIds``): a conversion is reproducible.

Files and streams, as ``phi-wire convert`` converts them (a phi-core ``Session`` and event streams
included), for programs:

    from phi_wire.convert import Document, Lost, convert_file

    for item in convert_file("history.jsonl", target="phi-core"):
        if isinstance(item, Document):
            out.write(item.text + "\n")   # as the target writes it
        else:
            print(item.where, item.loss)   # file:line, Loss(pointer, kind, reason)

``convert_stream(lines, target=..., name=...)`` does the same for lines already in memory. There
the keys a source's reader drops are losses too (``_unread``). How a converter is written (the
rules pi's converters follow too): ``CONTRIBUTING.md``, "How a converter is written".

Writing files (``phi-wire convert``'s work): ``plan_outputs`` settles where each output goes
before anything is written (``OutputRefused``: outputs that would clash), ``write_atomically`` and
``AtomicFile`` write one whole or not at all (through a symbolic link, keeping a file's mode, gzip
for a ``.gz`` name).
"""

from __future__ import annotations

from ._fast import (
    FastConverter,
    FastUnsupported,
    Place,
    checked_number,
    fast_converter,
    pointer_of,
    via_hub,
    written_pointer,
)
from ._files import Converted, convert_input
from ._ids import DerivedId, DerivedIds, EntryIds, derived_id
from ._inputs import (
    MAX_INPUT_BYTES,
    ConvertError,
    Input,
    Named,
    input_of,
    inputs_named,
    read_input,
)
from ._library import Document, Lost, convert_file, convert_stream
from ._order import SORTED_BY_PHI_CORE, reordered_by_sorting, with_sorted_keys
from ._outputs import OutputRefused, Outputs, output_name, plan_outputs
from ._route import CONVERTERS, SESSION_WRITERS, VIA_HUB, convert, to_session_file
from ._session_file_stream import SessionFileStream
from ._stream import NotStreamed, Stream, streamed
from ._types import (
    Conversion,
    Loss,
    LossColumns,
    Losses,
    LossKind,
    UnsupportedConversion,
    loss_counts,
)
from ._unread import NULL_READ_AS_ABSENT
from ._write import AtomicFile, write_atomically

__all__ = [
    "CONVERTERS",
    "MAX_INPUT_BYTES",
    "NULL_READ_AS_ABSENT",
    "SESSION_WRITERS",
    "SORTED_BY_PHI_CORE",
    "VIA_HUB",
    "AtomicFile",
    "Conversion",
    "ConvertError",
    "Converted",
    "DerivedId",
    "DerivedIds",
    "Document",
    "EntryIds",
    "FastConverter",
    "FastUnsupported",
    "Input",
    "Loss",
    "LossColumns",
    "LossKind",
    "Losses",
    "Lost",
    "Named",
    "NotStreamed",
    "OutputRefused",
    "Outputs",
    "Place",
    "SessionFileStream",
    "Stream",
    "UnsupportedConversion",
    "checked_number",
    "convert",
    "convert_file",
    "convert_input",
    "convert_stream",
    "derived_id",
    "fast_converter",
    "input_of",
    "inputs_named",
    "loss_counts",
    "output_name",
    "plan_outputs",
    "pointer_of",
    "read_input",
    "reordered_by_sorting",
    "streamed",
    "to_session_file",
    "via_hub",
    "with_sorted_keys",
    "write_atomically",
    "written_pointer",
]
