"""The command line on pi's files beyond ``validate`` (tests/test_pi_validate.py): ``convert``
between pi and phi-core both ways (a session file's active branch to a message list, a message
list to a session file pi opens), between pi's lines (``--to pi/0.73``: what 0.73 cannot hold
named), and one line, never a traceback, for a value that has no counterpart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from command import run
from corpus import fixtures_root

import phi_wire.pi as pi
import phi_wire.pi_0_73 as pi_0_73
import phi_wire.v0_10 as phi
from phi_wire.convert import UnsupportedConversion, convert

PI = fixtures_root() / "pi"


def _lines(text: str) -> list[str]:
    return text.rstrip("\n").split("\n")


def test_a_pi_message_converts_to_phi_core(capsys: pytest.CaptureFixture[str]) -> None:
    path = PI / "1.5.2" / "valid" / "Message" / "Message.user.string_content.json"
    code, out, err = run(
        capsys, "convert", "--from", "pi", "--to", "phi-core", str(path), "-o", "-"
    )
    assert code == 0, err
    message = phi.loads(phi.AgentMessage, out.strip())
    assert isinstance(message, phi.LlmUserMessage)
    assert message.content == [phi.TextContent(text=json.loads(path.read_text())["content"])]


def test_a_session_file_converts_to_its_active_branch_and_back_to_a_session_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A session file is recognised (no ``--from``); its active branch is what pi's
    ``buildSessionContext`` rebuilds (the corpus's context of the same session), and the phi-core
    message list goes back as a session file pi 1.5 reads, its messages those of the context."""
    session = PI / "1.5.2" / "sessions" / "branched.jsonl"
    messages = tmp_path / "branched.phi.jsonl"
    code, _, err = run(capsys, "convert", "--to", "phi-core", str(session), "-o", str(messages))
    assert code == 0, err
    context = json.loads((PI / "1.5.2" / "contexts" / "branched.session-context.json").read_text())
    assert len(_lines(messages.read_text())) == len(context["messages"])
    code, out, err = run(
        capsys, "convert", "--from", "phi-core", "--to", "pi", str(messages), "-o", "-"
    )
    assert code == 0, err
    lines = pi.loads(pi.Session, out)
    assert [line.message.role for line in lines[1:]] == [m["role"] for m in context["messages"]]


def test_to_pi_0_73_names_what_0_73_cannot_hold(capsys: pytest.CaptureFixture[str]) -> None:
    """1.5's session: its system message entry and its 1.5-only keys are losses at their lines;
    the file written is one pi 0.73 reads."""
    session = PI / "1.5.2" / "sessions" / "linear.jsonl"
    code, out, err = run(capsys, "convert", "--to", "pi/0.73", str(session), "-o", "-", "-v")
    assert code == 0, err
    pi_0_73.loads(pi_0_73.Session, out)
    assert "pi 0.73 cannot hold this system message entry" in err
    assert f"{session} /6/message/thinkingLevel" in err


def test_what_0_73_has_no_type_for_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A 1.5 document of a type 0.73 does not have (a system message; the CLI's RPC lines): one
    line naming it, exit 2 (before: a traceback, AttributeError)."""
    response = next((PI / "1.5.2" / "valid" / "RpcResponse").glob("*.json"))
    code, out, err = run(capsys, "convert", "--from", "pi", "--to", "pi/0.73", str(response))
    assert code == 2 and not out and err.count("\n") == 1, err
    assert "cannot be written as pi 0.73: pi 0.73 has no RpcResponse (pi 1.5 added it)" in err
    system = PI / "1.5.2" / "valid" / "Message" / "Message.system.string_content.json"
    code, out, err = run(capsys, "convert", "--from", "pi", "--to", "pi/0.73", str(system))
    assert code == 2 and not out and err.count("\n") == 1, err
    assert "unknown variant 'system'" in err


def test_a_0_73_file_to_pi_1_5_loses_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    session = PI / "0.73.1" / "sessions" / "linear.jsonl"
    code, out, err = run(capsys, "convert", "--to", "pi/1.5", str(session), "-o", "-")
    assert code == 0 and "nothing lost" in err, err
    assert out == session.read_text()


def test_a_line_pi_skips_is_a_loss_not_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    """pi's ``SessionManager.open()`` skips a line that is not JSON; so does the conversion, and
    says so at the line (before: the whole file refused as invalid JSON)."""
    session = PI / "1.5.2" / "accepted" / "Session" / "v3_malformed_line_not_rewritten.input.jsonl"
    code, out, err = run(capsys, "convert", "--to", "phi-core", str(session), "-o", "-", "-v")
    assert code == 0, err
    assert "pi's reader skips this line" in err and f"{session}:3 " in err, err
    assert [phi.loads(phi.AgentMessage, line).role for line in _lines(out)] == [
        "user",
        "assistant",
    ]


def test_a_value_without_counterpart_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "entry.json"
    path.write_text(
        '{"type":"model_change","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z",'
        '"provider":"faux","modelId":"m"}'
    )
    code, out, err = run(capsys, "convert", "--from", "pi", "--to", "phi-core", str(path))
    assert code == 2 and not out and err.count("\n") == 1, err
    assert "no phi-core counterpart for pi's ModelChangeEntry" in err, err


def test_the_librarys_convert_converts_a_pi_message() -> None:
    message = pi.loads(pi.UserMessage, '{"role":"user","content":"hi","timestamp":1}')
    result = convert(message, target="phi-core")
    assert result == (phi.LlmUserMessage(content=[phi.TextContent(text="hi")], timestamp=1), ())
    with pytest.raises(UnsupportedConversion, match="no phi-core counterpart"):
        convert(pi.loads(pi.StopReason, '"stop"'), source="pi", target="phi-core")


@pytest.mark.parametrize(
    ("path", "target", "says"),
    [
        (
            "pi/1.5.2/valid/JsonAgentSessionEvent/JsonAgentSessionEvent.message_update.text_delta.json",
            "phi-core",
            "no message_start before it",
        ),
        (
            "otel-genai/instrumented/pydantic-ai-2.68.0-v5/agent_images.1.gen_ai.tool.definitions.json",
            "pi",
            "no pi counterpart for phi-core's ToolDefinition",
        ),
    ],
)
def test_what_has_no_counterpart_is_one_line_not_a_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, path: str, target: str, says: str
) -> None:
    """A CLI delta-only update with no message_start before it (nothing to assemble it into),
    and OpenTelemetry's tool definitions (no pi message): one line naming why, exit 2. Both
    raised a KeyError/AttributeError traceback before."""
    code, _, err = run(
        capsys, "convert", "--to", target, str(fixtures_root() / path), "-o", str(tmp_path / "o")
    )
    assert code == 2 and says in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1, err
