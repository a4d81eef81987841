"""The work of ``phi-wire convert``: files of one format read, converted by ``phi_wire.convert``,
written as another format's, and what was lost on the way counted.

* Inputs: a JSON document (a ``.json`` file: one message, event, usage...; or a JSON array of
  them), JSONL (one document per line: a clark-agent history, an event stream), an Operator-Use
  session file (a JSONL file of its entries: one document, read as Operator-Use reads it), ``-``
  (standard input), or a folder: its files are found as ``phi-wire validate`` finds them
  (``phi_wire.validate.Walk``: JSON names, hidden and vendored folders skipped, ``--include`` and
  ``--exclude`` patterns), each converted on its own, its output at the same path under the
  output folder. The whole text parses as one JSON value: one document; else one per
  line. gzip is read when the bytes start with its magic bytes. Each input is read whole, up to
  ``MAX_INPUT_BYTES``. The bytes go to ``loads`` as read: bytes that are not UTF-8 are its to
  judge (serde skips them in an ignored value, as ``phi-wire validate`` says too).
* The source format is given or recognised (``phi_wire.recognise``); each document is read by that
  format's ``loads`` as the type its shape has, a JSONL file's documents converted together (a
  stream's events need each other; a history's rows are one conversation).
* Outputs are written as the target writes: one document for one document, JSONL for a list, an
  Operator-Use session file for a list of messages converted to Operator-Use. A file is written
  to a temporary file beside it and renamed over it once complete: never a partial file.
* Every ``Loss`` names a pointer into its input document; for JSONL and session files the first
  token (the index of a line) is turned into the line number.
"""

from __future__ import annotations

import functools
import gzip
import io
import os
import sys
import tempfile
import zlib
from collections.abc import Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from phi_wire.errors import WireError
from phi_wire.formats import FORMATS, find, newest
from phi_wire.recognise import SPOKEN, Recognised, parse, recognise, recognise_lines, type_in

from ._route import convert, to_session_file
from ._types import Conversion, Loss, UnsupportedConversion

__all__ = [
    "MAX_INPUT_BYTES",
    "ConvertError",
    "Converted",
    "Input",
    "Named",
    "convert_input",
    "inputs_named",
    "output_name",
    "read_input",
    "write_atomically",
]

MAX_INPUT_BYTES = 256 * 1024 * 1024
"""The largest input converted (it is held in memory, with its models, several times its size)."""
GZIP_MAGIC = b"\x1f\x8b"
MODULES = {"phi-core": newest().version, "clark-agent": "0.4", "operator-use": "d0da87a6"}
"""The version of each format the converters read and write."""


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


