"""``phi_wire.fastpath``: one regular expression, compiled from the models, that vouches for the
documents phi-core writes (and clark-agent's, Operator-Use's and pi's: ``FORMATS``), at C speed
and with no Python work per document.

The expression (``_pattern``) is compiled from a wire type's own pydantic-core schema and matches
only a *subset* of what ``loads`` accepts: the compact form phi-core writes. A document it matches
is valid; any other one must be judged by ``loads``, so using the fast path can make a program
slower, never change a verdict. JSONL lines are matched as they are; a whole document, such as a
pretty session file, is matched in its compact form (``_compact``). The expression takes the bytes
>= 0x80 inside strings as they come; their UTF-8 is checked once per block (``_utf8``). The
compiled expression is cached between runs in a private folder whose content can never change a
verdict (``_cache``, ``_private``).

A format's reader decides what the expression may take: serde's (phi-core, clark-agent: its
borrowed strings without escapes) or pydantic's lax one (Operator-Use: any number form that stays
finite, ``dict`` fields) or ``JSON.parse``'s followed by pi's models (pi: ``_js``; its lines
dense with escapes are matched rewritten, each ``\\n`` two DEL bytes: ``_escapes``); a whole
Operator-Use or pi session file is vouched for line by line, its header first
(``SessionFilePath``). ``--strict`` has its own for phi-core's whole documents
(``CanonicalPath``): the expression narrowed to what phi-core writes (``_canonical``), matched on
a document laid out as serde_json's pretty writer lays it out (``_pretty``).

Used by ``phi_wire.validate`` (which lines of a file need ``loads``: ``fast_path``) and by
``loads`` itself (``document_expression``), whose expression is compiled with exact values
(``_pattern``): what it vouches for, pydantic-core alone reads exactly as ``loads`` does.

A wheel ships ``loads``' expressions for phi-core's events compiled for the interpreter that built
it, looked at before the cache (``_shipped``: checked exactly as a cache entry is).

At interpreter exit the cache lets a write under way finish and starts none after (``_private``):
``loads`` builds its expressions on a daemon thread.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

from ._compact import compact
from ._escapes import dense_spans, rewritten
from ._js import JS_FORMATS
from ._js import TAG_KEY as JS_TAG_KEY
from ._pretty import is_pretty
from ._probes import probes_key
from ._strict import CanonicalPath, canonical_path
from ._utf8 import is_utf8, lines_not_utf8

__all__ = [
    "FORMATS",
    "JS_TAG_KEY",
    "CanonicalPath",
    "Detect",
    "FastPath",
    "SessionFilePath",
    "canonical_path",
    "compact",
    "document_expression",
    "fast_path",
    "is_pretty",
    "is_utf8",
    "preload",
    "probes_key",
    "write_shipped",
]

FORMATS = frozenset({"phi-core", "clark-agent", "operator-use", "pi"})
"""The formats with a fast path: those read by the serde codec (``phi_wire.serde``), whose every
check beyond the models' a compact document in one key order cannot fail (see ``_pattern``), and
Operator-Use, read by pydantic's lax ``validate_json`` itself, which accepts every document the
model's schema does; and pi, read by ``JSON.parse`` then validated by its models in Python
(``_js``: what that reader takes beyond the models, and refuses)."""

Detect = Callable[[Collection[str], Collection[str]], str | None]
"""How documents' types are told apart: from a type's required and optional keys, the type every
document with those keys is taken for (None: it depends). With it, a type joins the expression only
if the documents it matches are all taken for it (see ``phi_wire.validate``'s detection)."""


class FastPath:
    """Finds, in a block of JSONL lines, the ones the pattern does not vouch for; vouches for
    whole (pretty) documents."""

    def __init__(self, lines: re.Pattern[bytes], any_escape: bool = False) -> None:
        self.lines = lines
        """Matches as many whole valid lines as follow the start position."""
        self.any_escape = any_escape
        """Its every string takes any escape (pi's, ``JS_FORMATS``): lines dense with escapes
        are matched rewritten (``_escapes``)."""

    def unmatched(self, block: bytes | bytearray, first: int = 0) -> list[int]:
        """Start offsets of the lines of ``block`` (whole lines, the last one may lack its
        newline) that must be judged exactly; ``first``: only of the lines from that offset on
        (a line's start; a session file's entries after its header, not copied apart)."""
        size = len(block)
        spans = dense_spans(block) if self.any_escape else []
        bad: list[int] = []
        position = first
        for start, end in spans:
            if end <= position:
                continue
            start = max(start, position)
            bad += self._unmatched_lines(block, position, start)
            stand_in = rewritten(block, start, end)
            for offset in self._unmatched_lines(stand_in, 0, end - start):
                if not self._matches_line(block, start + offset):  # an escaped backslash, then n
                    bad.append(start + offset)
            position = end
        bad += self._unmatched_lines(block, position, size)
        not_utf8 = [line for line in lines_not_utf8(block) if line >= first]
        return sorted({*bad, *not_utf8}) if not_utf8 else bad

    def _unmatched_lines(self, data: bytes | bytearray, position: int, stop: int) -> list[int]:
        """Start offsets of the lines in ``data[position:stop]`` (whole lines) the expression
        does not match."""
        bad: list[int] = []
        while position < stop:
            found = self.lines.match(data, position, stop)
            end = found.end() if found is not None else position
            if end >= stop:
                break
            bad.append(end)
            newline = data.find(b"\n", end, stop)
            position = stop if newline == -1 else newline + 1
        return bad

    def _matches_line(self, data: bytes | bytearray, start: int) -> bool:
        """Whether the expression matches the whole line of ``data`` that starts at ``start``."""
        newline = data.find(b"\n", start)
        stop = len(data) if newline == -1 else newline + 1
        found = self.lines.match(data, start, stop)
        return found is not None and found.end() == stop

    def vouches_line(self, line: bytes, utf8: bool = False) -> bool:
        """Whether one compact document, alone on its line (with or without its line ending),
        is surely valid; ``utf8``: its bytes are known to be UTF-8 (from a ``str``)."""
        if not line or line.find(b"\n", 0, len(line) - 1) != -1:
            return False  # nothing (no document), or more than one line
        if self.lines.fullmatch(line) is None:
            return False
        return utf8 or line.isascii() or is_utf8(line)

    def vouches(self, document: bytes) -> bool:
        """Whether one whole document (pretty or compact) is surely valid."""
        compacted = compact(document)
        # no newline left (JSON strings hold none raw): the line pattern matches exactly one
        # document, or none at all (the empty text, which is not one)
        if not compacted or b"\n" in compacted:
            return False
        return self.lines.fullmatch(compacted) is not None and not lines_not_utf8(compacted)


class SessionFilePath:
    """Vouches for a whole session file read as one document (Operator-Use's
    ``read_session_file``: ``str.splitlines``, each line an entry, the header first; pi's
    ``SessionManager.open()``: split at ``\\n``, the header apart): every line one its entries'
    expression vouches for, the first one its header's."""

    SPLITLINES_BREAKS = (b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9")
    """Characters ``str.splitlines`` breaks a line at that a JSON string may hold raw (U+0085,
    U+2028, U+2029; the other ones are control characters, which no vouched line holds raw)."""

    def __init__(
        self,
        entries: FastPath,
        header: FastPath,
        header_start: bytes = b"",
        breaks: tuple[bytes, ...] = SPLITLINES_BREAKS,
        header_an_entry: bool = True,
    ) -> None:
        self.entries = entries
        self.header = header
        self.header_start = header_start
        """What the header line must start with (pi's: ``{"type":"session","version":3,``, a
        header its reader migrates nothing after)."""
        self.breaks = breaks
        """The characters besides ``\\n`` the reader splits lines at (pi's, which splits at
        ``\\n`` only: none)."""
        self.header_an_entry = header_an_entry
        """Whether the entries' expression must match the header line too (pi's must not: a
        second header is an error there)."""

    def vouches(self, document: bytes) -> bool:
        """Whether the whole session file is surely read with no line skipped."""
        first_end = document.find(b"\n")
        first = document if first_end == -1 else document[: first_end + 1]
        if not first.startswith(self.header_start) or not self.header.vouches_line(first):
            return False
        if any(mark in document for mark in self.breaks):
            return False
        return not self.entries.unmatched(document, 0 if self.header_an_entry else len(first))


def fast_path(
    version: str,
    types: Sequence[str],
    detect: Detect | None,
    build: bool,
    format: str = "phi-core",
) -> FastPath | None:
    """The fast path for documents of ``types`` of ``format``'s ``version`` (with ``detect``: only
    the types that ``detect`` gives every document of, from its keys). Loaded from the cache, else
    built when ``build`` is true (it takes about a second), else None; None too when no type can
    be expressed, or the format's reader is not the serde codec (``FORMATS``).

    The public seam for other engines (``phi_wire.validate``, a converter...): a line it vouches
    for (``FastPath.vouches_line``, ``FastPath.unmatched``) is one that the format's ``loads``
    accepts as one of ``types``."""
    if format not in FORMATS:
        return None
    compiled = _compiled(version, types, detect, build, exact_values=False, format=format)
    return None if compiled is None else FastPath(compiled, format in JS_FORMATS)


def document_expression(version: str, name: str, build: bool) -> re.Pattern[bytes] | None:
    """``loads``' expression for the wire type ``name``: it fullmatches one compact document
    (followed by nothing but a line ending, if that) whose every value pydantic-core reads exactly
    as ``loads`` does; UTF-8 is checked apart (``is_utf8``). From the cache, else built when
    ``build``, else None; None too when the type cannot be expressed."""
    return _compiled(version, [name], None, build, exact_values=True)


def _compiled(
    version: str,
    types: Sequence[str],
    detect: Detect | None,
    build: bool,
    exact_values: bool,
    format: str = "phi-core",
) -> re.Pattern[bytes] | None:
    from . import _cache
    from ._shipped import load_shipped

    # the wheel's own first: a fresh installation's cache has nothing, and looking costs more
    shipped = load_shipped(version, types, detect is not None, exact_values, format)
    if shipped is not None:
        return shipped
    path = _cache.cache_path(version, types, detect is not None, exact_values, format)
    if path is not None:
        if _cache.inexpressible(path):
            return None
        cached = _cache.load_cached(path, version, types, format)
        if cached is not None:
            return cached
    if not build:
        return None
    from ._pattern import build_pattern  # imports pydantic and the models

    pattern = build_pattern(version, types, detect, exact_values, format)
    if not pattern:
        if path is not None:
            _cache.mark_inexpressible(path)
        return None
    return _cache.compile_cached(pattern, path)


def write_shipped(folder: Path) -> list[Path]:
    """Compile the expressions a wheel ships (``_shipped.SHIPPED``) for this interpreter into
    ``folder``; the files written (``make wheel`` runs this through ``tools/stage_package.py``)."""
    from ._shipped import write_shipped as write

    return write(folder)


def preload() -> None:
    """Import all that building an expression imports (pydantic and the models included), so
    that a build on another thread imports nothing: a fork meanwhile would leave the child a
    module's import lock held by a thread it does not have."""
    from . import _cache, _pattern  # noqa: F401

    _cache._engine()  # the re module's parser and compiler
