"""A whole input converted without the models, where a format's folder has a dict converter for
the pair (its ``convert`` module's ``FAST_CONVERTERS``; a pair without phi-core: the two steps
through it, ``_fast.via_hub``, fused where both have a fused step, ``_fused``, each document
written as it is made): the same bytes and losses as the model path, several times faster.

An input is taken only when the fast path (``phi_wire.fastpath``) vouches for every document (the
source's ``loads`` accepts it: no error to report) and no string escapes a lone surrogate half
(which Python's ``json`` reads and cannot write); the documents are then parsed and written as
the per-line seam parses and writes them (``_fast.parsed``: the values ``json.loads`` gives;
``_fast.dumped``: the dict converters build each object in the target writer's key order).
A converter that meets what it cannot convert exactly (an unknown key, a null, a lax value...)
raises ``FastUnsupported``, and the input takes the model path, whose losses name it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, NamedTuple, TypeVar

from phi_wire.fastpath import FastPath, SessionFilePath, fast_path
from phi_wire.formats import HUB

from ._fast import (
    SURROGATE_ESCAPE,
    FastConverter,
    FastUnsupported,
    absent_nulls,
    dumped,
    fast_converter,
    negative_zero,
    parsed,
)
from ._fused import fused_writer
from ._inputs import Input
from ._route import VIA_HUB
from ._serde_floats import numbers_read_alike
from ._types import Loss

__all__ = ["BUILD_MIN_BYTES", "FastConverted", "fast_converted", "hub_converted"]

BUILD_MIN_BYTES = 1024 * 1024
"""The inputs from this size on build the fast path's expression when it is not cached (about a
second, once: it is kept in the cache); a smaller input uses a cached one or takes the model
path."""


_TYPES = {
    "operator-use": {"AgentMessage": ("AgentMessage",), "SessionFile": ("SessionFileEntry",)},
    "clark-agent": {"AgentMessage": ("AgentMessage",)},
}
"""format -> kind of input -> the wire types its documents are vouched as."""
_STREAMED = frozenset({"clark-agent"})
"""The formats whose lines stream to and from phi-core (``_batches``): read whole here only on
their way through phi-core to a format that needs the whole input (Operator-Use's session
file), and then checked as the per-line seam checks a vouched line (``_plain``)."""
_HEADERS = {"operator-use": "SessionHeader"}
_WRITERS: dict[str, Callable[[Any], str]] = {HUB: dumped, "clark-agent": dumped}
"""How a target writes a document the converters built (in its writer's key order: phi-core's
every object sorted), compact, raw UTF-8 (``phi_wire.serde``: for the numbers the converters let
through)."""


Document = TypeVar("Document")


class FastConverted(NamedTuple, Generic[Document]):
    """An input converted dict to dict: the documents (their JSON, or their objects), the
    losses (a pointer's first token is a document's index) and each document's line."""

    documents: list[Document]
    losses: Sequence[Loss]
    lines: list[int]


def _converter(format: str, target: str, kind: str) -> FastConverter | None:
    """The dict converter of a pair and kind of input (``_fast``'s table lookup, or the two
    steps through phi-core); None: none."""
    own = target if format == HUB else format
    if own not in _TYPES or (own in _STREAMED and HUB in (format, target)):
        return None
    return fast_converter(format, target, kind)


_PATHS: dict[tuple[str, str, tuple[str, ...]], FastPath] = {}
"""The fast paths loaded in this process (compiling one from the cache takes milliseconds)."""


def _path(format: str, version: str, types: tuple[str, ...], build: bool) -> FastPath | None:
    key = (format, version, types)
    if key not in _PATHS:
        found = fast_path(version, types, None, build, format)
        if found is None:
            return None  # not cached: a bigger input may build it
        _PATHS[key] = found
    return _PATHS[key]


def _vouched(source: Input, format: str, version: str, kind: str) -> bool:
    build = len(source.data) >= BUILD_MIN_BYTES
    entries = _path(format, version, _TYPES[format][kind], build)
    header = _path(format, version, (_HEADERS[format],), build) if source.session else entries
    if entries is None or header is None:
        return False
    if source.session:
        return SessionFilePath(entries, header).vouches(source.data)
    if not source.lines:
        return entries.vouches(source.data)
    return not entries.unmatched(source.data)  # every line (a blank one is not vouched for)


