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

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what each name is, for type checkers; imported when first used (below)
    from ._fast import (
        FastConverter,
        FastUnsupported,
        Place,
        checked_number,
        fast_converter,
        pointer_of,
        via_hub,
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
    from ._placed import PlacedLosses
    from ._route import CONVERTERS, SESSION_WRITERS, VIA_HUB, convert, to_session_file
    from ._serde_floats import MISREAD_BY_SERDE, misread_floats
    from ._session_file_stream import SessionFileStream
    from ._stream import NotStreamed, Stream, streamed
    from ._types import (
        Conversion,
        Loss,
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
    "MISREAD_BY_SERDE",
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
    "LossKind",
    "Losses",
    "Lost",
    "Named",
    "NotStreamed",
    "OutputRefused",
    "Outputs",
    "Place",
    "PlacedLosses",
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
    "misread_floats",
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
]

_HOMES: dict[str, str] = {
    "FastConverter": "_fast",
    "FastUnsupported": "_fast",
    "Place": "_fast",
    "checked_number": "_fast",
    "fast_converter": "_fast",
    "pointer_of": "_fast",
    "via_hub": "_fast",
    "Converted": "_files",
    "convert_input": "_files",
    "DerivedId": "_ids",
    "DerivedIds": "_ids",
    "EntryIds": "_ids",
    "derived_id": "_ids",
    "MAX_INPUT_BYTES": "_inputs",
    "ConvertError": "_inputs",
    "Input": "_inputs",
    "Named": "_inputs",
    "input_of": "_inputs",
    "inputs_named": "_inputs",
    "read_input": "_inputs",
    "Document": "_library",
    "Lost": "_library",
    "convert_file": "_library",
    "convert_stream": "_library",
    "SORTED_BY_PHI_CORE": "_order",
    "reordered_by_sorting": "_order",
    "with_sorted_keys": "_order",
    "OutputRefused": "_outputs",
    "Outputs": "_outputs",
    "output_name": "_outputs",
    "plan_outputs": "_outputs",
    "PlacedLosses": "_placed",
    "CONVERTERS": "_route",
    "SESSION_WRITERS": "_route",
    "VIA_HUB": "_route",
    "convert": "_route",
    "to_session_file": "_route",
    "MISREAD_BY_SERDE": "_serde_floats",
    "misread_floats": "_serde_floats",
    "SessionFileStream": "_session_file_stream",
    "NotStreamed": "_stream",
    "Stream": "_stream",
    "streamed": "_stream",
    "Conversion": "_types",
    "Loss": "_types",
    "Losses": "_types",
    "LossKind": "_types",
    "UnsupportedConversion": "_types",
    "loss_counts": "_types",
    "NULL_READ_AS_ABSENT": "_unread",
    "AtomicFile": "_write",
    "write_atomically": "_write",
}
"""Each public name -> the module that defines it. A name is imported when first used, so that
``phi-wire convert``'s fast paths, which use a few of them, import only their modules (not the
models, nor the engine: ``tests/test_convert_imports.py``)."""

if not TYPE_CHECKING:  # hidden from type checkers: a wrong name stays an error for them

    def __getattr__(name: str) -> object:
        home = _HOMES.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
