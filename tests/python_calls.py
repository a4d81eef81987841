"""The Python functions a call enters: the work-counting probe of the tests that guard how much
Python runs per document (no timing: a count can fail on any machine, a time only on a slow one)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType


def python_calls(call: Callable[[], object]) -> list[str]:
    """The names of the Python functions entered while ``call()`` runs (C functions not counted),
    ``call`` itself first."""
    names: list[str] = []

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "call":
            names.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return names
