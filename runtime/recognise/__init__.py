"""``phi_wire.recognise``: which wire format, version and type a parsed JSON document has, from its
tags and keys alone (no validation, no pydantic: the command line asks it of every file before it
knows whether any model is needed).

    from phi_wire.recognise import recognise

    recognise({"role": "tool_result", "tool_call_id": "c", ...})
    # Recognised(format='clark-agent', version='0.4', type='AgentMessage', certain=True)

One module per format says whether a document has that format's shape (``recognise(document)``:
its type or None; ``claim(document)``: ``(type, certain)``): ``phi_core``, ``operator_use``,
``clark_agent``, ``pi`` (pi-ai, pi-agent-core, pi-coding-agent: 0.73 or 1.5, ``version_of``),
``otel_genai``, and, only to name it, a format phi-wire does not speak yet, ``yoagent`` (0.13 and
later). A claim is *certain* when the document holds something only that format writes,
*possible* when other formats write the same JSON. Only a format's ``loads`` judges whether the
document is valid. Every JSON value gets an answer, never an exception: a tag (``type``,
``role``, ``kind``) that is not a string (an array, an object, a number...) names no variant, and
every recogniser reads tags so (``_tags.tag_of``).

The formats are tried in the order ``ORDER``; a certain claim beats a possible one, and among
claims of the same kind the earlier format wins. The overlaps this order settles, deliberately:

* phi-core first: phi-wire's own format, and the one whose JSON the others copied. A user message
  of text blocks (``{"role": "user", "content": [{"type": "text", ...}], "timestamp": 1}``) is
  phi-core's, clark-agent's and pi's alike, and is recognised as phi-core; so is a text block,
  and a bare string more than one format has (``"error"``, ``"stop"``, ``"low"``: phi-core's
  ``StopReason``/``ThinkingLevel`` before Operator-Use's, Operator-Use's before clark-agent's).
* pi-ai's messages look like phi-core's (phi-core reads them, dropping ``api``, ``cost``,
  ``errorMessage``...): one that carries such a key is pi's (a certain claim); one that carries
  none is phi-core's.
* Operator-Use before clark-agent: both write ``{"input_tokens": 1, "output_tokens": 2}`` usage.
* clark-agent before pi: ``{"type": "agent_start"}`` and a user message whose content is a
  string are both, and are recognised as clark-agent's.
* OpenTelemetry GenAI (``otel-genai``) after the agent formats: its documents are JSON arrays
  of messages ``{"role", "parts"}``, of parts or of tool definitions, which no other format
  writes, except a list of text parts ``{"type": "text", "content": ...}``, which is
  Operator-Use's content too (only possible for both: Operator-Use first).

A file holds many documents: ``recognise_documents(documents)`` names the format of its first
documents together (the format that claims the most of them, then the one with the most certain
claims, then ``ORDER``), so that a clark-agent history starting with a user message of text is
clark-agent's, and a pi event stream starting with ``{"type": "agent_start"}`` pi's.
``recognise_lines`` does the same for the lines of a JSONL file, and says ``SessionFile`` for a
file of Operator-Use's (or pi's) session entries. A JSON array whose items are all one format's
one type is recognised as ``list[<type>]``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from types import ModuleType
from typing import Any, NamedTuple

from phi_wire.formats import FORMATS, RECOGNITION_ORDER, recogniser
from phi_wire.formats.shapes import parse

__all__ = [
    "LIST_ITEMS_CHECKED",
    "ORDER",
    "SPOKEN",
    "Recognised",
    "candidates",
    "fits",
    "names_type",
    "parse",
    "recognise",
    "recognise_documents",
    "recognise_lines",
    "type_in",
]

ORDER: tuple[str, ...] = RECOGNITION_ORDER
"""The formats, in the order their claims are weighed (the registry's order)."""
SPOKEN = frozenset(FORMATS)
"""The formats phi-wire reads and writes (``phi_wire.formats``); the others are only named."""
LIST_ITEMS_CHECKED = 64
"""The items of a JSON array looked at to tell the type of its items."""

# Each format folder's recogniser (phi_wire.formats.<format>.recognise): ``claim`` always; the
# rest where the format has them (see the module docstring).
_RECOGNISERS: dict[str, ModuleType] = {format: recogniser(format) for format in ORDER}
_CLAIMS: dict[str, Callable[[Any], tuple[str, bool] | None]] = {
    format: module.claim for format, module in _RECOGNISERS.items()
}

SESSION_TYPES: dict[str, frozenset[str]] = {
    format: module.SESSION_TYPES
    for format, module in _RECOGNISERS.items()
    if hasattr(module, "SESSION_TYPES")
}
"""The types of a session file's lines, per format: a JSONL file of them is a ``SessionFile``."""

FALLBACK_TYPES: dict[str, str] = {format: _RECOGNISERS[format].FALLBACK for format in FORMATS}
"""The type a document of a spoken format is judged as when its shape names none: phi-core's
detection falls back on AgentEvent; clark-agent's and Operator-Use's most common documents are
messages (history rows, message lines)."""


class Recognised(NamedTuple):
    """A format, version and type a document has the shape of."""

    format: str
    """``phi-core``, ``operator-use``, ``clark-agent``, ``pi``; or ``yoagent`` (not spoken)."""
    version: str
    """The version or layout, when the document tells it (clark-agent: ``0.4``; pi: ``0.73`` or
    ``1.5``; Operator-Use: ``d0da87a6`` or ``d1cdaad8``, by ``operator_use.layout_of``); "" when
    it does not (phi-core's versions write the same shapes)."""
    type: str
    """The wire type's name in that format (``list[T]`` for an array of ``T``)."""
    certain: bool
    """The document holds something only this format writes."""
    also: tuple[str, ...] = ()
    """When the claim is only possible: the other formats whose JSON the document (each of the
    documents) is too, which could have written it, in ``ORDER``; () for a certain claim."""


def _version(format: str, document: Any) -> str:
    version_of: Callable[[Any], str] | None = getattr(_RECOGNISERS[format], "version_of", None)
    return version_of(document) if version_of is not None else ""


def _ranked(found: list[Recognised]) -> tuple[Recognised, ...]:
    # stable: within each kind, ORDER (the order they were found in)
    return tuple(sorted(found, key=lambda item: not item.certain))


def candidates(document: Any) -> tuple[Recognised, ...]:
    """Every format whose shape ``document`` (parsed JSON) has, the likeliest first: certain
    claims before possible ones, each in ``ORDER``."""
    return _candidates(document, lists=True)


def _candidates(document: Any, lists: bool) -> tuple[Recognised, ...]:
    found = []
    for format, claim in _CLAIMS.items():
        claimed = claim(document)
        if claimed is not None:
            found.append(Recognised(format, _version(format, document), *claimed))
    if lists and not found and isinstance(document, list) and document:
        items = _group(document[:LIST_ITEMS_CHECKED], same_type=True, lists=False)
        if items is not None:
            found.append(items._replace(type=f"list[{items.type}]"))
    return _ranked(found)


def recognise(document: Any) -> Recognised | None:
    """The format, version and type ``document`` (parsed JSON) most likely has, or None when it
    has no known format's shape (an empty object, a number, a string no format has...); a
    possible claim names the other formats that fit (``also``)."""
    found = candidates(document)
    if not found:
        return None
    best = found[0]
    if best.certain:
        return best
    others = [*best.also, *(item.format for item in found[1:])]
    return best._replace(also=_in_order(others, best.format))


def _in_order(formats: Iterable[str], but: str) -> tuple[str, ...]:
    named = set(formats) - {but}
    return tuple(format for format in ORDER if format in named)


def fits(format: str, document: Any) -> bool:
    """Whether ``document`` has the shape of ``format`` at all (a possible claim is enough; a
    list fits when its items do)."""
    claim = _CLAIMS.get(format)
    if claim is None:
        return False
    if claim(document) is not None:
        return True
    if isinstance(document, list) and document:
        return all(claim(item) is not None for item in document[:LIST_ITEMS_CHECKED])
    return False


def recognise_documents(
    documents: Iterable[Any], *, same_type: bool = False, among: Collection[str] = ORDER
) -> Recognised | None:
    """The format of a group of documents (a file's first ones, an array's items): the format
    that claims the most of them, then the one with the most certain claims, then ``ORDER``
    (only the formats ``among``). Its ``type`` is that of the first document it claims (with
    ``same_type``, None unless it claims every document as one type); its ``version`` the first a
    document tells (Operator-Use: ``d1cdaad8`` if any document has that layout); without a
    certain claim, ``also`` names the other formats that claim as many of them."""
    return _group(documents, same_type=same_type, lists=True, among=among)


class _Tally:
    """One format's claims on a group of documents."""

    def __init__(self, first: Recognised) -> None:
        self.first = first
        self.claimed = 0
        self.certain = 0
        self.types: set[str] = set()
        self.versions: set[str] = set()

    def add(self, found: Recognised) -> None:
        self.claimed += 1
        self.certain += found.certain
        self.types.add(found.type)
        self.versions.add(found.version)


def _group(
    documents: Iterable[Any], *, same_type: bool, lists: bool, among: Collection[str] = ORDER
) -> Recognised | None:
    tallies: dict[str, _Tally] = {}
    count = 0
    for document in documents:
        count += 1
        for found in _candidates(document, lists):
            if found.format in among:
                tallies.setdefault(found.format, _Tally(found)).add(found)
    if not tallies:
        return None
    best = max(
        tallies,
        key=lambda name: (tallies[name].claimed, tallies[name].certain, -ORDER.index(name)),
    )
    tally = tallies[best]
    if same_type and (tally.claimed < count or len(tally.types) != 1):
        return None
    version = tally.first.version
    of_group = getattr(_RECOGNISERS[best], "version_of_group", None)
    if of_group is not None:
        version = of_group(tally.versions) or version
    certain = tally.certain > 0
    also: tuple[str, ...] = ()
    if not certain:
        fitting = [name for name, other in tallies.items() if other.claimed == tally.claimed]
        also = _in_order([*tally.first.also, *fitting], best)
    return tally.first._replace(version=version, certain=certain, also=also)


def recognise_lines(documents: Iterable[Any], among: Collection[str] = ORDER) -> Recognised | None:
    """The format of a JSONL file from its first lines (parsed): as ``recognise_documents``;
    a file of session entries (its type: ``SessionFile``; none of its lines the format's other
    types) is one document in Operator-Use and pi, read whole, and so named."""
    documents = list(documents)
    found = recognise_documents(documents, among=among)
    if found is None:
        return None
    session_types = SESSION_TYPES.get(found.format, frozenset())
    if found.type in session_types and _only(found.format, session_types, documents):
        return found._replace(type="SessionFile")
    return found


def _only(format: str, types: frozenset[str], documents: list[Any]) -> bool:
    """Whether every document ``format`` claims is one of ``types`` (a pi stream's lines that
    follow a session header are events: it is no session file)."""
    claims = (_CLAIMS[format](document) for document in documents)
    return all(claimed is None or claimed[0] in types for claimed in claims)


def type_in(format: str, document: Any) -> str:
    """The wire type ``document`` (parsed JSON) is judged as in ``format`` (one phi-wire
    speaks): phi-core's detection (``phi_core.detect_type``), the other formats' shape, or their
    fallback type (``FALLBACK_TYPES``). An array of objects of one type is ``list[<type>]``
    (phi-core: only when every item is a message or an event), but in a format whose documents
    are arrays (``ARRAYS_ARE_DOCUMENTS``: OpenTelemetry GenAI's) the document type it claims."""
    claimed = _CLAIMS[format](document)
    if claimed is not None and getattr(_RECOGNISERS[format], "ARRAYS_ARE_DOCUMENTS", False):
        return claimed[0]
    if isinstance(document, list) and document:
        items = {_item_type(format, item) for item in document[:LIST_ITEMS_CHECKED]}
        if len(items) == 1 and None not in items:
            return f"list[{items.pop()}]"
    type_of: Callable[[Any], str] | None = getattr(_RECOGNISERS[format], "type_of", None)
    if type_of is not None:
        return type_of(document)
    return claimed[0] if claimed is not None else FALLBACK_TYPES[format]


def names_type(format: str, document: Any) -> bool:
    """Whether ``document`` (parsed JSON) names its own type in ``format`` (one phi-wire
    speaks): a key detection goes by (phi-core: ``type``, ``role``, ``session_id``...), or the
    shape of one of the format's types; an array, when its items do. When it does not,
    ``type_in`` gives the format's fallback type: a guess."""
    if _CLAIMS[format](document) is not None:
        return True
    if isinstance(document, dict):
        names: Callable[[Any], bool] | None = getattr(_RECOGNISERS[format], "names_type", None)
        return names is not None and names(document)
    if isinstance(document, list) and document:
        return all(names_type(format, item) for item in document[:LIST_ITEMS_CHECKED])
    return False


def _item_type(format: str, item: Any) -> str | None:
    if not isinstance(item, dict):
        return None
    claimed = _CLAIMS[format](item)
    if claimed is None:
        return None
    allowed: frozenset[str] | None = getattr(_RECOGNISERS[format], "LIST_ITEM_TYPES", None)
    return claimed[0] if allowed is None or claimed[0] in allowed else None
