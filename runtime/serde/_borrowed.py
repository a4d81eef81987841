"""Borrowed strings: serde's ``&'a str`` fields, which must be read in place from the input.

Serde fact: a ``&'a str`` field deserializes only from a JSON string that serde_json can lend
out of the input buffer unchanged, i.e. one without escape sequences. Any escape, even ``\\/``
(which means ``/``), makes it fail with ``invalid type: string "...", expected a borrowed
string``, although serde itself writes ``\\"`` and ``\\\\`` for such values (so a plugin name with
a quote is written but cannot be read back). clark-agent's ``AgentEvent`` has two such fields
(``plugin: &'static str``); the schema marks them ``x-serde-borrowed``.

pydantic sees decoded strings only, so ``loads`` asks ``find_escaped_borrowed`` after validation,
and only when the document holds a backslash and the value holds a marked field.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
from typing import Any, NamedTuple

from pydantic import BaseModel

from ..pointer import join
from ._sequence import SequenceMismatch, objects_from_sequences

__all__ = ["EscapedBorrowed", "find_escaped_borrowed"]


class EscapedBorrowed(NamedTuple):
    pointer: str
    value: str


class _Escaped(str):
    """A decoded JSON string whose text held an escape sequence."""


def _marking_scanstring(text: str, end: int, strict: bool = True) -> tuple[str, int]:
    value, after = json.decoder.scanstring(text, end, strict)  # type: ignore[attr-defined]
    if "\\" in text[end:after]:
        return _Escaped(value), after
    return value, after


def _marking_decoder() -> json.JSONDecoder:
    decoder = json.JSONDecoder()
    decoder.parse_string = _marking_scanstring  # type: ignore[attr-defined]
    # the C scanner reads strings itself; the Python one asks parse_string
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    return decoder


_BORROWED_FIELDS: dict[type[BaseModel], tuple[tuple[str, str], ...]] = {}


def _borrowed_fields(model: type[BaseModel]) -> tuple[tuple[str, str], ...]:
    """(attribute, wire name) of the model's borrowed-string fields."""
    found = _BORROWED_FIELDS.get(model)
    if found is None:
        found = _BORROWED_FIELDS[model] = tuple(
            (name, info.alias or name)
            for name, info in model.model_fields.items()
            if isinstance(info.json_schema_extra, dict)
            and info.json_schema_extra.get("x-serde-borrowed")
        )
    return found


def holds_borrowed(value: Any) -> bool:
    """Whether ``value`` (a validated model) has a borrowed-string field at its top level.

    Only the top level: in clark-agent the marked fields belong to ``AgentEvent`` variants, which
    nothing else contains.
    """
    return isinstance(value, BaseModel) and bool(_borrowed_fields(type(value)))


def find_escaped_borrowed(raw: bytes, value: BaseModel) -> EscapedBorrowed | None:
    """The first borrowed-string field of ``value`` whose text in ``raw`` holds an escape."""
    document = _marking_decoder().decode(raw.decode("utf-8"))
    pointer = ""
    as_object = document
    if isinstance(document, list):  # serde's sequence form: find the element by identity
        try:
            as_object = objects_from_sequences(type(value), document)
        except SequenceMismatch:
            return None
    if not isinstance(as_object, dict):
        return None
    for _, wire in _borrowed_fields(type(value)):
        text = as_object.get(wire)
        if isinstance(text, _Escaped):
            if isinstance(document, list):
                index = next(i for i, item in enumerate(document) if item is text)
                pointer = join(index)
            else:
                pointer = join(wire)
            return EscapedBorrowed(pointer, str(text))
    return None
