"""What a fast-path expression loaded from the cache must do before it is used: accept documents
the format's implementation writes (phi-core's, clark-agent's), and reject texts that are no
document of its types.

An expression vouches only for documents ``loads`` accepts, in the compact form phi-core writes.
So a sound one accepts each of a few real documents of its types, and rejects every text ``loads``
rejects as each of its types: texts no JSON document starts with, and near-misses of real
documents (an unknown tag, a value of the wrong JSON kind in one variant, a key left out, the
issue's ``{"type":"TurnStarx","nonsense":1}``). A replacement that vouches for more, such as
``\\{(?s:.)*`` or a variant's fields taking any value, fails on the near-misses; the expression of
other types fails on the real documents. This stops gross and near replacements, not a forger who
knows the probes (who could as well edit phi_wire itself: see ``_cache``).

The documents are in ``probes.json`` beside this module, written by ``tools/fastpath_probes.py``
from ``examples/`` (clark-agent's: those examples converted by ``phi-wire convert``; with, per
type, the rejected texts it reads: they are no probes of its expressions); reading it costs
about a millisecond, once per process and only when an entry is loaded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ["HOME_FORMAT", "NOT_DOCUMENTS", "Probes", "probes_for", "probes_key", "sound"]

HOME_FORMAT = "phi-core"

NOT_DOCUMENTS = (b"not json at all\n", b"\n", b"\r\n", b"]\n", b"\xff\n", b"\x00")
"""Texts no expression of the fast path matches a byte of, whatever its types (none is the start
of a JSON document; an empty line is no document)."""


class Probes(NamedTuple):
    accepted: tuple[bytes, ...]
    """Documents phi-core writes: a sound expression matches each one whole."""
    rejected: tuple[bytes, ...]
    """Texts that are no document of the types: a sound expression matches no byte of one."""


_LOADED: dict[str, Any] = {}


def _probe_file() -> dict[str, Any]:
    if not _LOADED:
        text = Path(__file__).with_name("probes.json").read_text(encoding="utf-8")
        _LOADED.update(json.loads(text))
    return _LOADED


def probes_key(format: str, version: str) -> str:
    """The key of a format's version in the file: phi-core's versions as they are (``0.10``),
    another format's with its name (``clark-agent 0.4``)."""
    return version if format == HOME_FORMAT else f"{format} {version}"


def probes_for(version: str, types: Sequence[str], format: str = HOME_FORMAT) -> Probes:
    """The probes of an expression for ``types`` of ``format``'s ``version`` (the file holds the
    real documents and the rejected texts, and per version the indices of each type's documents
    and of the rejected texts each type reads; a version it lacks has every text as a rejected
    probe, so that an entry of its is refused unless it rejects them all)."""
    known = _probe_file()
    kept = known.get("versions", {}).get(probes_key(format, version), {})
    accepted = dict.fromkeys(
        known["documents"][number]
        for name in types
        for number in kept.get("accepted", {}).get(name, ())
    )
    read = {number for name in types for number in kept.get("valid_as", {}).get(name, ())}
    rejected = [text for number, text in enumerate(known.get("rejected", ())) if number not in read]
    return Probes(
        tuple(document.encode() for document in accepted),
        (*NOT_DOCUMENTS, *(text.encode() for text in rejected)),
    )


def sound(expression: re.Pattern[bytes], probes: Probes) -> bool:
    """Whether ``expression`` accepts every accepted probe and no byte of a rejected one."""
    if any(expression.fullmatch(document) is None for document in probes.accepted):
        return False
    for text in probes.rejected:
        found = expression.match(text)
        if found is not None and found.end():
            return False
    return True
