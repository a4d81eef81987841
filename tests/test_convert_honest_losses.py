"""Issue 19, section 1: a conversion's losses are honest. Each test is the regression test of one
defect the issue names (numbered as there): keys a reader drops, key order phi-core cannot keep,
round trips that changed data no loss named, a crash on a valid ExtensionMessage, random ids."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from command import run
from corpus import fixtures_root

import phi_wire as pw
import phi_wire.clark_agent as clark
import phi_wire.operator_use as ou
from phi_wire.convert import Loss, convert

PI_ASSISTANT = (
    fixtures_root()
    / "others"
    / "pi"
    / "fixtures"
    / "pi-mono.assistant-message-with-thinking-code.json"
)


def verbose_losses(err: str) -> list[str]:
    """The ``file:line /pointer`` lines of ``-v``."""
    return [line.split()[-1] for line in err.splitlines() if line.startswith("phi-wire:     ")]


# --- 1. keys the source's reader drops ---------------------------------------------------------


def test_1_an_unknown_key_of_a_phi_core_message_is_a_dropped_loss(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "u.jsonl"
    path.write_text(
        '{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1,'
        '"myAppField":"important"}\n'
    )
    code, _, err = run(
        capsys, "convert", "--from", "phi-core", "--to", "clark-agent", str(path), "-v",
        "--fail-on-loss",
    )  # fmt: skip
    assert code == 1, err
    assert "1 dropped: phi-core's reader does not know this key and drops it" in err
    assert verbose_losses(err) == ["/myAppField"]


def test_1_an_unknown_key_of_a_clark_row_is_a_dropped_loss(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text('{"role":"user","content":"hi","timestamp":1,"extra":{"x":1}}\n')
    code, _, err = run(
        capsys, "convert", "--from", "clark-agent", "--to", "phi-core", str(path), "-v",
        "--fail-on-loss",
    )  # fmt: skip
    assert code == 1, err
    assert "clark-agent's reader does not know this key" in err
    assert "/extra" in verbose_losses(err)


@pytest.mark.parametrize("target", ["clark-agent", "phi-core", "operator-use"])
def test_1_a_null_the_reader_reads_as_absent_is_a_dropped_loss(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, target: str
) -> None:
    """clark-agent writes ``Some(Value::Null)`` details as ``"details":null`` and reads it back
    as ``None``, which it does not write: the key is gone from every output, so it is named
    (before: "nothing lost" to clark-agent itself, and to the other formats)."""
    path = tmp_path / "h.jsonl"
    row = '{"role":"tool_result","tool_call_id":"c","tool_name":"t","content":[],"details":null,'
    path.write_text(row + '"is_error":false,"timestamp":1}\n')
    code, out, err = run(
        capsys, "convert", "--from", "clark-agent", "--to", target, str(path), "-v",
        "--fail-on-loss",
    )  # fmt: skip
    assert code == 1, err
    assert "clark-agent's reader reads this null as absent" in err
    assert "/details" in verbose_losses(err)
    assert '"details"' not in out


def test_1_a_same_format_conversion_names_what_the_reader_dropped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A pi-ai message read as phi-core: the keys ``validate --strict`` lists are losses."""
    if not PI_ASSISTANT.is_file():
        pytest.skip("the pi fixtures are not here")
    code, _, err = run(
        capsys, "convert", "--from", "phi-core", "--to", "phi-core", str(PI_ASSISTANT), "-v",
        "--fail-on-loss",
    )  # fmt: skip
    assert code == 1, err
    named = set(verbose_losses(err))
    expected = {"/api", "/usage/cost", "/usage/cacheRead", "/usage/cacheWrite"}
    assert expected <= named and "/content/0/thinkingSignature" in named, err


