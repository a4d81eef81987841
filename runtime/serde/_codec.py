"""``loads`` and ``dumps``: read as strictly as phi-core's serde, write exactly what it writes.

Serde facts handled here rather than in the models:

* strict typing (no ``"5"`` for 5, no ``1`` for ``true``, no ``1.0`` for a u64) and wire names only
  on input: pydantic's strict JSON mode with ``by_name=False``;
* serde_json's number reading (``-0`` is ``-0.0``, integers past u64/i64 are f64, imprecise decimal
  parsing): see ``_numbers``, found by the one ``json.loads`` pass of ``_scan``;
* duplicate keys: an error in derived structs, last-wins inside ``serde_json::Value`` and the whole
  ``LlmMessage`` (parsed through ``Value``): see ``_duplicates``;
* serde's sequence form of structs (``[tag, field, ...]``): see ``_sequence``, tried only after
  validation failed;
* the cost of an invalid document is bounded: a big or dense one (``_full_report``) has each
  array judged up to its first invalid item only (``_fail_fast``; the same verdict), so the errors
  pydantic builds, each holding a copy of its input, are bounded by the schema, not the document;
* an unknown key of a struct read directly is skipped by ``ignore_value``, which checks the
  grammar only (a number out of range, nesting past 127 levels, a lone surrogate, bytes that are
  not UTF-8 pass there): see ``_ignored``, asked only once one of the checks here found such a
  thing, and the document read again with those values blanked;
* borrowed ``&str`` fields (clark-agent's event ``plugin``), which reject escaped strings: see
  ``_borrowed``, checked only when the document holds a backslash;
* output: ``serde_json::to_string`` (compact) or ``to_writer_pretty`` (2-space indent), raw UTF-8.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias, TypeVar, cast

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails, PydanticSerializationError
from typing_extensions import TypeForm

import phi_wire.serde._shortcut as shortcut  # (read per call; the module alone: no cycle)

from ..collector import CollectorPaused
from ..errors import WireError, json_syntax_error
from ..primitives import adapter, type_name
from ._borrowed import find_escaped_borrowed, holds_borrowed
from ._dispatch import refused_value
from ._duplicates import find_rejected_duplicate
from ._error_translation import NOT_PARSED, from_json_validation_error
from ._full_report import searched_in_full
from ._ignored import blank_ignored
from ._interrupts import serialized
from ._numbers import rewrite_numbers
from ._scan import SERDE_MAX_DEPTH, scan, syntax_error, too_deep
from ._sequence import objects_from_sequences
from ._shortcut import accepted_exactly, document_bytes, shortcut_for
from ._wire import read_json_with
from ._write import writer
from ._written import written_json

T = TypeVar("T")

Writable: TypeAlias = (
    "BaseModel | str | int | float | bool | Sequence[Writable] | Mapping[str, Writable] | None"
)
"""What ``dumps`` takes (statically): what ``loads`` gives for some wire type (a model, an enum
member, a JSON value), or lists and dicts built of such values."""


def _as_text(data: str | bytes | bytearray | memoryview, name: str) -> bytes:
    if isinstance(data, str):
        try:
            return data.encode("utf-8")
        except UnicodeEncodeError as error:  # a lone surrogate in a Python str
            raise WireError(
                name, "", f"the text is not valid UTF-8 ({error.reason} at offset {error.start})"
            ) from None
    return bytes(data)


# jiter's words (serde_json's) for a string serde_json's full reading rejects and ignore_str skips
_STRING_FINDINGS = ("surrogate", "hex escape", "invalid unicode code point")


class _SkippedBySerde(Exception):
    """A finding serde's full reading rejects, which may lie in a value serde only skips."""

    def __init__(self, error: WireError) -> None:
        super().__init__(str(error))
        self.error = error


