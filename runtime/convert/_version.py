"""Writing a conversion's output in another version (or layout) of its format than the one the
converters write (``--to phi-core/0.8``, ``--to operator-use/d1cdaad8``): each output document is
read by that version's own ``loads`` and written by its ``dumps``, so the output is exactly what
that version reads and writes. What it cannot hold is named: a key its reader drops is a
``dropped`` loss, a key its writer adds (a default it requires) an ``invented`` one; a document it
rejects is an error naming the document and the version's first problem."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from typing import Any

from phi_wire.formats import FOLDERS, HUB, WireVersion
from phi_wire.pointer import escape
from phi_wire.recognise import parse, type_in

from ._types import Loss
from ._unread import unread_keys

__all__ = ["VersionError", "rewritten"]


class VersionError(ValueError):
    """An output document the chosen version cannot read."""


def rewritten(
    documents: list[str], session: bool, entry: WireVersion
) -> tuple[list[str], list[tuple[int, Loss]]]:
    """Each output document (its JSON text; a session file: the whole file, one document) as
    ``entry``'s version writes it, and the losses of each (its index, the loss: its pointer into
    the document as first written)."""
    module = entry.load()
    fit = _fitter(entry)
    out: list[str] = []
    losses: list[tuple[int, Loss]] = []
    for index, text in enumerate(documents):
        if fit is not None:
            try:
                text, taken = fit(text, session, entry.version)
            except ValueError as error:
                raise VersionError(
                    f"output document {index + 1} cannot be written as {entry.label}: {error}"
                ) from None
            losses += [(index, loss) for loss in taken]
        if session:
            session_type = getattr(module, SESSION_FILES[entry.format])
            value = _loaded(module, session_type, text, entry, index)
            out.append(str(module.dumps(value)))
            continue
        document = parse(text)
        value = _loaded(
            module, getattr(module, type_in(entry.format, document)), text, entry, index
        )
        written = str(module.dumps(value))
        out.append(written)
        for pointer in unread_keys(document, value):
            losses.append((index, Loss(pointer, "dropped", f"{entry.label} has no such key")))
        for pointer in _added(document, json.loads(written)):
            reason = f"{entry.label} requires it: its reader's default"
            losses.append((index, Loss(pointer, "invented", reason)))
    return out, losses


SESSION_FILES = {"operator-use": "SessionFile", "pi": "Session"}
"""The formats whose session file is read whole (one document), and its type's name; a phi-core
message list converted to one of them is written as its session file."""


def _fitter(entry: WireVersion) -> Callable[[str, bool, str], tuple[str, list[Loss]]] | None:
    """The format's ``fit_to_version`` (its converters' module), if it has one: what an older
    version cannot hold taken out of a document, each a loss (pi 0.73's reader refuses a key it
    does not know, where the other formats' readers drop it)."""
    if entry.format == HUB:  # the hub has no converters
        return None
    module = importlib.import_module(f"{FOLDERS[entry.format]}.convert")
    fit: Callable[[str, bool, str], tuple[str, list[Loss]]] | None
    fit = getattr(module, "fit_to_version", None)
    return fit


def _loaded(module: Any, tp: Any, text: str, entry: WireVersion, index: int) -> Any:
    try:
        return module.loads(tp, text)
    except module.WireError as error:
        raise VersionError(
            f"output document {index + 1} cannot be written as {entry.label}: {error}"
        ) from None


def _added(before: Any, after: Any, pointer: str = "") -> list[str]:
    """The pointers of the keys ``after`` has and ``before`` has not."""
    found: list[str] = []
    if type(before) is dict and type(after) is dict:
        for key, value in after.items():
            at = pointer + "/" + escape(key)
            if key not in before:
                found.append(at)
            else:
                found += _added(before[key], value, at)
    elif type(before) is list and type(after) is list and len(before) == len(after):
        for number, (a, b) in enumerate(zip(before, after, strict=True)):
            found += _added(a, b, f"{pointer}/{number}")
    return found


def written_changes(value: Any, format: str, documents: list[str]) -> list[Loss]:
    """What ``format``'s writer changed of a ``value`` its reader read (a same-format conversion:
    Operator-Use reads ``NaN`` and writes ``null``), from its converters' ``written_changes``,
    given the texts written (``documents``); none for a format without one."""
    if format == HUB:  # the hub has no converters (serde's reader holds what its writer writes)
        return []
    module = importlib.import_module(f"{FOLDERS[format]}.convert")
    changes: Callable[[Any, list[str]], list[tuple[str, str, str]]] | None
    changes = getattr(module, "written_changes", None)
    return [] if changes is None else [Loss(*change) for change in changes(value, documents)]
