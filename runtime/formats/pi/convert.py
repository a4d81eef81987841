"""pi <-> phi-core, through the hub: not written yet. pi's converters come with the convert
issue's converter design (issue 20's second half); until then each direction says so, as a
``phi_wire.convert.UnsupportedConversion`` (one line on the command line, never a traceback).
"""

from __future__ import annotations

from typing import Any, NoReturn

from phi_wire.convert import UnsupportedConversion

__all__ = ["from_phi_core", "to_phi_core"]

NOT_YET = (
    "pi {direction} phi-core is not converted yet (pi is read and written exactly; its "
    "converters come with the converter redesign, issue 20)"
)


def to_phi_core(value: Any, *, name: str = "") -> NoReturn:
    """Not yet: raises ``UnsupportedConversion``."""
    raise UnsupportedConversion(NOT_YET.format(direction="->"))


def from_phi_core(value: Any, *, name: str = "") -> NoReturn:
    """Not yet: raises ``UnsupportedConversion``."""
    raise UnsupportedConversion(NOT_YET.format(direction="<-"))