def loads(
    tp: TypeForm[T],
    data: str | bytes | bytearray | memoryview,
    *,
    max_problems: int | None = None,
    fail_fast: bool | None = None,
) -> T:
    """Parse one JSON document as the wire type ``tp``, accepting exactly what phi-core accepts.

    ``tp`` is a type expression (PEP 747's ``TypeForm``): a model class, a union alias such as
    ``AgentEvent``, or a form of them such as ``list[Message]``; a type checker gives the result
    that type.

    Raises ``WireError`` (a ``ValueError``) naming the type, the JSON pointer and what was expected.
    To bound the cost of an invalid document: ``max_problems`` lists at most that many problems
    (``WireError.omitted`` counts the others); ``fail_fast`` judges each array up to its first
    invalid item only (same verdict; the problems after it are not looked for, and
    ``WireError.first_invalid_items_only`` says so). By default (None) a document of many values
    (``_full_report``: over 2,500 and denser than real ones, or over 20,000) is judged so; False:
    every problem, whatever the cost.
    """
    # the fast path: ``_shortcut.vouched``, inlined (a call per document saved); then the exact path
    entry = shortcut.SHORTCUTS.get(id(tp))
    if entry is None or entry.tp is not tp:
        entry = shortcut_for(tp)
    fast = entry.fast
    if fast is None and not entry.looked:
        fast = entry.first_look()
    if fast is not None and shortcut.ENABLED:
        raw = data if type(data) is bytes else document_bytes(data)
        if raw is not None and fast[0](raw) is not None:
            try:
                return fast[1](raw)  # type: ignore[no-any-return]
            except ValidationError:  # the expression vouched wrongly: the exact path judges
                pass
    name = type_name(tp)
    raw = _as_text(data, name)
    if fail_fast is None:
        fail_fast = not searched_in_full(raw)
    with CollectorPaused():
        value: T = _read_exactly(tp, raw, name, max_problems, fail_fast)
    accepted_exactly(tp)
    return value


def _read_exactly(tp: Any, raw: bytes, name: str, max_problems: int | None, fail_fast: bool) -> Any:
    try:
        return _read(tp, raw, name, False, max_problems, fail_fast)
    except _SkippedBySerde as finding:
        # Only now: an unknown key's value is skipped by serde without these checks (_ignored)
        blanked = blank_ignored(tp, raw)
        if blanked is None:
            raise finding.error from None
    # read again outside the handler: an error from here does not carry the finding as context
    return _read(tp, blanked, name, True, max_problems, fail_fast)


def _finding(error: WireError, blanked: bool) -> Exception:
    return error if blanked else _SkippedBySerde(error)


def _read(
    tp: Any, raw: bytes, name: str, blanked: bool, max_problems: int | None, fail_fast: bool
) -> Any:
    """``loads`` on UTF-8 bytes; with ``blanked`` False, a finding that an ignored value may hold
    raises ``_SkippedBySerde`` carrying the error to report if none does."""
    if too_deep(raw):  # first: the scan below then cannot run out of recursion
        raise _finding(
            WireError(
                name, "", f"invalid JSON: nested deeper than serde_json's {SERDE_MAX_DEPTH} levels"
            ),
            blanked,
        )
    found = scan(raw)
    written = raw
    if found is not None and found.numbers_differ:
        try:
            raw = rewrite_numbers(raw, name)
        except WireError as error:  # out of range, or NaN
            raise _finding(error, blanked) from None
    if fail_fast:
        from ._fail_fast import fail_fast_validator

        validator: Any = fail_fast_validator(tp)
    else:
        validator = adapter(tp)
    try:
        value = validator.validate_json(raw, strict=True, by_alias=True, by_name=False)
    except ValidationError as error:
        details = error.errors(include_url=False)
        value = None if found is None else _from_sequence_form(tp, validator, raw, details)
        if value is None:
            wire_error = from_json_validation_error(
                name,
                details,
                raw,
                written,
                max_problems=max_problems,
                document=found.document if found is not None and found.kept else NOT_PARSED,
                fail_fast=fail_fast,
            )
            if _string_finding(details):
                raise _finding(wire_error, blanked) from None
            raise wire_error from None
    if found is None:  # Python's parser rejects what pydantic's accepted: never judge it unchecked
        message, line, column = syntax_error(raw)
        raise json_syntax_error(name, message, line, column)
    if found.repeated_keys:
        duplicate = find_rejected_duplicate(raw, value)
        if duplicate is not None:
            raise WireError(name, duplicate.pointer, f"duplicate field `{duplicate.key}`")
    if holds_borrowed(value) and b"\\" in raw:
        escaped = find_escaped_borrowed(raw, value)
        if escaped is not None:
            text = json.dumps(escaped.value, ensure_ascii=False)
            raise WireError(
                name,
                escaped.pointer,
                f"expected a borrowed string (serde reads this &str in place: no escape "
                f"sequences), found string {text} written with an escape",
            )
    return value


