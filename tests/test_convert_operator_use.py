"""Operator-Use <-> phi-core 0.10 (phi_wire.formats.operator_use.convert) on every message
fixture of both Operator-Use corpora, every session file, and the mapping table in
docs/conversions/operator-use.md.

For each message: the phi-core result is valid phi-core (``loads(dumps(x))`` through
``phi_wire.v0_10``); converting it back restores every leaf the forward losses do not name; and
no loss names a role, a text, a tool call's id, name or arguments, or a tool result's call id.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from corpus import ROOT
from test_operator_use import MODULES, corpus, manifest

import phi_wire.operator_use as ou
import phi_wire.v0_10 as phi
from phi_wire.convert import convert
from phi_wire.formats.operator_use.convert import (
    STOP_REASONS_FROM_PHI,
    STOP_REASONS_TO_PHI,
    session_from_phi_core,
)


def leaves(document: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(document, dict) and document:
        for key, value in document.items():
            yield from leaves(value, f"{pointer}/{key}")
    elif isinstance(document, list) and document:
        for index, value in enumerate(document):
            yield from leaves(value, f"{pointer}/{index}")
    else:
        yield pointer, document


def named(pointer: str, losses: Any) -> bool:
    """A leaf the losses say does not survive (an invented value loses nothing of the source)."""
    return any(
        pointer == loss.pointer or pointer.startswith(loss.pointer + "/")
        for loss in losses
        if loss.kind != "invented"
    )


def protected(document: dict[str, Any]) -> set[str]:
    """Pointers no loss may name: the role, texts, tool call ids/names/args, tool result ids."""
    found = {"/role"}
    for index, block in enumerate(document.get("contents", [])):
        kind = block.get("type")
        if kind in ("text", "tool_result"):
            found.add(f"/contents/{index}/content")
        if kind in ("tool_call", "tool_result"):
            found.add(f"/contents/{index}/id")
        if kind == "tool_call":
            found |= {f"/contents/{index}/name", f"/contents/{index}/args"}
    return found


def message_cases() -> list[Any]:
    return [
        pytest.param(layout, entry, id=f"{layout}:{entry['id']}")
        for layout in MODULES
        for entry in manifest(layout)
        if entry["type"] == "AgentMessage"
        and entry["kind"] in ("valid-canonical", "accepted-noncanonical")
    ]


@pytest.mark.parametrize(("layout", "entry"), message_cases())
def test_every_message_converts_to_valid_phi_core_and_back(
    layout: str, entry: dict[str, Any]
) -> None:
    module = MODULES[layout]
    # accepted inputs as given: NaN and 1e400 timestamps read, and convert with a loss
    raw = (corpus(layout) / (entry.get("file") or entry["input_file"])).read_bytes()
    message = module.loads(module.AgentMessage, raw)
    forward = convert(message, source="operator-use", target="phi-core")
    assert forward.value, "a message converts to at least one phi-core message"
    for converted in forward.value:
        assert phi.loads(phi.AgentMessage, phi.dumps(converted)) == converted
    source = json.loads(module.dumps(message))
    for loss in forward.losses:
        assert loss.pointer not in protected(source), loss
        assert loss.kind in ("dropped", "invented", "changed") and loss.reason
    back = convert(forward.value, source="phi-core", target="operator-use")
    assert len(back.value) == 1
    restored = dict(leaves(json.loads(ou.dumps(back.value[0]))))
    for pointer, value in leaves(source):
        if not named(pointer, forward.losses):
            assert restored.get(pointer, "<missing>") == value, pointer


@pytest.mark.parametrize("layout", MODULES)
def test_a_session_converts_as_its_rebuilt_context(layout: str) -> None:
    module = MODULES[layout]
    sessions = sorted((corpus(layout) / "sessions").glob("*.jsonl"))
    assert sessions
    for path in sessions:
        session = module.loads(module.SessionFile, path.read_text(encoding="utf-8"))
        forward = convert(session, source="operator-use", target="phi-core")
        context = module.build_session_context(session)
        from_context = convert(context, source="operator-use", target="phi-core")
        roles = [m.role for m in forward.value]
        assert roles == [m.role for m in from_context.value]
        assert roles.count("extension") == sum(
            m.role in ("system", "custom", "branch_summary", "compaction_summary")
            for m in context.messages
        )
        dropped = {loss.pointer for loss in forward.losses}
        assert "/0" in dropped, "the header is named as dropped"
        back = session_from_phi_core(forward.value)
        reread = module.loads(module.SessionFile, module.dumps(back.value))
        rebuilt = module.build_session_context(reread)
        assert [m.role for m in rebuilt.messages] == [m.role for m in context.messages]


def test_assistant_messages_of_a_session_carry_the_model_of_their_branch() -> None:
    path = corpus("d0da87a6") / "sessions" / "linear.jsonl"
    session = ou.loads(ou.SessionFile, path.read_text(encoding="utf-8"))
    forward = convert(session, source="operator-use", target="phi-core")
    assistants = [m for m in forward.value if m.role == "assistant"]
    assert assistants and {(m.model, m.provider) for m in assistants} == {
        ("claude-sonnet-4-5", "anthropic")
    }


def test_a_session_written_from_phi_core_keeps_each_assistants_model() -> None:
    """Operator-Use keeps the model in model_change entries: the session writer puts one before
    each assistant whose model or provider is not the one in effect (none before the first
    assistant that names none), so converting the session back gives every model again and no
    loss says it was dropped. (Regression: the writer dropped them, the way back wrote "".)"""
    assistant = {
        "role": "assistant",
        "content": [{"type": "text", "text": "hi"}],
        "stopReason": "stop",
        "usage": {"input": 1, "output": 1},
        "timestamp": 1000,
    }
    models = [("", ""), ("m1", "p1"), ("m1", "p1"), ("m2", "p1"), ("", "")]
    messages = [
        phi.loads(phi.AgentMessage, json.dumps({**assistant, "model": m, "provider": p}))
        for m, p in models
    ]
    written = session_from_phi_core(messages)
    assert not [loss for loss in written.losses if "model" in loss.reason], written.losses
    changes = [
        (entry.model_id, entry.provider_id)
        for entry in written.value
        if entry.type == "model_change"
    ]
    assert changes == [("m1", "p1"), ("m2", "p1"), ("", "")]
    reread = ou.loads(ou.SessionFile, ou.dumps(written.value))
    back = convert(reread, source="operator-use", target="phi-core").value
    assert [(m.model, m.provider) for m in back] == models


def test_a_tool_message_with_two_results_comes_back_as_one() -> None:
    text = corpus("d0da87a6") / "valid" / "AgentMessage" / "AgentMessage.tool.multiple.json"
    message = ou.loads(ou.AgentMessage, text.read_bytes())
    forward = convert(message, source="operator-use", target="phi-core")
    assert [m.role for m in forward.value] == ["toolResult"] * len(message.contents)
    back = convert(forward.value, source="phi-core", target="operator-use")
    assert [len(m.contents) for m in back.value] == [len(message.contents)]


def test_timestamps_round_to_milliseconds_with_a_changed_loss() -> None:
    exact = ou.UserMessage(id="m", timestamp=1763892004.5)
    inexact = ou.UserMessage(id="m", timestamp=1763892004.0005481)
    assert not [x for x in convert(exact).losses if x.pointer == "/timestamp"]
    (loss,) = [x for x in convert(inexact).losses if x.pointer == "/timestamp"]
    assert loss.kind == "changed"
    assert convert(inexact).value[0].timestamp == 1763892004001


def test_phi_core_extension_messages_of_other_kinds_become_custom_messages() -> None:
    extension = phi.ExtensionMessage(role="extension", kind="ui.banner", data={"text": "hi"})
    result = convert(extension, source="phi-core", target="operator-use")
    (message,) = result.value
    assert message.role == "custom" and message.custom_type == "ui.banner"
    assert message.details == {"text": "hi"}
    assert any(loss.kind == "invented" for loss in result.losses)


# --- the mapping table ---------------------------------------------------------------------------

DOC = ROOT / "docs" / "conversions" / "operator-use.md"


def table(title: str) -> list[list[str]]:
    """The rows of the markdown table under the heading ``title`` (cells without backticks)."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]
    return [[cell.strip().strip("`") for cell in row.strip("|").split("|")] for row in rows]


