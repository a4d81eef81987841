"""Which fast path (``phi_wire.fastpath``) a run of the validator uses: for JSONL lines or whole
documents, for the types detection tells apart or the one ``--type`` names; loaded once per process
(forked workers inherit it), from the cache, or built when the input is worth a second of compiling.
"""

from __future__ import annotations

from phi_wire.fastpath import FastPath, fast_path
from phi_wire.formats.phi_core.recognise import detected_as

__all__ = ["AUTO_DOCUMENT_TYPES", "AUTO_LINE_TYPES", "FastPath", "fast_path", "fast_path_for"]

AUTO_LINE_TYPES = ("AgentEvent", "AgentMessage")
"""Types the fast path of JSONL knows without --type: what event and message logs hold."""
AUTO_DOCUMENT_TYPES = ("Session",)
"""Types the fast path of .json files knows without --type: the files phi-core writes
(``save_session``, pretty)."""


_FAST: dict[tuple[str, str | None, bool], FastPath | None] = {}


def fast_path_for(
    version: str, forced: str | None, build: bool = False, lines: bool = True
) -> FastPath | None:
    """The fast path for this version and --type, for JSONL lines or for whole .json documents:
    once per process (forked workers inherit it), from the cache, or built when ``build`` (worth
    its second of compiling on big inputs)."""
    if forced is not None:
        lines = True  # one type: the same expression serves both
    key = (version, forced, lines)
    if key not in _FAST or (_FAST[key] is None and build):
        if forced is not None:
            _FAST[key] = fast_path(version, [forced], None, build)
        else:
            types = AUTO_LINE_TYPES if lines else AUTO_DOCUMENT_TYPES
            _FAST[key] = fast_path(version, types, detected_as, build)
    return _FAST[key]
