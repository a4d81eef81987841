"""The real pi, live: both lines (0.73.1 and 1.5.2, exactly as ``tools/pi-live``'s lock files pin
them, installed by ``make pi-live``) write a conversation with their faux provider, and read
sessions back with their own ``SessionManager`` (issue 20's live interoperability).

* ``produce`` (``tools/pi-live/conversation.mjs``): what pi writes is what the schemas of
  ``schemas/pi/<line>/`` accept, each document as its type: every ``AssistantMessageEvent`` and
  ``AgentEvent`` line, the session file whole and line by line, the rebuilt ``SessionContext``;
  and it is the same every run except the fields the harness names as varying;
* ``consume``: pi opens its own session without rewriting it, rebuilds the context it wrote
  before, and sends the whole history to the model for one more turn, appending to the file;
  pi 1.5 opens a 0.73 session unchanged too; a file pi cannot open is one line and exit 1;
* phi-wire reads everything pi wrote in both (``phi_wire.pi_0_73``, ``phi_wire.pi_1_5``) as its
  type and writes it back byte for byte, and refuses the file pi refuses, with pi's reason;
* conversions: a phi-core ``Session`` phi-wire converts to a pi session file (``--to pi/<line>``)
  is opened by pi's ``SessionManager`` without a byte rewritten and rebuilt by its
  ``buildSessionContext`` into exactly the messages phi-wire wrote, which go to the model; the
  messages phi-wire converts go into a session through ``appendMessage`` as they are; pi's own
  session goes to phi-core and back with every leaf no loss names, and pi opens the result.

A missing node, npm package or pi install is a failure naming ``make pi-live``, never a skip.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

import pytest
from corpus import ROOT, fixtures_root
from test_pi_schemas import VERSIONS, Case, errors, pi_lines

import phi_wire.pi_0_73 as pi_0_73
import phi_wire.pi_1_5 as pi_1_5
import phi_wire.v0_10 as phi
from phi_wire.convert import Document, convert, convert_file, to_session_file
from phi_wire.formats.pi.context import context_entries

RUN = ROOT / "tools" / "pi-live" / "run"
MODULES: dict[str, ModuleType] = {"0.73": pi_0_73, "1.5": pi_1_5}
"""pi line: phi-wire's module of it."""
LINES = {"0.73": "pi/0.73", "1.5": "pi/1.5"}
"""pi line (a folder of tools/pi-live): the schema folder that judges what it writes."""

STREAMS = {
    "assistant-message-events.jsonl": "AssistantMessageEvent",
    "agent-events.jsonl": "AgentEvent",
}
"""The event files both scripts write: the type of each of their lines."""


class Run(NamedTuple):
    """A harness script's output folder, and the pi line that wrote it."""

    line: str
    out: Path


