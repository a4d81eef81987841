"""Issue 19, "what done means": every message, session and stream fixture of every corpus
(phi-core 0.10, clark-agent 0.4, Operator-Use d0da87a6 and d1cdaad8) converted to every other
format as ``phi-wire convert`` converts it (``convert_file``): the target's own ``loads`` accepts
each output document, no loss names what a conversion must always keep, an event stream to
Operator-Use is refused in one line; and an unknown key inserted anywhere in a document is never
lost silently (a property test)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from corpus import fixtures_root
from hypothesis import given, settings
from hypothesis import strategies as st

import phi_wire.clark_agent as clark
import phi_wire.operator_use as ou
import phi_wire.operator_use_d1cdaad8 as ou_d1
import phi_wire.pi as pi
import phi_wire.v0_10 as phi
from phi_wire.convert import ConvertError, Document, Lost, convert_file, convert_stream
from phi_wire.formats.pi.convert import LONE_SURROGATE
from phi_wire.recognise import type_in

ROOT = fixtures_root()
FORMATS = ("phi-core", "clark-agent", "operator-use", "pi")
MODULES: dict[tuple[str, str], Any] = {
    ("pi", "1.5"): pi,
    ("phi-core", "0.10"): phi,
    ("clark-agent", "0.4"): clark,
    ("operator-use", "d0da87a6"): ou,
    ("operator-use", "d1cdaad8"): ou_d1,
}


def _inputs() -> list[tuple[str, Path]]:
    """(format, file) of every message, session and stream fixture."""
    found: list[tuple[str, Path]] = []
    globs = {
        "phi-core": ["0.10.0/valid/AgentMessage/*", "0.10.0/sessions/*", "0.10.0/streams/*"],
        "clark-agent": ["0.4.0/valid/AgentMessage/*", "0.4.0/history/*", "0.4.0/streams/*"],
        "operator-use": [
            "d0da87a6/valid/AgentMessage/*",
            "d0da87a6/sessions/*",
            "d1cdaad8/valid/AgentMessage/*",
            "d1cdaad8/sessions/*",
        ],
        "pi": [
            f"{release}/valid/{kind}/*"
            for release in ("0.73.1", "1.5.2")
            for kind in ("Message", "AgentMessage", "ToolResultMessage")
        ]
        + ["0.73.1/sessions/*", "1.5.2/sessions/*", "0.73.1/contexts/*", "1.5.2/contexts/*"],
    }
    for format, patterns in globs.items():
        for pattern in patterns:
            found += [(format, path) for path in sorted((ROOT / format).glob(pattern))]
    # a pi context of no message (its leaf null) converts to nothing: nothing to check
    return [
        (format, path)
        for format, path in found
        if not path.name.endswith(".session-context.json")
        or json.loads(path.read_text(encoding="utf-8"))["messages"]
    ]


INPUTS = _inputs()
CASES = [
    (format, path, target) for format, path in INPUTS for target in FORMATS if target != format
]

ALWAYS_KEPT = re.compile(
    r"/(role|text|thinking|arguments|args|toolCallId|tool_call_id)$"
    r"|/contents?/\d+/(id|name)$"
)
"""What no loss may name: a role, a text, a thinking text, a tool call's id, name or arguments,
a tool result's call id. (One exception, ``LONE_SURROGATE``: a JavaScript string holding a lone
surrogate, which pi writes and phi-core's UTF-8 strings cannot hold: pi's corpus has such texts.)"""


def _read_back(document: Document) -> None:
    """The target's own ``loads`` accepts the document."""
    module = MODULES[(document.format, document.version)]
    if document.format == "operator-use" and document.text.startswith('{"type":"session"'):
        assert not module.loads(module.SessionFile, document.text).skipped
        return
    if document.format == "pi" and document.text.startswith('{"type":"session"'):
        assert not module.loads(module.Session, document.text).skipped
        return
    parsed = json.loads(document.text)
    module.loads(getattr(module, type_in(document.format, parsed)), document.text)


def test_the_corpus_inputs_are_found() -> None:
    assert len({format for format, _ in INPUTS}) == 4 and len(INPUTS) > 30


@pytest.mark.parametrize(
    ("format", "path", "target"),
    CASES,
    ids=[f"{path.parent.name}/{path.name}->{target}" for _, path, target in CASES],
)
def test_every_fixture_converts_to_what_the_target_reads(
    format: str, path: Path, target: str
) -> None:
    try:
        items = list(convert_file(path, source=format, target=target))
    except ConvertError as error:
        # Operator-Use records no events, phi-core's events do not go to pi's: the refusals a
        # corpus file may meet
        refusal = {"operator-use": "has no event stream", "pi": "events are not converted to pi"}
        assert refusal.get(target, "no refusal") in str(error), error
        return
    documents = [item for item in items if isinstance(item, Document)]
    assert documents
    for document in documents:
        _read_back(document)
    bad = [
        item.loss
        for item in items
        if isinstance(item, Lost)
        and item.loss.kind != "invented"
        and ALWAYS_KEPT.search(item.loss.pointer)
        and not item.loss.reason.startswith(LONE_SURROGATE)
    ]
    assert not bad, bad


# --- an unknown key anywhere: a dropped loss, or carried --------------------------------------

SAMPLES = [
    (format, path)
    for format, path in INPUTS
    if path.parent.name in ("AgentMessage", "Message", "ToolResultMessage")
    and "d1cdaad8" not in str(path)
]


def _objects(value: Any, path: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """The path of every object in a JSON value."""
    found: list[tuple[str | int, ...]] = []
    if isinstance(value, dict):
        found.append(path)
        for key, item in value.items():
            found += _objects(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _objects(item, (*path, index))
    return found


@settings(max_examples=150, deadline=None)
@given(
    sample=st.sampled_from(SAMPLES),
    target=st.sampled_from(FORMATS),
    choice=st.integers(min_value=0),
    position=st.integers(min_value=0),
    name=st.text(alphabet="abcdefghijklmnopqrstuvwxyz_~/", min_size=1, max_size=8),
)
def test_an_unknown_key_anywhere_is_never_lost_silently(
    sample: tuple[str, Path], target: str, choice: int, position: int, name: str
) -> None:
    format, path = sample
    document = json.loads(path.read_text(encoding="utf-8"))
    objects = _objects(document)
    where = objects[choice % len(objects)]
    holder: Any = document
    for step in where:
        holder = holder[step]
    key = f"zz{name}unknown"
    if key in holder:
        return
    items = list(holder.items())
    items.insert(position % (len(items) + 1), (key, "zzvalue"))
    holder.clear()
    holder.update(items)
    pointer = "".join("/" + str(step).replace("~", "~0").replace("/", "~1") for step in where)
    pointer += "/" + key.replace("~", "~0").replace("/", "~1")
    try:
        converted = list(
            convert_stream([json.dumps(document)], source=format, target=target, name="x")
        )
    except ConvertError:
        return  # refused with a one-line error: not silent
    dropped = [  # at its pointer, or the value holding it dropped whole
        item.loss
        for item in converted
        if isinstance(item, Lost)
        and item.loss.kind == "dropped"
        and (pointer + "/").startswith(item.loss.pointer + "/")
    ]
    carried = any(
        isinstance(item, Document) and json.dumps(key)[1:-1] in item.text for item in converted
    )
    assert dropped or carried, (pointer, converted)
