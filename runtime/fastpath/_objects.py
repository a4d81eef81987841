"""JSON objects in the fast path's expressions (``_pattern``), as token sequences: members in their
declared order, optional ones possibly absent; for pi's reader (``_js``), optional members also
where pi writes them, in any order.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from ._tokens import Seq, _alt, _lit, _opaque, _render

__all__ = ["FLOATING_BYTES", "_Member", "_floating_object", "_object", "_optional"]

FLOATING_BYTES = 600
"""The longest expression of an optional member that may come anywhere after a required one in
pi's objects (``_floating_object``): a scalar's; every one more copies it once per required
member, so longer ones (a list, an object) are taken only where they are declared."""


class _Member(NamedTuple):
    key: str
    value: Seq
    required: bool

    def seq(self, comma: bool) -> Seq:
        return _lit(b"," * comma + json.dumps(self.key).encode() + b":") + self.value


def _optional(seq: Seq) -> Seq:
    # (?:X|), not (?:X)?: the same language, tried in the same order, but CPython's engine runs a
    # branch without the bookkeeping of a repeat (some 10% less time for phi-core's events)
    return (b"(?:" + _render(seq) + b"|)",)


def _object(members: list[_Member]) -> Seq:
    """An object with ``members`` in this order; optional ones may be absent."""
    if not members:
        return _lit(b"{}")
    first = next((index for index, member in enumerate(members) if member.required), None)
    if first is None:  # all optional: one alternative per member that may come first
        alternatives = [
            members[start].seq(comma=False)
            + tuple(
                token for member in members[start + 1 :] for token in _optional(member.seq(True))
            )
            for start in range(len(members))
        ]
        return _lit(b"{") + _alt([*alternatives, ()]) + _lit(b"}")
    seq: Seq = _lit(b"{")
    for member in members[:first]:
        seq += _optional(member.seq(comma=False) + _lit(b","))
    seq += members[first].seq(comma=False)
    for member in members[first + 1 :]:
        seq += member.seq(comma=True) if member.required else _optional(member.seq(comma=True))
    return seq + _lit(b"}")


def _floating_object(members: list[_Member]) -> Seq:
    """An object with ``members`` in this order (optional ones may be absent), and besides, after
    any required member, the optional members of a short expression (``FLOATING_BYTES`` at most:
    a scalar's), after the last required one every optional member, in any order, each as often
    as it comes: pi's reader is ``JSON.parse``, where a repeated key's last value wins, and pi
    writes a key where its code sets it, which varies (an assistant message's ``errorMessage``
    before or after its ``timestamp``, a system message's ``toolsAdded`` after it)."""
    optional = [member.seq(comma=True) for member in members if not member.required]
    required = [index for index, member in enumerate(members) if member.required]
    if not required or not optional:
        return _object(members)
    short = [seq for seq in optional if len(_render(seq)) <= FLOATING_BYTES]
    slot = _opaque(b"(?:" + _render(_alt(short)) + b")*+") if short else ()
    seq: Seq = _lit(b"{")
    for member in members[: required[0]]:
        seq += _optional(member.seq(comma=False) + _lit(b","))
    seq += members[required[0]].seq(comma=False)
    for member in members[required[0] + 1 : required[-1] + 1]:
        if member.required:
            seq += slot + member.seq(comma=True)
        else:
            seq += _optional(member.seq(comma=True))
    return seq + _opaque(b"(?:" + _render(_alt(optional)) + b")*+") + _lit(b"}")
