"""``phi_wire.serde``: the exact engine. JSON read as strictly as the implementation's own
serializer reads it (serde_json for phi-core and clark-agent), written exactly as it writes it.

``loads(tp, data)`` is one pipeline; ``_codec.loads`` and ``_codec._read`` call its steps in
this order, and each step is a module that knows nothing of the others:

1. ``_shortcut``: the fast path. A document the type's expression (``phi_wire.fastpath``)
   vouches for goes straight to pydantic-core, and the steps below are skipped: they would find
   nothing in it.
2. ``_full_report``: how much of an invalid document to report (a dense or huge one is judged
   array by array up to the first invalid item, ``_fail_fast``: the same verdict, bounded cost);
   ``CollectorPaused`` (``phi_wire.collector``) pauses Python's cyclic collector while one
   document is judged.
3. ``_scan``: one ``json`` pass over the bytes: serde_json's 127-level nesting limit, the
   numbers serde reads differently from Python, repeated keys.
4. ``_numbers``: those numbers rewritten as serde_json reads them (``-0``, past u64, imprecise
   decimals, out of range).
5. pydantic-core, strict JSON mode, wire names only (the models: ``_wire``, ``_timestamp``,
   ``_ordered_value``, ``_sorted_value``, ``_clock``), through ``phi_wire.primitives.adapter``.
6. On failure: ``_sequence`` (serde's positional form of structs ``[tag, field, ...]``, tried
   only where an array stands in the way), else ``_error_translation`` (pydantic's errors as one
   ``WireError`` in serde's words, with JSON pointers).
7. ``_duplicates``: a repeated key is an error in derived structs, last-wins inside
   ``serde_json::Value``.
8. ``_borrowed``: a borrowed ``&str`` field written with an escape is rejected.
9. ``_ignored``: only when a finding of 3-6 may lie in a value serde merely skips (an unknown
   key's), the document is read again with such values blanked.

``dumps`` writes through pydantic's serializer with the models' serde facts (``_wire``: sorted
keys of ``serde_json::Value`` maps, f32, skipped fields), a model through its class's second
serializer (``_write``: phi-core's ``LlmMessage`` written sorted by pydantic-core itself, made the
class's own), each union of models through its member's own (``_dispatch``), in one call of
pydantic-core (``_written``: a value of the wrong type an error); ``_interrupts`` lets Ctrl-C
through every serializer function. ``_schema`` bundles a type's
JSON Schema. ``CollectorPaused`` (``phi_wire.collector``, outside the engine so that a conversion
without models need not import it) pauses Python's cyclic collector for a block: ``loads`` per
document, convert per input.

The engine imports only ``phi_wire.primitives``, ``errors``, ``pointer``, ``collector``, the
registry (``phi_wire.formats``) and ``phi_wire.fastpath``; nothing above it (formats' folders,
verbs).
"""

from __future__ import annotations

from ..collector import CollectorPaused
from ._codec import Writable, dumps, loads
from ._error_translation import from_python_validation_error
from ._interrupts import PASS_THROUGH, InterruptibleModel, keeps, passed_through, serialized
from ._numbers import needs_rewrite, serde_number
from ._ordered_value import OrderedJsonValue
from ._schema import DIALECT, load_schema_files, meta_schemas, schema_for, schema_id_base
from ._shortcut import prepare, vouched_schema
from ._sorted_value import sort_json
from ._timestamp import Timestamp
from ._wire import F32, JsonValue, LlmMessageBase, WireEnum, WireModel
from ._wire import _to_f32 as to_f32  # F32's rounding, by name for tools/codegen_vouched.py

__all__ = [
    "DIALECT",
    "F32",
    "PASS_THROUGH",
    "CollectorPaused",
    "InterruptibleModel",
    "JsonValue",
    "LlmMessageBase",
    "OrderedJsonValue",
    "Timestamp",
    "WireEnum",
    "WireModel",
    "Writable",
    "dumps",
    "from_python_validation_error",
    "keeps",
    "load_schema_files",
    "loads",
    "meta_schemas",
    "needs_rewrite",
    "passed_through",
    "prepare",
    "schema_for",
    "schema_id_base",
    "serde_number",
    "serialized",
    "sort_json",
    "to_f32",
    "vouched_schema",
]
