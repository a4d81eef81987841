"""``loads``' fast path: a document that the fast path's expression vouches for goes straight to
pydantic-core, without the serde checks that only an unusual document needs.

Serde fact it rests on: what phi-core writes is compact JSON in one key order, with short numbers
and canonical timestamps. The fast path's expression (``phi_wire.fastpath``, compiled from the
type's own pydantic-core schema with ``exact_values``) matches only such documents, and a document
it matches, with UTF-8 bytes, has no repeated key, no number that serde reads differently from
Python, no nesting near serde's limit, no sequence form, no escaped borrowed string (phi-core has
none) and only canonical timestamps. So ``loads``' checks would find nothing, and pydantic-core's
value is ``loads``' value: it is returned at once. Any other document takes ``loads``' exact path,
as does one that pydantic-core would reject after all (the expression is then wrong, not the
verdict).

The UTF-8 of a document's bytes is not checked apart, as ``phi-wire validate``'s fast path checks it
(``phi_wire.fastpath.is_utf8``): pydantic-core's JSON parser refuses every string (key or value)
whose bytes are not UTF-8, as serde_json does, and any other byte >= 0x80 is outside a string,
where the grammar refuses it; so such a document raises ``ValidationError`` here and takes the
exact path (tests/test_loads_utf8_vouched.py proves it over every class of invalid sequence).

``loads`` runs these steps inline (``vouched`` is the same as a function, for callers that want
the verdict alone): each Python call saved shows per event (the two saved, and the UTF-8 check,
were some 5% of an event's time).

The validator used is the type's own, with each validator function that declares a replacement for
vouched documents (``_marks.vouched_form``: timestamps, ``serde_json::Value`` fields, LlmMessage's
lenient metadata) replaced by that pydantic-core schema, so that no Python code runs for them;
``loads``' settings (strict, wire names only) are written into its configs rather than passed on
each call (``JUDGED_AS_LOADS``). A process builds it from that core schema as ``tools/codegen``
wrote it out into the version package (``_vouched``: a test proves the two equal), with no
``TypeAdapter`` (13 ms of a first document); from the type's ``TypeAdapter`` only where none was
written, or for other pydantic versions, or with pydantic plugins on.

When (compiling a type's expression takes 0.2-3 s, which a program that reads a few documents
must not pay, and a stream reader must not wait for): only for the public types of phi-core's
version modules (``phi_wire.v0_8.AgentEvent``...; clark-agent and Operator-Use types always take
the exact path, their serde facts being ones the expression does not cover). A type's first
document looks for its expression in the fast path's private cache (a few milliseconds, once); if
it is not there, the type's ``BUILD_AFTER`` th document accepted the exact way starts building it
in a background thread (and caches it for later processes); rejected documents do not count (a
stream of invalid ones, or the lines a validator's own fast path left, would gain nothing). No
call ever waits for it: documents keep taking the exact path until it is ready, and whichever
path judges a document, the result is the same.
``prepare(tp)`` (public: ``phi_wire.prepare``) builds it at once, for programs that know they will
read many. ``ENABLED`` switches the whole fast path off (the tests compare both ways; the
benchmarks use the same type under another name, which has no fast path).

The background build, and what may happen around it: the builder is a daemon thread, so it never
keeps a program from exiting; at exit the cache lets a write under way finish and starts no other
(``phi_wire.fastpath``), so nothing is left half-written, and waits for a validator being built (a
daemon thread frozen inside pydantic-core's Rust code aborts the process). A fork while it runs
gives the child no builder (its count starts again, its locks are new). Where no thread can be
started (an interpreter built without threads, one shutting down), the type keeps the exact path; on
a free-threaded build nothing changes: the expression and validator are published whole, by one
assignment, once built.
"""

from __future__ import annotations

import atexit
import importlib
import os
import sys
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

import pydantic
import pydantic_core
from pydantic import ValidationError
from pydantic_core import SchemaValidator

from ..fastpath import document_expression  # (imported with loads, not at its first document)
from ..formats import VERSIONS
from ..primitives import VOUCHED_FORM
from ._definitions import collect_definitions

if TYPE_CHECKING:
    from pydantic import TypeAdapter
    from typing_extensions import TypeForm

__all__ = [
    "BUILD_AFTER",
    "ENABLED",
    "NOT_VOUCHED",
    "SHORTCUTS",
    "Fast",
    "Shortcut",
    "accepted_exactly",
    "document_bytes",
    "prepare",
    "shortcut_for",
    "vouched",
    "vouched_schema",
]

BUILD_AFTER = 10_000
"""Documents of one type that a process accepts the exact way before it builds the type's
expression: some 0.3-0.5 s of work for AgentEvent events, about what the build costs (on another
thread)."""

