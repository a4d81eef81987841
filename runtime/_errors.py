"""``WireError``: what is wrong with a document, where (JSON pointer) and under which variant.

Serde reports one error per document (and for an untagged enum only "data did not match any
variant"); pydantic reports every failing branch of every union. This module keeps the errors of
the branch that got furthest, so each problem is reported once, judged as the variant it most
resembles (``AgentEvent MessageEnd /message/stopReason: expected one of ...``).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

__all__ = ["Problem", "WireError", "describe_value", "from_validation_error", "json_syntax_error"]


@dataclass(frozen=True)
class Problem:
    """One reason a document is invalid."""

    pointer: str
    """RFC 6901 JSON pointer to the offending value ("" is the whole document)."""
    message: str
    """What was expected and what was found."""
    variant: str = ""
    """The union variants the document was judged as, e.g. "MessageEnd assistant"."""

    def render(self, type_name: str) -> str:
        judged = " ".join(part for part in (type_name, self.variant) if part)
        return f"{judged} {self.pointer or '/'}: {self.message}"


class WireError(ValueError):
    """A document phi-core would reject. ``problems`` lists each problem once, first the main one."""

    def __init__(
        self,
        type_name: str,
        pointer: str,
        message: str,
        *,
        variant: str = "",
        problems: Sequence[Problem] = (),
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.type_name = type_name
        self.problems: tuple[Problem, ...] = tuple(problems) or (
            Problem(pointer, message, variant),
        )
        self.line = line
        self.column = column
        super().__init__(self._text())

    @property
    def pointer(self) -> str:
        return self.problems[0].pointer

    def _text(self) -> str:
        first = self.problems[0].render(self.type_name)
        more = len(self.problems) - 1
        return first + (f" (and {more} more problem{'s' * (more > 1)})" if more else "")


def describe_value(value: Any) -> str:
    """A short, JSON-flavoured description of a found value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {'true' if value else 'false'}"
    if isinstance(value, int):
        return f"integer {value}"
    if isinstance(value, float):
        return f"floating point {value!r}"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        if len(text) > 60:
            text = text[:56] + '..."'
        return f"string {text}"
    if isinstance(value, list):
        return f"an array of {len(value)}"
    if isinstance(value, dict):
        return "an object" if value else "an empty object"
    return type(value).__name__


def json_syntax_error(type_name: str, message: str, line: int, column: int) -> WireError:
    return WireError(
        type_name,
        "",
        f"invalid JSON: {message} at line {line} column {column}",
        line=line,
        column=column,
    )


_LINE_COLUMN = re.compile(r"(.*) at line (\d+) column (\d+)")


def _escape(token: str | int) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def _expected(error: ErrorDetails) -> str:
    kind = error["type"]
    message = error["msg"]
    context = error.get("ctx") or {}
    if kind == "missing":
        return f"missing field `{error['loc'][-1]}`"
    if kind == "union_tag_invalid":
        tags = context.get("expected_tags", "")
        return f"unknown variant {context.get('tag')!r}, expected one of {tags}"
    if kind == "union_tag_not_found":
        return f"missing field `{context.get('discriminator', '').strip(chr(39))}`"
    if kind == "extra_forbidden":
        return f"unknown key `{error['loc'][-1]}`: exactly one variant key is allowed"
    if kind in {"enum", "literal_error"}:
        return f"expected one of {context.get('expected', message)}"
    if kind == "greater_than_equal":
        return f"expected a value >= {context.get('ge')}"
    if kind == "less_than_equal":
        return f"expected a value <= {context.get('le')}"
    return message.replace("Input should be", "expected", 1).replace("Value error, ", "")


@dataclass
class _Located:
    error: ErrorDetails
    pointer: str
    variant: tuple[str, ...]
    is_path: tuple[bool, ...]


def _locate(document: Any, error: ErrorDetails) -> _Located:
    """Split a pydantic location into the JSON path and the union branches taken on the way."""
    node = document
    pointer: list[str] = []
    variant: list[str] = []
    is_path: list[bool] = []
    location = error["loc"]
    for position, segment in enumerate(location):
        last_missing = error["type"] == "missing" and position == len(location) - 1
        if isinstance(node, dict) and isinstance(segment, str) and (segment in node or last_missing):
            pointer.append(_escape(segment))
            node = node.get(segment)
            is_path.append(True)
        elif isinstance(node, list) and isinstance(segment, int) and 0 <= segment < len(node):
            pointer.append(str(segment))
            node = node[segment]
            is_path.append(True)
        else:
            variant.append(str(segment))
            is_path.append(False)
    return _Located(error, "".join("/" + part for part in pointer), tuple(variant), tuple(is_path))


def _depth(item: _Located, start: int) -> int:
    return sum(item.is_path[start:])


def _select(items: list[_Located], start: int) -> list[_Located]:
    """Keep every error under a real path; of a union's failing branches keep the one that got
    furthest into the document (then the one with fewest errors)."""
    finished = [item for item in items if len(item.error["loc"]) <= start]
    paths: dict[Any, list[_Located]] = defaultdict(list)
    branches: dict[Any, list[_Located]] = defaultdict(list)
    for item in items:
        if len(item.error["loc"]) > start:
            segment = item.error["loc"][start]
            (paths if item.is_path[start] else branches)[segment].append(item)
    selected = finished
    for group in paths.values():
        selected += _select(group, start + 1)
    if branches:
        best = max(
            branches.values(),
            key=lambda group: (max(_depth(item, start) for item in group), -len(group)),
        )
        selected += _select(best, start + 1)
    return selected


_UNION_NOISE = re.compile(r"^(function-\w+|tagged-union|union|json-or-python|lax-or-strict)\[")


def _variant_label(variant: tuple[str, ...]) -> str:
    return " ".join(part for part in variant if not _UNION_NOISE.match(part))


def from_validation_error(type_name: str, error: ValidationError, raw: bytes) -> WireError:
    details = error.errors(include_url=False)
    if details and details[0]["type"] == "json_invalid":
        message = str(details[0].get("ctx", {}).get("error", details[0]["msg"]))
        match = _LINE_COLUMN.fullmatch(message)
        if match:
            return json_syntax_error(type_name, match[1], int(match[2]), int(match[3]))
        return WireError(type_name, "", f"invalid JSON: {message}")
    try:
        document = json.loads(raw)
    except ValueError:
        document = None
    located = _select([_locate(document, item) for item in details], 0)
    problems = [
        Problem(
            item.pointer,
            f"{_expected(item.error)}, found {describe_value(item.error['input'])}"
            if item.error["type"] not in {"missing", "union_tag_not_found", "extra_forbidden"}
            else _expected(item.error),
            _variant_label(item.variant),
        )
        for item in located
    ]
    return WireError(type_name, problems[0].pointer, problems[0].message, problems=problems)
