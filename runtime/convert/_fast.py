"""A JSONL line that the source's fast path vouches for (``phi_wire.fastpath``: valid for the
source's ``loads`` as the batch's type, in its writer's compact form and key order) is converted
without models: pydantic-core's JSON reader gives its dict (as ``json.loads`` would), a format
folder's dict converter builds the target's dict in the target writer's key order, and
pydantic-core's writer writes exactly the target's ``dumps`` bytes. Every other line takes the
model path, unchanged (its errors and their words too).

What a vouched line implies for the losses of reading (``_unread``): no unknown key (the writer's
form has none). It does not imply that no null is read as absent, nor that a missing timestamp
is stamped with the time of reading: the dict converters see those themselves and hand such a
document back (``FastUnsupported``), so it takes the model path.

The dict converters are found in each format's ``convert`` module, in its ``FAST_CONVERTERS``
table, keyed ``(source, target, type)``. A converter takes the documents (dicts) and the type's
name and returns the target's dicts and the losses (``phi_wire.convert.Loss``, the model
converters' pointers, the first token the document's index in the list given); a document it
cannot convert exactly makes it raise ``FastUnsupported``. A pair without phi-core has the
composition of the source's converter to phi-core and phi-core's to the target (``via_hub``),
whose second step's losses are noted as the model path notes them (``VIA_HUB``).
"""

from __future__ import annotations

import functools
import importlib
import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeAlias

from pydantic_core import PydanticSerializationError, from_json, to_json

from phi_wire.fastpath import FastPath, fast_path
from phi_wire.formats import FOLDERS, HUB, find
from phi_wire.pointer import escape

from ._route import VIA_HUB, noted_via_hub
from ._serde_floats import EXACT_DIGITS, long_digits, numbers_read_alike, serde_misreads
from ._types import Loss, LossesMadeOnRead

__all__ = [
    "FAST_MIN_BYTES",
    "SURROGATE_ESCAPE",
    "AbsentNulls",
    "FastConverter",
    "FastUnsupported",
    "Place",
    "absent_nulls",
    "checked_number",
    "dumped",
    "fast_converter",
    "line_path",
    "negative_zero",
    "parsed",
    "pointer_of",
    "runs",
    "via_hub",
]

FastConverter = Callable[[list[dict[str, Any]], str], tuple[list[dict[str, Any]], Sequence[Loss]]]
"""``(documents, type) -> (target documents, losses)``: the shared contract of dict converters
(the losses a list, or ``LossesMadeOnRead``: made when read)."""

FAST_MIN_BYTES = 128 * 1024
"""The inputs from which the fast path is taken (its expression loaded from the cache in
milliseconds, or built once: 0.1-1 s; the model path converts 128 kB in about 0.1 s). A smaller
input takes the model path alone, whatever the cache holds: which path converts a file does not
depend on the cache (the result never does)."""


class FastUnsupported(Exception):
    """A document a dict converter cannot convert exactly: it takes the model path."""


def fast_converter(source: str, target: str, kind: str) -> FastConverter | None:
    """The dict converter of ``kind`` from ``source`` to ``target``: from the other format's
    ``FAST_CONVERTERS`` table where one of them is the hub, else the two steps through it
    (``via_hub``); None: there is none."""
    if HUB not in (source, target) and source != target:
        first = fast_converter(source, HUB, kind)
        second = fast_converter(HUB, target, _HUB_KINDS.get(kind, kind)) if first else None
        return via_hub(first, second) if first and second else None
    other = target if source == HUB else source
    if other == HUB or other not in FOLDERS:
        return None  # phi-core to itself, or a format without a folder: no converter
    module = importlib.import_module(f"{FOLDERS[other]}.convert")
    table: dict[tuple[str, str, str], FastConverter] = getattr(module, "FAST_CONVERTERS", {})
    return table.get((source, target, kind))


_HUB_KINDS = {"SessionFile": "AgentMessage"}
"""The kind of phi-core documents a source's kind of input becomes (a session file: its
messages); any other kind stays the kind it is."""


def via_hub(first: FastConverter, second: FastConverter) -> FastConverter:
    """The dict converter of a pair without phi-core: ``first`` (source -> phi-core), then
    ``second`` (phi-core -> target) on all of its documents, as the model path converts (the
    first step's losses, then the second's, each noted ``VIA_HUB``: its pointer is into the
    phi-core form of the whole input, whose first token indexes the phi-core documents)."""

    def converted(
        documents: list[dict[str, Any]], kind: str
    ) -> tuple[list[dict[str, Any]], Sequence[Loss]]:
        hub, losses = first(documents, kind)
        out, later = second(hub, _HUB_KINDS.get(kind, kind))
        if isinstance(losses, LossesMadeOnRead):  # its Losses made when read: none made here
            losses.extend(later, VIA_HUB)
            return out, losses
        return out, [*losses, *map(noted_via_hub, later)]

    return converted