def pi(line: str, script: str, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``tools/pi-live/run LINE SCRIPT OUT ARGS``: the harness on the node the line needs."""
    return subprocess.run(
        [str(RUN), line, script, str(out), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def run_pi(line: str, script: str, out: Path, *args: str) -> Run:
    """A harness run that must succeed; a failure is an error carrying pi's one line."""
    result = pi(line, script, out, *args)
    if result.returncode != 0:
        raise AssertionError(
            f"pi {line} {script} failed (exit {result.returncode}; `make pi-live` installs pi "
            f"and its node):\n{result.stderr[-4000:]}"
        )
    return Run(line, out)


@pytest.fixture(scope="module", params=list(LINES))
def produced(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Run:
    line: str = request.param
    return run_pi(line, "produce", tmp_path_factory.mktemp(f"pi-{line}-produce"))


def read_json(path: Path) -> Any:
    return json.loads(path.read_bytes())


def jsonl(path: Path) -> list[Any]:
    text = path.read_text("utf-8")
    assert text.endswith("\n"), f"{path.name}: pi ends every line with \\n"
    return [json.loads(line) for line in text[:-1].split("\n")]


def session_cases(folder: str, path: Path) -> list[Case]:
    """A session file as pi's loader reads it: whole as a Session, then line by line."""
    lines = list(pi_lines(path.read_text("utf-8")))
    assert all(value is not None for _, value in lines), f"{path.name}: a line is not JSON"
    cases = [Case(path.name, folder, "Session", [value for _, value in lines])]
    for number, value in lines:
        type_name = "SessionHeader" if number == lines[0][0] else "SessionEntry"
        cases.append(Case(f"{path.name}:{number}", folder, type_name, value))
    return cases


def written_cases(folder: str, out: Path) -> list[Case]:
    """Every document a script wrote into ``out``, as the type pi's API names it."""
    cases = []
    for name, type_name in STREAMS.items():
        for number, event in enumerate(jsonl(out / name), start=1):
            cases.append(Case(f"{name}:{number}", folder, type_name, event))
    for name in ("session.jsonl", "session.opened.jsonl"):
        if (out / name).exists():
            cases += session_cases(folder, out / name)
    context = read_json(out / "session-context.json")
    cases.append(Case("session-context.json", folder, "SessionContext", context))
    if (out / "provider-context.json").exists():
        sent = read_json(out / "provider-context.json")["messages"]
        cases += [
            Case(f"provider-context.json:/messages/{index}", folder, "Message", message)
            for index, message in enumerate(sent)
        ]
    return cases


def assert_schemas_accept(folder: str, out: Path) -> int:
    cases = written_cases(folder, out)
    refused = [(case.where, case.type_name, errors(case)[:3]) for case in cases if errors(case)]
    assert not refused, f"{folder} refuses what the real pi wrote: {refused[:5]}"
    return len(cases)


# --- produce --------------------------------------------------------------------------------------


def test_the_pinned_pi_is_what_runs(produced: Run) -> None:
    report = read_json(produced.out / "report.json")
    assert report["pi"] == VERSIONS[LINES[produced.line]], report


def test_what_pi_writes_validates_as_its_type(produced: Run) -> None:
    """Every line of both event streams, the session whole and per line, and the rebuilt context
    pass ``schemas/pi/<line>``."""
    assert assert_schemas_accept(LINES[produced.line], produced.out) > 60


def assert_phi_wire_reads_exactly(line: str, out: Path) -> int:
    """Every document a script wrote into ``out``, read by the line's module (``phi_wire.pi_0_73``,
    ``phi_wire.pi_1_5``) as its type and written back: the same bytes, the session file whole and
    line by line. The number of documents read."""
    module = MODULES[line]
    read = 0

    def same(type_name: str, data: bytes, where: str) -> None:
        nonlocal read
        value = module.loads(getattr(module, type_name), data)
        assert str(module.dumps(value)).encode() == data, f"pi {line} {where}: not the same bytes"
        read += 1

    for name, type_name in STREAMS.items():
        data = (out / name).read_bytes()
        for number, text in enumerate(data.split(b"\n")[:-1], start=1):
            same(type_name, text, f"{name}:{number}")
    for name in ("session.jsonl", "session.opened.jsonl"):
        if (out / name).exists():
            data = (out / name).read_bytes()
            same("Session", data, name)
            for number, text in enumerate(data.split(b"\n")[:-1], start=1):
                same("SessionHeader" if number == 1 else "SessionEntry", text, f"{name}:{number}")
    same("SessionContext", (out / "session-context.json").read_bytes(), "session-context.json")
    return read


def test_phi_wire_reads_what_pi_writes_byte_for_byte(produced: Run) -> None:
    """What the real pi wrote is read by phi-wire as pi's own types and written back exactly:
    every event of both streams, the session file whole and per line, the rebuilt context.

    (Converted to phi-core and back: ``test_what_pi_writes_goes_to_phi_core_and_back``.)"""
    assert assert_phi_wire_reads_exactly(produced.line, produced.out) > 60


def test_the_conversation_is_the_scripted_one(produced: Run) -> None:
    """The messages pi rebuilt from its session are the scripted exchange: the question, a reply
    that thinks and calls the tool, the tool's result, the answer (1.5: the system message
    first, holding the tool's declaration); both streams end with the session's messages."""
    messages = read_json(produced.out / "session-context.json")["messages"]
    roles = [message["role"] for message in messages]
    expected = ["user", "assistant", "toolResult", "assistant"]
    assert roles == (["system", *expected] if produced.line == "1.5" else expected)
    if produced.line == "1.5":
        assert [tool["name"] for tool in messages[0]["toolsAdded"]] == ["read_note"]
    call, result, answer = messages[-3:]
    assert [block["type"] for block in call["content"]] == ["thinking", "toolCall"]
    assert result["toolCallId"] == call["content"][1]["id"]
    assert answer["stopReason"] == "stop"
    events = jsonl(produced.out / "agent-events.jsonl")
    assert events[-1] == {"type": "agent_end", "messages": messages}
    stream = jsonl(produced.out / "assistant-message-events.jsonl")
    done = [event["message"] for event in stream if event["type"] == "done"]
    if produced.line == "1.5":  # the 1.5 agent loop stamps its thinkingLevel after the stream
        assert [call.pop("thinkingLevel"), answer.pop("thinkingLevel")] == ["off", "off"]
    assert done == [call, answer]


def masked(value: Any, varying: set[str]) -> Any:
    """``value`` with the fields pi fills from the clock or at random replaced by a marker: any
    key in ``varying`` of an entry or header, a tool result's ``timestamp`` and ``durationMs``, a
    tool execution's ``durationMs``."""
    if isinstance(value, list):
        return [masked(item, varying) for item in value]
    if not isinstance(value, dict):
        return value
    clocked = set()
    if value.get("role") == "toolResult":
        clocked = {"timestamp", "durationMs"}
    elif value.get("type") == "tool_execution_end":
        clocked = {"durationMs"}
    return {
        key: "<varies>" if key in clocked | varying else masked(item, set())
        for key, item in value.items()
    }


def comparable(out: Path) -> dict[str, Any]:
    """What produce wrote, with the fields that vary per run masked (conversation.mjs names them:
    ids, entry and header timestamps, the header's cwd, what pi stamps on tool results)."""
    found: dict[str, Any] = {name: masked(jsonl(out / name), set()) for name in STREAMS}
    session = jsonl(out / "session.jsonl")
    header = {"id", "timestamp", "cwd"}
    entry = {"id", "parentId", "timestamp"}
    found["session"] = [masked(session[0], header), *(masked(e, entry) for e in session[1:])]
    found["context"] = masked(read_json(out / "session-context.json"), set())
    return found


def test_pi_writes_the_same_every_run_but_the_varying_fields(produced: Run, tmp_path: Path) -> None:
    again = run_pi(produced.line, "produce", tmp_path / "again")
    assert comparable(again.out) == comparable(produced.out)


# --- consume --------------------------------------------------------------------------------------


def test_pi_reads_its_own_session_back_unchanged(produced: Run, tmp_path: Path) -> None:
    """pi opens the session it wrote without rewriting it, rebuilds the same context, sends that
    history whole to the model with the new question, and appends the turn to the file.

    The session and the messages phi-wire converts from phi-core go through ``consume`` the same
    way: ``test_pi_opens_a_session_phi_wire_converted_from_phi_core_unchanged`` and
    ``test_pi_takes_messages_phi_wire_converted_from_phi_core_as_they_are``."""
    written = (produced.out / "session.jsonl").read_bytes()
    consumed = run_pi(
        produced.line,
        "consume",
        tmp_path / "consumed",
        "--session",
        str(produced.out / "session.jsonl"),
    ).out
    assert read_json(consumed / "report.json")["rewritten"] is False
    assert (consumed / "session.opened.jsonl").read_bytes() == written
    rebuilt = (consumed / "session-context.json").read_bytes()
    assert rebuilt == (produced.out / "session-context.json").read_bytes()
    sent = read_json(consumed / "provider-context.json")["messages"]
    assert sent[:-1] == json.loads(rebuilt)["messages"]
    assert sent[-1]["role"] == "user"
    after = (consumed / "session.jsonl").read_bytes()
    assert after.startswith(written)
    appended = [json.loads(line)["message"]["role"] for line in after[len(written) :].splitlines()]
    assert appended == ["user", "assistant"]
    assert_schemas_accept(LINES[produced.line], consumed)
    assert_phi_wire_reads_exactly(produced.line, consumed)


def test_pi_reads_a_message_list_into_a_new_session(produced: Run, tmp_path: Path) -> None:
    """A JSON list of messages (what phi-wire's converter writes) goes into a new session
    through pi's appendMessage, comes back from buildSessionContext as it was, and is sent to the
    model whole."""
    messages = read_json(produced.out / "session-context.json")["messages"]
    listed = tmp_path / "messages.json"
    listed.write_text(json.dumps(messages), "utf-8")
    consumed = run_pi(
        produced.line, "consume", tmp_path / "consumed", "--messages", str(listed)
    ).out
    assert read_json(consumed / "session-context.json")["messages"] == messages
    assert read_json(consumed / "provider-context.json")["messages"][:-1] == messages
    assert_schemas_accept(LINES[produced.line], consumed)


def test_pi_1_5_opens_a_0_73_session_unchanged(tmp_path: Path) -> None:
    """What the 1.5 corpus says of 0.73 files (``input_equals_canonical``), live: the file pi
    0.73 wrote is not rewritten by 1.5's SessionManager, its context is sent whole, and since it
    declares no tools, 1.5 appends a system message declaring them before the new question."""
    old = run_pi("0.73", "produce", tmp_path / "old").out
    written = (old / "session.jsonl").read_bytes()
    consumed = run_pi(
        "1.5", "consume", tmp_path / "consumed", "--session", str(old / "session.jsonl")
    ).out
    assert read_json(consumed / "report.json")["rewritten"] is False
    assert (consumed / "session.opened.jsonl").read_bytes() == written
    history = read_json(old / "session-context.json")["messages"]
    sent = read_json(consumed / "provider-context.json")["messages"]
    assert sent[: len(history)] == history
    declared = sent[len(history)]
    assert (declared["role"], declared["content"]) == ("system", "")
    assert [tool["name"] for tool in declared["toolsAdded"]] == ["read_note"]
    assert [message["role"] for message in sent[len(history) + 1 :]] == ["user"]
    after = (consumed / "session.jsonl").read_bytes()
    assert after.startswith(written)
    appended = [json.loads(line)["message"]["role"] for line in after[len(written) :].splitlines()]
    assert appended == ["system", "user", "assistant"]
    assert_schemas_accept("pi/1.5", consumed)
    assert_phi_wire_reads_exactly("1.5", consumed)
    # phi-wire opens the 0.73 file as 1.5 does: unchanged
    opened = pi_1_5.loads(pi_1_5.Session, written)
    assert opened.migrated_from is None and pi_1_5.dumps(opened).encode() == written


def test_a_file_pi_cannot_open_is_one_line_and_exit_1(tmp_path: Path) -> None:
    """pi 1.5 refuses a file whose first line is not a session header: the harness says so on
    one line and exits 1 (what phi-wire's output must never trigger)."""
    headless = tmp_path / "headless.jsonl"
    headless.write_text('{"type":"message","id":"a1b2c3d4","parentId":null}\n', "utf-8")
    refused = pi("1.5", "consume", tmp_path / "out", "--session", str(headless))
    assert refused.returncode == 1
    assert refused.stderr.count("\n") == 1, refused.stderr
    assert "pi cannot open it: Session file is not a valid pi session" in refused.stderr
    with pytest.raises(pi_1_5.WireError, match="Session file is not a valid pi session"):
        pi_1_5.loads(pi_1_5.Session, headless.read_bytes())


# --- conversions, live (issue 20's second half) ---------------------------------------------------

PHI_SESSION = fixtures_root() / "phi-core" / "0.10.0" / "sessions" / "session.main.json"
"""A phi-core ``Session`` of the corpus (tool calls, thinking, an extension message, loops)."""
LLM_ROLES = ("user", "assistant", "toolResult")


def context_of(session_text: str) -> list[Any]:
    """The messages pi's ``buildSessionContext`` gives for a session file (phi-wire's
    ``context_entries``, checked against pi's own contexts in tests/test_pi_convert.py)."""
    lines = [json.loads(line) for line in session_text.splitlines()]
    return [message for _, found in context_entries(lines) for message, _, _ in found]


def leaves(value: Any, pointer: str = "") -> list[tuple[str, Any]]:
    """(pointer, value) of every leaf of a JSON value (an empty array or object is one)."""
    if isinstance(value, dict) and value:
        items: list[tuple[str, Any]] = list(value.items())
    elif isinstance(value, list) and value:
        items = [(str(index), item) for index, item in enumerate(value)]
    else:
        return [(pointer, value)]
    found = []
    for key, item in items:
        found += leaves(item, f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}")
    return found


def value_at(value: Any, pointer: str) -> Any:
    for part in pointer.split("/")[1:]:
        key = part.replace("~1", "/").replace("~0", "~")
        value = value[int(key)] if isinstance(value, list) else value[key]
    return value


def assert_sent_as_history(sent: list[Any], history: list[Any]) -> None:
    """The model was sent the history: user, assistant and toolResult messages as they are; the
    others as pi's ``convertToLlm`` sends them, as user messages (the difference of meaning
    docs/conversions/pi.md states: phi-core never sends an extension message)."""
    for index, message in enumerate(history):
        if message["role"] in LLM_ROLES:
            assert sent[index] == message, index
        else:
            assert sent[index]["role"] == "user", index


@pytest.mark.parametrize("line", list(LINES))
def test_pi_opens_a_session_phi_wire_converted_from_phi_core_unchanged(
    line: str, tmp_path: Path
) -> None:
    """phi-core's Session, converted by phi-wire (``--to pi/<line>``), is opened by pi's own
    ``SessionManager`` without a byte rewritten, its ``buildSessionContext`` gives exactly the
    messages phi-wire wrote, and the whole history goes to the model."""
    items = list(convert_file(PHI_SESSION, target="pi", version=line))
    (document,) = [item for item in items if isinstance(item, Document)]
    written = tmp_path / "session.jsonl"
    written.write_text(document.text, "utf-8")
    consumed = run_pi(line, "consume", tmp_path / "consumed", "--session", str(written)).out
    assert read_json(consumed / "report.json")["rewritten"] is False
    assert (consumed / "session.opened.jsonl").read_bytes() == written.read_bytes()
    history = context_of(document.text)
    session = phi.loads(phi.Session, PHI_SESSION.read_bytes())
    assert len(history) == sum(len(loop.messages) for loop in session.loops)
    assert read_json(consumed / "session-context.json")["messages"] == history
    assert_sent_as_history(read_json(consumed / "provider-context.json")["messages"], history)
    assert_schemas_accept(LINES[line], consumed)
    assert_phi_wire_reads_exactly(line, consumed)


@pytest.mark.parametrize("line", list(LINES))
def test_pi_takes_messages_phi_wire_converted_from_phi_core_as_they_are(
    line: str, tmp_path: Path
) -> None:
    session = phi.loads(phi.Session, PHI_SESSION.read_bytes())
    converted = convert(session, source="phi-core", target="pi").value
    assert isinstance(converted, list)
    messages = [json.loads(pi_1_5.dumps(message)) for message in converted]
    listed = tmp_path / "messages.json"
    listed.write_text(json.dumps(messages), "utf-8")
    consumed = run_pi(line, "consume", tmp_path / "consumed", "--messages", str(listed)).out
    assert read_json(consumed / "session-context.json")["messages"] == messages
    assert_sent_as_history(read_json(consumed / "provider-context.json")["messages"], messages)


def test_what_pi_writes_goes_to_phi_core_and_back(produced: Run, tmp_path: Path) -> None:
    """pi's session to phi-core (its active branch) and back to a session file: every leaf of
    every message pi rebuilt is back unless a loss names it, and pi opens the file unchanged."""
    session = produced.out / "session.jsonl"
    module = MODULES[produced.line]
    result = convert(module.loads(module.Session, session.read_bytes()), target="phi-core")
    losses = list(result.losses)  # pointers: /<line index>/...
    assert isinstance(result.value, list)
    values = [phi.loads(phi.AgentMessage, phi.dumps(value)) for value in result.value]
    back = to_session_file(values, target="pi", name=str(session))
    text = pi_1_5.dumps(back.value)
    original = context_of(session.read_text("utf-8"))
    again = context_of(text)
    assert len(again) == len(original)
    lines = [json.loads(line) for line in session.read_text("utf-8").splitlines()]
    where = [f"/{index}{inner}" for index, found in context_entries(lines) for _, inner, _ in found]
    for pointer, message, returned in zip(where, original, again, strict=True):
        for inner, leaf in leaves(message):
            at = pointer + inner
            if any(at == loss.pointer or at.startswith(loss.pointer + "/") for loss in losses):
                continue
            assert value_at(returned, inner) == leaf, at
    if produced.line == "1.5":
        reopened = tmp_path / "again.jsonl"
        reopened.write_text(text, "utf-8")
        consumed = run_pi("1.5", "consume", tmp_path / "consumed", "--session", str(reopened))
        assert read_json(consumed.out / "report.json")["rewritten"] is False
        assert read_json(consumed.out / "session-context.json")["messages"] == again
