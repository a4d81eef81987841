"""``loads`` and ``dumps`` for pi: read as pi reads (``JSON.parse``, which takes any JSON),
judged by what pi's TypeScript types say (the schemas: pi validates nothing, so they are the first
statement of what it writes), and written as pi writes (``JSON.stringify``), byte for byte.

* ``loads(T, text)``: ``JSON.parse``'s view of the text (``js_json``: key order, repeated keys,
  lone surrogates, doubles), validated as ``T``'s models (no coercion; unknown keys refused where
  pi's type is closed); every problem a ``Problem`` at its JSON pointer in one ``WireError``. Each
  object read remembers its key order, so that ``dumps`` writes the text back unchanged.
* A whole JSONL document (a type whose schema says ``x-jsonl``) is a ``JsonLines``: a session file
  (``Session``, ``LegacySession``) read as ``SessionManager.open()`` reads it (``session_open``:
  blank and non-JSON lines skipped but kept, the header first); read as ``Session``, a v1 or v2
  file is migrated as pi migrates it and written as pi rewrites it. The CLI's outputs
  (``JsonModeOutput``, ``RpcOutput``) are one JSON value per line, every line judged.
* ``dumps(value)``: ``JSON.stringify(value)``; a ``JsonLines`` as its file.

A problem in a line of a JSONL document names the line (``WireError.line``, and ``line N:`` in the
message); its pointer is inside that line's value.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from phi_wire.errors import Problem, WireError
from phi_wire.pointer import escape
from phi_wire.primitives import adapter, jsonl_item_type, type_name
from phi_wire.serde import from_python_validation_error

from .base import JsModel, read_json_with, wire_keys
from .js_json import JsonTextError, parse, stringify
from .lines import JsonLines
from .session_open import NotASession, load, migrate

__all__ = ["dumps", "jsonl_item_type", "loads"]

Text = str | bytes | bytearray | memoryview

SESSION_LINES = {"FileEntry": True, "LegacyFileEntry": False}
"""The line types of session files, and whether reading one migrates it (``Session``: as
``SessionManager.open()`` does; ``LegacySession``: the file as it is)."""


def _text(data: Text, name: str) -> str:
    if isinstance(data, str):
        return data
    raw = bytes(data)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise WireError(
            name, "", f"not UTF-8 ({error.reason} at byte {error.start:,})", line=line
        ) from None


def loads(tp: Any, data: Text) -> Any:
    """Read ``data`` as the pi wire type ``tp``: ``WireError`` (a ``ValueError``) naming the type,
    each problem's JSON pointer (and line) when it is not what pi's types say."""
    name = type_name(tp)
    text = _text(data, name)
    item = jsonl_item_type(tp)
    if item is None:
        return _validated(tp, name, _parsed(text, name))
    if type_name(item) in SESSION_LINES:
        return _session(item, name, text, migrates=SESSION_LINES[type_name(item)])
    return _lines(item, name, text)


def _parsed(text: str, name: str, line: int | None = None) -> Any:
    try:
        return parse(text)
    except JsonTextError as error:
        where = f" at line {error.line} column {error.column}" if error.line is not None else ""
        if line is not None:
            raise WireError(
                name, "", f"line {line}: invalid JSON: {error.message}{where}", line=line
            ) from None
        raise WireError(
            name, "", f"invalid JSON: {error.message}{where}", line=error.line, column=error.column
        ) from None


def _validated(tp: Any, name: str, document: Any) -> Any:
    """``document`` as ``tp``'s value, remembering every object's key order."""
    try:
        value = adapter(tp).validate_python(document)
    except ValidationError as error:
        raise _pi_words(from_python_validation_error(name, error, document)) from None
    nulls: list[Problem] = []
    remember_order(value, document, nulls)
    if nulls:
        raise WireError(name, nulls[0].pointer, nulls[0].message, problems=nulls)
    return value


NULL_REFUSED = "null where pi's type has none (pi leaves an undefined key out, never writes null)"
"""An optional key read as null where pi's type does not allow null: absent is not null."""


def _pi_words(error: WireError) -> WireError:
    """phi-wire's serde wording, said of pi: an unknown key is not one of pi's type."""
    problems = [
        problem._replace(
            message=problem.message.replace(
                "exactly one variant key is allowed",
                "pi's type has no such key (pi never writes it)",
            )
        )
        for problem in error.problems
    ]
    return WireError(error.type_name, problems[0].pointer, problems[0].message, problems=problems)


