"""The fast path's expressions as token sequences (``_pattern`` builds them): an expression is
written as a tuple of tokens so that alternatives can be factored before it is rendered, because
CPython's regular-expression engine reads a shared prefix once, not once per alternative.
"""

from __future__ import annotations

import re

__all__ = ["Seq", "Token", "_alt", "_group", "_lit", "_opaque", "_render"]

# --- patterns as token sequences -----------------------------------------------------------------
# A pattern is a tuple of tokens: an int is one literal byte, a bytes object one self-contained
# regular expression (a group or an atom). Literal bytes stay visible so that alternatives can be
# factored: a tagged union's variants share `{"type":"`, an LlmMessage's variants share their
# `content` array, which the regular expression engine then reads once, not once per variant.

Token = int | bytes
Seq = tuple[Token, ...]


def _lit(text: bytes) -> Seq:
    return tuple(text)


def _render(seq: Seq) -> bytes:
    out: list[bytes] = []
    run = bytearray()
    for token in seq:
        if isinstance(token, int):
            run.append(token)
            continue
        if run:
            out.append(re.escape(bytes(run)))
            run.clear()
        out.append(token)
    if run:
        out.append(re.escape(bytes(run)))
    return b"".join(out)


def _group(seq: Seq) -> bytes:
    return b"(?:" + _render(seq) + b")"


def _common_prefix(seqs: list[Seq]) -> int:
    shortest = min(len(seq) for seq in seqs)
    for index in range(shortest):
        if any(seq[index] != seqs[0][index] for seq in seqs):
            return index
    return shortest


def _common_suffix(seqs: list[Seq]) -> int:
    shortest = min(len(seq) for seq in seqs)
    for index in range(1, shortest + 1):
        if any(seq[-index] != seqs[0][-index] for seq in seqs):
            return index - 1
    return shortest


def _alt(seqs: list[Seq]) -> Seq:
    """The alternation of ``seqs``, with shared prefixes and suffixes factored out."""
    unique = list(dict.fromkeys(seqs))
    if len(unique) == 1:
        return unique[0]
    groups: dict[Token | None, list[Seq]] = {}
    for seq in unique:
        groups.setdefault(seq[0] if seq else None, []).append(seq)
    branches: list[Seq] = []
    for members in groups.values():
        if len(members) == 1:
            branches.append(members[0])
            continue
        length = _common_prefix(members)
        branches.append(members[0][:length] + _alt([seq[length:] for seq in members]))
    branches = _merge_tails(branches)
    if len(branches) == 1:
        return branches[0]
    length = _common_suffix(branches)
    heads = [branch[: len(branch) - length] for branch in branches]
    heads.sort(key=lambda head: not head)  # an empty alternative last
    body = b"(?:" + b"|".join(_render(head) for head in heads) + b")"
    return (body, *branches[0][len(branches[0]) - length :])


def _merge_tails(branches: list[Seq]) -> list[Seq]:
    """(a X | b X) is (a|b) X: merge branches equal from their first non-literal token on."""
    tails: dict[Seq, list[Seq]] = {}
    order: list[Seq | None] = []
    merged: list[Seq] = []
    for branch in branches:
        cut = next((i for i, token in enumerate(branch) if isinstance(token, bytes)), None)
        if cut is None or cut == 0:
            order.append(None)
            merged.append(branch)
            continue
        tail = branch[cut:]
        if tail not in tails:
            tails[tail] = []
            order.append(tail)
            merged.append(())
        tails[tail].append(branch[:cut])
    result: list[Seq] = []
    for shared, branch in zip(order, merged, strict=True):
        if shared is None:
            result.append(branch)
        else:
            heads = tails[shared]
            result.append((heads[0] if len(heads) == 1 else _alt(heads)) + shared)
    return result


def _opaque(regex: bytes) -> Seq:
    return (regex,)
