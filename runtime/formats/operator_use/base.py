"""The public seam Operator-Use's generated models import: base classes and types for a format
whose own reader and writer are pydantic.

Operator-Use reads with pydantic in lax mode (``"15"`` is 15, ``"yes"`` is true, unknown keys
are ignored) and writes with ``model_dump_json(exclude_none=True)``, so phi-wire's own pydantic
reproduces both natively; what JSON Schema cannot say is here:

* ``LaxModel``: the lax, extra-ignoring configuration, and the generated defaults that a schema
  marks with ``x-default-factory`` (a missing message id is a fresh uuid4, a missing entry id
  ``str(uuid4())[:8]``, a missing timestamp the current time);
* ``SessionEntryModel``: the base of a session file's lines;
* ``PosixPathStr``: ``pathlib.Path`` as Operator-Use runs on POSIX (normalised on read);
* ``SessionFileLines``: a session file, one entry per line, with the lines the reader skipped and
  which of Operator-Use's two writers wrote each line (``fork_from`` writes None as ``null``).

This module must never import the generated code: the generated code imports it.
"""

from __future__ import annotations

import time
import types
import uuid
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath
from typing import Any, Generic, Union, get_args, get_origin

from pydantic import ConfigDict
from pydantic_core import PydanticUndefined
from typing_extensions import TypeVar

from phi_wire.errors import WireError
from phi_wire.serde import InterruptibleModel

__all__ = [
    "DEFAULT_FACTORIES",
    "LaxModel",
    "PosixPathStr",
    "SessionEntryModel",
    "SessionFileLines",
]

PosixPathStr = PurePosixPath
"""``pathlib.Path`` on POSIX: ``"/p/"`` reads as ``/p``, ``"a//b/./c"`` as ``a/b/c``, ``""`` as
``.``; written as a string. A number is rejected."""


def _entry_id() -> str:
    return str(uuid.uuid4())[:8]


def _message_id() -> str:
    return str(uuid.uuid4())


DEFAULT_FACTORIES: dict[str, Callable[[], Any]] = {
    "uuid4": _message_id,
    "uuid4-8": _entry_id,
    "time.time": time.time,
    "datetime.now": time.time,  # datetime.now().timestamp(): the same clock, microseconds
}
"""What each ``x-default-factory`` value generates (Operator-Use's default factories)."""


def _without_none(annotation: Any) -> Any:
    """``str | None`` -> ``str``: the generator makes a property with no static default optional,
    but Operator-Use's field is not nullable (it has a default factory instead)."""
    if get_origin(annotation) in (Union, types.UnionType):
        kept = [arg for arg in get_args(annotation) if arg is not type(None)]
        if len(kept) == 1:
            return kept[0]
    return annotation


class LaxModel(InterruptibleModel):
    """Base of every generated Operator-Use model: pydantic's defaults, as Operator-Use's own
    dataclasses and models have them (lax mode, unknown keys ignored and dropped), with the schema's
    ``x-default-factory`` markers turned into default factories once per class."""

    model_config = ConfigDict(extra="ignore", defer_build=True, protected_namespaces=())

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        for field in cls.model_fields.values():
            if type(field.default) in (list, dict) and not field.default:
                # a fresh empty list/dict per model: pydantic would deep-copy a mutable default
                # (a Python call per field and document); the value is the same
                field.default_factory = type(field.default)
                field.default = PydanticUndefined
            extra = field.json_schema_extra
            kind = extra.get("x-default-factory") if isinstance(extra, dict) else None
            if isinstance(kind, str) and field.default_factory is None:
                field.annotation = _without_none(field.annotation)
                field.default = PydanticUndefined
                field.default_factory = DEFAULT_FACTORIES[kind]


class SessionEntryModel(LaxModel):
    """Base of the session-file entries (the header included): what a session file's lines are."""


Entry = TypeVar("Entry", default=Any)
"""The entry type of a ``SessionFileLines``: a layout's ``SessionFileEntry`` union."""


class SessionFileLines(list[Entry], Generic[Entry]):
    """A session file: its entries in line order (a list), as ``loads(SessionFile, text)`` reads
    it; ``dumps`` writes one line per entry, each ending with ``\\n``. Statically a
    ``SessionFileLines[SessionFileEntry]`` of the layout that read it.

    ``skipped`` lists the lines Operator-Use's reader skips without a word (each a ``WireError``
    with its ``line``); blank lines are skipped too, and are not listed.

    Operator-Use has two writers: ``model_dump_json(exclude_none=True)`` for every line it
    appends or rewrites, ``model_dump_json()`` (None fields as ``null``) for the lines
    ``fork_from`` copies, so a forked file mixes both. The file remembers which entries were
    written the second way (``writes_nulls``), and ``dumps`` writes them that way again.
    """

    skipped: tuple[WireError, ...]

    def __init__(self, entries: Iterable[Entry] = (), skipped: Iterable[WireError] = ()) -> None:
        super().__init__(entries)
        self.skipped = tuple(skipped)
        self._with_nulls: dict[int, Any] = {}  # id -> the entry itself (so the id stays its own)

    def writes_nulls(self, entry: Any) -> bool:
        """Whether ``entry`` is written as ``fork_from`` writes (None fields as ``null``)."""
        return self._with_nulls.get(id(entry)) is entry

    def set_writes_nulls(self, entry: Any, value: bool = True) -> None:
        """Write ``entry`` as ``fork_from`` does (``value``), or with ``exclude_none``."""
        if value:
            self._with_nulls[id(entry)] = entry
        else:
            self._with_nulls.pop(id(entry), None)
