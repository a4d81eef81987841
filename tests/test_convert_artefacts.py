"""Issue 19, section 3: every artefact, every direction through phi-core, and the version
written. phi-core sessions to clark-agent and Operator-Use, phi-core event streams to clark-agent
(Operator-Use has none: one line), clark-agent <-> Operator-Use through phi-core, ``--to
FORMAT/VERSION``; each output is read back by the target's own ``loads``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from command import run
from corpus import fixtures_root

import phi_wire.clark_agent as clark
import phi_wire.operator_use as ou
import phi_wire.operator_use_d1cdaad8 as ou_d1
import phi_wire.v0_8 as phi8
import phi_wire.v0_10 as phi
from phi_wire.convert import convert

PHI = fixtures_root() / "phi-core" / "0.10.0"
SESSIONS = sorted((PHI / "sessions").glob("*.json"))
STREAMS = sorted((PHI / "streams").glob("*.jsonl"))
HISTORY = fixtures_root() / "clark-agent" / "0.4.0" / "history" / "history.multi_turn.jsonl"
OU_SESSION = fixtures_root() / "operator-use" / "d0da87a6" / "sessions" / "compaction.jsonl"


def session_messages(session: phi.Session) -> list[str]:
    return [phi.dumps(message) for loop in session.loops for message in loop.messages]


@pytest.mark.parametrize("path", SESSIONS, ids=lambda path: path.name)
def test_a_phi_core_session_converts_to_clark_agent_as_its_loops_messages(path: Path) -> None:
    session = phi.loads(phi.Session, path.read_text(encoding="utf-8"))
    result = convert(session, source="phi-core", target="clark-agent")
    assert isinstance(result.value, list)
    for item in result.value:  # clark-agent's own reader takes each row
        clark.loads(clark.AgentMessage, clark.dumps(item))
    back = convert(result.value, source="clark-agent", target="phi-core")
    assert isinstance(back.value, list) and len(back.value) == len(session_messages(session))
    pointers = {loss.pointer for loss in result.losses}
    assert "/session_id" in pointers and "/loops/0/loop_id" in pointers
    # every message loss points into the session's own loops
    assert all(pointer.startswith("/loops/") or pointer.count("/") == 1 for pointer in pointers), (
        pointers
    )


@pytest.mark.parametrize("path", SESSIONS, ids=lambda path: path.name)
def test_a_phi_core_session_file_converts_to_an_operator_use_session_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, path: Path
) -> None:
    out = tmp_path / "session.jsonl"
    code, _, err = run(capsys, "convert", "--to", "operator-use", str(path), "-o", str(out))
    assert code == 0, err
    entries = ou.loads(ou.SessionFile, out.read_text(encoding="utf-8"))
    assert not entries.skipped
    session = phi.loads(phi.Session, path.read_text(encoding="utf-8"))
    messages = [entry for entry in entries if entry.type == "message"]
    assert len(messages) <= len(session_messages(session))  # tool results may share a message
    assert "a message list has no loop record" in err


@pytest.mark.parametrize("path", STREAMS, ids=lambda path: path.name)
def test_a_phi_core_event_stream_converts_to_clark_agent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, path: Path
) -> None:
    out = tmp_path / "events.jsonl"
    code, _, err = run(capsys, "convert", "--to", "clark-agent", str(path), "-o", str(out), "-v")
    assert code == 0, err
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines
    for line in lines:  # clark-agent's reader takes each (it stamps a custom message's time)
        clark.loads(clark.AgentEvent, line)
    assert "clark-agent has no TurnRequest event" in err or "TurnRequest" not in path.read_text()


def test_events_to_operator_use_say_in_one_line_there_is_no_counterpart(
    capsys: pytest.CaptureFixture[str],
) -> None:
    stream = STREAMS[0]
    code, out, err = run(capsys, "convert", "--to", "operator-use", str(stream))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "Operator-Use has no event stream" in err


def test_clark_agent_history_converts_to_operator_use_through_phi_core(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """(Before: "no converter from clark-agent to operator-use".)"""
    out, back = tmp_path / "session.jsonl", tmp_path / "back.jsonl"
    code, _, err = run(capsys, "convert", "--to", "operator-use", str(HISTORY), "-o", str(out))
    assert code == 0, err
    assert "(the second step, phi-core -> target: a pointer into the phi-core form)" in err
    entries = ou.loads(ou.SessionFile, out.read_text(encoding="utf-8"))
    assert entries[0].type == "session" and not entries.skipped
    code, _, err = run(capsys, "convert", "--to", "clark-agent", str(out), "-o", str(back))
    assert code == 0, err
    for line in back.read_text(encoding="utf-8").splitlines():
        clark.loads(clark.AgentMessage, line)


def test_an_operator_use_session_converts_to_clark_agent_in_memory() -> None:
    session = ou.loads(ou.SessionFile, OU_SESSION.read_text(encoding="utf-8"))
    result = convert(session, source="operator-use", target="clark-agent")
    assert isinstance(result.value, list) and result.value
    for row in result.value:
        clark.loads(clark.AgentMessage, clark.dumps(row))
    second = [loss for loss in result.losses if "second step" in loss.reason]
    first = [loss for loss in result.losses if "second step" not in loss.reason]
    assert first and second


# --- --to FORMAT/VERSION ---------------------------------------------------------------------


def test_to_an_operator_use_layout(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "old.jsonl"
    code, _, err = run(
        capsys, "convert", "--to", "operator-use/d1cdaad8", str(HISTORY), "-o", str(out)
    )
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    entries = ou_d1.loads(ou_d1.SessionFile, text)
    assert ou_d1.dumps(entries) == text  # exactly as that layout writes it
    message = next(json.loads(line) for line in text.splitlines() if '"message"' in line)
    assert list(message["message"])[-1] == "role"  # d1cdaad8 writes role last


def test_to_phi_core_0_8(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text(
        '{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1000}\n'
        '{"role":"assistant","content":[{"type":"text","text":"yo"}],"stopReason":"stop",'
        '"model":"m","provider":"p","usage":{"input":1,"output":1},"timestamp":2000}\n'
    )
    out = tmp_path / "old.jsonl"
    code, _, err = run(capsys, "convert", "--to", "phi-core/0.8", str(path), "-o", str(out))
    assert code == 0, err
    for line in out.read_text(encoding="utf-8").splitlines():
        assert phi8.dumps(phi8.loads(phi8.AgentMessage, line)) == line


def test_an_unknown_version_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "convert", "--to", "phi-core/0.9", str(HISTORY))
    assert code == 2 and "unknown phi-core version '0.9'; choose one of 0.8, 0.10" in err


def test_a_document_the_version_rejects_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    session = next(path for path in SESSIONS if "TurnRequest" in path.read_text())
    code, out, err = run(capsys, "convert", "--to", "phi-core/0.8", str(session))
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "cannot be written as phi-core 0.8" in err


@pytest.mark.parametrize(
    "path", sorted((PHI / "valid" / "Content").glob("*.json")), ids=lambda path: path.stem
)
def test_a_content_block_file_converts_as_validate_judges_it(
    capsys: pytest.CaptureFixture[str], path: Path
) -> None:
    """A lone content block (``{"type":"text",...}``) is what recognition names it, ``Content``,
    not the event phi-core's key detection takes a ``type`` key for: it converts (to phi-core:
    byte for byte), as ``phi-wire validate`` calls it valid. (Before: refused as an invalid
    ``AgentEvent``, ``unknown variant 'text'``.)"""
    code, out, err = run(capsys, "convert", "--to", "phi-core", str(path))
    assert code == 0, err
    assert out == path.read_text(encoding="utf-8").rstrip("\n") + "\n", err  # a line end added