def test_the_stop_reason_table_is_the_converters() -> None:
    to_phi = {row[0]: row[1] for row in table("Stop reasons: Operator-Use to phi-core")}
    from_phi = {row[0]: row[1] for row in table("Stop reasons: phi-core to Operator-Use")}
    assert to_phi == {key: value[0] for key, value in STOP_REASONS_TO_PHI.items()}
    assert from_phi == {key: value[0] for key, value in STOP_REASONS_FROM_PHI.items()}


def test_the_content_block_table_is_what_the_converter_does() -> None:
    rows = table("Content blocks")
    assert len(rows) >= 5
    for source, target, *_ in rows:
        block = json.loads(source)
        role = "assistant" if block.get("type") in ("thinking", "tool_call") else "user"
        message = ou.loads(
            ou.AgentMessage,
            json.dumps({"role": role, "contents": [block], "id": "m", "timestamp": 1.0}),
        )
        converted = convert(message, source="operator-use", target="phi-core").value[-1]
        content = json.loads(phi.dumps(converted))["content"]
        expected = json.loads(target)
        assert content == ([] if expected is None else [expected]), source


def test_the_message_table_names_every_role() -> None:
    rows = table("Messages")
    roles = {re.sub(r"\s.*", "", row[0]) for row in rows}
    assert roles == {
        "system",
        "user",
        "assistant",
        "tool",
        "custom",
        "branch_summary",
        "compaction_summary",
    }


def test_the_documented_example_runs() -> None:
    """docs/conversions/operator-use.md and the README point at examples/convert_operator_use.py."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "convert_operator_use", ROOT / "examples" / "convert_operator_use.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    output = module.main([]).splitlines()
    assert (
        output[2].startswith('{"content":[{"text":"README.md') and '"toolName":"bash"' in output[2]
    )
    assert "loss dropped /0: the session header" in "\n".join(output)
    assert output[-1].startswith('{"role":"tool","contents":[{"type":"tool_result","id":"call_1"')
    assert "examples/convert_operator_use.py" in DOC.read_text(encoding="utf-8")
    assert "examples/convert_operator_use.py" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_source_format_of_a_list_is_its_items() -> None:
    message = ou.UserMessage(id="m", timestamp=1.0)
    assert convert([message]).value == convert(message).value


def test_a_d1cdaad8_second_lane_message_comes_back_in_its_layout() -> None:
    import phi_wire.operator_use_d1cdaad8 as ou1

    raw = (
        corpus("d1cdaad8") / "valid" / "AgentMessage" / "AgentMessage.system.text.json"
    ).read_text()
    message = ou1.loads(ou1.AgentMessage, raw)
    (extension,) = convert(message, source="operator-use", target="phi-core").value
    (back,) = convert(extension, source="phi-core", target="operator-use").value
    assert ou1.dumps(back) == raw
