"""Issue 19, "what done means": a round trip restores every leaf no loss names.

Every message and history of the phi-core (0.8, 0.10), clark-agent and Operator-Use corpora is
converted to each other format and back (``convert_stream``, as ``phi-wire convert`` converts a
file); every leaf of the source (a string, number, boolean, null, empty array or object) must be
back where it was, as it was (its JSON type too), unless a loss of the first step names it: its
pointer, or a parent's. A loss of a conversion's second step (through phi-core) points into
phi-core's form, not the source's: it names the source's key by its name (``toolName`` names
``tool_name``), or the whole document when its pointer is empty and its kind says the document
was dropped or changed. A failure names the fixture, the line and the pointer: that format's
converter (``phi_wire.formats.<format>``) must carry the piece back or say it is lost.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from corpus import Fixture, manifest

from phi_wire.convert import Document, Loss, Lost, convert_stream
from phi_wire.pointer import escape

FORMATS = ("phi-core", "clark-agent", "operator-use", "pi")
CORPORA = (
    ("phi-core", "0.8.0"),
    ("phi-core", "0.10.0"),
    ("clark-agent", "0.4.0"),
    ("operator-use", "d0da87a6"),
    ("operator-use", "d1cdaad8"),
    ("pi", "0.73.1"),
    ("pi", "1.5.2"),
)
MESSAGE_TYPES = {  # the corpus types that are messages (a clark-agent history: its rows)
    "phi-core": {"AgentMessage", "Message", "LlmMessage", "ExtensionMessage"},
    "clark-agent": {"AgentMessage"},
    "operator-use": {"AgentMessage"},
    "pi": {"Message", "AgentMessage", "ToolResultMessage"},
}


def _corpus() -> list[Fixture]:
    found = []
    for implementation, version in CORPORA:
        for fixture in manifest(version, implementation):
            if (
                fixture.kind.startswith("valid")
                and fixture.type_name in MESSAGE_TYPES[implementation]
                and "read_back_error" not in fixture.entry  # its own reader refuses it
            ):
                found.append(fixture)
    return found


CORPUS = _corpus()


def _lines(fixture: Fixture) -> list[str]:
    """The fixture's lines (split at line feeds only: a text may hold U+2028)."""
    return fixture.path("file").read_text(encoding="utf-8").rstrip("\n").split("\n")


def _converted(
    lines: list[str], source: str, target: str, name: str
) -> tuple[list[str], list[Lost]]:
    """The documents and losses of a conversion."""
    items = list(convert_stream(lines, source=source, target=target, name=name))
    texts = [item.text for item in items if isinstance(item, Document)]
    return texts, [item for item in items if isinstance(item, Lost)]


def _leaves(value: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _leaves(item, f"{pointer}/{escape(key)}")
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from _leaves(item, f"{pointer}/{index}")
    else:
        yield pointer, value


def _at(value: Any, pointer: str) -> Any:
    for part in pointer.split("/")[1:]:
        key = part.replace("~1", "/").replace("~0", "~")
        value = value[int(key)] if isinstance(value, list) else value[key]
    return value


def _documents_back(texts: list[str]) -> list[Any]:
    """The documents of the way back; Operator-Use messages that come back in a session file,
    its message entries' messages."""
    documents = [json.loads(line) for text in texts for line in text.split("\n") if line.strip()]
    if documents and isinstance(documents[0], dict) and documents[0].get("type") == "session":
        return [entry["message"] for entry in documents if entry.get("type") == "message"]
    return documents


def _named_by(pointer: str, losses: list[Loss]) -> bool:
    return any(pointer == loss.pointer or pointer.startswith(loss.pointer + "/") for loss in losses)


RENAMED = {"thinkingsignature": "signature"}
"""Keys a format names otherwise than phi-core does (pi's ``thinkingSignature``)."""


def _key(pointer: str) -> str:
    """A pointer's last key, spelt alike in every format (``tool_name``, ``toolName``)."""
    key = pointer.rsplit("/", 1)[-1].replace("_", "").lower()
    return RENAMED.get(key, key)


def _named_by_the_hub_step(pointer: str, losses: list[Loss]) -> bool:
    """A loss of a conversion's second step (through phi-core) points into phi-core's form of
    the document, not the source's: it names the source's key by its name."""
    if any(loss.pointer == "" and loss.kind != "invented" for loss in losses):
        return True  # the whole document dropped or changed
    keys = {_key(loss.pointer) for loss in losses}
    return any(_key(part) in keys for part in pointer.split("/")[1:])


MESSAGES = [
    (fixture, target)
    for fixture in CORPUS
    for target in FORMATS
    if target != fixture.implementation
]


def _ids(fixture: Fixture, target: str) -> str:
    return f"{fixture.implementation}/{fixture.id}->{target}"


def test_the_corpus_holds_messages_of_every_format() -> None:
    assert {fixture.implementation for fixture in CORPUS} == set(FORMATS)
    assert len(MESSAGES) > 200


CLARK_SYSTEM_TIME_BEYOND_A_DOUBLE = pytest.mark.xfail(
    strict=True,
    reason="pi's numbers are doubles: a clark system message's u64::MAX timestamp comes back "
    "as 2**64 (a changed loss at the phi-core form's data/timestamp), which clark-agent's "
    "converter no longer takes for a system message's: it writes a custom one, role and all",
)


def _marked(fixture: Fixture, target: str) -> Any:
    if (
        fixture.implementation == "clark-agent"
        and target == "pi"
        and "system.timestamp_u64" in (fixture.id)
    ):
        return pytest.param(fixture, target, marks=CLARK_SYSTEM_TIME_BEYOND_A_DOUBLE)
    return pytest.param(fixture, target)


@pytest.mark.parametrize(
    ("fixture", "target"),
    [_marked(f, t) for f, t in MESSAGES],
    ids=[_ids(f, t) for f, t in MESSAGES],
)
def test_a_round_trip_restores_every_leaf_no_loss_names(fixture: Fixture, target: str) -> None:
    """source -> target -> source gives every leaf of the source back, as it was (its JSON
    type too), unless a loss of the first step names it."""
    source = fixture.implementation
    texts, losses = _converted(_lines(fixture), source, target, "there")
    back, _ = _converted(texts, target, source, "back")
    originals = [json.loads(line) for line in _lines(fixture)]
    returned = _documents_back(back)
    trip = f"{source} -> {target} -> {source}"
    assert len(returned) == len(originals), (
        f"{len(originals)} documents, {len(returned)} after {trip}"
    )
    hub_step = [lost.loss for lost in losses if not re.search(r":\d+$", lost.where)]
    for line, (original, again) in enumerate(zip(originals, returned, strict=True), start=1):
        first_step = [lost.loss for lost in losses if lost.where.endswith(f":{line}")]
        for pointer, leaf in _leaves(original):
            if _named_by(pointer, first_step) or _named_by_the_hub_step(pointer, hub_step):
                continue
            try:
                value = _at(again, pointer)
            except (KeyError, IndexError, ValueError, TypeError):
                pytest.fail(f"line {line} {pointer} ({leaf!r}) is gone after {trip}")
            assert (type(value), value) == (type(leaf), leaf), (
                f"line {line} {pointer} was {leaf!r}, is {value!r} after {trip}"
            )
