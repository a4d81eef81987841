"""``loads`` and ``dumps`` for a format whose implementation is pydantic itself (Operator-Use):
read exactly as its reader reads, write exactly what its writer writes.

* reading is pydantic's ``validate_json`` in lax mode, the call Operator-Use makes: numeric
  strings, ``"yes"``/``"off"`` bools, ``NaN``/``Infinity``/``1e400`` literals, duplicate keys
  (the last wins), unknown keys (dropped) all behave as they do there, because they are the same
  code;
* writing is ``model_dump_json(exclude_none=True)``: compact, raw UTF-8, pydantic-core's float
  formatting (``1e+16``, ``3e-6``, ``-0.0``), NaN and infinities as ``null``; a session line that
  ``fork_from`` wrote (``model_dump_json()``, None as ``null``) is written that way again;
* a whole session file (a type whose schema says ``x-jsonl``) is read as ``read_session_file``
  reads it: ``str.splitlines``, blank and invalid lines skipped (and listed in ``skipped``), and
  refused when no entry is read or the first entry read is not the header (Operator-Use reads such
  a file as ``[]``).

Errors are ``WireError``s naming the JSON pointer (and, in a session file, the line).
"""

from __future__ import annotations

import json
import re
from typing import Any, cast

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticSerializationError

from phi_wire.errors import Problem, WireError, describe_value, json_syntax_error
from phi_wire.pointer import escape
from phi_wire.primitives import adapter, jsonl_item_type, type_name
from phi_wire.serde import Writable, serialized

from .base import SessionFileLines

__all__ = ["dumps", "jsonl_item_type", "loads"]

_TAG_KEYS = ("type", "role")
"""The discriminators of the format's tagged unions: pydantic puts the tag into an error's loc."""


def _raw(data: str | bytes | bytearray | memoryview, name: str) -> bytes:
    if isinstance(data, str):
        try:
            return data.encode("utf-8")
        except UnicodeEncodeError as error:
            raise WireError(
                name, "", f"the text is not valid UTF-8 ({error.reason} at offset {error.start})"
            ) from None
    return bytes(data)


def loads(tp: Any, data: str | bytes | bytearray | memoryview) -> Any:
    """Parse ``data`` as the wire type ``tp``, accepting exactly what Operator-Use accepts.

    Raises ``WireError`` (a ``ValueError``) naming the type, the JSON pointer and the problem.
    """
    name = type_name(tp)
    raw = _raw(data, name)
    item = jsonl_item_type(tp)
    if item is not None:
        return _read_session_file(item, raw, name)
    try:
        return adapter(tp).validate_json(raw)
    except ValidationError as error:
        raise _wire_error(name, error, raw) from None


def _read_session_file(item: Any, raw: bytes, name: str) -> SessionFileLines:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:  # Path.read_text raises too: not a session file
        bad_line = raw.count(b"\n", 0, error.start) + 1
        raise WireError(
            name, "", f"line {bad_line}: not UTF-8 ({error.reason})", line=bad_line
        ) from None
    validator = adapter(item)
    entries: list[Any] = []
    skipped: list[WireError] = []
    with_nulls: list[Any] = []
    first_line = 0
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = validator.validate_json(line)
        except ValidationError as error:
            skipped.append(_wire_error(type_name(item), error, line.encode(), line=number))
            continue
        if "null" in line and isinstance(entry, BaseModel) and entry.model_dump_json() == line:
            with_nulls.append(entry)  # fork_from's writer: model_dump_json() without exclude_none
        if not entries:
            first_line = number
        entries.append(entry)
    if not entries:
        reason = f"; {skipped[0]}" if skipped else ""  # names its line
        raise WireError(
            name,
            "",
            "no line is a session entry (Operator-Use reads this file as [])" + reason,
            line=skipped[0].line if skipped else None,
        )
    if getattr(entries[0], "type", None) != "session":
        raise WireError(
            name,
            "/type",
            f"line {first_line}: the first entry is a {getattr(entries[0], 'type', '?')!s} entry, "
            "not the session header (Operator-Use reads the whole file as [])",
            line=first_line,
        )
    session = SessionFileLines(entries, skipped)
    for entry in with_nulls:
        session.set_writes_nulls(entry)
    return session


