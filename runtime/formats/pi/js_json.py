"""How pi reads and writes JSON text: ``JSON.parse`` and ``JSON.stringify`` (no replacer, no
indent), in Python.

* Reading keeps what ``JSON.parse`` keeps and a strict JSON parser may refuse: lone surrogates
  (``"\\ud800"`` is a one-character string), a repeated key (its first position, its last value:
  Python's ``dict`` does the same); every number is a double (``js_number``). What it refuses,
  this refuses: ``NaN``, ``Infinity``, a control character in a string, and (unlike JavaScript) a
  number too large for a double, which ``JSON.parse`` reads as ``Infinity`` and pi would write as
  ``null``.
* Writing is ``JSON.stringify``: compact, raw UTF-8, ``"`` and ``\\`` escaped, ``\\b \\t \\n
  \\f \\r``, other control characters as lowercase ``\\u00xx``, a lone surrogate as lowercase
  ``\\udxxx`` (DEL, U+2028/2029, the BOM, ``/`` and non-BMP characters raw), numbers as
  ``Number.prototype.toString``; an object's keys in JavaScript's order: array-index keys
  (``"0"``, ``"17"``) first in numeric order, then the others in creation order (a pi model's:
  ``JsModel.key_order``).
"""

from __future__ import annotations

import json
import re
from enum import Enum
from typing import Any

from phi_wire.pointer import escape

from .base import JsModel, js_key_order
from .js_number import SAFE_INTEGER, js_double, js_integer, number_text

__all__ = ["JsonTextError", "parse", "stringify"]


class JsonTextError(ValueError):
    """Text ``JSON.parse`` refuses (or a number it would read as ``Infinity``), or a value
    ``JSON.stringify`` cannot write as pi would; ``line``/``column`` (1-based) where known,
    ``pointer`` for a value."""

    def __init__(
        self, message: str, line: int | None = None, column: int | None = None, pointer: str = ""
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.pointer = pointer


class _TooLarge(ValueError):
    pass


def _double(text: str) -> int | float:
    value = js_double(text)
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        raise _TooLarge(text)
    return value


def _integer(text: str) -> int | float:
    value = js_integer(text)
    if isinstance(value, float):  # only infinity: a finite double past 2^53 is an int
        raise _TooLarge(text)
    return value


class _Constant(ValueError):
    pass


def _constant(name: str) -> Any:
    raise _Constant(name)


def parse(text: str) -> Any:
    """``JSON.parse(text)`` in Python; ``JsonTextError`` for what it refuses."""
    try:
        return json.loads(text, parse_float=_double, parse_int=_integer, parse_constant=_constant)
    except json.JSONDecodeError as error:
        raise JsonTextError(error.msg, error.lineno, error.colno) from None
    except _Constant as error:
        raise JsonTextError(f"{error} is not JSON (JSON.parse refuses it)") from None
    except _TooLarge as error:
        shown = str(error) if len(str(error)) <= 40 else str(error)[:37] + "..."
        raise JsonTextError(
            f"the number {shown} is too large for a double (JSON.parse reads Infinity, which "
            "pi would write as null)"
        ) from None
    except RecursionError:
        raise JsonTextError("nested too deeply to read") from None


# --- writing -------------------------------------------------------------------------------------

_ESCAPED = re.compile('[\x00-\x1f"\\\\\ud800-\udfff]')
_SURROGATES = re.compile("[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")


def _surrogate(match: re.Match[str]) -> str:
    found = match[0]
    if len(found) == 2:  # a pair that Python holds as two code points: one character to JS
        return chr(0x10000 + ((ord(found[0]) - 0xD800) << 10) + (ord(found[1]) - 0xDC00))
    return f"\\u{ord(found):04x}"


def _string(text: str) -> str:
    if _ESCAPED.search(text) is None:
        return f'"{text}"'
    # Python's encoder escapes exactly what JSON.stringify does below U+0020, in lowercase
    written = json.dumps(text, ensure_ascii=False)
    return _SURROGATES.sub(_surrogate, written)


def stringify(value: Any) -> str:
    """``JSON.stringify(value)``: pi models, their enums and plain JSON values (dict with ``str``
    keys, list, str, int, float, bool, None); ``JsonTextError`` (with the value's pointer) for
    anything else."""
    pieces: list[str] = []
    try:
        _write(value, pieces, "")
    except RecursionError:
        raise JsonTextError("nested too deeply to write") from None
    return "".join(pieces)


def _write(value: Any, out: list[str], pointer: str) -> None:
    if isinstance(value, str):  # a JsEnum member too
        out.append(_string(value.value if isinstance(value, Enum) else value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        if -SAFE_INTEGER <= value <= SAFE_INTEGER:
            out.append(str(value))
        else:
            try:
                out.append(number_text(float(value)))
            except OverflowError:
                out.append("null")  # Number(value) is Infinity
    elif isinstance(value, float):
        out.append(number_text(value))
    elif isinstance(value, JsModel):
        _object(value.wire_items(), out, pointer)
    elif isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise JsonTextError(f"an object key is not a string: {key!r}", pointer=pointer)
        _object([(key, value[key]) for key in js_key_order(value)], out, pointer)
    elif isinstance(value, list):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out, f"{pointer}/{index}")
        out.append("]")
    else:
        raise JsonTextError(
            f"{type(value).__name__} is not a JSON value pi writes", pointer=pointer or ""
        )


def _object(items: list[tuple[str, Any]], out: list[str], pointer: str) -> None:
    out.append("{")
    for index, (key, item) in enumerate(items):
        if index:
            out.append(",")
        out.append(_string(key))
        out.append(":")
        _write(item, out, f"{pointer}/{escape(key)}")
    out.append("}")