@dataclass
class Converted:
    """An input converted: the text to write, and the losses with where they point."""

    source: str
    target: str
    text: str
    losses: list[tuple[str, Loss]]
    """(where: ``file:line``, loss), in the order the converter gave them."""
    documents: int
    """The documents read: JSONL lines, 1 for a JSON document or a whole session file."""
    lines: bool
    """The text is JSONL (a list written one item per line)."""
    entries: int = 0
    """A session file's entries (0: the input was no session file)."""


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
    for each thing that could not be walked (a folder with nothing to convert...)."""
    from phi_wire.validate import Selection, Walk

    selection = Selection(include, exclude)
    found: list[Named] = []
    errors: list[str] = []
    for name in names:
        if name == "-" or not os.path.isdir(name):
            found.append(Named(name))
            continue
        walk = Walk([name], selection=selection, nothing="nothing to convert")
        found += [Named(path, os.path.relpath(path, name)) for path in walk.names]
        errors += [record.text() for record in walk.records if record.kind == "input"]
    return found, errors


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


def read_input(name: str) -> Input:
    """Read ``name`` (``-``: standard input) and find its documents; ``ConvertError`` if it
    cannot be read."""
    try:
        if name == "-":
            raw = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        else:
            with open(name, "rb") as handle:
                raw = handle.read(MAX_INPUT_BYTES + 1)
    except OSError as error:
        raise ConvertError(f"{name}: cannot read ({error.strerror or error})") from None
    if len(raw) > MAX_INPUT_BYTES:
        raise ConvertError(f"{name}: over {MAX_INPUT_BYTES // 2**20} MB: too big to convert")
    data = _gunzipped(name, raw)
    if not data.strip():
        raise ConvertError(f"{name}: empty: nothing to convert")
    try:
        parse(data)
    except (ValueError, RecursionError):
        pass  # not one JSON value: one per line
    else:
        return Input(name, data, False, [(1, data)])
    documents = [(number, line) for number, line in enumerate(data.split(b"\n"), 1) if line.strip()]
    return Input(name, data, True, documents)


def _parsed(source: Input, line: int, text: bytes) -> Any:
    try:
        return parse(text)
    except (ValueError, RecursionError) as error:
        where = getattr(error, "lineno", 1) + line - 1
        message = getattr(error, "msg", str(error))
        raise ConvertError(f"{source.name}:{where}: invalid JSON: {message}") from None


def _recognised(source: Input, given: str | None) -> Recognised:
    """The format (and, for a session file, the type) of an input: given, or recognised."""
    parsed = [_parsed(source, line, text) for line, text in source.documents[:64]]
    found = recognise_lines(parsed) if source.lines else recognise(parsed[0])
    if given is not None:
        session = (
            given == "operator-use"
            and found is not None
            and found.format == given
            and found.type == "SessionFile"
        )
        return Recognised(given, "", "SessionFile" if session else "", True)
    if found is None:
        raise ConvertError(
            f"{source.name}: nothing in it names a format: give one with --from "
            f"({', '.join(FORMATS)})"
        )
    if found.format not in SPOKEN:
        raise ConvertError(
            f"{source.name}: looks like {found.format}'s JSON ({found.type}), which phi-wire does "
            "not speak yet: nothing to convert it with"
        )
    return found


def _problem(source: Input, line: int, text: bytes, error: WireError, format: str) -> ConvertError:
    """One line naming the file, the line and the first problem (its JSON pointer), in the words
    ``phi-wire validate`` uses (a lone surrogate escape named as such)."""
    from phi_wire.validate import explained, line_of

    where = line + (error.line - 1 if error.line else 0)
    if not error.line and not source.lines and error.pointer:
        where = line_of(text.decode("utf-8", "replace"), error.pointer)
    message = explained(str(error), text, serde=format != "operator-use")
    return ConvertError(f"{source.name}:{where}: {message}")


def _loaded(source: Input, format: str) -> tuple[Any, list[int], list[tuple[str, Loss]]]:
    """The input read as ``format``: a model (one document), a list of models (JSONL) or a
    session file; the line of each item (for the losses' pointers); and the losses of reading
    (the lines Operator-Use's reader skips)."""
    module = find(MODULES[format], format).load()
    if source.session:
        text = source.data
        try:
            session = module.loads(module.SessionFile, text)
        except module.WireError as error:
            raise _problem(source, 1, text, error, format) from None
        skipped = {error.line for error in session.skipped}
        lines = [number for number, _ in source.documents if number not in skipped]
        losses = [
            (
                f"{source.name}:{error.line}",
                Loss("", "dropped", f"Operator-Use's reader skips this line ({error})"),
            )
            for error in session.skipped
        ]
        return session, lines, losses
    values = []
    for line, text in source.documents:
        document = _parsed(source, line, text)
        tp = _wire_type(module, type_in(format, document))
        try:
            values.append(module.loads(tp, text))
        except module.WireError as error:
            raise _problem(source, line, text, error, format) from None
    if not source.lines:
        return values[0], [1], []
    return values, [line for line, _ in source.documents], []


@functools.cache
def _wire_type(module: Any, name: str) -> Any:
    """The type a name stands for (``list[T]`` too), one object per name: ``loads`` keeps one
    TypeAdapter per type object."""
    if name.startswith("list[") and name.endswith("]"):
        return list[getattr(module, name[5:-1])]  # type: ignore[misc]
    return getattr(module, name)


def _dumped(value: Any, format: str) -> tuple[str, bool]:
    """The text the target writes for a converted value, and whether it is JSONL."""
    module = find(MODULES[format], format).load()
    if format == "operator-use" and type(value).__name__ == "SessionFileLines":
        return str(module.dumps(value)), True
    if isinstance(value, list):
        return "".join(str(module.dumps(item)) + "\n" for item in value), True
    return str(module.dumps(value)) + "\n", False


def _where(source: Input, lines: list[int], listed: bool, pointer: str) -> tuple[str, str]:
    """``file:line`` of a loss, and its pointer within that line's document."""
    if not listed:
        return f"{source.name}:1", pointer
    # the first token is an index (no escapes in it); the rest stays escaped as it is
    index, slash, rest = pointer[1:].partition("/")
    if pointer.startswith("/") and index.isdecimal() and int(index) < len(lines):
        return f"{source.name}:{lines[int(index)]}", slash + rest
    return source.name, pointer


def convert_input(source: Input, given: str | None, target: str) -> Converted:
    """Read, convert and write out one input; ``ConvertError`` (one line) if it cannot be."""
    recognised = _recognised(source, given)
    if recognised.format not in MODULES or target not in MODULES:  # pi: not converted yet
        no = recognised.format if recognised.format not in MODULES else target
        raise ConvertError(f"{source.name}: {no} is not converted yet (no converter)")
    if recognised.type == "SessionFile":
        source.session = True
    value, lines, losses = _loaded(source, recognised.format)
    try:
        if recognised.format == "phi-core" and target == "operator-use" and isinstance(value, list):
            result: Conversion[Any] = to_session_file(value)  # how Operator-Use stores messages
        else:
            result = convert(value, source=recognised.format, target=target)
    except UnsupportedConversion as error:
        raise ConvertError(f"{source.name}: {error}") from None
    if result.value is None:
        reasons = "; ".join(loss.reason for loss in result.losses)
        raise ConvertError(
            f"{source.name}: nothing of it has a counterpart in {target} ({reasons})"
        )
    text, jsonl = _dumped(result.value, target)
    listed = isinstance(value, list)
    for loss in result.losses:
        where, pointer = _where(source, lines, listed, loss.pointer)
        losses.append((where, Loss(pointer, loss.kind, loss.reason)))
    if source.session:
        return Converted(recognised.format, target, text, losses, 1, jsonl, len(value))
    count = len(value) if source.lines else 1
    return Converted(recognised.format, target, text, losses, count, jsonl)


def output_name(
    source: str, target: str, jsonl: bool, folder: Path, under: str | None = None
) -> Path:
    """Where an input's output goes in a folder: its name with the target format before the
    suffix (``history.jsonl`` -> ``history.phi-core.jsonl``); stdin is ``stdin``; a file found
    under a folder named keeps its path under it (``under``: ``a/history.jsonl`` ->
    ``a/history.phi-core.jsonl``)."""
    base = "stdin" if source == "-" else Path(source).name
    for suffix in (".gz", ".jsonl", ".ndjson", ".json"):
        base = base.removesuffix(suffix)
    if under is not None:
        folder = folder / Path(under).parent
    return folder / f"{base}.{target}.{'jsonl' if jsonl else 'json'}"


def write_atomically(path: Path, chunks: Iterator[str] | list[str]) -> None:
    """Write ``chunks`` to ``path``: into a temporary file in the same folder, flushed to disk,
    then renamed over ``path``; if anything fails, the temporary file is removed and ``path``
    is untouched (``OSError`` or whatever the chunks raised goes to the caller)."""
    folder = path.parent
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            for chunk in chunks:
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise
