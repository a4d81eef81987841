"""The API each Operator-Use layout module (``phi_wire.operator_use``: d0da87a6, the layout
phi-wire writes; ``phi_wire.operator_use_d1cdaad8``) re-exports beside its wire types.

``loads``/``dumps`` read as Operator-Use's pydantic reader reads and write what its writer writes
(``_lax_codec``); ``recognise``/``layout_of`` tell a document's type and layout without pydantic
(``phi_wire.recognise.operator_use``); ``context_builder`` makes a layout's
``build_session_context`` (``_session_tree``), and ``context_parts`` the active branch and the
entries its messages come from; ``layout(name)`` is the module of a layout.

Both layouts read each other's files (unknown keys are ignored, key order is free); each writes
its own: d0da87a6 puts ``role`` first and drops ``terminate_message`` and
``channel_message_id``; d1cdaad8 puts an LLM message's ``role`` last and keeps them.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ._lax_codec import dumps, loads
from ._session_tree import ContextParts, context_builder, context_parts
from .formats import find
from .operator_use_base import SessionFileLines
from .recognise.operator_use import LAYOUTS, layout_of, recognise

__all__ = [
    "LAYOUTS",
    "ContextParts",
    "SessionFileLines",
    "context_builder",
    "context_parts",
    "dumps",
    "layout",
    "layout_of",
    "loads",
    "recognise",
]


def layout(name: str) -> ModuleType:
    """The module that reads and writes the layout ``name`` (``"d0da87a6"``, ``"d1cdaad8"``, or a
    longer prefix of either commit)."""
    return importlib.import_module(find(name, "operator-use").module)