def _string_finding(details: list[ErrorDetails]) -> bool:
    """pydantic's parser rejected a string for a lone surrogate or bytes that are not UTF-8."""
    if not details or details[0]["type"] != "json_invalid":
        return False
    message = str(details[0].get("ctx", {}).get("error", details[0]["msg"]))
    return any(words in message for words in _STRING_FINDINGS)


def _from_sequence_form(
    tp: Any, validator: Any, raw: bytes, details: list[ErrorDetails]
) -> Any | None:
    """The value when ``raw`` is valid once serde's sequence forms are objects; else None.

    Tried only where an array stands in the way (some error's input is a list), and no error
    lies beyond repair: any other invalid document is judged without walking it in Python.
    ``validator`` judges the result (the one that judged ``raw``: an invalid result costs no more
    than ``raw`` did).
    """
    if not any(type(detail["input"]) is list for detail in details):
        return None
    try:
        document = json.loads(raw)
        if any(_beyond_repair(document, detail) for detail in details):
            return None
        converted = objects_from_sequences(tp, document)
        if converted == document:
            return None
        text = json.dumps(converted, ensure_ascii=False, allow_nan=False)
        return validator.validate_json(text, strict=True, by_alias=True, by_name=False)
    except (ValueError, RecursionError):  # an array that fits no struct, or still invalid
        return None


def _beyond_repair(document: Any, detail: ErrorDetails) -> bool:
    """Whether no sequence form can mend this error: it lies on a path of objects only, in no
    union's branch, and is a key missing there or a scalar of the wrong kind. Reading arrays as
    objects changes neither (a document of 7,000 sequence forms and no ``turn_id`` is invalid
    without reading one of them)."""
    node = document
    location = detail["loc"]
    for position, segment in enumerate(location):
        if not isinstance(node, dict):
            return False
        if segment not in node:
            # a key missing here, or else a union's branch: the value may fit another branch
            return detail["type"] == "missing" and position == len(location) - 1
        node = node[segment]
    return not isinstance(node, list | dict)


def _serialization_problem(error: PydanticSerializationError) -> str:
    """pydantic's complaint, shortened to the value it could not write."""
    lines = [line.strip() for line in str(error).splitlines()]
    detail = refused_value(lines[-1]) or next(
        (line for line in lines if "field_name=" in line), lines[-1]
    )
    return f"cannot be written as phi-core writes it: {detail[:300]}"


def dumps(obj: Writable, pretty: bool = False) -> str:
    """The text phi-core writes for ``obj``: compact like ``serde_json::to_string``, or with
    ``pretty=True`` like ``to_writer_pretty`` (what ``save_session`` writes; no trailing newline).

    Raises ``WireError`` instead of writing a value of the wrong type (one put in a model's list
    in place, or through ``model_construct``, which validates nothing); a ``KeyboardInterrupt``,
    ``SystemExit`` or ``MemoryError`` raised while writing leaves as itself (``_interrupts``).
    """
    indent = 2 if pretty else None
    try:
        write = writer(type(obj))  # a model's (None for other values)
        if write is not None:
            dumped = written_json(write, obj, indent)
        elif isinstance(obj, BaseModel):  # a schema ``_write`` cannot sort natively
            return serialized(BaseModel.model_dump_json, obj, indent=indent, warnings="error")
        else:
            dumped = serialized(
                adapter(cast(Any, type(obj))).dump_json, obj, indent=indent, warnings="error"
            )
    except PydanticSerializationError as error:
        raise WireError(type_name(type(obj)), "", _serialization_problem(error)) from None
    return dumped.decode()  # UTF-8, without naming it: no codec name to look up


__all__ = ["WireError", "Writable", "adapter", "dumps", "json_syntax_error", "loads"]


read_json_with(loads)  # WireModel.model_validate_json is loads
