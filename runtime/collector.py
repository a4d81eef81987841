"""Python's cyclic garbage collector, paused while ``loads`` judges one document (and while
``phi_wire.convert`` converts one input: its models are held until it is written). A module of
its own, with no import beyond ``gc``: a conversion without models pauses it without importing
the engine (``phi_wire.serde``, which re-exports it).

Judging builds many short-lived containers that hold no cycle: the document as parsed and, for an
invalid one, pydantic's errors, each holding a new copy of its input (the whole document, for a
field missing at the top). While they are built the collector walks every tracked object of the
process, again and again: a 100 kB document of nested arrays took three times as long with it
(0.45 s against 0.15 s). Reference counting frees all of them; the collector runs again as soon as
the document is judged.
"""

from __future__ import annotations

import gc
from types import TracebackType

__all__ = ["CollectorPaused"]


class CollectorPaused:
    """``with CollectorPaused():`` pauses the collector for the block, unless something else has
    paused it (that pause is left as it is)."""

    __slots__ = ("_paused",)

    def __enter__(self) -> None:
        self._paused = gc.isenabled()
        if self._paused:
            gc.disable()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._paused:
            gc.enable()