def dumps(obj: Writable, *, exclude_none: bool | None = None) -> str:
    """The text Operator-Use writes for ``obj``: ``model_dump_json(exclude_none=True)``.

    A session line read from a file that ``fork_from`` wrote is written the way it was (None
    fields as ``null``); ``exclude_none`` forces one writer or the other. A ``SessionFileLines``
    is written as the file: one line per entry, each ending with ``\\n``. Raises ``WireError``
    for a value Operator-Use's writer cannot serialize either (a lone surrogate in a string); a
    ``KeyboardInterrupt``, ``SystemExit`` or ``MemoryError`` raised while writing leaves as itself.
    """
    if isinstance(obj, SessionFileLines):
        return "".join(
            dumps(
                entry,
                exclude_none=not obj.writes_nulls(entry) if exclude_none is None else exclude_none,
            )
            + "\n"
            for entry in obj
        )
    try:
        if isinstance(obj, BaseModel):
            return serialized(
                BaseModel.model_dump_json, obj, exclude_none=exclude_none is not False
            )
        dumped: bytes = serialized(
            adapter(cast(Any, type(obj))).dump_json, obj, exclude_none=exclude_none is not False
        )
        return dumped.decode("utf-8")
    except PydanticSerializationError as error:
        raise WireError(
            type(obj).__name__, _unencodable_pointer(obj), f"cannot be written: {error}"
        ) from None


def _unencodable_pointer(obj: Any) -> str:
    """Where in ``obj`` the first string that UTF-8 cannot encode is ("" when not found)."""
    value = obj.model_dump() if isinstance(obj, BaseModel) else obj
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        pointer, node = stack.pop()
        if isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                return pointer
        elif isinstance(node, dict):
            stack.extend((f"{pointer}/{escape(str(key))}", item) for key, item in node.items())
        elif isinstance(node, list | tuple):
            stack.extend((f"{pointer}/{index}", item) for index, item in enumerate(node))
        elif isinstance(node, bytes | bytearray):
            return pointer
    return ""


# --- errors -------------------------------------------------------------------------------------

_POSITION = re.compile(r"at line (\d+) column (\d+)")


def _wire_error(
    name: str, error: ValidationError, raw: bytes, *, line: int | None = None
) -> WireError:
    """A pydantic ValidationError as a WireError whose pointers walk the document itself."""
    details = error.errors(include_url=False)
    if details and details[0]["type"] == "json_invalid":
        message = str(details[0].get("ctx", {}).get("error", details[0]["msg"]))
        found = _POSITION.search(message)
        text = _POSITION.sub("", message).strip() or message
        if found is not None:
            syntax = json_syntax_error(name, text, int(found[1]), int(found[2]))
            if line is None:
                return syntax
            return WireError(name, "", f"line {line}: {syntax.problems[0].message}", line=line)
        return WireError(name, "", f"invalid JSON: {text}", line=line)
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError):
        document = None
    problems = [_problem(detail, document) for detail in details]
    # a smart union lists every member's failure: the members whose tag did not even match last
    problems.sort(key=lambda problem: problem.message.startswith("Input should be '"))
    if line is not None:
        problems = [Problem(p.pointer, f"line {line}: {p.message}", p.variant) for p in problems]
    first = problems[0]
    return WireError(name, first.pointer, first.message, problems=problems, line=line)


def _problem(detail: Any, document: Any) -> Problem:
    loc = tuple(detail["loc"])
    pointer, labels = _pointer(loc, document, missing=detail["type"] == "missing")
    found = detail.get("input")
    message = str(detail["msg"])
    if detail["type"] != "missing" and not isinstance(found, dict | list):
        message += f" (found {describe_value(found)})"
    return Problem(pointer, message, " ".join(labels))


def _pointer(loc: tuple[Any, ...], document: Any, *, missing: bool) -> tuple[str, list[str]]:
    """Walk ``loc`` through the document: keys and indexes become the pointer; union tags
    (the value of a ``type``/``role`` key) and member names become labels."""
    pointer = ""
    labels: list[str] = []
    node = document
    tag_seen = False
    for position, item in enumerate(loc):
        last = position == len(loc) - 1
        if isinstance(node, dict):
            if not tag_seen and any(node.get(key) == item for key in _TAG_KEYS):
                tag_seen = True
                labels.append(str(item))
                continue
            if item in node:
                pointer += f"/{escape(str(item))}"
                node, tag_seen = node[item], False
                continue
            if last and missing:
                pointer += f"/{escape(str(item))}"
                continue
            labels.append(str(item))
            continue
        if isinstance(node, list) and isinstance(item, int) and 0 <= item < len(node):
            pointer += f"/{item}"
            node, tag_seen = node[item], False
            continue
        if isinstance(item, str) and item[:1].isupper():  # a union member's name
            labels.append(item)
            continue
        pointer += f"/{escape(str(item))}"
    return pointer, labels
