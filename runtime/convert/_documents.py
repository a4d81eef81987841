"""One document of an input as its format reads it and as the target writes it: parsed (an
error in ``phi-wire validate``'s words, at its line), read by the format's ``loads`` as the type
its shape has (the keys its reader drops, the nulls it reads as absent and the timestamps it
stamps: losses of reading, ``_unread``), converted values written by the target's ``dumps``, and
a loss's pointer turned into its ``file:line``. ``MODULES``: the version of each format the
converters read and write."""

from __future__ import annotations

import functools
from typing import Any

from phi_wire.errors import WireError
from phi_wire.formats import find, newest
from phi_wire.recognise import parse, recognise, type_in

from ._filled import replaced
from ._inputs import ConvertError, Input
from ._types import Loss
from ._unread import NULL_READ_AS_ABSENT, READER_DROPS, unread
from ._version import SESSION_FILES
from ._wording import not_json, rejected

__all__ = ["MODULES"]

MODULES = {
    "phi-core": newest().version,
    "clark-agent": "0.4",
    "operator-use": "d0da87a6",
    "otel-genai": newest("otel-genai").version,
    "pi": newest("pi").version,
}
"""The version of each format the converters read and write."""


def _parsed(source: Input, line: int, text: bytes, format: str | None = None) -> Any:
    try:
        return parse(text)
    except (ValueError, RecursionError):
        within, message = not_json(text, format)  # validate's words, with line and column
        raise ConvertError(f"{source.name}:{line + within - 1}: {message}") from None


def _problem(source: Input, line: int, text: bytes, error: WireError, format: str) -> ConvertError:
    """One line naming the file, the line and the first problem (its JSON pointer), in the words
    ``phi-wire validate`` uses (a lone surrogate escape named as such)."""
    from phi_wire.validate import line_of

    where = line + (error.line - 1 if error.line else 0)
    if not error.line and not source.lines and error.pointer:
        where = line_of(text.decode("utf-8", "replace"), error.pointer)
    message = rejected(error, text, format)
    return ConvertError(f"{source.name}:{where}: {message}")


def _read_documents(
    source: Input, documents: list[tuple[int, bytes]], module: Any, format: str
) -> tuple[list[Any], list[str], list[tuple[str, Loss]]]:
    """Each document read by ``format``'s ``loads`` as the type its shape has: the models, the
    types' names and the losses of reading (the keys the reader dropped)."""
    values = []
    types = []
    losses = []
    for line, text in documents:
        document = _parsed(source, line, text, format)
        name = type_in(format, document)
        try:
            value = module.loads(_wire_type(module, name), text)
        except module.WireError as error:
            # a shape detection takes for another type (phi-core's content block, whose `type`
            # detection reads as an event's): read as the type recognition names, as validate does
            claimed = recognise(document)
            if claimed is None or claimed.format != format or claimed.type in ("", name):
                raise _problem(source, line, text, error, format) from None
            try:
                name, value = claimed.type, module.loads(_wire_type(module, claimed.type), text)
            except module.WireError:
                raise _problem(source, line, text, error, format) from None
        values.append(value)
        types.append(name)
        losses += _unread(source, (line, text), document, value, format)
    return values, types, losses


def _unread(
    source: Input, line: tuple[int, bytes], document: Any, value: Any, format: str
) -> list[tuple[str, Loss]]:
    """A ``dropped`` loss for each key of a document (at ``line``: its number and bytes) that
    its format's reader dropped, or whose null it read as absent; an ``invented`` one for each
    missing key it stamped with the time of reading, or filled by a default factory (whose clock
    or random value is replaced by one made from the input: ``_filled``)."""
    number, text = line
    where = f"{source.name}:{number}"
    unknown, nulls, filled = unread(document, value)
    unknown_reason = READER_DROPS.format(format=format)
    null_reason = NULL_READ_AS_ABSENT.format(format=format)
    return (
        [(where, Loss(pointer, "dropped", unknown_reason)) for pointer in unknown]
        + [(where, Loss(pointer, "dropped", null_reason)) for pointer in nulls]
        + (
            [(where, loss) for loss in replaced(filled, source.name, number, text, format)]
            if filled
            else []
        )
    )


@functools.cache
def _wire_type(module: Any, name: str) -> Any:
    """The type a name stands for (``list[T]`` too), one object per name: ``loads`` keeps one
    TypeAdapter per type object."""
    if name.startswith("list[") and name.endswith("]"):
        return list[getattr(module, name[5:-1])]  # type: ignore[misc]
    return getattr(module, name)


def _dumped(value: Any, format: str) -> tuple[list[str], bool, bool]:
    """The documents the target writes for a converted value (their JSON, no line end; an
    Operator-Use session file: the whole file, one document), whether they are JSONL, and
    whether they are a session file."""
    module = find(MODULES[format], format).load()
    if format in SESSION_FILES and type(value).__name__ in ("SessionFileLines", "JsonLines"):
        return [str(module.dumps(value))], True, True
    if isinstance(value, list):
        return [str(module.dumps(item)) for item in value], True, False
    return [str(module.dumps(value))], False, False


def _where(source: Input, lines: list[int], listed: bool, pointer: str) -> tuple[str, str]:
    """``file:line`` of a loss, and its pointer within that line's document."""
    if not listed:
        return f"{source.name}:1", pointer
    # the first token is an index (no escapes in it); the rest stays escaped as it is
    index, slash, rest = pointer[1:].partition("/")
    if pointer.startswith("/") and index.isdecimal() and int(index) < len(lines):
        return f"{source.name}:{lines[int(index)]}", slash + rest
    return source.name, pointer
