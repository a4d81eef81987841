"""Reading ``phi-wire convert``'s inputs: the paths named (a folder's files found as ``phi-wire
validate`` finds them), each input's bytes (gzip or not, standard input too, up to
``MAX_INPUT_BYTES``) and its documents: the whole text when it parses as one JSON value, else one
per line.

A name may be a URL (``s3://bucket/prefix/``, a glob; ``phi_wire.remote``, the ``remote``
extra): a prefix is walked as a folder, each object found keeping its key under the prefix (under
a glob's fixed part for what a glob matches), and an object is read with one GET.
"""

from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from phi_wire import remote
from phi_wire.recognise import parse

__all__ = [
    "GZIP_MAGIC",
    "MAX_INPUT_BYTES",
    "ConvertError",
    "Input",
    "Named",
    "input_of",
    "inputs_named",
    "read_input",
    "url_base",
]

MAX_INPUT_BYTES = 256 * 1024 * 1024
"""The largest input converted (it is held in memory, with its models, several times its size)."""
GZIP_MAGIC = b"\x1f\x8b"


def max_input_bytes() -> int:
    """``MAX_INPUT_BYTES``, read when called (a test may set it)."""
    return MAX_INPUT_BYTES


class ConvertError(Exception):
    """An input that cannot be converted: the message names the file and line."""


@dataclass
class Input:
    """An input file read: its documents and how it is laid out."""

    name: str
    data: bytes
    """The input's bytes (gunzipped)."""
    lines: bool
    """One document per line (JSONL, or a session file)."""
    documents: list[tuple[int, bytes]] = field(default_factory=list)
    """(line number, bytes) of each document (a whole-file document: line 1)."""
    session: bool = False
    """An Operator-Use session file: one document, read whole."""
    value: tuple[Any] | None = None
    """A whole-file document's JSON as ``input_of`` parsed it to tell it is one (in a 1-tuple:
    it may be null), until recognising it takes it (``take_value``): a big document (a 30 MB
    Session) is not parsed a second time to be recognised, nor held after."""

    def take_value(self) -> tuple[Any] | None:
        """The parsed whole-file document, once (None: not parsed, or taken)."""
        value, self.value = self.value, None
        return value


class Named(NamedTuple):
    """One input to convert: a path named, or a file found under a folder named."""

    name: str
    under: str | None = None
    """Its path under the folder named (``a/history.jsonl``); None for a path named itself."""


def inputs_named(
    names: list[str], include: Sequence[str] = (), exclude: Sequence[str] = ()
) -> tuple[list[Named], list[str]]:
    """The inputs of a run: each path named as it is, and for each folder named the files under
    it, as ``phi-wire validate`` walks it (``include``/``exclude``: its patterns); and one line
    for each thing that could not be walked (a folder with nothing to convert...). A URL is
    walked as ``phi-wire validate`` walks it; ``MissingExtra`` without the ``remote`` extra."""
    from phi_wire.validate import Selection, Walk

    selection = Selection(include, exclude)
    found: list[Named] = []
    errors: list[str] = []
    for name in names:
        if remote.is_url(name):
            remote.require(name)  # MissingExtra: one line naming the extra to install
            walk = Walk([name], selection=selection, nothing="nothing to convert")
            if walk.names == [name]:  # an object named itself
                found.append(Named(name))
            else:
                base = url_base(name)
                found += [Named(url, url.removeprefix(base)) for url in walk.names]
            errors += [record.text() for record in walk.records if record.kind == "input"]
            continue
        if name == "-" or not os.path.isdir(name):
            found.append(Named(name))
            continue
        walk = Walk([name], selection=selection, nothing="nothing to convert")
        found += [Named(path, os.path.relpath(path, name)) for path in walk.names]
        errors += [record.text() for record in walk.records if record.kind == "input"]
    return found, errors


def url_base(url: str) -> str:
    """What the objects found under a URL are named under, ending ``/``: a prefix itself, or a
    glob's folders before its first pattern (``s3://b/logs/2025-*/*.jsonl``: ``s3://b/logs/``)."""
    if not remote.has_glob(url):
        return url.rstrip("/") + "/"
    scheme, _, path = url.partition("://")
    fixed: list[str] = []
    for part in path.split("/")[:-1]:
        if remote.has_glob("x://" + part):
            break
        fixed.append(part)
    return f"{scheme}://{'/'.join(fixed)}/"


def _gunzipped(name: str, raw: bytes) -> bytes:
    if not raw.startswith(GZIP_MAGIC):
        return raw
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as packed:
            raw = packed.read(MAX_INPUT_BYTES + 1)  # bounded: a gzip bomb stops here
    except (OSError, EOFError, zlib.error) as error:
        raise ConvertError(f"{name}: not a valid gzip file ({error})") from None
    if len(raw) > MAX_INPUT_BYTES:
        raise ConvertError(f"{name}: over {MAX_INPUT_BYTES // 2**20} MB uncompressed")
    return raw


def read_input(name: str, size: int | None = None) -> Input:
    """Read ``name`` (``-``: standard input) and find its documents; ``ConvertError`` if it
    cannot be read. ``size``: a URL's size when known (from a listing made elsewhere: one GET
    reads it)."""
    try:
        if name == "-":
            raw = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        elif remote.is_url(name):
            raw = remote.read_whole(name, MAX_INPUT_BYTES, size)
        else:
            with open(name, "rb") as handle:
                raw = handle.read(MAX_INPUT_BYTES + 1)
    except OSError as error:
        raise ConvertError(f"{name}: cannot read ({error.strerror or error})") from None
    return input_of(name, raw)


def input_of(name: str, raw: bytes) -> Input:
    """An input's bytes (gzip or not), named ``name``, and its documents; ``ConvertError`` if
    there are none, or too many bytes."""
    if len(raw) > MAX_INPUT_BYTES:
        raise ConvertError(f"{name}: over {MAX_INPUT_BYTES // 2**20} MB: too big to convert")
    data = _gunzipped(name, raw)
    if not data.strip():
        raise ConvertError(f"{name}: empty: nothing to convert")
    try:
        value = parse(data)
    except (ValueError, RecursionError):
        pass  # not one JSON value: one per line
    else:
        return Input(name, data, False, [(1, data)], value=(value,))
    # a line of only whitespace is none (``isspace``: strip's bytes, without a stripped copy)
    lines = enumerate(data.split(b"\n"), 1)
    documents = [(number, line) for number, line in lines if line and not line.isspace()]
    return Input(name, data, True, documents)