ENABLED = True
"""False: every document takes ``loads``' exact path."""

NOT_VOUCHED: Any = object()
"""What ``vouched`` returns for a document that must be judged exactly."""

_PHI_CORE = tuple(entry for entry in VERSIONS if entry.format == "phi-core")

Fast: TypeAlias = "tuple[Callable[[bytes], object], Callable[[bytes], Any]]"
"""A type's fast path once on: its expression's ``fullmatch`` and its vouched validator's
``validate_json`` (published together, by one assignment)."""


class Shortcut:
    """One wire type's fast path: ``fast`` once its expression and validator exist."""

    __slots__ = ("builder", "failure", "fast", "lock", "looked", "name", "seen", "tp", "version")

    def __init__(self, tp: Any, version: str | None, name: str) -> None:
        self.tp = tp  # held: it keeps its id unique
        self.version = version
        """The phi-core version whose public module names ``tp``; None: no fast path."""
        self.name = name
        self.fast: Fast | None = None
        self.seen = 0
        self.looked = False
        """Whether the cache was looked in (``first_look``): from then on ``fast`` is all there
        is to look at."""
        self.lock = threading.Lock()
        self.builder: threading.Thread | None = None
        self.failure: BaseException | None = None
        """Why building failed (the type then takes the exact path for good)."""

    def enable(self, build: bool) -> bool:
        """Load the expression from the cache (or, with ``build``, build it); whether the fast
        path is now on."""
        with self.lock:
            if self.fast is None and self.version is not None:
                self.fast = self._load(build)
        return self.fast is not None

    def _load(self, build: bool) -> Fast | None:
        expression = document_expression(self.version or "", self.name, build)
        if expression is None:
            return None
        with _IN_PYDANTIC_CORE:
            if _exiting:
                return None
            validator = _validator_for(self.tp, self.version or "", self.name)
        if validator is None:
            self.version = None  # pydantic's validator is not one this module knows: no fast path
            return None
        return expression.fullmatch, validator.validate_json

    def first_look(self) -> Fast | None:
        """At the type's first document: the expression is looked for in the cache (once), to be
        used at once if it is there. Returns ``fast``."""
        if not ENABLED or self.version is None:
            return None
        self.looked = True
        self.enable(build=False)
        return self.fast

    def count(self) -> None:
        """A document accepted the exact way: the ``BUILD_AFTER`` th starts a build."""
        if not ENABLED or self.version is None or self.fast is not None:
            return
        self.seen += 1
        if self.seen >= BUILD_AFTER and self.builder is None:
            self.start_building()

    def start_building(self) -> None:
        """Build the expression on a daemon thread, started once (what it imports is imported
        here first: a fork meanwhile must not leave the child an import lock held by a thread it
        lacks). Where no thread can be started (a build without threads, an interpreter shutting
        down, a subinterpreter that refuses daemon threads), the type keeps the exact path."""
        from phi_wire.fastpath import preload

        with _STARTING:  # two threads at the threshold at once start one builder
            if self.builder is not None:
                return
            preload()
            builder = threading.Thread(
                target=self._build, name=f"phi-wire fast path for {self.name}", daemon=True
            )
            self.builder = builder
            try:
                builder.start()
            except RuntimeError as error:
                self.failure, self.version = error, None

    def _build(self) -> None:
        try:
            self.enable(build=True)
        except Exception as error:  # an optimisation that failed: the exact path stays
            self.failure, self.version = error, None

    def forked(self) -> None:
        """In a child process: the building thread was not copied, nor may its lock be held;
        the cache is looked at again (the expression may have been cached since)."""
        self.lock = threading.Lock()
        if self.fast is None:
            self.builder, self.seen, self.looked = None, 0, False


_STARTING = threading.Lock()
"""Held while a builder is started (never while one builds: no caller waits for a build)."""

_IN_PYDANTIC_CORE = threading.Lock()
"""Held while an expression's validator is built (pydantic-core's Rust code, calling back into
Python): a daemon builder frozen there by the interpreter's exit takes the whole process down
(SIGABRT: the thread's forced unwinding cannot cross Rust frames), so the exit waits for it."""
_exiting = False
EXIT_WAIT = 10.0
"""Seconds the exit waits for a validator being built (a fraction of a second, normally)."""


def _wait_for_validator_builds() -> None:
    """At exit (atexit runs before daemon threads are frozen): a validator build under way ends
    before the interpreter goes (or ``EXIT_WAIT`` has passed), and none starts after."""
    global _exiting
    held = _IN_PYDANTIC_CORE.acquire(timeout=EXIT_WAIT)
    _exiting = True
    if held:
        _IN_PYDANTIC_CORE.release()


