"""JSON Pointers (RFC 6901): how every error of phi-wire says where in a document it is.

``/message/content/0`` names a value by the keys and indexes on the way to it; ``""`` is the
whole document. A key's ``~`` is written ``~0`` and its ``/`` is written ``~1``.
"""

from __future__ import annotations

__all__ = ["escape", "extended", "join", "tokens"]


def escape(token: str | int) -> str:
    """One reference token: a key (or an array index) as it appears in a pointer."""
    if type(token) is int:
        return str(token)
    text = str(token)
    if "~" not in text and "/" not in text:  # most keys: nothing to escape, no copies
        return text
    return text.replace("~", "~0").replace("/", "~1")


def join(*path: str | int) -> str:
    """The pointer to the value reached by the keys and indexes ``path``."""
    return "".join("/" + escape(token) for token in path)


def extended(pointer: str, *path: str | int) -> str:
    """``pointer`` followed by the keys and indexes ``path`` (escaped)."""
    return pointer + join(*path)


def tokens(pointer: str) -> list[str]:
    """The keys and indexes (as text) of ``pointer``, unescaped; ``[]`` for the whole document."""
    if not pointer:
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"a JSON pointer starts with '/': {pointer!r}")
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/")]
