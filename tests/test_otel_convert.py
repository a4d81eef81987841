"""Issue 23, the converters: every phi-core, clark-agent, Operator-Use and pi message, session
and stream of the corpora converts to OpenTelemetry documents that the OFFICIAL schemas (read from
the corpus, ``spec/``) and phi-wire's strict mode accept, with losses, and back to phi-core
restoring every leaf no loss names; every instrumented document converts to phi-core, each
emitter quirk strict mode finds named by a loss."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from command import run
from corpus import fixtures_root
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

import phi_wire.otel_genai as otel
import phi_wire.v0_10 as phi
from phi_wire.convert import (
    ConvertError,
    Document,
    Loss,
    Lost,
    convert,
    convert_file,
    convert_stream,
)
from phi_wire.formats.pi.convert import LONE_SURROGATE
from phi_wire.recognise import type_in

ROOT = fixtures_root()
SPEC = ROOT / "otel-genai" / "spec"
INSTRUMENTED = ROOT / "otel-genai" / "instrumented"
OFFICIAL = {
    "InputMessages": "gen-ai-input-messages.json",
    "OutputMessages": "gen-ai-output-messages.json",
    "SystemInstructions": "gen-ai-system-instructions.json",
    "ToolDefinitions": "gen-ai-tool-definitions.json",
}
GLOBS = {
    "phi-core": ["0.10.0/valid/AgentMessage/*", "0.10.0/sessions/*", "0.10.0/streams/*"],
    "clark-agent": ["0.4.0/valid/AgentMessage/*", "0.4.0/history/*", "0.4.0/streams/*"],
    "operator-use": [
        "d0da87a6/valid/AgentMessage/*",
        "d0da87a6/sessions/*",
        "d1cdaad8/valid/AgentMessage/*",
        "d1cdaad8/sessions/*",
    ],
    "pi": [
        f"{version}/{kind}/*" for version in ("0.73.1", "1.5.2") for kind in ("sessions", "streams")
    ],
}
INPUTS = [
    (format, path)
    for format, patterns in GLOBS.items()
    for pattern in patterns
    for path in sorted((ROOT / format).glob(pattern))
    if path.suffix in (".json", ".jsonl")
]


ALWAYS_KEPT = re.compile(
    r"/(role|text|thinking|arguments|args|toolCallId|tool_call_id)$"
    r"|/contents?/\d+/(id|name)$"
)
"""What no loss may name (as for every converter): a role, a text, a thinking text, a tool
call's id, name or arguments, a tool result's call id."""


@cache
def official(folder: str, type_name: str) -> Draft202012Validator:
    path = SPEC / folder / OFFICIAL[type_name]
    return Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))


def _converted(format: str, path: Path, target: str, version: str | None = None) -> list[Any]:
    return list(convert_file(path, source=format, target=target, version=version))


def test_the_corpora_are_found() -> None:
    assert {format for format, _ in INPUTS} == set(GLOBS) and len(INPUTS) > 40


@pytest.mark.parametrize(
    ("format", "path"),
    INPUTS,
    ids=[f"{p.parent.parent.name}/{p.parent.name}/{p.name}" for _, p in INPUTS],
)
def test_every_fixture_converts_to_documents_the_official_schema_and_strict_mode_accept(
    format: str, path: Path
) -> None:
    items = _converted(format, path, "otel-genai")
    documents = [item for item in items if isinstance(item, Document)]
    assert all(document.format == "otel-genai" for document in documents)
    if not documents:  # a lone extension message: dropped whole, and said so
        assert any(
            isinstance(item, Lost)
            and item.loss.kind == "dropped"
            and "have no extension message" in item.loss.reason
            for item in items
        )
    for document in documents:
        parsed = json.loads(document.text)
        name = type_in("otel-genai", parsed)
        errors = list(official("schemas", name).iter_errors(parsed))
        assert not errors, (name, errors[0].message)
        assert otel.strict_problems(name, document.text) == [], name
    assert any(isinstance(item, Lost) for item in items)  # at least the timestamps
    bad = [
        item.loss
        for item in items
        if isinstance(item, Lost)
        and item.loss.kind != "invented"
        and ALWAYS_KEPT.search(item.loss.pointer)
        and item.loss.reason != LONE_SURROGATE  # pi's JavaScript strings: not UTF-8 (named)
    ]
    assert not bad, bad


@pytest.mark.parametrize(
    ("format", "path"),
    INPUTS[::4],
    ids=[f"{p.parent.parent.name}/{p.parent.name}/{p.name}" for _, p in INPUTS[::4]],
)
def test_the_2026_05_documents_pass_that_versions_official_schema(format: str, path: Path) -> None:
    for item in _converted(format, path, "otel-genai", "2026-05"):
        if isinstance(item, Document):
            parsed = json.loads(item.text)
            name = type_in("otel-genai", parsed)
            errors = list(official("schemas-2026-05", name).iter_errors(parsed))
            assert not errors, (name, errors[0].message)


# --- round trips through OpenTelemetry --------------------------------------------------------


def _phi_core_messages(format: str, path: Path) -> list[Any]:
    """The fixture's messages as phi-core's models (a session: its loops' messages)."""
    if format == "phi-core":
        text = path.read_text(encoding="utf-8")
        if path.parent.name == "sessions":
            session = phi.loads(phi.Session, text)
            return [message for loop in session.loops for message in loop.messages]
        return [phi.loads(phi.AgentMessage, text)]
    documents = [
        item for item in _converted(format, path, "phi-core") if isinstance(item, Document)
    ]
    return [phi.loads(phi.AgentMessage, document.text) for document in documents]


def _leaves(value: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _leaves(item, f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}")
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from _leaves(item, f"{pointer}/{index}")
    else:
        yield pointer, value


def _at(value: Any, pointer: str) -> Any:
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        value = value[int(token)] if isinstance(value, list) else value[token]
    return value


def _named(pointer: str, losses: tuple[Loss, ...]) -> bool:
    return any(
        loss.kind != "invented" and (pointer + "/").startswith(loss.pointer + "/")
        for loss in losses
    )


MESSAGE_INPUTS = [(f, p) for f, p in INPUTS if p.parent.name != "streams"]


@pytest.mark.parametrize(
    ("format", "path"),
    MESSAGE_INPUTS,
    ids=[f"{p.parent.parent.name}/{p.parent.name}/{p.name}" for _, p in MESSAGE_INPUTS],
)
def test_a_round_trip_restores_every_leaf_no_loss_names(format: str, path: Path) -> None:
    messages = _phi_core_messages(format, path)
    there = convert(messages, source="phi-core", target="otel-genai", name=str(path))
    back = convert(there.value, source="otel-genai", target="phi-core", name=str(path))
    assert isinstance(back.value, list)
    # a message dropped whole (an extension message) is not there to compare with
    kept = [
        json.loads(str(phi.dumps(message)))
        for index, message in enumerate(messages)
        if not any(loss.pointer == f"/{index}" for loss in there.losses)
    ]
    returned = [json.loads(str(phi.dumps(message))) for message in back.value]
    assert len(returned) == len(kept)
    shift = {  # the kept messages' pointers in the original list
        new: old
        for new, old in enumerate(
            index
            for index in range(len(messages))
            if not any(loss.pointer == f"/{index}" for loss in there.losses)
        )
    }
    for pointer, value in _leaves(kept) if kept else ():
        index, _, rest = pointer[1:].partition("/")
        original = f"/{shift[int(index)]}/{rest}" if rest else f"/{shift[int(index)]}"
        if not _named(original, there.losses):
            assert _at(returned, pointer) == value, (pointer, there.losses)


STREAMS = [(f, p) for f, p in INPUTS if p.parent.name == "streams"]


@pytest.mark.parametrize(
    ("format", "path"), STREAMS, ids=[f"{p.parent.parent.name}/{p.name}" for _, p in STREAMS]
)
def test_a_streams_documents_come_back_as_their_messages(format: str, path: Path) -> None:
    """A stream's documents (each model call's) convert back to phi-core: one message per
    OpenTelemetry message, a system instruction an extension, a tool a tool definition."""
    texts = [
        item.text for item in _converted(format, path, "otel-genai") if isinstance(item, Document)
    ]
    documents = [json.loads(text) for text in texts]
    models = [
        otel.loads(getattr(otel, type_in("otel-genai", d)), t)
        for d, t in zip(documents, texts, strict=True)
    ]
    back = convert(models, source="otel-genai", target="phi-core")
    assert isinstance(back.value, list)
    expected = sum(
        len(d)
        if type_in("otel-genai", d) in ("InputMessages", "OutputMessages", "ToolDefinitions")
        else 1
        for d in documents
    )
    assert len(back.value) == expected


# --- what emitters write, to phi-core ---------------------------------------------------------


def _instrumented() -> list[dict[str, Any]]:
    manifest = json.loads((INSTRUMENTED / "manifest.json").read_text(encoding="utf-8"))
    return [entry for entry in manifest["files"] if entry["kind"] == "message_attribute"]


ENTRIES = _instrumented()


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry["file"] for entry in ENTRIES])
def test_every_instrumented_document_converts_to_phi_core_its_quirks_named(
    entry: dict[str, Any],
) -> None:
    path = INSTRUMENTED / entry["file"]
    text = path.read_text(encoding="utf-8")
    name = type_in("otel-genai", json.loads(codec_text(text)))
    valid = official("schemas", name).is_valid(json.loads(codec_text(text)))
    try:
        items = list(convert_file(path, source="otel-genai", target="phi-core"))
    except ConvertError as error:  # what the official schema rejects: one line naming it
        assert not valid and str(path) in str(error) and "\n" not in str(error)
        return
    assert valid
    documents = [item for item in items if isinstance(item, Document)]
    for document in documents:
        assert phi.loads(phi.AgentMessage | phi.ToolDefinition, document.text) is not None  # type: ignore[arg-type]
    losses = [item.loss for item in items if isinstance(item, Lost)]
    for problem in otel.strict_problems(name, text):
        assert any(
            (problem.pointer + "/").startswith(loss.pointer + "/")
            or (loss.pointer + "/").startswith(problem.pointer + "/")
            for loss in losses
        ), (problem, losses)