_PATHS: dict[tuple[str, str, str], FastPath | None] = {}


def line_path(format: str, version: str, kind: str, build: bool) -> FastPath | None:
    """The fast path for JSONL lines of ``kind`` (once per process; built when ``build`` and not
    cached). phi-core's vouches only for what its detection takes for ``kind``."""
    key = (format, version, kind)
    if key not in _PATHS or (_PATHS[key] is None and build):
        detect = None
        if format == HUB:
            from phi_wire.formats.phi_core.recognise import detected_as

            detect = detected_as
        _PATHS[key] = fast_path(version, [kind], detect, build, format)
    return _PATHS[key]


_NEGATIVE_ZERO = re.compile(rb"-0[,\]}]")  # a literal start: the engine's fast search
"""An integer ``-0``, which serde reads as the float ``-0.0`` and ``json.loads`` as ``0`` (the
line takes the model path; rarely also a string that holds these bytes)."""


class AbsentNulls:
    """Finds a null that a format's reader reads as absent (a field not written when None:
    ``x-skip-serializing-if: is_none``) in a document: the model path's reading names it
    (``_unread``), so such a document takes the model path. ``may_have`` finds the lines that may
    have one (``"key":null`` for such a key); ``found`` looks at the document: an object holding
    that key with a null whose keys fit a model with such a field (all its required keys, none
    it lacks) is taken for one. Every instance of such a model fits, so none is missed; an
    object of another kind that happens to fit only sends its line to the model path."""

    def __init__(self, format: str, version: str) -> None:
        self.format = format
        self.version = version

    @functools.cached_property
    def shapes(self) -> dict[str, list[tuple[frozenset[str], frozenset[str] | None]]]:
        """key -> (required keys, all keys: None when the model keeps unknown ones) of each
        model that does not write it when None: read from the models when a line first holds
        a null (most inputs hold none, and their conversion never imports the models)."""
        return _null_shapes(self.format, self.version)

    @functools.cached_property
    def keys(self) -> frozenset[bytes]:
        return frozenset(key.encode() for key in self.shapes)

    def may_have(self, text: bytes) -> bool:
        """Whether a compact line has ``"key":null`` for such a key (as the writer spells keys:
        no escapes): a cheap first look before ``found``."""
        position = text.find(b'":null')
        if position == -1:
            return False  # no null: the models' shapes are not needed
        keys = self.keys
        while position != -1:
            start = text.rfind(b'"', 0, position)
            if text[start + 1 : position] in keys:
                return True
            position = text.find(b'":null', position + 6)
        return False

    def found(self, document: Any) -> bool:
        """Whether ``document`` (parsed JSON) may hold a null its reader reads as absent."""
        shapes = self.shapes
        pending = [document]
        while pending:
            value = pending.pop()
            if type(value) is dict:
                for key, item in value.items():
                    if item is None:
                        for required, known in shapes.get(key, ()):
                            keys = value.keys()
                            if required <= keys and (known is None or keys <= known):
                                return True
                    elif type(item) is dict or type(item) is list:
                        pending.append(item)
            else:
                pending += [item for item in value if type(item) is dict or type(item) is list]
        return False


@functools.cache
def absent_nulls(format: str, version: str) -> AbsentNulls | None:
    """The ``AbsentNulls`` of ``format``'s ``version`` (its models read when a line first holds
    a null: one whose models have no such field finds none)."""
    return AbsentNulls(format, version)


def _null_shapes(
    format: str, version: str
) -> dict[str, list[tuple[frozenset[str], frozenset[str] | None]]]:
    from pydantic import BaseModel

    module = find(version, format).load()
    shapes: dict[str, list[tuple[frozenset[str], frozenset[str] | None]]] = {}
    for value in vars(module).values():
        if not (isinstance(value, type) and issubclass(value, BaseModel)):
            continue
        keys: dict[str, bool] = {}
        skipped: list[str] = []
        for name, field in value.model_fields.items():
            alias = field.validation_alias if isinstance(field.validation_alias, str) else None
            key = alias or field.alias or name
            keys[key] = field.is_required()
            extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
            if extra.get("x-skip-serializing-if") == "is_none":
                skipped.append(key)
        required = frozenset(key for key, needed in keys.items() if needed)
        known = None if value.model_config.get("extra") == "allow" else frozenset(keys)
        for key in skipped:
            shapes.setdefault(key, []).append((required, known))
    return shapes