atexit.register(_wait_for_validator_builds)


SHORTCUTS: dict[int, Shortcut] = {}
"""id(type) -> its ``Shortcut`` (which holds the type: the id stays its own)."""


def _public_name(tp: Any) -> tuple[str | None, str]:
    """(version, name) when ``tp`` is a public type of a phi-core version module; else
    (None, "")."""
    module = getattr(tp, "__module__", None)
    name = getattr(tp, "__name__", None)
    if not isinstance(module, str) or not isinstance(name, str):
        return None, ""
    for entry in _PHI_CORE:
        if module == entry.module or module.startswith(entry.module + "."):
            public = sys.modules.get(entry.module)
            if public is not None and getattr(public, name, None) is tp:
                return entry.version, name
    return None, ""


def shortcut_for(tp: Any) -> Shortcut:
    """The fast path of ``tp`` (made on first use; by identity, as ``adapter`` keeps types)."""
    entry = SHORTCUTS.get(id(tp))
    if entry is None or entry.tp is not tp:
        version, name = _public_name(tp)
        entry = SHORTCUTS[id(tp)] = Shortcut(tp, version, name)
    return entry


def prepare(tp: TypeForm[object]) -> bool:
    """Make ``loads(tp, ...)`` take its fast path from the next document on: the expression is
    loaded from the cache or, failing that, built now (0.2-3 s, once per installation: it is
    cached). Without it, a process builds it in the background after ``BUILD_AFTER`` documents of
    ``tp``. Returns whether ``tp`` has a fast path (only phi-core's public wire types do); what
    ``loads`` returns or raises is the same either way."""
    return shortcut_for(tp).enable(build=True)


def _after_fork_in_child() -> None:
    global _STARTING, _IN_PYDANTIC_CORE
    _STARTING = threading.Lock()
    _IN_PYDANTIC_CORE = threading.Lock()  # a builder that may have held it was not copied
    for entry in list(SHORTCUTS.values()):
        entry.forked()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def vouched(tp: Any, data: str | bytes | bytearray | memoryview) -> Any:
    """``loads(tp, data)`` when the fast path vouches for ``data``, else ``NOT_VOUCHED``: the
    expression (one document, nothing after it but a line ending), then pydantic-core. ``loads``
    runs the same steps inline."""
    entry = SHORTCUTS.get(id(tp))
    if entry is None or entry.tp is not tp:
        entry = shortcut_for(tp)
    fast = entry.fast
    if fast is None and not entry.looked:
        fast = entry.first_look()
    if fast is None or not ENABLED:
        return NOT_VOUCHED
    raw = document_bytes(data)
    if raw is None or fast[0](raw) is None:
        return NOT_VOUCHED
    try:
        return fast[1](raw)  # loads' settings are the validator's own (``JUDGED_AS_LOADS``)
    except ValidationError:  # the expression vouched wrongly: never trust it, judge exactly
        return NOT_VOUCHED


def document_bytes(data: str | bytes | bytearray | memoryview) -> bytes | None:
    """The bytes the expression and validator are given: a ``str`` as UTF-8 (None: it holds a
    lone surrogate, which the exact path reports), other inputs as they are."""
    if type(data) is bytes:
        return data
    if isinstance(data, str):
        try:
            return data.encode("utf-8")
        except UnicodeEncodeError:
            return None
    return bytes(data)  # a bytearray, a memoryview


def accepted_exactly(tp: Any) -> None:
    """``loads`` accepted a document of ``tp`` on the exact path: counted towards building the
    expression (documents it rejects are not: a stream of invalid documents, or the lines a
    validator's own fast path left, would have the expression built for nothing)."""
    entry = SHORTCUTS.get(id(tp))
    if entry is not None and entry.tp is tp and entry.fast is None:
        entry.count()


def _validator_for(tp: Any, version: str, name: str) -> SchemaValidator | None:
    """``tp``'s vouched validator: built from the schema codegen wrote for it, else (none written
    for it, or for the pydantic installed) from its ``TypeAdapter``'s; None: no fast path."""
    written = _written_validator(version, name)
    return written if written is not None else _vouched_validator(_built_adapter(tp).validator)