def codec_text(text: str) -> str:
    """A document's JSON (an attribute value written as a JSON string: the string's content)."""
    parsed = json.loads(text)
    return parsed if isinstance(parsed, str) else text


# --- the command line -------------------------------------------------------------------------


def test_convert_to_and_from_otel_genai(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    history = tmp_path / "history.jsonl"
    history.write_text('{"role":"user","content":"hi","timestamp":1767225601000}\n')
    out = tmp_path / "out.jsonl"
    code, _, err = run(capsys, "convert", "--to", "otel-genai", "-o", str(out), str(history))
    assert code == 0, err
    assert out.read_text() == '[{"role":"user","parts":[{"type":"text","content":"hi"}]}]\n'
    back = tmp_path / "back.jsonl"
    code, _, err = run(
        capsys, "convert", "--from", "otel-genai", "--to", "phi-core", "-o", str(back), str(out)
    )
    assert code == 0, err
    assert json.loads(back.read_text())["content"] == [{"type": "text", "text": "hi"}]
    old = tmp_path / "old.jsonl"
    code, _, err = run(
        capsys, "convert", "--to", "otel-genai/2026-05", "-o", str(old), str(history)
    )
    assert code == 0, err
    document = INSTRUMENTED / "pydantic-ai-2.68.0" / "agent_tool_call.3.gen_ai.input.messages.json"
    code, _, err = run(
        capsys, "convert", "--to", "phi-core", "-o", str(tmp_path / "p.jsonl"), str(document)
    )
    assert code == 0, err


# --- an unknown key anywhere in an emitter's document: a dropped loss, or carried -------------

ATTRIBUTE_TYPES = {
    "gen_ai.input.messages": "InputMessages",
    "gen_ai.output.messages": "OutputMessages",
    "gen_ai.system_instructions": "SystemInstructions",
    "gen_ai.tool.definitions": "ToolDefinitions",
}


def _readable(entry: dict[str, Any]) -> bool:
    text = codec_text((INSTRUMENTED / entry["file"]).read_text(encoding="utf-8"))
    return official("schemas", ATTRIBUTE_TYPES[entry["attribute"]]).is_valid(json.loads(text))


READABLE = [INSTRUMENTED / entry["file"] for entry in ENTRIES if _readable(entry)]


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
    path=st.sampled_from(READABLE),
    choice=st.integers(min_value=0),
    name=st.text(alphabet="abcdefghijklmnopqrstuvwxyz_~/", min_size=1, max_size=8),
)
def test_an_unknown_key_anywhere_is_never_lost_silently(path: Path, choice: int, name: str) -> None:
    document = json.loads(codec_text(path.read_text(encoding="utf-8")))
    objects = _objects(document)
    if not objects:
        return
    where = objects[choice % len(objects)]
    holder: Any = document
    for step in where:
        holder = holder[step]
    key = f"zz{name}unknown"
    holder[key] = "zzvalue"
    pointer = "".join("/" + str(step).replace("~", "~0").replace("/", "~1") for step in where)
    pointer += "/" + key.replace("~", "~0").replace("/", "~1")
    items = list(convert_stream([json.dumps(document)], source="otel-genai", target="phi-core"))
    # the file layer reads a document's first index as its line (line 1: the item at /0)
    pointers = {pointer, pointer.removeprefix("/0")} if pointer.startswith("/0/") else {pointer}
    dropped = [
        item.loss
        for item in items
        if isinstance(item, Lost)
        and item.loss.kind in ("dropped", "changed")
        and any((found + "/").startswith(item.loss.pointer + "/") for found in pointers)
    ]
    carried = any(
        isinstance(item, Document) and json.dumps(key)[1:-1] in item.text for item in items
    )
    assert dropped or carried, (pointer, items)


