"""A phi-core ``Session`` file (one pretty JSON document, ``save_session``'s) converted to a
message list without models, when phi-core's fast path vouches for the whole document
(``FastPath.vouches``: valid for ``loads`` as a Session, in the writer's form once compacted)
and no null in it is one its reader reads as absent (``absent_nulls``): its loops' messages go
through the target's dict converter of phi-core messages, the session's and the loops' other
keys are the losses ``_session.from_session`` names, in its order, at its pointers. Anything else
returns None: the file takes the model path. The whole document is held (its bound is the file,
as the model path's). ``session_messages`` (the messages and those losses) serves the session
file writers too (``_fast_session_file``)."""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

from phi_wire.fastpath import CanonicalPath, FastPath, compact, fast_path, is_utf8
from phi_wire.formats import HUB, find
from phi_wire.pointer import escape

from ._fast import FastUnsupported, absent_nulls, dumped, fast_converter, parsed
from ._serde_floats import numbers_read_alike
from ._types import Loss

__all__ = ["SessionMessages", "session_converted", "session_messages"]

_KEPT = frozenset({"loops"})
_LOOP_KEPT = frozenset({"messages", "loop_id", "parent_loop_id"})
_NO_SESSION = "a message list has no session record"
_NO_LOOP = "a message list has no loop record"
_NOT_THE_ONE_BEFORE = (
    "this loop continues an earlier one, not the one before it: a message list has no tree, its "
    "messages follow the loop before"
)


@functools.cache
def _session_path(version: str) -> FastPath | None:
    """phi-core's fast path for whole Session documents (``phi-wire validate``'s, the same cache
    entry)."""
    from phi_wire.formats.phi_core.recognise import detected_as

    return fast_path(version, ["Session"], detected_as, True)


@functools.cache
def _declared(version: str, name: str) -> tuple[tuple[str, str, bool], ...]:
    """A model's (wire key, field name, whether its null reads as the default) in declaration
    order."""
    model = getattr(find(version, HUB).load(), name)
    found = []
    for field_name, field in model.model_fields.items():
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        null_default = bool(extra.get("x-serde-null-as-default"))
        found.append((field.alias or field_name, field_name, null_default))
    return tuple(found)


def _set_keys(document: dict[str, Any], version: str, name: str, kept: frozenset[str]) -> list[str]:
    """The keys ``_session._set_keys`` finds on the model read from ``document``."""
    return [
        key
        for key, field_name, null_default in _declared(version, name)
        if field_name not in kept
        and key in document
        and (document[key] is not None or null_default)
    ]


class SessionMessages(NamedTuple):
    """A vouched Session's messages, loop after loop, and what ``_session.from_session`` says
    of the rest."""

    session: dict[str, Any]
    """The whole document, parsed."""
    compacted: bytes
    """Its compact form (the text vouched for)."""
    messages: list[dict[str, Any]]
    where: list[str]
    """Each message's pointer in the session (``/loops/<i>/messages/<j>``)."""
    losses: list[Loss]
    """The session's and the loops' keys a message list has no room for, in its order."""


def session_messages(
    data: bytes, version: str, canonical: CanonicalPath | None = None
) -> SessionMessages | None:
    """A phi-core Session file's messages and the losses of the rest, when phi-core's fast path
    vouches for it whole (or, given ``canonical``, ``validate --strict``'s expression matches its
    compact form: what phi-core writes, blanks aside) and no null in it is read as absent; None:
    take the model path."""
    path = _session_path(version)
    compact_form = compact(data)
    if path is None or not compact_form:
        return None
    compacted = bytes(compact_form)
    if canonical is not None:
        if canonical.document.fullmatch(compacted) is None or not is_utf8(compacted):
            return None
    elif not path.vouches_line(compacted):  # ``vouches(data)``, without compacting it again
        return None
    if not numbers_read_alike(compacted):
        return None  # phi-core reads a number otherwise than ``parsed``: the model path's
    try:
        session = parsed(compacted)
    except ValueError:
        return None
    nulls = absent_nulls(HUB, version)
    if nulls is not None and nulls.may_have(compacted) and nulls.found(session):
        return None
    if type(session) is not dict or type(session.get("loops")) is not list:
        return None
    losses = [
        Loss("/" + escape(key), "dropped", _NO_SESSION)
        for key in _set_keys(session, version, "Session", _KEPT)
    ]
    messages: list[dict[str, Any]] = []
    where: list[str] = []
    previous: str | None = None
    for index, loop in enumerate(session["loops"]):
        at = f"/loops/{index}"
        for key in _set_keys(loop, version, "LoopRecord", _LOOP_KEPT):
            losses.append(Loss(f"{at}/{escape(key)}", "dropped", _NO_LOOP))
        losses.append(Loss(f"{at}/loop_id", "dropped", _NO_LOOP))
        parent = loop.get("parent_loop_id")
        if parent is not None and parent != previous:
            losses.append(Loss(f"{at}/parent_loop_id", "changed", _NOT_THE_ONE_BEFORE))
        elif parent is not None:
            losses.append(Loss(f"{at}/parent_loop_id", "dropped", _NO_LOOP))
        previous = loop["loop_id"]
        for number, message in enumerate(loop["messages"]):
            messages.append(message)
            where.append(f"{at}/messages/{number}")
    return SessionMessages(session, compacted, messages, where, losses)


def session_converted(
    data: bytes, target: str, version: str
) -> tuple[list[str], list[Loss]] | None:
    """The documents (as the target writes them) and the losses (pointers into the session) of
    a phi-core Session file converted to ``target``'s message list; None: take the model path."""
    convert = fast_converter(HUB, target, "AgentMessage")
    if convert is None:
        return None
    found = session_messages(data, version)
    if found is None:
        return None
    losses = found.losses
    try:
        converted, converter_losses = convert(found.messages, "AgentMessage")
        written = [dumped(document) for document in converted]
    except (FastUnsupported, ValueError):
        return None
    for loss in converter_losses:
        item, slash, rest = loss.pointer[1:].partition("/")
        losses.append(Loss(found.where[int(item)] + slash + rest, loss.kind, loss.reason))
    return written, losses