def remember_order(
    value: Any, document: Any, nulls: list[Problem] | None = None, pointer: str = ""
) -> None:
    """Give every pi object in ``value`` the key order of the JSON object it was read from; list
    in ``nulls`` each optional key read as null where pi's type has no null (the model holds
    ``None`` for both, and would write the key as absent)."""
    if value is document:
        return  # JSON kept as it is (a JSON-valued field): dicts keep their order
    if isinstance(value, JsModel):
        if isinstance(document, dict):
            value.remember_order(tuple(document))
            for key in wire_keys(type(value)):
                if key.wire not in document:
                    continue
                inner = f"{pointer}/{escape(key.wire)}"
                if document[key.wire] is None and not key.nullable and nulls is not None:
                    nulls.append(Problem(inner, NULL_REFUSED))
                remember_order(getattr(value, key.attribute), document[key.wire], nulls, inner)
    elif isinstance(value, list) and isinstance(document, list):
        for index, (item, read) in enumerate(zip(value, document, strict=False)):
            remember_order(item, read, nulls, f"{pointer}/{index}")
    elif isinstance(value, dict) and isinstance(document, dict):
        for key, item in value.items():
            if key in document:
                remember_order(item, document[key], nulls, f"{pointer}/{escape(key)}")


def _line_error(name: str, line: int, error: WireError) -> list[Problem]:
    return [
        Problem(problem.pointer, f"line {line}: {problem.message}", problem.variant)
        for problem in error.problems
    ]


def _joined(name: str, problems: list[Problem], line: int) -> WireError:
    return WireError(name, problems[0].pointer, problems[0].message, problems=problems, line=line)


def _session(item: Any, name: str, text: str, *, migrates: bool) -> JsonLines[Any]:
    """A session file as ``SessionManager.open()`` reads it (migrated when ``migrates``)."""
    try:
        loaded = load(text)
    except NotASession as error:
        raise WireError(name, "", str(error), line=error.line) from None
    migrated = migrate(loaded.values) if migrates else None
    values: list[Any] = []
    problems: list[Problem] = []
    first_bad: int | None = None
    for index, (line, document) in enumerate(zip(loaded.lines, loaded.values, strict=True)):
        if index and isinstance(document, dict) and document.get("type") == "session":
            found = [Problem("/type", f"line {line}: a second session header (pi reads the first)")]
        else:
            try:
                values.append(_validated(item, type_name(item), document))
                continue
            except WireError as error:
                found = _line_error(name, line, error)
        problems += found
        first_bad = line if first_bad is None else first_bad
    if first_bad is not None:
        raise _joined(name, problems, first_bad)
    skipped = [
        WireError(
            type_name(item),
            "",
            f"line {line}: invalid JSON: {error.message.removesuffix(' at')}"
            + (f" at column {error.column}" if error.column is not None else ""),
            line=line,
        )
        for line, error in loaded.refused
    ]
    return JsonLines(
        values,
        skipped=skipped,
        unread=loaded.unread,
        migrated_from=migrated,
        endings=loaded.endings if any(loaded.endings) else (),
        around=loaded.around,
    )


def _lines(item: Any, name: str, text: str) -> JsonLines[Any]:
    """The CLI's stdout: one JSON value per line, each ``\\n``-terminated, every one judged."""
    pieces = text.split("\n")
    if pieces and pieces[-1] == "":
        pieces.pop()
    values: list[Any] = []
    problems: list[Problem] = []
    first_bad: int | None = None
    for line, piece in enumerate(pieces, start=1):
        try:
            if not piece.strip():
                raise WireError(name, "", f"line {line}: a blank line (pi writes none)", line=line)
            values.append(_validated(item, type_name(item), _parsed(piece, name, line)))
            continue
        except WireError as error:
            found = list(error.problems) if error.line == line else _line_error(name, line, error)
        problems += found
        first_bad = line if first_bad is None else first_bad
    if first_bad is not None:
        raise _joined(name, problems, first_bad)
    if not values:
        raise WireError(name, "", "no line: pi writes at least one")
    return JsonLines(values)


def dumps(value: Any) -> str:
    """The text pi writes for ``value`` (``JSON.stringify``; a ``JsonLines`` as its file); a value
    pi could not have written raises ``WireError`` at its pointer."""
    try:
        if isinstance(value, JsonLines):
            return value.text(stringify)
        return stringify(value)
    except JsonTextError as error:
        raise WireError(type(value).__name__, error.pointer, error.message) from None


read_json_with(loads)
