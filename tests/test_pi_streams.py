"""pi's streams converted to phi-core (issue 20): every stream of both pi corpora (pi-ai's provider
streams, pi-agent-core's and the coding agent's event streams, the 1.5 CLI's ``--mode json`` and
``--mode rpc`` output) converts to events phi-core's ``loads`` reads back; every value the
conversion does not carry is named by a loss, and no loss names a message's text, thinking text
or a tool call's id, name or arguments; a provider stream through ``translate_stream`` ends with
pi's own final message, converted; and the messages assembled from the deltas (the CLI's
delta-only ``message_update`` lines included) are the messages pi ends them with.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from command import run
from corpus import fixtures_root, manifest

import phi_wire.pi as pi
import phi_wire.v0_10 as phi
from phi_wire import translate_stream
from phi_wire.convert import Conversion, Loss, UnsupportedConversion, convert
from phi_wire.pointer import tokens
from phi_wire.recognise import type_in

VERSIONS = ("0.73.1", "1.5.2")
STREAMS = [
    (version, fixture.entry["file"])
    for version in VERSIONS
    for fixture in manifest(version, "pi")
    if fixture.entry.get("file", "").startswith("streams/")
]
PROVIDER_STREAMS = [(v, f) for v, f in STREAMS if f.startswith("streams/pi-ai.")]
AGENT_STREAMS = [(v, f) for v, f in STREAMS if not f.startswith("streams/pi-ai.")]
CLI_STREAMS = [(v, f) for v, f in STREAMS if f.startswith("streams/pi-cli.")]
MAPPED_KEYS = frozenset({"type", "role", "stopReason", "contentIndex"})
"""Keys whose values become a phi-core tag or position (their mapping is the converter's table)."""
UNREPRESENTABLE = ("lone surrogate", "cut in two")
"""The only changes a loss may name in a text: what phi-core's serde cannot hold."""


def _lines(version: str, file: str) -> tuple[Path, list[str]]:
    path = fixtures_root() / "pi" / version / file
    with open(path, encoding="utf-8", newline="") as handle:
        return path, [line.removesuffix("\n") for line in handle]


def _read(version: str, file: str) -> tuple[list[Any], list[Any]]:
    """The stream's documents (``json.loads``) and pi's models of them (read as 1.5 reads)."""
    _, lines = _lines(version, file)
    documents = [json.loads(line) for line in lines]
    models = [
        pi.loads(getattr(pi, type_in("pi", document)), line)
        for document, line in zip(documents, lines, strict=True)
    ]
    return documents, models


def _converted(version: str, file: str) -> tuple[list[Any], Conversion[Any]]:
    documents, models = _read(version, file)
    return documents, convert(models, source="pi", target="phi-core", name=file)


def _wire_type(event: Any) -> Any:
    return phi.StreamEvent if type(event).__name__.startswith("Stream") else phi.AgentEvent


def _leaves(value: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{pointer}/{index}")
    else:
        yield pointer, value


def _covered(pointer: str, losses: tuple[Loss, ...]) -> bool:
    return any(pointer == loss.pointer or pointer.startswith(loss.pointer + "/") for loss in losses)


def _resolve(document: Any, pointer: str) -> tuple[Any, Any, str]:
    """The value at ``pointer``, its parent and its key."""
    parent, key, value = None, "", document
    for token in tokens(pointer):
        parent, key = value, token
        value = value[int(token)] if isinstance(value, list) else value[token]
    return value, parent, key


def _parsed(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def _blocks(message: Any) -> list[tuple[Any, ...]]:
    """A phi-core message's content as what the stream carries: texts, thinking texts, tool
    calls' id, name and arguments (signatures aside: the CLI's delta lines carry none)."""
    out: list[tuple[Any, ...]] = []
    for block in message.content:
        if isinstance(block, phi.ToolCallContent):
            arguments = block.arguments  # translate_stream's partials: the JSON text so far
            out.append(("toolCall", block.id, block.name, _parsed(arguments)))
        elif isinstance(block, phi.ThinkingContent):
            out.append(("thinking", block.thinking))
        elif isinstance(block, phi.TextContent):
            out.append(("text", block.text))
        else:
            out.append((block.type,))
    return out


@pytest.mark.parametrize(("version", "file"), STREAMS)
def test_every_pi_stream_converts_to_events_phi_core_reads(version: str, file: str) -> None:
    documents, converted = _converted(version, file)
    assert converted.value, "nothing converted"
    for event in converted.value:
        text = phi.dumps(event)
        assert phi.loads(_wire_type(event), text) == event, text
    if file.startswith("streams/pi-ai."):
        assert all(type(event).__name__.startswith("Stream") for event in converted.value)
    else:  # one phi-core loop per pi run; every run's events name it
        starts = sum(1 for d in documents if d.get("type") == "agent_start")
        assert sum(isinstance(e, phi.AgentStart) for e in converted.value) == starts
        assert sum(isinstance(e, phi.AgentEnd) for e in converted.value) == starts


@pytest.mark.parametrize(("version", "file"), STREAMS)
def test_every_value_not_carried_is_named_by_a_loss(version: str, file: str) -> None:
    """Each leaf of the source (a string or number) appears in the phi-core events or is
    named by a loss (the loss's pointer is the leaf or one of its parents)."""
    documents, converted = _converted(version, file)
    carried: set[Any] = set()
    for event in converted.value:
        for _, value in _leaves(json.loads(phi.dumps(event))):
            carried.add(json.dumps(value))
    missing = [
        pointer
        for pointer, value in _leaves(documents)
        if isinstance(value, str | int | float)
        and not isinstance(value, bool)
        and json.dumps(value) not in carried
        and tokens(pointer)[-1] not in MAPPED_KEYS
        and not _covered(pointer, converted.losses)
    ]
    assert not missing, missing[:10]
    # the keys phi-core has no place for are named each time they occur
    for pointer, _ in _leaves(documents):
        key = tokens(pointer)[-1] if pointer else ""
        if key in ("api", "cost", "durationMs", "thinkingLevel", "thinkingSignature"):
            if key == "thinkingSignature" or "/partial/" in pointer:
                continue  # carried (signature), or inside a dropped partial
            assert _covered(pointer, converted.losses), pointer


@pytest.mark.parametrize(("version", "file"), STREAMS)
def test_no_loss_names_a_text_thinking_or_tool_call(version: str, file: str) -> None:
    documents, converted = _converted(version, file)
    for loss in converted.losses:
        assert not loss.pointer.endswith(("/role", "/toolCallId")), loss
        if any(words in loss.reason for words in UNREPRESENTABLE):
            continue
        value, parent, key = _resolve(documents, loss.pointer)
        path = tokens(loss.pointer)
        assert "arguments" not in path and "args" not in path[1:2], loss
        if isinstance(parent, dict) and parent.get("type") in ("text", "thinking", "toolCall"):
            assert key not in ("text", "thinking", "id", "name", "arguments"), loss
        assert key not in ("delta",) or not isinstance(value, str), loss


@pytest.mark.parametrize(("version", "file"), PROVIDER_STREAMS)
def test_translate_stream_ends_with_pis_own_final_message(version: str, file: str) -> None:
    _, models = _read(version, file)
    converted = convert(models, source="pi", target="phi-core", name=file)
    translation = translate_stream(converted.value, loop_id="pi", wire=phi)
    events = list(translation)
    # pi's own last event (done, or error) converted alone, by the same message mapping
    final = convert(models[-1], source="pi", target="phi-core").value
    assert isinstance(final, phi.StreamDone | phi.StreamError)
    assert translation.message == final.message
    assert isinstance(events[-1], phi.MessageEnd)
    updates = [event for event in events if isinstance(event, phi.MessageUpdate)]
    deltas_differ = any("not its deltas joined" in loss.reason for loss in converted.losses)
    if updates and not deltas_differ:  # the deltas assemble pi's final content
        assert _blocks(updates[-1].message) == _blocks(final.message)


@pytest.mark.parametrize(("version", "file"), AGENT_STREAMS)
def test_the_updates_assemble_the_message_pi_ends_with(version: str, file: str) -> None:
    """Before each MessageEnd, the last MessageUpdate's message (pi's cumulative message, or
    for the CLI's delta-only lines the one assembled from the deltas) holds the same texts,
    thinking texts and tool calls as pi's own message_end."""
    _, converted = _converted(version, file)
    last: Any = None
    compared = 0
    for event in converted.value:
        if isinstance(event, phi.MessageStart):
            last = None
        elif isinstance(event, phi.MessageUpdate):
            last = event.message
        elif isinstance(event, phi.MessageEnd) and last is not None:
            assert _blocks(last) == _blocks(event.message)
            compared += 1
    updates = sum(isinstance(event, phi.MessageUpdate) for event in converted.value)
    assert compared or not updates


def _as_message_end(message: dict[str, Any]) -> Any:
    """A pi message converted as the library converts it inside an event (message_end)."""
    event = pi.loads(pi.AgentEvent, json.dumps({"type": "message_end", "message": message}))
    converted = convert(event, source="pi", target="phi-core")
    assert isinstance(converted.value, phi.MessageEnd)
    return converted.value.message


@pytest.mark.parametrize(("version", "file"), CLI_STREAMS)
def test_the_cli_messages_assembled_are_the_sessions_messages(version: str, file: str) -> None:
    """The 1.5 CLI's delta-only lines assembled give the assistant messages the same run's
    session file holds (the corpus has no SDK run of the CLI's scenarios; the session file is
    pi's own record of the run; without one, the CLI's message_end lines are)."""
    documents, converted = _converted(version, file)
    delta_lines = [d for d in documents if d.get("type") == "message_update"]
    assert all(
        "message" not in d and "partial" not in d["assistantMessageEvent"] for d in delta_lines
    )
    session = (
        fixtures_root()
        / "pi"
        / version
        / "sessions"
        / (
            "cli_"
            + file.removeprefix("streams/pi-cli.").removesuffix(".jsonl").replace(".", "_")
            + ".jsonl"
        )
    )
    if session.exists():
        entries = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]
        records = [
            entry["message"]
            for entry in entries
            if entry.get("type") == "message" and entry["message"].get("role") == "assistant"
        ]
    else:
        records = [
            d["message"]
            for d in documents
            if d.get("type") == "message_end" and d["message"].get("role") == "assistant"
        ]
    assembled: list[Any] = []
    last: Any = None
    for event in converted.value:
        if isinstance(event, phi.MessageStart | phi.MessageUpdate):
            last = event.message
        elif isinstance(event, phi.MessageEnd) and event.message.role == "assistant":
            assembled.append(last)
    assert len(assembled) == len(records), (len(assembled), len(records))
    for mine, record in zip(assembled, records, strict=True):
        assert _blocks(mine) == _blocks(_as_message_end(record))


def test_a_lone_event_converts_alone() -> None:
    event = pi.loads(
        pi.AgentEvent,
        '{"type":"tool_execution_start","toolCallId":"c1","toolName":"echo","args":{"b":1,"a":2}}',
    )
    converted = convert(event, source="pi", target="phi-core", name="x")
    assert isinstance(converted.value, phi.ToolExecutionStart)
    assert (converted.value.tool_call_id, converted.value.tool_name) == ("c1", "echo")
    assert converted.value.args == {"b": 1, "a": 2}
    kinds = [(loss.pointer, loss.kind) for loss in converted.losses]
    assert kinds == [("", "invented"), ("", "changed")]  # the loop id; args written sorted
    assert "args's object keys sorted" in converted.losses[1].reason


def test_the_command_line_converts_a_pi_event_stream(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path, lines = _lines("1.5.2", "streams/pi-cli.json.tool_run.jsonl")
    out = tmp_path / "events.jsonl"
    code, _, err = run(
        capsys, "convert", "--from", "pi", "--to", "phi-core", str(path), "-o", str(out)
    )
    assert code == 0, err
    written = out.read_text(encoding="utf-8").splitlines()
    events = [phi.loads(phi.AgentEvent, line) for line in written]
    assert [type(event).__name__ for event in events[:3]] == [
        "AgentStart",
        "TurnStart",
        "MessageStart",
    ]
    assert events[0].session_id == json.loads(lines[0])["id"]  # the header's session id
    assert "dropped" in err and "durationMs" in err


def test_a_delta_past_the_messages_blocks_is_a_loss_not_a_gap_filled() -> None:
    """A CLI delta line whose contentIndex is far past the message's blocks (pi opens blocks in
    order) is named as a loss; the assembler fills no gap (memory bounded by the input)."""
    start = (
        '{"type":"message_start","message":{"role":"assistant","content":[],"api":"faux",'
        '"provider":"faux","model":"m","usage":{"input":1,"output":1,"cacheRead":0,'
        '"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,'
        '"cacheWrite":0,"total":0}},"stopReason":"pending","timestamp":1}}'
    )
    far = json.dumps(
        {
            "type": "message_update",
            "usage": json.loads(start)["message"]["usage"],
            "assistantMessageEvent": {"type": "text_delta", "contentIndex": 10**12, "delta": "x"},
        }
    )
    events = [pi.loads(pi.AgentEvent, start), pi.loads(pi.JsonAgentSessionEvent, far)]
    converted = convert(events, source="pi", target="phi-core", name="far")
    assert [type(event).__name__ for event in converted.value] == ["MessageStart"]
    assert any(loss.pointer == "/1" and "no block" in loss.reason for loss in converted.losses), (
        converted.losses
    )


def test_plain_json_is_not_taken_for_pis_events() -> None:
    """The converters take pi's models (read and judged by ``loads``), not unjudged dicts."""
    with pytest.raises(UnsupportedConversion):
        convert([{"type": "agent_start"}], source="pi", target="phi-core")


def test_an_event_pis_types_reject_is_one_line_naming_file_line_and_pointer(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(
        '{"type":"agent_start"}\n'
        '{"type":"tool_execution_start","toolCallId":"c1","toolName":5,"args":{}}\n',
        encoding="utf-8",
    )
    code, out, err = run(capsys, "convert", "--from", "pi", "--to", "phi-core", str(path))
    assert code == 2 and not out
    assert err.count("\n") == 1 and f"{path}:2: " in err and "/toolName" in err, err


def test_the_streams_example_of_the_conversion_doc_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/conversions/pi.md's example runs as printed (its paths as from the project root)."""
    text = (Path(__file__).resolve().parent.parent / "docs/conversions/pi.md").read_text("utf-8")
    example = text.split("## Streams", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "fixtures").symlink_to(fixtures_root())
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    exec(compile(example, "docs/conversions/pi.md", "exec"), {})
    assert "/0/partial dropped" in capsys.readouterr().out


def _assistant(text: str, stop: str = "stop") -> dict[str, Any]:
    usage = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2}
    usage["cost"] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    content = [{"type": "text", "text": text}] if text else []
    return {
        "role": "assistant",
        "content": content,
        "api": "faux",
        "provider": "faux",
        "model": "m",
        "usage": usage,
        "stopReason": stop,
        "timestamp": 1,
    }


def test_a_character_cut_at_a_blocks_end_is_not_dropped_from_the_deltas() -> None:
    """A delta ending with a high surrogate that no delta completes (a lone one at the block's
    end): phi-core's deltas still end with it (as U+FFFD), so the assembled text is the final
    one; both changes are named."""
    lines = [
        {"type": "start", "partial": _assistant("")},
        {"type": "text_start", "contentIndex": 0, "partial": _assistant("")},
        {"type": "text_delta", "contentIndex": 0, "delta": "a\ud83d", "partial": _assistant("a")},
        {"type": "text_end", "contentIndex": 0, "content": "a\ud83d", "partial": _assistant("a")},
        {"type": "done", "reason": "stop", "message": _assistant("a\ud83d")},
    ]
    events = [pi.loads(pi.AssistantMessageEvent, json.dumps(line)) for line in lines]
    converted = convert(events, source="pi", target="phi-core")
    deltas = [event.delta for event in converted.value if isinstance(event, phi.StreamTextDelta)]
    assert deltas == ["a", "\ufffd"]
    translation = translate_stream(converted.value, loop_id="l", wire=phi)
    updates = [event for event in translation if isinstance(event, phi.MessageUpdate)]
    assert updates[-1].message.content == translation.message.content
    assert translation.message.content == [phi.TextContent(text="a\ufffd")]
    reasons = [
        (loss.pointer, loss.kind)
        for loss in converted.losses
        if "surrogate" in loss.reason or "cut in two" in loss.reason
    ]
    assert ("/2/delta", "changed") in reasons and (
        "/4/message/content/0/text",
        "changed",
    ) in reasons


@pytest.mark.parametrize(
    ("wire_type", "file"),
    [
        ("RpcOutput", "streams/pi-cli.rpc.session.jsonl"),
        ("JsonModeOutput", "streams/pi-cli.json.tool_run.jsonl"),
    ],
)
def test_a_whole_cli_output_converts_as_its_lines_do(wire_type: str, file: str) -> None:
    path, _ = _lines("1.5.2", file)
    whole = pi.loads(getattr(pi, wire_type), path.read_bytes())
    _, by_line = _converted("1.5.2", file)
    assert convert(whole, source="pi", target="phi-core", name=file) == by_line
