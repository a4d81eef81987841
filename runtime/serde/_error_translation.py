"""pydantic's ``ValidationError`` as a ``WireError``: each problem once, judged as the variant
the document most resembles, each found value named as the document wrote it.

Serde reports one error per document (and for an untagged enum only "data did not match any
variant"); pydantic reports every failing branch of every union. This module keeps the errors of
the branch that got furthest, so each problem is reported once.

A number that ``loads`` rewrote to serde's value before pydantic saw it (``_numbers``: an integer
past u64 is an f64 to serde) is named by its text in the document, with serde's reading: the
integer ``18446744073709551616``, not the float pydantic was shown.

The same translation serves models built in Python (``WireModel``): there the "document" is the
Python input and the pointer follows its keys.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from ..errors import Problem, WireError, describe_value, json_syntax_error
from ..pointer import escape
from ._numbers import describe_lexeme

__all__ = ["from_json_validation_error", "from_python_validation_error"]

_LINE_COLUMN = re.compile(r"(.*) at line (\d+) column (\d+)")


def _expected(error: ErrorDetails) -> str:
    kind = error["type"]
    message = error["msg"]
    context = error.get("ctx") or {}
    if kind == "missing":
        return f"missing field `{error['loc'][-1]}`"
    if kind == "union_tag_invalid":
        tags = context.get("expected_tags", "")
        key = str(context.get("discriminator", "")).strip("'")
        found = error["input"].get(key) if isinstance(error.get("input"), dict) else None
        if found is not None and not isinstance(found, str):  # pydantic says str() of it
            return f"invalid tag `{key}`: expected one of {tags}, found {describe_value(found)}"
        return f"unknown variant {context.get('tag')!r}, expected one of {tags}"
    if kind == "union_tag_not_found":
        return f"missing field `{context.get('discriminator', '').strip(chr(39))}`"
    if kind == "variant_key":
        return message
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
    variant: tuple[str, ...]
    is_path: tuple[bool, ...]
    path: tuple[str | int, ...] = ()
    """The keys and indices of the JSON path, unescaped."""

    @property
    def pointer(self) -> str:
        """Built only for the problems reported (an invalid document may have thousands)."""
        return "".join(
            "/" + (escape(part) if isinstance(part, str) else str(part)) for part in self.path
        )


def _has(node: Any, segment: Any) -> bool:
    """Whether a location segment is a key of the object or an index of the array ``node``."""
    if isinstance(node, dict):
        return isinstance(segment, str) and segment in node
    return isinstance(node, list) and isinstance(segment, int) and 0 <= segment < len(node)


class _Walked(NamedTuple):
    """How far a location prefix goes into the document."""

    node: Any
    path: tuple[str | int, ...]
    variant: tuple[str, ...]
    is_path: tuple[bool, ...]


def _names_branch(node: Any, segment: Any, rest: tuple[Any, ...]) -> bool:
    """Whether ``segment``, a key of ``node``, is rather the union branch taken there: a tag
    value that is also a key (pi's ``{"type": "label", "label": ...}``), unless the location
    goes on into ``node[segment]``."""
    if not isinstance(node, dict) or (rest and _has(node[segment], rest[0])):
        return False
    return any(key != segment and value == segment for key, value in node.items())


class _Locator:
    """Splits pydantic locations into the JSON path and the union branches taken on the way,
    walking each location prefix once (the errors of one object share theirs: an invalid document
    may have thousands)."""

    def __init__(self, document: Any) -> None:
        self._walked: dict[tuple[Any, ...], _Walked] = {(): _Walked(document, (), (), ())}

    def _walk(self, location: tuple[Any, ...], beyond: tuple[Any, ...] = ()) -> _Walked:
        known = len(location)
        while location[:known] not in self._walked:
            known -= 1
        walked = self._walked[location[:known]]
        for end in range(known + 1, len(location) + 1):
            node, path, variant, is_path = walked
            segment = location[end - 1]
            just_taken = bool(is_path) and not is_path[-1] and variant[-1] == str(segment)
            if _has(node, segment) and (
                just_taken or not _names_branch(node, segment, location[end:] + beyond)
            ):
                walked = _Walked(node[segment], (*path, segment), variant, (*is_path, True))
            else:
                walked = _Walked(node, path, (*variant, str(segment)), (*is_path, False))
            self._walked[location[:end]] = walked
        return walked

    def locate(self, error: ErrorDetails) -> _Located:
        location = tuple(error["loc"])
        if error["type"] == "missing" and location:
            walked = self._walk(location[:-1], location[-1:])
            if isinstance(walked.node, dict):  # the key is absent: point at the object lacking it
                return _Located(error, walked.variant, (*walked.is_path, True), walked.path)
        walked = self._walk(location)
        return _Located(error, walked.variant, walked.is_path, walked.path)


def _depth(item: _Located, start: int) -> int:
    return sum(item.is_path[start:])


def _select(items: list[_Located], start: int) -> list[_Located]:
    """Keep every error under a real path; of a union's failing branches keep the one that got
    furthest into the document (then the one with fewest errors)."""
    if len(items) == 1:  # what the rules of _select_among come to for one error (the usual case)
        return items
    return _select_among(items, start)


def _select_among(items: list[_Located], start: int) -> list[_Located]:
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
    keyed = {name: group for name, group in branches.items() if _only_variant_keys(group, start)}
    units = [
        group[0] for name, group in branches.items() if name not in keyed and _is_unit(group, start)
    ]
    if keyed and len(branches) > 1 and len(keyed) + len(units) == len(branches):
        return [*selected, _variant_key_problem(keyed, units, start)]
    if branches:
        best = max(
            branches.values(),
            key=lambda group: (max(_depth(item, start) for item in group), -len(group)),
        )
        if len(branches) > 1 and _all_fail_alike(branches, start):
            # e.g. a string where every variant wants an object: naming one variant would mislead
            best = [replace(item, variant=item.variant[:-1]) for item in best]
        elif len(branches) > 1 and _all_fail_on_shape(branches, start):
            # an untagged union whose every lane wants another JSON type (clark-agent's
            # UserContent: a string or an array): say all of them, as serde's "did not match any
            # variant of untagged enum" does
            return [*selected, _no_lane_fits(branches)]
        selected += _select(best, start + 1)
    return selected


def _all_fail_alike(branches: dict[Any, list[_Located]], start: int) -> bool:
    kinds = {item.error["type"] for group in branches.values() for item in group}
    return len(kinds) == 1 and all(
        _depth(item, start) == 0 for group in branches.values() for item in group
    )


def _all_fail_on_shape(branches: dict[Any, list[_Located]], start: int) -> bool:
    """Every branch rejected the value itself (one error each, no step into it) for its type."""
    return all(
        len(group) == 1
        and _depth(group[0], start) == 0
        and len(group[0].error["loc"]) == start + 1
        and group[0].error["type"] in _SHAPE_ERRORS
        for group in branches.values()
    )


_SHAPE_ERRORS = {
    "string_type",
    "list_type",
    "dict_type",
    "model_type",
    "int_type",
    "float_type",
    "bool_type",
    "none_required",
}


def _no_lane_fits(branches: dict[Any, list[_Located]]) -> _Located:
    items = [group[0] for group in branches.values()]
    wanted = [_expected(item.error).removeprefix("expected ") for item in items]
    message = "data did not match any variant of the untagged union: expected " + " or ".join(
        dict.fromkeys(wanted)
    )
    error = ErrorDetails(
        type="untagged_mismatch",
        loc=items[0].error["loc"][:-1],
        msg=message,
        input=items[0].error["input"],
    )
    return replace(items[0], error=error, variant=items[0].variant[:-1])


def _only_variant_keys(group: list[_Located], start: int) -> bool:
    """A branch of an externally tagged union failed only on which single key is present."""
    return all(
        item.error["type"] in {"missing", "extra_forbidden"} and len(item.error["loc"]) == start + 2
        for item in group
    )


def _is_unit(group: list[_Located], start: int) -> bool:
    """The unit variants of an externally tagged union (a string enum) rejected the value."""
    return (
        len(group) == 1
        and group[0].error["type"] == "enum"
        and len(group[0].error["loc"]) == start + 1
    )


def _variant_key_problem(
    branches: dict[Any, list[_Located]], units: list[_Located], start: int
) -> _Located:
    """One problem for an externally tagged union: the object must have exactly one variant key
    (or, where the union has unit variants, be one of their names).

    A key is a variant key when some branch misses it or some branch accepts it; the keys found
    are those some branch rejected as unknown.
    """
    missing: set[str] = set()
    extra_in: dict[str, int] = defaultdict(int)
    for group in branches.values():
        for item in group:
            key = str(item.error["loc"][-1])
            if item.error["type"] == "missing":
                missing.add(key)
            else:
                extra_in[key] += 1
    expected = sorted(missing | {key for key, count in extra_in.items() if count < len(branches)})
    found = sorted(extra_in) or ["none"]
    first = next(iter(branches.values()))[0]
    message = f"expected exactly one variant key ({', '.join(expected)}), found {', '.join(found)}"
    if units:
        names = ", ".join(str((unit.error.get("ctx") or {}).get("expected", "")) for unit in units)
        message = f"expected one of {names} or an object with {message.removeprefix('expected ')}"
    error = ErrorDetails(
        type="variant_key", loc=first.error["loc"][:start], msg=message, input=None
    )
    depth = sum(first.is_path[:start])
    return _Located(error, first.variant[:-1], first.is_path[:start], first.path[:depth])


# pydantic's names for schema wrappers, which say nothing about the wire variant.
_UNION_NOISE = re.compile(r"^[a-z][a-z-]*\[")


def _variant_label(variant: tuple[str, ...]) -> str:
    return " ".join(part for part in variant if not _UNION_NOISE.match(part))


# Error kinds whose message already says all: no ", found ..." suffix.
_NO_FOUND = {
    "missing",
    "union_tag_not_found",
    "union_tag_invalid",
    "extra_forbidden",
    "variant_key",
}


class _Lexeme(str):
    """A number as the document wrote it."""


def _lexeme_document(written: bytes) -> Any:
    """``written`` parsed with every number kept as its text (any length: nothing converts it)."""
    try:
        return json.loads(written, parse_int=_Lexeme, parse_float=_Lexeme, parse_constant=_Lexeme)
    except (ValueError, RecursionError):
        return None


def _node_at(document: Any, path: tuple[str | int, ...]) -> Any:
    node = document
    for step in path:
        if not _has(node, step):
            return None
        node = node[step]
    return node


def _problems(located: list[_Located], found: Any) -> list[Problem]:
    pointers: dict[tuple[str | int, ...], str] = {}  # the problems of one object share one

    def pointer(item: _Located) -> str:
        text = pointers.get(item.path)
        if text is None:
            text = pointers[item.path] = item.pointer
        return text

    return [
        Problem(
            pointer(item),
            _expected(item.error)
            if item.error["type"] in _NO_FOUND
            else f"{_expected(item.error)}, found {found(item)}",
            _variant_label(item.variant),
        )
        for item in located
    ]


def _wire_error(
    type_name: str, problems: list[Problem], omitted: int = 0, cut: bool = False
) -> WireError:
    return WireError(
        type_name,
        problems[0].pointer,
        problems[0].message,
        problems=problems,
        omitted=omitted,
        first_invalid_items_only=cut,
    )


NOT_PARSED: Any = object()
"""``from_json_validation_error``'s ``document`` when the caller has not parsed ``raw``."""


def from_json_validation_error(
    type_name: str,
    details: list[ErrorDetails],
    raw: bytes,
    written: bytes,
    *,
    max_problems: int | None = None,
    document: Any = NOT_PARSED,
    fail_fast: bool = False,
) -> WireError:
    """The ``WireError`` for pydantic's errors on ``raw``, the JSON that pydantic validated;
    ``written`` is the document as given (``raw`` before the serde number rewrite). With
    ``max_problems``, only that many problems are described (``WireError.omitted`` counts the
    rest). ``document``: ``raw`` as parsed already, if it was (only its keys and indices are
    read), else it is parsed here. ``fail_fast``: the validator judged each array up to its first
    invalid item (the error says so when a problem lies in an array)."""
    if details and details[0]["type"] == "json_invalid":
        message = str(details[0].get("ctx", {}).get("error", details[0]["msg"]))
        match = _LINE_COLUMN.fullmatch(message)
        if match:
            return json_syntax_error(type_name, match[1], int(match[2]), int(match[3]))
        return WireError(type_name, "", f"invalid JSON: {message}")
    if document is NOT_PARSED:
        try:
            document = json.loads(raw)
        except (ValueError, RecursionError):
            document = None
    locator = _Locator(document)
    located = _select([locator.locate(item) for item in details], 0)
    omitted = 0
    if max_problems is not None and len(located) > max(1, max_problems):
        omitted = len(located) - max(1, max_problems)
        located = located[: max(1, max_problems)]
    as_written: Any = None
    if written is not raw and any(_is_number(item.error["input"]) for item in located):
        as_written = _lexeme_document(written)

    def found(item: _Located) -> str:
        if as_written is not None and _is_number(item.error["input"]):
            lexeme = _node_at(as_written, item.path)
            if isinstance(lexeme, _Lexeme):
                described = describe_lexeme(lexeme)
                if described is not None:
                    return described
        return describe_value(item.error["input"])

    cut = fail_fast and any(isinstance(step, int) for item in located for step in item.path)
    return _wire_error(type_name, _problems(located, found), omitted, cut)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def from_python_validation_error(type_name: str, error: ValidationError, data: Any) -> WireError:
    """The ``WireError`` for pydantic's errors on Python input ``data`` (a model's fields, a
    mapping given to ``model_validate``); pointers follow the keys as given."""
    details = error.errors(include_url=False)
    locator = _Locator(data)
    located = _select([locator.locate(item) for item in details], 0)
    return _wire_error(
        type_name, _problems(located, lambda item: describe_value(item.error["input"]))
    )
