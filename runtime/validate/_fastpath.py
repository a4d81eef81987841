"""The fast path of ``phi-wire validate``: one regular expression accepts the documents that are
surely valid, at C speed and with no Python work per line; every other one goes to ``loads``.

The expression (``_pattern``) matches only a subset of what ``loads`` accepts, so the fast path
can make a run slower, never change a verdict. JSONL lines are matched as they are; a whole
document, such as a pretty session file, is matched in its compact form (``_compact``). The
expression takes the bytes >= 0x80 inside strings as they come; their UTF-8 is checked once per
block (``_utf8``). The compiled expression is cached between runs (``_cache``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence

from ._compact import compact
from ._detect import detected_as
from ._utf8 import lines_not_utf8

__all__ = ["AUTO_DOCUMENT_TYPES", "AUTO_LINE_TYPES", "FastPath", "fast_path", "fast_path_for"]

AUTO_LINE_TYPES = ("AgentEvent", "AgentMessage")
"""Types the fast path of JSONL knows without --type: what event and message logs hold."""
AUTO_DOCUMENT_TYPES = ("Session",)
"""Types the fast path of .json files knows without --type: the files phi-core writes
(``save_session``, pretty)."""


class FastPath:
    """Finds, in a block of JSONL lines, the ones the pattern does not vouch for; vouches for
    whole (pretty) documents."""

    def __init__(self, lines: re.Pattern[bytes]) -> None:
        self.lines = lines
        """Matches as many whole valid lines as follow the start position."""

    def unmatched(self, block: bytes) -> list[int]:
        """Start offsets of the lines of ``block`` (whole lines, the last one may lack its
        newline) that must be judged exactly."""
        bad: list[int] = []
        position = 0
        size = len(block)
        while position < size:
            found = self.lines.match(block, position)
            end = found.end() if found is not None else position
            if end >= size:
                break
            bad.append(end)
            newline = block.find(b"\n", end)
            position = size if newline == -1 else newline + 1
        not_utf8 = lines_not_utf8(block)
        return sorted({*bad, *not_utf8}) if not_utf8 else bad

    def vouches(self, document: bytes) -> bool:
        """Whether one whole document (pretty or compact) is surely valid."""
        compacted = compact(document)
        # no newline left (JSON strings hold none raw): the line pattern matches exactly one
        # document, or none at all (the empty text, which is not one)
        if not compacted or b"\n" in compacted:
            return False
        return self.lines.fullmatch(compacted) is not None and not lines_not_utf8(compacted)


def fast_path(
    version: str,
    types: Sequence[str],
    detect: Callable[[Collection[str], Collection[str]], str | None] | None,
    build: bool,
) -> FastPath | None:
    """The fast path for documents of ``types`` (with ``detect``: only the types that ``detect``
    gives every document of, from its keys: see ``_detect.detected_as``). Loaded from the cache,
    else built when ``build`` is true (it takes about a second), else None; None too when no type
    can be expressed."""
    from . import _cache

    path = _cache.cache_path(version, types, detect is not None)
    if path is not None:
        if _cache.inexpressible(path):
            return None
        cached = _cache.load_cached(path)
        if cached is not None:
            return FastPath(cached)
    if not build:
        return None
    from ._pattern import build_pattern  # imports pydantic and the models

    pattern = build_pattern(version, types, detect)
    if not pattern:
        if path is not None:
            _cache.mark_inexpressible(path)
        return None
    return FastPath(_cache.compile_cached(pattern, path))


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
