"""``--strict``'s fast path: phi-core's ``save_session`` writes a session as serde_json's pretty
rendering of its canonical compact form, so a document is strict-clean (valid, and byte for byte
what ``dumps`` writes for the value read) when it is that rendering (``_pretty``) of a compact
form the canonical expression matches (``_canonical``), whose ``serde_json::Value`` objects have
their keys in order, and whose bytes are UTF-8; a compact document, when it is its own compact
form. All of it at C speed and without a tree: the exact path holds the parsed tree, the models
and the text written at once (ten times the document).

Any other document is judged by the exact path, whose messages stay as they are: the fast path
can make a run slower, never change a verdict.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Collection, Sequence
from typing import Any

from ._compact import compact
from ._pretty import is_pretty
from ._utf8 import lines_not_utf8

__all__ = ["CanonicalPath", "canonical_path"]

_CANONICAL_TYPE = "(canonical)"
"""Added to the types of the cache's key: a canonical expression is its own entry."""


class _Unsorted(Exception):
    """A ``serde_json::Value`` object whose keys are not in the order serde_json writes."""


def _sorted_pairs(pairs: list[tuple[str, Any]]) -> None:
    """json's object hook for a ``serde_json::Value``: its keys strictly increasing (byte order
    of UTF-8 is code point order, Python's), as serde_json's BTreeMap writes them; a repeated key,
    which serde keeps once, is no increase."""
    for (before, _), (after, _) in itertools.pairwise(pairs):
        if not before < after:
            raise _Unsorted
    return None


def _extent(depth: int) -> bytes:
    """Any JSON value at most ``depth`` deep, blanks allowed: where a value the canonical
    expression matched ends (that expression judged it; this one only finds its end)."""
    string = rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
    if depth == 0:
        return rb"(?:" + string + rb"|[-+.0-9A-Za-z]++)"
    inner = _extent(depth - 1)
    items = rb"\[(?:[ \n]*+" + inner + rb"[ \n]*+,?)*+[ \n]*+\]"
    members = rb"\{(?:[ \n]*+" + string + rb":[ \n]*+" + inner + rb"[ \n]*+,?)*+[ \n]*+\}"
    return rb"(?:" + items + rb"|" + members + rb"|" + inner + rb")"


_VALUE_EXTENT = re.compile(_extent(3))
_BLANKS = re.compile(rb"[ \n]*+")
_BATCH = 4096
"""Values whose keys are read in one ``json.loads`` (one call each costs more than its work)."""


class CanonicalPath:
    """Vouches for whole documents that are valid and exactly what phi-core writes for them."""

    def __init__(self, document: re.Pattern[bytes], value_keys: Collection[str]) -> None:
        self.document = document
        """Fullmatches a canonical document, pretty or compact (blanks between tokens are
        skipped: ``vouches`` checks them)."""
        names = b"|".join(re.escape(json.dumps(key)[1:-1].encode()) for key in sorted(value_keys))
        self.value_keys = re.compile(rb'"(?:' + names + rb')":') if value_keys else None
        """The keys of the fields that hold a ``serde_json::Value``, as written before it (one
        expression: a scan for each key costs twice as much)."""

    def vouches(self, document: bytes) -> bool:
        """Whether ``document`` is valid and what phi-core writes for it: pretty (serde_json's
        layout, no line ending after it), or compact (with a line ending after it, if any)."""
        if b"\n" in document.strip():
            if not is_pretty(document):
                return False
        else:
            document = document.rstrip(b"\r\n")
            compacted = compact(document)
            if compacted is None or len(compacted) != len(document):
                return False  # a blank between two tokens (compacting only takes bytes out)
        return (
            self.document.fullmatch(document) is not None
            and self._values_sorted(document)
            and not lines_not_utf8(document)
        )

    def _values_sorted(self, document: bytes) -> bool:
        """Whether every object inside a ``serde_json::Value`` has its keys in order. Each such
        value follows one of ``value_keys`` (the canonical expression allows it nowhere else);
        in a JSON text that text is always a key, as a string's own quotes are escaped, so
        every such value is looked at (and a few others, which only costs time)."""
        if self.value_keys is None:
            return True
        batch: list[bytes] = []
        for key in self.value_keys.finditer(document):
            start = _BLANKS.match(document, key.end()).end()  # type: ignore[union-attr]
            if document.startswith((b"{", b"["), start):
                found = _VALUE_EXTENT.match(document, start)
                if found is None:
                    return False
                value = document[start : found.end()]
                if value.count(b'":') > 1:  # else at most one key: in order
                    batch.append(value)
                    if len(batch) == _BATCH:
                        if not _keys_sorted(batch):
                            return False
                        batch = []
        return _keys_sorted(batch)


def _keys_sorted(values: list[bytes]) -> bool:
    """Whether the objects of all ``values`` (JSON texts) have their keys in order."""
    if not values:
        return True
    try:
        json.loads(b"[" + b",".join(values) + b"]", object_pairs_hook=_sorted_pairs)
    except (_Unsorted, ValueError, RecursionError):
        return False
    return True


def canonical_path(
    version: str, types: Sequence[str], detect: bool, build: bool
) -> CanonicalPath | None:
    """The strict fast path of phi-core ``version``'s ``types`` (``detect``: only those phi-core's
    detection gives every document of, as the validator's automatic types): from the cache, or
    built when ``build`` (a second or two), else None; None too when no type can be expressed.
    Making it imports the models (to name the fields that hold a ``serde_json::Value``), which
    every ``--strict`` run does anyway."""
    from phi_wire.formats.phi_core.recognise import detected_as

    from ._cache import (
        cache_path,
        compile_cached,
        inexpressible,
        load_cached,
        mark_inexpressible,
    )
    from ._canonical import build_canonical

    keyed = [*types, _CANONICAL_TYPE]
    path = cache_path(version, keyed, detect, exact_values=True)
    if path is not None and inexpressible(path):
        return None
    compiled = None if path is None else load_cached(path, version, keyed)
    if compiled is None and not build:
        return None
    pattern, value_keys = build_canonical(version, types, detected_as if detect else None)
    if not pattern:
        if path is not None:
            mark_inexpressible(path)
        return None
    if compiled is None:
        compiled = compile_cached(pattern, path)
    return CanonicalPath(compiled, value_keys)
