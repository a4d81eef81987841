"""Where in a JSON text the values that JSON pointers name start: the line numbers of the problems
in a pretty document.

All the pointers of one document are located in a single pass over its tokens (explicit stack, no
recursion, so deep nesting is safe), which skips the subtrees no pointer goes into and stops as
soon as every pointer is found; the lines are then counted once, in order. So the work is linear
in the text, however many problems the document has. A pointer to a value that is not there (a
missing field) gets the line of its nearest existing parent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from phi_wire.pointer import tokens

__all__ = ["line_of", "lines_of", "offsets_of"]

_TOKEN = re.compile(
    r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|\S'
)
_SKIP = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]')
"""Inside a subtree no pointer goes into only nesting matters (strings: for the brackets in
them)."""


def _key(token: str) -> str:
    if "\\" not in token:
        return token[1:-1] if token.startswith('"') else token
    import json

    try:
        value = json.loads(token)
    except ValueError:
        return token
    return value if isinstance(value, str) else token


def offsets_of(text: str, pointers: Sequence[str]) -> list[int]:
    """The character offset where the value at each pointer starts (or its nearest existing
    parent), in one pass over ``text``."""
    targets = [tuple(tokens(pointer)) for pointer in pointers]
    best = [0] * len(targets)
    # each prefix of a target: the targets it leads to
    prefixes: dict[tuple[str, ...], list[int]] = {}
    for index, target in enumerate(targets):
        for depth in range(len(target) + 1):
            prefixes.setdefault(target[:depth], []).append(index)
    remaining = set(targets)  # not found exactly yet
    path: tuple[str, ...] = ()
    # one frame per open container: [is object, next index, expecting a key, key]
    stack: list[list[object]] = []
    position = 0
    size = len(text)
    while position < size and remaining:
        match = _TOKEN.search(text, position)
        if match is None:
            break
        token = match.group()
        start = match.start()
        position = match.end()
        if token == ",":
            if stack and not stack[-1][0]:
                stack[-1][1] = int(str(stack[-1][1])) + 1
            continue
        if token == ":":
            continue
        if token in {"}", "]"}:
            if stack:
                stack.pop()
                path = path[:-1]
            continue
        frame = stack[-1] if stack else None
        if frame is not None and frame[0] and frame[2]:
            frame[3] = _key(token)
            frame[2] = False
            continue
        if frame is None:
            value_path: tuple[str, ...] = ()
        elif frame[0]:
            value_path = (*path, str(frame[3]))
            frame[2] = True  # the next string is a key again
        else:
            value_path = (*path, str(frame[1]))
        leads = prefixes.get(value_path)
        if leads is not None:
            for index in leads:
                best[index] = start
            remaining.discard(value_path)
        if token in {"{", "["}:
            if leads is None and stack:
                position = _skip(text, position)  # no pointer goes in: jump to its end
                continue
            path = value_path
            stack.append([token == "{", 0, token == "{", ""])
    return best


def _skip(text: str, position: int) -> int:
    """The offset just past the container whose opening bracket ends at ``position``."""
    depth = 1
    for match in _SKIP.finditer(text, position):
        bracket = match.group()
        if bracket in {"{", "["}:
            depth += 1
        elif bracket in {"}", "]"}:
            depth -= 1
            if depth == 0:
                return match.end()
    return len(text)


def lines_of(text: str, pointers: Sequence[str]) -> list[int]:
    """The 1-based line where the value at each pointer starts: linear in ``text``."""
    offsets = offsets_of(text, pointers)
    lines = [0] * len(offsets)
    line, counted = 1, 0
    for index in sorted(range(len(offsets)), key=offsets.__getitem__):
        line += text.count("\n", counted, offsets[index])
        counted = offsets[index]
        lines[index] = line
    return lines


def line_of(text: str, pointer: str) -> int:
    """1-based line where the value at ``pointer`` starts."""
    return lines_of(text, [pointer])[0]
