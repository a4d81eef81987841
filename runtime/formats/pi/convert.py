"""pi <-> phi-core, through the hub. Streams are converted (pi's provider stream and agent/session
event streams -> phi-core: ``_provider_stream``, ``_events_to_phi``); the message and session
converters are not written yet: for those each direction says so, as a
``phi_wire.convert.UnsupportedConversion`` (one line on the command line, never a traceback).
"""

from __future__ import annotations

from typing import Any, NoReturn

from phi_wire.convert import Conversion, UnsupportedConversion

__all__ = ["from_phi_core", "to_phi_core"]

NOT_YET = "pi is not converted yet (no converter)"
"""What a value without a converter yet (a message, a session) is told, as the command line
says it for a file."""


def to_phi_core(value: Any, *, name: str = "") -> Conversion[Any]:
    """pi's events (one event, or a stream of them: a list) as phi-core's; other values: not
    yet (``UnsupportedConversion``)."""
    from ._stream_convert import stream_to_phi_core

    converted = stream_to_phi_core(value, name=name)
    if converted is None:
        raise UnsupportedConversion(NOT_YET)
    return converted


def from_phi_core(value: Any, *, name: str = "") -> NoReturn:
    """Not yet: raises ``UnsupportedConversion``."""
    raise UnsupportedConversion(NOT_YET)
