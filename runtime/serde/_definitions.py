"""The definitions a pydantic core schema holds, by ref: what a ``definition-ref`` in it may name.

pydantic-core fact: a model's core schema keeps each shared sub-schema once, in a ``definitions``
node (anywhere in the tree, also inside a union's ``(choice, label)`` tuples), and refers to it
by ``ref`` elsewhere; the serde's schema copies (``_write``'s sorted serializer, ``_shortcut``'s
vouched validator) resolve those refs through this table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["collect_definitions"]


def collect_definitions(node: Any, found: dict[str, Any]) -> None:
    """Every schema of ``node`` that a ``definition-ref`` may name, into ``found`` by its ref."""
    if isinstance(node, Mapping):
        if node.get("type") == "definitions":
            for item in node.get("definitions", ()):
                found[item["ref"]] = item
        for value in node.values():
            collect_definitions(value, found)
    elif isinstance(node, list | tuple):
        for item in node:
            collect_definitions(item, found)
