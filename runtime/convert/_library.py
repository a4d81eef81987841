"""The conversion of files and streams for programs: ``convert_file`` and ``convert_stream`` do
what ``phi-wire convert`` does with one input (read it as its format reads it, convert it through
phi-core, write it as the target writes it) and yield what it gives, typed: each converted
``Document`` (its JSON as the target writes it), then each ``Lost`` (a loss with the
``file:line`` it points into). Errors are ``ConvertError``\\ s, one line each, as the command
says them.

An input is converted whole (up to ``MAX_INPUT_BYTES``): an event stream's events need each other
(a run's identity, a turn's index), a history's rows are one conversation and an Operator-Use
session file is a tree, so memory is bounded by the input, not by one document.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from ._files import Converted, convert_input
from ._inputs import MAX_INPUT_BYTES, input_of, read_input
from ._types import Loss

__all__ = ["Document", "Lost", "convert_file", "convert_stream"]


class Document(NamedTuple):
    """One converted document, as the target writes it."""

    text: str
    """Its JSON, without a line end (an Operator-Use session file: the whole file, its lines each
    ending with a line end)."""
    format: str
    """The target format."""
    version: str
    """The target's version (or layout) written."""


class Lost(NamedTuple):
    """One loss of a conversion and where it points: ``where`` is ``file:line`` (or ``file``
    alone for a loss of the output's second step, or of writing another version), ``loss`` its
    pointer into that line's document, kind and reason."""

    where: str
    loss: Loss


def _yielded(converted: Converted) -> Iterator[Document | Lost]:
    for text in converted.documents_written:
        yield Document(text, converted.target, converted.version)
    for where, loss in converted.losses:
        yield Lost(where, loss)


def convert_file(
    path: str | os.PathLike[str],
    *,
    target: str,
    source: str | None = None,
    version: str | None = None,
) -> Iterator[Document | Lost]:
    """The input at ``path`` (JSON, JSONL, an Operator-Use session file; gzip or not) converted
    to ``target`` (``version``: its version or layout; None, the newest), from ``source`` (None:
    recognised): its documents, then its losses. ``ConvertError`` if it cannot be converted."""
    return _yielded(convert_input(read_input(os.fspath(path)), source, target, version))


def convert_stream(
    lines: Iterable[str | bytes],
    *,
    target: str,
    source: str | None = None,
    version: str | None = None,
    name: str = "-",
) -> Iterator[Document | Lost]:
    """``convert_file`` of the lines of a JSONL stream (or of one JSON document written over
    several lines), each a whole line (its line end added if it has none), named ``name`` in its
    losses and errors (and the seed of the ids it invents). ``ConvertError`` if it cannot be
    converted."""
    pieces: list[bytes] = []
    size = 0
    for line in lines:
        piece = line.encode("utf-8", "surrogateescape") if isinstance(line, str) else line
        if not piece.endswith(b"\n"):
            piece += b"\n"
        size += len(piece)
        pieces.append(piece)
        if size > MAX_INPUT_BYTES:
            break  # input_of says it is too big
    return _yielded(convert_input(input_of(name, b"".join(pieces)), source, target, version))
