"""Operator-Use's session file written from phi-core messages without a model, offered to
``phi_wire.convert`` in tables of its own (a module that imports no model, where ``convert``'s
tables import the model converters): a conversion that writes a session file dict to dict loads
no generated model, pydantic model or engine.

``FAST_SESSION_FILES``: a whole input's messages; ``STREAMED_SESSION_FILES``: the same writer
given them a batch at a time (``convert`` re-exports both).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from phi_wire.convert import Loss

from ._fast_from_phi import SessionFileWriter, session_file_from_phi

__all__ = ["FAST_SESSION_FILES", "STREAMED_SESSION_FILES"]

FAST_SESSION_FILES: dict[
    tuple[str, str, str],
    Callable[[list[dict[str, Any]], Sequence[str], str], tuple[str, list[Loss]]],
] = {("phi-core", "operator-use", "AgentMessage"): session_file_from_phi}
"""(source, target, type) -> the writer of a session file without models (``phi_wire.convert``'s
``_fast_session_file``): phi-core messages' dicts, their texts as phi-core writes them and the
input's name -> the file's text and the losses, exactly as ``session_from_phi_core`` gives them;
``FastUnsupported`` for messages it cannot write so (the input then takes the model path)."""

STREAMED_SESSION_FILES: dict[tuple[str, str, str], type[SessionFileWriter]] = {
    ("phi-core", "operator-use", "AgentMessage"): SessionFileWriter
}
"""(source, target, type) -> the same writer given the messages a batch at a time, its entries
held (spooled) by the caller, not their messages (``phi_wire.convert``'s
``_session_file_stream``: a JSONL file of any size in the memory of one batch)."""
