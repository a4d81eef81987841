"""How each wire format's documents are typed, read and written back, for judging: one ``Reader``
per format and version, over that version's public module (``phi_wire.formats``).

* phi-core reads with its exact serde codec, the work on an invalid document capped
  (``max_problems``; a big document's arrays judged each up to its first invalid item); its
  documents' types are detected from their keys (``phi_wire.formats.phi_core.recognise``).
* clark-agent reads with the same exact codec; a document's type is the one its shape has
  (``phi_wire.formats.clark_agent.recognise``), an ``AgentMessage`` (a history row) when it has
  none.
* Operator-Use reads as its pydantic reader does (lax); a whole session file is one
  ``SessionFile`` document whose skipped lines are its problems; the problems listed are capped
  here, as its codec lists them all.
* OpenTelemetry GenAI reads as the official schema judges (its codec lists every problem, capped
  here too); its documents' types are the ones their shape has, ``InputMessages`` when none.
* pi reads with its own exact codec (``JSON.parse``, judged by pi's types; its problems capped
  here as Operator-Use's are); a whole session file is one document, read as ``Session`` (what
  ``SessionManager.open()`` reads, the lines it skips its problems).

A type may be ``list[T]``: a JSON array of ``T`` (``phi_wire.recognise`` names such arrays).
"""

from __future__ import annotations

from contextlib import suppress
from types import ModuleType
from typing import Any

from phi_wire.errors import WireError
from phi_wire.formats import find, newest
from phi_wire.formats.operator_use import recognise as operator_use
from phi_wire.formats.phi_core import recognise as phi_core
from phi_wire.formats.pi import recognise as pi
from phi_wire.recognise import FALLBACK_TYPES, parse, type_in

from ._records import HOME_FORMAT

__all__ = ["Reader", "frameless", "reader"]


def frameless(error: BaseException) -> None:
    """Drops the tracebacks of ``error`` and of the errors it was raised from or during. A
    reader's error is often raised from a local variable of the frame it leaves (the codec's
    ``wire_error``): traceback, frame and error then form a cycle that only the cyclic collector
    frees, and the frames' callers hold the block of lines being judged (4 MB), alive for the
    rest of a run. A record keeps what the error reports (file, line, pointer, message) only."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        link = pending.pop()
        if link is not None and id(link) not in seen:
            seen.add(id(link))
            link.__traceback__ = None
            pending += (link.__cause__, link.__context__)


class Reader:
    """The documents of one format and version: their types, ``loads`` and ``dumps``."""

    def __init__(self, format: str, version: str) -> None:
        entry = find(version, format) if version else newest(format)
        self.format = entry.format
        self.version = entry.version
        self.label = entry.label
        self.exact = self.format in SERDE_FORMATS
        """Read by the serde codec (which caps its own work on an invalid document)."""

        self.fallback_type = FALLBACK_TYPES[self.format]
        """The type a document is judged as when nothing in it names one."""
        self._entry = entry
        self._module: ModuleType | None = None
        self._types: dict[str, Any] = {}

    @property
    def module(self) -> ModuleType:
        """The version's public module (imported, with pydantic, on first use)."""
        if self._module is None:
            self._module = self._entry.load()
        return self._module

    @property
    def own_strict(self) -> bool:
        """--strict asks the module's ``strict_problems`` (OpenTelemetry GenAI: the conventions
        beyond the official schema) instead of comparing the document with what it writes."""
        return hasattr(self.module, "strict_problems")

    def type_name(self, raw: bytes, document: Any = None) -> str:
        """The wire type a document is judged as (``document``: ``raw`` parsed, if it was):
        phi-core's from its keys (the text alone when it settles it), the others' from their
        shape (``phi_wire.recognise.type_in``)."""
        if self.format == HOME_FORMAT:
            return phi_core.detect_raw(raw)
        if document is None:
            try:
                document = parse(raw)
            except (ValueError, RecursionError):
                return FALLBACK_TYPES[self.format]
        return type_in(self.format, document)

    def wire_type(self, name: str) -> Any:
        """The type object a name stands for (``list[AgentMessage]`` too): one object per name,
        as ``loads`` keeps one TypeAdapter per type object."""
        found = self._types.get(name)
        if found is None:
            name = SESSION_FILE_TYPES.get(self.format, {}).get(name, name)
            if name.startswith("list[") and name.endswith("]"):
                found = list[getattr(self.module, name[5:-1])]  # type: ignore[misc]
            else:
                found = getattr(self.module, name)
            self._types[name] = found
        return found

    def has_type(self, name: str) -> bool:
        return name in self.module.WIRE_TYPES

    def load(self, name: str, raw: bytes, max_problems: int) -> Any:
        """``loads`` as the format reads; ``WireError`` lists at most ``max_problems`` problems
        (``omitted`` counts the others; a big document's arrays are judged up to their first
        invalid item, ``first_invalid_items_only``), and holds no frame (``frameless``)."""
        try:
            return self._load(name, raw, max_problems)
        except WireError as error:
            frameless(error)
            raise  # its traceback now this frame alone: the caller's record holds none

    def _load(self, name: str, raw: bytes, max_problems: int) -> Any:
        tp = self.wire_type(name)
        if self.exact:
            return self.module.loads(tp, raw, max_problems=max_problems)
        try:
            return self._loads_widening(name, tp, raw)
        except WireError as error:
            if len(error.problems) <= max_problems:
                raise
            kept = error.problems[:max_problems]
            raise WireError(
                error.type_name,
                kept[0].pointer,
                kept[0].message,
                problems=kept,
                line=error.line,
                column=error.column,
                omitted=error.omitted + len(error.problems) - len(kept),
            ) from None

    def _loads_widening(self, name: str, tp: Any, raw: bytes) -> Any:
        """``loads`` as ``tp``; for pi, a document ``tp`` rejects is read as the types wider
        than it in turn (``pi.recognise.WIDER_TYPES``), the first error raised if none reads it."""
        try:
            return self.module.loads(tp, raw)
        except WireError:
            for wider in WIDER_TYPES.get(self.format, {}).get(name, ()):
                if self.has_type(wider):
                    with suppress(WireError):
                        return self.module.loads(self.wire_type(wider), raw)
            raise

    def dumps(self, value: Any, pretty: bool) -> str:
        """What the implementation writes for ``value`` (Operator-Use writes compact only)."""
        if self.exact:
            return str(self.module.dumps(value, pretty=pretty))
        return str(self.module.dumps(value))


SERDE_FORMATS = frozenset({"phi-core", "clark-agent"})
"""The formats read and written by the serde codec (``max_problems``, ``pretty``)."""
SESSION_FILE_TYPES = {"pi": {"SessionFile": "Session"}}
WIDER_TYPES = {"pi": pi.WIDER_TYPES}
"""Per format: the types tried in turn when a document is not the type it was claimed as."""
"""A whole session file's type, where the format names it otherwise than ``SessionFile``."""


_READERS: dict[tuple[str, str], Reader] = {}


def reader(format: str, version: str = "") -> Reader:
    """The reader of ``format`` at ``version`` ("" : the format's default module: phi-core's
    newest, Operator-Use's ``d0da87a6``), once per process."""
    key = (format, version)
    found = _READERS.get(key)
    if found is None:
        if format == "operator-use" and not version:
            version = operator_use.LAYOUTS[0]
        found = _READERS[key] = Reader(format, version)
    return found
