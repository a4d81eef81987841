"""The error of an export a collector refused: raised by ``_write``, named by the package."""

from __future__ import annotations

__all__ = ["ExportFailed"]


class ExportFailed(RuntimeError):
    """The collector did not take the spans (the reason: the first thing the exporter said)."""
