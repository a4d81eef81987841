"""Where in a JSON text a JSON pointer starts: the line number ``phi-wire validate`` prints.

Only used for invalid documents, so it favours simplicity over speed: one pass over the tokens
with an explicit stack (no recursion, so deep nesting is safe), stopping at the target value.
"""

from __future__ import annotations

import re

from phi_wire.pointer import tokens

__all__ = ["line_of", "offset_of"]

_TOKEN = re.compile(
    r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|\S'
)


def _unescape(token: str) -> str:
    import json

    try:
        value = json.loads(token)
    except ValueError:
        return token
    return value if isinstance(value, str) else token


def offset_of(text: str, pointer: str) -> int:
    """Character offset where the value at ``pointer`` starts (or its nearest existing parent)."""
    target = tokens(pointer)
    path: list[str] = []
    # Stack of containers: [kind, current key or index, expecting-key flag]
    stack: list[list[object]] = []
    best = 0
    pending_key: str | None = None
    for match in _TOKEN.finditer(text):
        token = match.group()
        start = match.start()
        if token in {",", ":"}:
            if token == "," and stack and stack[-1][0] == "[":
                stack[-1][1] = int(str(stack[-1][1])) + 1
            continue
        if token in {"}", "]"}:
            if stack:
                stack.pop()
                if path:
                    path.pop()
            continue
        container = stack[-1] if stack else None
        if container is not None and container[0] == "{" and container[2]:
            pending_key = _unescape(token)
            container[2] = False
            continue
        # A value starts here: its path is the container's path plus key/index.
        if container is not None:
            step = pending_key if container[0] == "{" else str(container[1])
            value_path = [*path, str(step)]
            if container[0] == "{":
                container[2] = True  # the next string is a key again
        else:
            value_path = []
        if value_path == target[: len(value_path)]:
            best = start
            if value_path == target:
                return start
        if token in {"{", "["}:
            path = value_path
            stack.append([token, 0, token == "{"])
        # scalars end here; the path stays the container's
    return best


def line_of(text: str, pointer: str) -> int:
    """1-based line where the value at ``pointer`` starts."""
    return text.count("\n", 0, offset_of(text, pointer)) + 1
