"""The API each Operator-Use layout module (``phi_wire.operator_use``: d0da87a6, the layout
phi-wire writes; ``phi_wire.operator_use_d1cdaad8``) re-exports beside its wire types.

``loads``/``dumps`` read as Operator-Use's pydantic reader reads and write what its writer writes
(``codec``); ``recognise``/``layout_of`` tell a document's type and layout without pydantic
(``phi_wire.formats.operator_use.recognise``); ``context_builder`` makes a layout's
``build_session_context`` (``session_tree``), and ``context_parts`` the active branch and the
entries its messages come from; ``layout(name)`` is the module of a layout.

Both layouts read each other's files (unknown keys are ignored, key order is free); each writes
its own: d0da87a6 puts ``role`` first and drops ``terminate_message`` and
``channel_message_id``; d1cdaad8 puts an LLM message's ``role`` last and keeps them.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Protocol, TypeVar, overload

from phi_wire.formats import find

from .base import SessionFileLines
from .codec import dumps, loads
from .recognise import LAYOUTS, layout_of, recognise
from .session_tree import ContextParts, context_builder, context_parts

if TYPE_CHECKING:
    from typing_extensions import TypeForm

__all__ = [
    "LAYOUTS",
    "ContextParts",
    "Loads",
    "SessionFileLines",
    "context_builder",
    "context_parts",
    "dumps",
    "layout",
    "layout_of",
    "loads",
    "recognise",
]


T = TypeVar("T")
Entry = TypeVar("Entry")

Text = str | bytes | bytearray | memoryview


class Loads(Protocol[Entry]):
    """The static type of a layout module's ``loads`` (``Loads[SessionFileEntry]``): the wire
    type's value, except that the layout's ``SessionFile`` (a ``list[SessionFileEntry]`` alias
    marked as a whole file) gives a ``SessionFileLines``."""

    @overload
    def __call__(self, tp: type[T], data: Text) -> T: ...  # type: ignore[overload-overlap]
    # (a class, list[X] included, is read as itself; only the alias is a session file)
    @overload
    def __call__(self, tp: TypeForm[list[Entry]], data: Text) -> SessionFileLines[Entry]: ...
    @overload
    def __call__(self, tp: TypeForm[T], data: Text) -> T: ...


def layout(name: str) -> ModuleType:
    """The module that reads and writes the layout ``name`` (``"d0da87a6"``, ``"d1cdaad8"``, or a
    longer prefix of either commit)."""
    return importlib.import_module(find(name, "operator-use").module)