def _plain(source: Input, documents: list[Any], format: str, version: str) -> bool:
    """What the per-line seam checks of a vouched line before its dict converter (``_fast.runs``,
    ``Batches``), for a streamed format's lines: no integer ``-0`` (serde's float) and no null
    its reader reads as absent (a loss of reading the model path names), no number serde reads
    otherwise than ``parsed`` (``numbers_read_alike``: the streamed formats are serde's)."""
    if not numbers_read_alike(source.data):
        return False
    if b"-0" not in source.data and b'":null' not in source.data:
        return True  # neither in any line: no line to look at
    nulls = absent_nulls(format, version)
    for (_, text), document in zip(source.documents, documents, strict=True):
        if b"-0" in text and negative_zero(text):
            return False
        if nulls is not None and nulls.may_have(text) and nulls.found(document):
            return False
    return True


def _parsed(source: Input) -> list[Any]:
    """Each document of the input, parsed by the per-line seam's reader (``_fast.parsed``: the
    values ``json.loads`` gives), all in one call: one call per line costs more than the parse
    of a short line."""
    if not source.lines:
        return [parsed(source.data)]
    return parsed(b"[" + b",".join(text for _, text in source.documents) + b"]")  # type: ignore[no-any-return]


def _dicts_converted(
    source: Input,
    format: str,
    converter: Callable[[list[dict[str, Any]], str], tuple[list[Any], Sequence[Loss]]],
    version: str,
    kind: str,
) -> tuple[list[Any], Sequence[Loss]] | None:
    """``source``'s documents, vouched for, read and given to ``converter`` (a dict converter,
    or one that writes its documents: ``fused_writer``); None: the input takes the model path."""
    if SURROGATE_ESCAPE.search(source.data) or not _vouched(source, format, version, kind):
        return None
    if format in _STREAMED and not source.lines:
        return None  # one document (pretty, maybe): its lines are not the seam's
    try:
        documents = _parsed(source)
        if format in _STREAMED and not _plain(source, documents, format, version):
            return None
        return converter(documents, kind)
    except (FastUnsupported, ValueError):  # ValueError: what the reader does not take
        return None


def hub_converted(source: Input, format: str, version: str) -> FastConverted[dict[str, Any]] | None:
    """``source``'s lines of messages (of ``format``'s ``version``) converted to phi-core's
    message dicts (``documents``: their objects, in phi-core's key order) and the losses of that
    step, for a second step that needs the whole input (a session file); None: the model path."""
    converter = fast_converter(format, HUB, "AgentMessage")
    if converter is None or format not in _STREAMED or not source.lines:
        return None
    done = _dicts_converted(source, format, converter, version, "AgentMessage")
    if done is None:
        return None
    return FastConverted(done[0], done[1], [line for line, _ in source.documents])


def fast_converted(
    source: Input, format: str, target: str, version: str, kind: str
) -> FastConverted[str] | None:
    """``source`` (of ``format``'s ``version``; ``kind``: ``SessionFile`` or the type of its
    documents) converted to ``target`` dict to dict, or None: it takes the model path. A
    document that is the whole input (not JSONL) is one document whose losses point into it."""
    converter = _converter(format, target, kind)
    if converter is None or target not in _WRITERS or kind not in _TYPES.get(format, {}):
        return None
    write = _WRITERS[target]
    # two steps through phi-core fused (or the first to phi-core): each document written as it
    # is made (none held)
    writing = fused_writer(format, target, kind, write)
    done = _dicts_converted(source, format, writing or converter, version, kind)
    if done is None:
        return None
    converted, losses = done
    if not source.lines:  # one document: its pointers have no index (but those into phi-core's)
        losses = [
            loss if loss.reason.endswith(VIA_HUB) else loss._replace(pointer=loss.pointer[2:])
            for loss in losses
        ]
    documents = converted if writing is not None else [write(item) for item in converted]
    return FastConverted(documents, losses, [line for line, _ in source.documents])