def test_1_unknown_keys_deep_in_an_operator_use_session_are_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "s.jsonl"
    lines = [
        {"type": "session", "id": "s1", "timestamp": 1.0, "cwd": "/", "mine": 1},
        {
            "type": "message",
            "id": "e1",
            "parent_id": None,
            "timestamp": 1.0,
            "message": {
                "role": "user",
                "id": "m1",
                "timestamp": 1.0,
                "contents": [{"type": "text", "content": "hi", "note": "kept?"}],
            },
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, _, err = run(
        capsys, "convert", "--from", "operator-use", "--to", "phi-core", str(path), "-v"
    )
    assert code == 0, err
    assert "operator-use's reader does not know this key" in err
    assert "/message/contents/0/note" in verbose_losses(err), err


# --- 2. key order ------------------------------------------------------------------------------


def test_2_arguments_phi_core_reorders_are_a_changed_loss() -> None:
    row = clark.loads(
        clark.AgentMessage,
        '{"role":"assistant","content":[{"type":"tool_call","id":"c1","name":"read",'
        '"arguments":{"path":"a","offset":1,"limit":2}}],"stop_reason":"tool_use","timestamp":1}',
    )
    losses = convert(row, source="clark-agent", target="phi-core").losses
    order = [loss for loss in losses if "sorted" in loss.reason]
    assert [(loss.pointer, loss.kind) for loss in order] == [("/content/0", "changed")]
    assert "arguments" in order[0].reason
    sorted_row = clark.loads(
        clark.AgentMessage,
        '{"role":"assistant","content":[{"type":"tool_call","id":"c1","name":"read",'
        '"arguments":{"limit":2,"offset":1,"path":"a"}}],"stop_reason":"tool_use","timestamp":1}',
    )
    losses = convert(sorted_row, source="clark-agent", target="phi-core").losses
    assert not [loss for loss in losses if "sorted" in loss.reason]


def test_2_a_custom_payload_phi_core_reorders_is_a_changed_loss() -> None:
    row = clark.loads(
        clark.AgentMessage, '{"role":"custom","kind":"k","payload":{"b":1,"a":{"d":1,"c":2}}}'
    )
    losses = convert(row, source="clark-agent", target="phi-core").losses
    assert [(loss.pointer, loss.kind) for loss in losses if "payload" in loss.reason] == [
        ("", "changed")
    ]


# --- 3. round trips through Operator-Use and clark-agent -----------------------------------------


def through(text: str, via: str) -> tuple[Any, list[Loss]]:
    value = pw.loads(pw.AgentMessage, text)
    there = convert(value, source="phi-core", target=via)
    back = convert(there.value, source=via, target="phi-core")
    assert isinstance(back.value, list)
    return back.value[0], list(there.losses)


def test_3_an_empty_tool_result_content_is_named() -> None:
    back, losses = through(
        '{"role":"toolResult","toolCallId":"t1","toolName":"bash","content":[],'
        '"isError":false,"timestamp":1}',
        "operator-use",
    )
    assert json.loads(pw.dumps(back))["content"] != []  # it does change...
    assert any(loss.pointer == "/content" and loss.kind == "changed" for loss in losses)  # named


def test_3_an_empty_error_message_is_named() -> None:
    back, losses = through(
        '{"role":"assistant","content":[],"stopReason":"stop","model":"","provider":"",'
        '"usage":{"input":0,"output":0},"timestamp":1,"error_message":""}',
        "operator-use",
    )
    assert "error_message" not in json.loads(pw.dumps(back))
    assert any(loss.pointer == "/error_message" for loss in losses)


@pytest.mark.parametrize("timestamp", [8_850_000_000_000_001, 2**63 + 1])
def test_3_a_timestamp_float_seconds_cannot_hold_is_named(timestamp: int) -> None:
    back, losses = through(
        f'{{"role":"user","content":[],"timestamp":{timestamp}}}', "operator-use"
    )
    changed = json.loads(pw.dumps(back))["timestamp"] != timestamp
    assert changed == any(loss.pointer == "/timestamp" for loss in losses)
    assert changed


def test_3_an_exact_timestamp_is_not_named() -> None:
    _, losses = through('{"role":"user","content":[],"timestamp":1767225603123}', "operator-use")
    assert not any(loss.pointer == "/timestamp" for loss in losses)


def test_3_a_clark_tool_call_block_keeps_its_type_through_phi_core() -> None:
    block = clark.loads(
        clark.AssistantBlock, '{"type":"tool_call","id":"a","name":"n","arguments":{"x":1}}'
    )
    there = convert(block, source="clark-agent", target="phi-core")
    back = convert(there.value, source="phi-core", target="clark-agent")
    assert clark.dumps(back.value) == clark.dumps(block)
    assert not there.losses and not back.losses


# --- 4. an ExtensionMessage whose role is not "extension" -------------------------------------


def test_4_an_extension_message_with_a_user_role_converts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    value = pw.loads(pw.AgentMessage, '{"role":"user","kind":"note","data":"hi"}')
    result = convert(value, source="phi-core", target="operator-use")
    assert isinstance(result.value, list)
    assert json.loads(ou.dumps(result.value[0]))["custom_type"] == "note"
    assert any(loss.pointer == "/role" for loss in result.losses)
    path = tmp_path / "x.jsonl"
    path.write_text('{"role":"user","kind":"note","data":"hi"}\n')
    code, _, err = run(capsys, "convert", "--from", "phi-core", "--to", "operator-use", str(path))
    assert code == 0 and "Traceback" not in err, err


# --- 5. invented ids are derived, not random ---------------------------------------------------


def test_5_a_conversion_is_reproducible(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = tmp_path / "log.jsonl"
    source.write_text(
        '{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1000}\n'
        '{"role":"assistant","content":[],"stopReason":"stop","model":"m","provider":"p",'
        '"usage":{"input":1,"output":1},"timestamp":2000}\n'
        '{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1000}\n'
    )
    outputs = []
    for attempt in range(2):
        out = tmp_path / f"out{attempt}.jsonl"
        code, _, err = run(capsys, "convert", "--to", "operator-use", str(source), "-o", str(out))
        assert code == 0, err
        outputs.append(out.read_text())
    assert outputs[0] == outputs[1]
    entries = [json.loads(line) for line in outputs[0].splitlines()]
    message_ids = [entry["message"]["id"] for entry in entries if entry["type"] == "message"]
    entry_ids = [entry["id"] for entry in entries]
    # two equal messages at different positions get different ids
    assert len(set(message_ids)) == len(message_ids) == 3
    assert len(set(entry_ids)) == len(entry_ids)


def test_5_ids_depend_on_the_input_name() -> None:
    value = [pw.loads(pw.AgentMessage, '{"role":"user","content":[],"timestamp":1}')]
    one = convert(value, source="phi-core", target="operator-use", name="a.jsonl").value
    again = convert(value, source="phi-core", target="operator-use", name="a.jsonl").value
    other = convert(value, source="phi-core", target="operator-use", name="b.jsonl").value
    assert isinstance(one, list) and isinstance(again, list) and isinstance(other, list)
    assert ou.dumps(one[0]) == ou.dumps(again[0]) != ou.dumps(other[0])


def test_a_message_of_the_other_operator_use_layout_in_a_session_file_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A phi-core extension message carrying an Operator-Use message only d1cdaad8 writes (a
    ``terminate_message``), written with another message as a (d0da87a6) session file: a
    traceback before; now the custom message that carries it, and a loss naming it."""
    block = {
        "type": "tool_result",
        "id": "c",
        "content": "done",
        "is_error": False,
        "metadata": {},
        "terminate": True,
        "terminate_message": "bye",
    }
    data = {"contents": [block], "id": "3c4d", "timestamp": 1.5, "role": "tool"}
    carried = {"role": "extension", "kind": "operator-use.tool", "data": data}
    user = {"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 1}
    source = tmp_path / "two.jsonl"
    source.write_text(f"{json.dumps(carried)}\n{json.dumps(user)}\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    code, _, err = run(
        capsys,
        "convert",
        "--from",
        "phi-core",
        "--to",
        "operator-use",
        "-v",
        str(source),
        "-o",
        str(out),
    )
    assert code == 0, err
    assert "written as a custom message that carries it" in err and f"{source}:1 /" in err
    entries = list(ou.loads(ou.SessionFile, out.read_text(encoding="utf-8")))
    messages = [entry.message for entry in entries if getattr(entry, "message", None)]
    assert [message.role for message in messages] == ["custom", "user"]
    assert json.loads(ou.dumps(messages[0]))["details"] == data


def test_the_losses_of_a_json_array_file_keep_their_whole_pointers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A .json file holding one array of messages is one document: every loss is at its line 1
    with the pointer from the array (a converter's losses had the first item's index taken for
    a JSONL line: ``:1 /timestamp`` beside ``/1/timestamp``)."""
    message = {"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 1}
    path = tmp_path / "messages.json"
    path.write_text(json.dumps([{**message, "mine": 1}, {**message, "mine": 2}], indent=2))
    code, _, err = run(
        capsys,
        "convert",
        "--from",
        "phi-core",
        "--to",
        "otel-genai",
        "-v",
        str(path),
        "-o",
        str(tmp_path / "out.json"),
    )
    assert code == 0, err
    assert f"{path}:1 /0/mine" in err and f"{path}:1 /1/mine" in err, err
    assert f"{path}:1 /0/timestamp" in err and f"{path}:1 /1/timestamp" in err, err


def test_a_time_the_reader_stamps_is_an_invented_loss(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """clark-agent's reader fills a message's missing ``timestamp`` with the time of reading
    (serde's ``default_timestamp``): converted, it is read as 0 instead, and named (it was
    "nothing lost", and two runs differed without a word; then named, and two runs still
    differed)."""
    path = tmp_path / "c.jsonl"
    path.write_text('{"role":"user","content":"hi"}\n{"role":"user","content":"x","timestamp":5}\n')
    arguments = ("convert", "--from", "clark-agent", "--to", "phi-core", "-v", str(path))
    code, out, err = run(capsys, *arguments)
    assert code == 0, err
    assert out.splitlines()[0].endswith('"timestamp":0}'), out
    assert run(capsys, *arguments) == (code, out, err)  # the same on every run
    assert (
        "1 invented: clark-agent's reader gives a missing timestamp the time of reading: read as 0"
        in err
    ), err
    assert f"{path}:1 /timestamp" in err and f"{path}:2 /timestamp" not in err, err