def negative_zero(text: bytes) -> bool:
    """Whether a compact line has the number ``-0`` (a value: after ``:``, ``,`` or ``[``)."""
    return any(text[found.start() - 1] in b":,[" for found in _NEGATIVE_ZERO.finditer(text))


def runs(
    lines: list[tuple[int, bytes]], path: FastPath | None, serde_read: bool = False
) -> Iterator[tuple[bool, list[tuple[int, bytes]]]]:
    """The batch's lines in runs of consecutive lines, each run vouched for or not (the
    expression and UTF-8, as ``vouches_line`` judges a line; no integer ``-0``; with
    ``serde_read``, a source of ``SERDE_READ``, no number serde reads otherwise:
    ``numbers_read_alike``), all judged in one pass of the expression over the batch joined
    (``unmatched``): a call per line cost more than the matching."""
    if path is None:
        yield False, lines
        return
    block = b"\n".join([text for _, text in lines])
    offsets = path.unmatched(block)
    refused: set[int] = set()
    if offsets:
        starts = itertools.accumulate([len(text) + 1 for _, text in lines[:-1]], initial=0)
        index_of = {start: index for index, start in enumerate(starts)}
        refused = {index_of[offset] for offset in offsets}
    if b"-0" in block:
        refused.update(
            index for index, (_, text) in enumerate(lines) if b"-0" in text and negative_zero(text)
        )
    if serde_read and long_digits(block):
        refused.update(
            index for index, (_, text) in enumerate(lines) if not numbers_read_alike(text)
        )
    if not refused:
        yield True, lines
        return
    start = 0
    for index in range(1, len(lines) + 1):
        if index == len(lines) or (index in refused) != (start in refused):
            yield start not in refused, lines[start:index]
            start = index


def parsed(text: bytes | bytearray) -> Any:
    """A vouched line's JSON (pydantic-core's reader: the values ``json.loads`` gives, faster);
    ``ValueError`` for one it does not take (a lone surrogate escape)."""
    return from_json(text)


def dumped(document: dict[str, Any]) -> str:
    """A target dict as the target's writer writes it: compact, keys in the dict's order, text
    unescaped but for ``"``, ``\\`` and control characters (pydantic-core's writer: what
    serde_json and ``json.dumps(..., ensure_ascii=False)`` write, for the numbers
    ``checked_number`` lets through); ``ValueError`` for what it cannot write."""
    try:
        return to_json(document).decode()
    except PydanticSerializationError as error:
        raise ValueError(str(error)) from None


Place: TypeAlias = "tuple[Place, str | int] | None"
"""Where a value is in a batch's documents: its parent's place and its key (None: the list of
documents itself); its pointer is written only when a loss is found there."""


def pointer_of(place: Place) -> str:
    """The JSON pointer of a place."""
    if place is not None and place[0] is None and type(place[1]) is int:
        return f"/{place[1]}"  # a whole document of the batch: most losses
    if place is not None and place[0] is not None and place[0][0] is None:
        return f"/{place[0][1]}/{escape(place[1])}"  # a key of one: most others
    tokens: list[str] = []
    while place is not None:
        place, token = place
        if type(token) is int:
            tokens.append(str(token))
        else:
            tokens.append(escape(token))
    tokens.append("")
    return "/".join(reversed(tokens))


SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
"""A ``\\uD800``-``\\uDFFF`` escape (or a text that looks like one: taken as one), which Python's
``json`` reads as a lone surrogate half and cannot write: a whole input holding one takes the
model path."""


_I64_MIN = -(2**63)
_U64_END = 2**64


def checked_number(number: int | float) -> None:
    """``FastUnsupported`` for a number of a free-form value that phi-wire's serde writers print
    otherwise than Python's ``json``: an integer outside i64/u64 (serde_json reads it as a
    float), a float Python prints with an exponent (``1e-07``, ``1e+16``) or not finite, or one
    whose text serde_json reads back as another float (``serde_misreads``)."""
    if type(number) is int:
        if not _I64_MIN <= number < _U64_END:
            raise FastUnsupported("an integer outside i64/u64")
    elif "e" in (text := repr(number)) or "n" in text:
        raise FastUnsupported("a float printed with an exponent")
    elif len(text) > EXACT_DIGITS and serde_misreads(number):
        raise FastUnsupported("a float serde_json reads as another")
