"""phi-core messages written as another format's session file (Operator-Use's: how it stores a
conversation) without models, from a JSONL file of messages or a phi-core Session file, where
the target's folder has a writer for it (its ``session_files`` module's ``FAST_SESSION_FILES``: the
messages' dicts, their texts and the input's name -> the file's text and the losses, exactly as
``to_session_file`` gives them).

The ids such a file invents are derived from each message's text as phi-core writes it
(``derived_id``), so a message is taken only when its text is exactly that: the line (or the
Session) must match ``validate --strict``'s expression (``canonical_path``: what phi-core writes,
every field it always writes there, none it skips, its escapes and number forms), be compact
(what pydantic-core's writer writes of its parse: no blank, no key twice), and the writer checks
that its free-form values' keys are sorted (phi-core's ``Value`` sorts them). Anything else takes
the model path (None). The whole input is held, as on the model path (a session file's header id
needs every message).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Sequence
from typing import Any

from pydantic_core import to_json

from phi_wire.fastpath import CanonicalPath, canonical_path, is_utf8
from phi_wire.formats import FOLDERS, HUB

from ._fast import SURROGATE_ESCAPE, FastUnsupported, parsed
from ._fast_session import session_messages
from ._inputs import Input
from ._types import Loss

__all__ = [
    "FastSessionFile",
    "session_file_converted",
    "session_file_of_hub",
    "session_file_table",
]

FastSessionFile = Callable[[list[dict[str, Any]], Sequence[bytes], str], tuple[str, list[Loss]]]
"""``(messages, their texts as phi-core writes them, the input's name) -> (the session file's
text, its losses)``; ``FastUnsupported`` for messages it cannot write exactly."""


_phi_text: Callable[[Any], bytes] = to_json
"""A parsed phi-core document written back in its keys' order: phi-core's compact text, for
the numbers the writers let through (``_fast.dumped``: pydantic-core's writer; a string with
a lone surrogate is refused earlier). pydantic-core's own function: a call in C, per message."""


def session_file_table(target: str, name: str) -> dict[tuple[str, str, str], Any]:
    """A table of ``target``'s session-file writers without models (``FAST_SESSION_FILES``,
    ``STREAMED_SESSION_FILES``), from its folder's ``session_files`` module (which imports no
    model, where its ``convert`` module imports the model converters); empty: it has none."""
    if target not in FOLDERS or target == HUB:
        return {}
    try:
        module = importlib.import_module(f"{FOLDERS[target]}.session_files")
    except ModuleNotFoundError:
        return {}
    table: dict[tuple[str, str, str], Any] = getattr(module, name, {})
    return table


def _writer(target: str) -> FastSessionFile | None:
    found: FastSessionFile | None = session_file_table(target, "FAST_SESSION_FILES").get(
        (HUB, target, "AgentMessage")
    )
    return found


@functools.cache
def _canonical(version: str, kind: str) -> CanonicalPath | None:
    """``validate --strict``'s expression of ``kind``: what phi-core writes, blanks between tokens
    aside (from the cache, or built once)."""
    return canonical_path(version, [kind], True, True)


def _lines(source: Input, version: str) -> tuple[list[Any], list[bytes]] | None:
    """A JSONL file's messages and their texts, when every line is exactly what phi-core writes
    for the message it holds (the strict expression's, and no blank: what pydantic-core writes of
    its parse; its free-form values' keys sorted, which the writer checks)."""
    path = _canonical(version, "AgentMessage")
    if path is None:
        return None
    lines = [text for _, text in source.documents]
    canonical = path.document.fullmatch
    if not all(canonical(line) for line in lines) or not is_utf8(source.data):
        return None
    try:
        documents = parsed(b"[" + b",".join(lines) + b"]")
    except ValueError:
        return None
    for line, document in zip(lines, documents, strict=True):
        if _phi_text(document) != line:
            return None
    return documents, lines


def _placed(source: Input, losses: list[Loss], start: int = 0) -> list[tuple[str, Loss]]:
    """Each loss with its ``file:line`` and its pointer into that line's document, as the model
    path's ``_where`` gives them (a pointer ``/<index>...`` into the list of lines, ``start``
    that of ``source``'s first document: a batch's; another one kept whole, at the file). Equal
    losses of different lines share one ``Loss``: a file of messages has a few kinds of loss, on
    every line."""
    name = source.name
    located = {
        str(start + index): f"{name}:{line}" for index, (line, _) in enumerate(source.documents)
    }
    moved: dict[tuple[str, str, str], Loss] = {}
    placed: list[tuple[str, Loss]] = []
    for loss in losses:
        pointer, kind, reason = loss
        first, slash, rest = pointer[1:].partition("/")
        where = located.get(first) if pointer[:1] == "/" else None
        if where is None:
            placed.append((name, loss))
            continue
        key = (slash + rest, kind, reason)
        found = moved.get(key)
        if found is None:
            found = moved[key] = Loss(*key)
        placed.append((where, found))
    return placed


def session_file_converted(
    source: Input, target: str, version: str
) -> tuple[str, list[tuple[str, Loss]]] | None:
    """The session file's text and its losses (each with its ``file:line``) of a JSONL file of
    phi-core messages or a phi-core Session file converted to ``target``'s session file, or
    None: it takes the model path."""
    write = _writer(target)
    if write is None or source.session or SURROGATE_ESCAPE.search(source.data):
        return None
    if source.lines:
        found = _lines(source, version)
        if found is None:
            return None
        documents, texts = found
        try:
            text, losses = write(documents, texts, source.name)
        except FastUnsupported:
            return None
        return text, _placed(source, losses)
    session = session_messages(source.data, version, _canonical(version, "Session"))
    if session is None or _phi_text(session.session) != session.compacted:
        return None
    try:
        text, losses = write(
            session.messages,
            [_phi_text(message) for message in session.messages],
            source.name,
        )
    except FastUnsupported:
        return None
    pointers = session.where
    placed = [(f"{source.name}:1", loss) for loss in session.losses]
    for loss in losses:
        item, slash, rest = loss.pointer[1:].partition("/")
        if loss.pointer.startswith("/") and item.isdecimal() and int(item) < len(pointers):
            loss = Loss(pointers[int(item)] + slash + rest, loss.kind, loss.reason)
        placed.append((f"{source.name}:1", loss))
    return text, placed


def session_file_of_hub(
    messages: list[dict[str, Any]], target: str, name: str
) -> tuple[str, list[Loss]] | None:
    """phi-core message dicts that a first step built in phi-core's key order (another format's
    lines on their way through phi-core: ``_fast_whole.hub_converted``) written as ``target``'s
    session file: its text and the losses of this step (pointers into the list of messages), or
    None: the input takes the model path. Their texts are what phi-core writes of them, as the
    model path's ``dumps`` of the first step's messages."""
    write = _writer(target)
    if write is None:
        return None
    try:
        return write(messages, [_phi_text(message) for message in messages], name)
    except FastUnsupported:
        return None
