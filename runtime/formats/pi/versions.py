"""pi 1.5 -> pi 0.73 (``phi-wire convert --to pi/0.73``): pi 1.5 reads every 0.73 file as it is
(an upgrade loses nothing), but 0.73's types know nothing of what 1.5 added: the ``system``
message role, the ``usage`` and ``context_edit`` session entries, keys such as an assistant's
``thinkingLevel``/``durationMs``/``rawStopReason``, a tool result's ``durationMs``/``usage``, a
tool call's ``namespace``, usage's ``reasoning``/``cacheWrite1h``/``cost.totalFromProvider``, the
``pending``/``deferred`` stop reasons. ``fit`` takes them out of a document written by 1.5, each a
loss at its pointer: a key 0.73 has no place for is ``dropped``; a line 0.73 cannot hold at all
(a ``system`` message entry, a ``usage`` entry...) is dropped whole, and the entries that were its
children become children of its parent (``changed``), so the branch stays one branch. 0.73's own
reader judges what is left; what it still refuses is left for it to name."""

from __future__ import annotations

import re
from typing import Any

from phi_wire.convert import Loss
from phi_wire.errors import WireError
from phi_wire.formats import find
from phi_wire.pointer import escape
from phi_wire.recognise import type_in

from .js_json import parse, stringify

__all__ = ["fit"]

ROUNDS = 8
"""Readings at most: each takes out every problem 0.73's reader names (a key taken out can
uncover no new one but in a value it held, so a few rounds end it)."""
_LINE = re.compile(r"line (\d+): ")
_UNKNOWN = "unknown key"


def _parts(pointer: str) -> list[str]:
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:]]


def _delete(document: Any, pointer: str) -> bool:
    """Take the value at ``pointer`` out of its object; whether there was one."""
    parts = _parts(pointer)
    holder = document
    for part in parts[:-1]:
        if isinstance(holder, list) and part.isdecimal() and int(part) < len(holder):
            holder = holder[int(part)]
        elif isinstance(holder, dict) and part in holder:
            holder = holder[part]
        else:
            return False
    if isinstance(holder, dict) and parts and parts[-1] in holder:
        del holder[parts[-1]]
        return True
    return False


def fit(text: str, session: bool, version: str) -> tuple[str, list[Loss]]:
    """``text`` (a document pi 1.5 writes; ``session``: a whole session file) without what pi
    ``version`` cannot hold, and the losses (pointers into ``text``; a session file's: ``/<line
    index>/...``, the header ``/0``); ``ValueError`` for a document of a type ``version`` does
    not have."""
    if not session:
        document = parse(text)
        kind = type_in("pi", document)
        if not kind:
            return text, []
        if not hasattr(find(version, "pi").load(), kind):
            raise ValueError(f"pi {version} has no {kind} (pi 1.5 added it)")
        fitted, losses = fit_document(document, kind, version)
        return (stringify(fitted) if losses else text), losses
    module = find(version, "pi").load()
    documents = [parse(line) for line in text.split("\n")[:-1]]
    alive = list(range(len(documents)))
    losses = []
    label = f"pi {version}"
    for _ in range(ROUNDS):
        candidate = _text(documents, alive)
        try:
            module.loads(module.Session, candidate)
            return candidate, losses
        except WireError as error:
            found = _fixed(error, documents, alive, label)
            if not found:
                return candidate, losses
            losses += found
    return _text(documents, alive), losses


def _fixed(error: WireError, documents: list[Any], alive: list[int], label: str) -> list[Loss]:
    """Each problem of a session file: its unknown key taken out, or its line."""
    losses: list[Loss] = []
    numbers = [
        alive[int(m.group(1)) - 1]
        for m in map(_LINE.match, (p.message for p in error.problems))
        if m
    ]
    for problem, index in zip(
        [p for p in error.problems if _LINE.match(p.message)], numbers, strict=True
    ):
        if index not in alive:
            continue
        if _UNKNOWN in problem.message and _delete(documents[index], problem.pointer):
            losses.append(Loss(f"/{index}{problem.pointer}", "dropped", f"{label} has no such key"))
        elif index > 0:
            losses += _drop_line(documents, alive, index, label, _LINE.sub("", problem.message))
    return losses


def fit_document(document: Any, type_name: str, version: str) -> tuple[Any, list[Loss]]:
    """One document (JSON) of pi 1.5 without the keys pi ``version``'s ``type_name`` has no
    place for, and the losses (pointers into it)."""
    module = find(version, "pi").load()
    losses: list[Loss] = []
    for _ in range(ROUNDS):
        try:
            module.loads(getattr(module, type_name), stringify(document))
            break
        except WireError as error:
            dropped = [
                problem.pointer
                for problem in error.problems
                if _UNKNOWN in problem.message and _delete(document, problem.pointer)
            ]
            if not dropped:
                break
            losses += [
                Loss(pointer, "dropped", f"pi {version} has no such key") for pointer in dropped
            ]
    return document, losses


def _drop_line(
    documents: list[Any], alive: list[int], index: int, label: str, why: str
) -> list[Loss]:
    """Take a whole entry out; its children become its parent's."""
    alive.remove(index)
    entry = documents[index]
    what = entry.get("type") if isinstance(entry, dict) else None
    if what == "message" and isinstance(entry.get("message"), dict):
        what = f"{entry['message'].get('role')} message"
    losses = [Loss(f"/{index}", "dropped", f"{label} cannot hold this {what} entry ({why})")]
    if not isinstance(entry, dict):
        return losses
    for other in alive:
        child = documents[other]
        if isinstance(child, dict) and child.get("parentId") == entry.get("id") and other > 0:
            child["parentId"] = entry.get("parentId")
            losses.append(
                Loss(
                    f"/{other}/{escape('parentId')}",
                    "changed",
                    f"its parent (line {index + 1}) is not written in {label}: its parent's parent",
                )
            )
    return losses


def _text(documents: list[Any], alive: list[int]) -> str:
    return "".join(stringify(documents[index]) + "\n" for index in alive)