def test_clark_agents_system_message_kind_is_the_one_the_converters_know() -> None:
    """clark-agent's system message travels through phi-core as an extension of its kind: the
    OpenTelemetry converters (which import no other format's folder) name the same kind."""
    from phi_wire.formats.clark_agent.convert import SYSTEM_KIND
    from phi_wire.formats.otel_genai.convert import CLARK_SYSTEM_KIND

    assert SYSTEM_KIND == CLARK_SYSTEM_KIND


def test_a_system_message_keeps_its_place(tmp_path: Path) -> None:
    """clark-agent's system message (a reminder in the middle of a history) is a ``system``
    input message in its place, and comes back as clark-agent's system message."""
    history = tmp_path / "history.jsonl"
    history.write_text(
        '{"role":"user","content":"hi","timestamp":1}\n'
        '{"role":"system","content":"Be brief.","timestamp":2}\n'
        '{"role":"user","content":"again","timestamp":3}\n'
    )
    [there] = [d for d in convert_file(history, target="otel-genai") if isinstance(d, Document)]
    assert json.loads(there.text)[1] == {
        "role": "system",
        "parts": [{"type": "text", "content": "Be brief."}],
    }
    back = tmp_path / "there.jsonl"
    back.write_text(there.text + "\n")
    rows = [d.text for d in convert_file(back, target="clark-agent") if isinstance(d, Document)]
    assert json.loads(rows[1]) == {"role": "system", "content": "Be brief."}