def _written_validator(version: str, name: str) -> SchemaValidator | None:
    """The vouched validator of ``name`` built from the core schema ``tools/codegen`` wrote into
    the version package (``_vouched``, by tools/codegen_vouched.py), with no ``TypeAdapter``; None
    when none was written for it, or for the pydantic and pydantic-core installed, or when
    pydantic plugins are on (they wrap the adapter's validator: the fast path then stays off, as
    ``vouched_schema`` decides)."""
    entry = next((entry for entry in _PHI_CORE if entry.version == version), None)
    if entry is None:
        return None
    try:
        written = importlib.import_module(f"{entry.module}._vouched")
    except ImportError:
        return None
    made = written.VOUCHED.get(name)
    if made is None or _installed_pydantic() != (written.PYDANTIC, written.PYDANTIC_CORE):
        return None
    from pydantic.plugin._loader import get_plugins  # (that pydantic's: its version is known)

    if get_plugins():
        return None
    schema, config = made()
    return SchemaValidator(schema, config)


def _installed_pydantic() -> tuple[str, str]:
    return pydantic.VERSION, pydantic_core.__version__


def vouched_schema(tp: Any) -> tuple[dict[str, Any], Any] | None:
    """The core schema and config of ``tp``'s vouched validator, made from its ``TypeAdapter``'s:
    pydantic-core's validator for the type, its validator functions that declare a vouched form
    replaced by that form; None when that validator is not a plain ``SchemaValidator`` (pydantic
    plugins wrap it) whose schema and config it can read back."""
    return _vouched_parts(_built_adapter(tp).validator)


def _built_adapter(tp: Any) -> TypeAdapter[Any]:
    from ..primitives import adapter

    typed = adapter(tp)
    if type(typed.validator) is not SchemaValidator:
        typed.rebuild()  # a model's deferred validator, not yet built
    return typed


def _vouched_validator(validator: Any) -> SchemaValidator | None:
    """pydantic-core's validator for the type, its validator functions that declare a vouched
    form replaced by that form; None when ``validator`` is not a plain ``SchemaValidator``
    (pydantic plugins wrap it) whose schema and config it can read back."""
    parts = _vouched_parts(validator)
    return None if parts is None else SchemaValidator(*parts)


def _vouched_parts(validator: Any) -> tuple[dict[str, Any], Any] | None:
    if type(validator) is not SchemaValidator:
        return None
    reduced: Any = validator.__reduce__()  # pickling's: (SchemaValidator, (schema, config, ...))
    if not isinstance(reduced, tuple) or len(reduced) != 2 or reduced[0] is not SchemaValidator:
        return None
    arguments = reduced[1]
    if not isinstance(arguments, tuple) or len(arguments) < 2:
        return None
    schema, config = arguments[0], arguments[1]
    if not isinstance(schema, dict) or not isinstance(config, dict | None):
        return None
    definitions: dict[str, Any] = {}
    collect_definitions(schema, definitions)
    settings: Any = {**(config or {}), **JUDGED_AS_LOADS}
    return _with_vouched_forms(schema, definitions), settings


_KEPT = ("ref", "metadata", "serialization")
"""What a replaced function's node says about itself rather than about validation."""

JUDGED_AS_LOADS = {"strict": True, "validate_by_alias": True, "validate_by_name": False}
"""``loads``' settings (``validate_json(strict=True, by_alias=True, by_name=False)``), made the
vouched validator's own: every config in its schema (a model's, the top level's) holds them and
every schema that says ``strict`` says True, so it is called with no keyword and judges as
``loads`` does. A keyword costs pydantic-core a parse on every call (0.3-0.8 us of an event's
~10)."""

_VALUES = ("default", "metadata")
"""Keys of a schema whose value is data (a field's default, notes for JSON Schema), never a
schema."""


def _with_vouched_forms(node: Any, definitions: Mapping[str, Any]) -> Any:
    """A copy of a core schema with every function that declares a vouched form replaced, and
    ``loads``' settings in it (``JUDGED_AS_LOADS``)."""
    if isinstance(node, Mapping):
        kind = node.get("type")
        if isinstance(kind, str) and kind.startswith("function-") and "schema" in node:
            function = node.get("function")
            if isinstance(function, Mapping):
                function = function.get("function")
            form = getattr(function, VOUCHED_FORM, None)
            if form is not None:
                replaced = form(_with_vouched_forms(node["schema"], definitions), definitions)
            if form is not None and replaced is not None:
                replaced = dict(replaced)
                replaced.update((key, node[key]) for key in _KEPT if key in node)
                return replaced
        schema = isinstance(kind, str)  # (not a mapping of fields by name, say)
        copied = {
            key: value if schema and key in _VALUES else _with_vouched_forms(value, definitions)
            for key, value in node.items()
        }
        if schema:  # loads' settings (``JUDGED_AS_LOADS``)
            if isinstance(copied.get("strict"), bool):
                copied["strict"] = True
            if isinstance(copied.get("config"), Mapping):
                copied["config"] = {**copied["config"], **JUDGED_AS_LOADS}
        return copied
    if isinstance(node, list):
        return [_with_vouched_forms(item, definitions) for item in node]
    return node
