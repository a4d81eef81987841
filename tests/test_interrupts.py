"""Ctrl-C, SystemExit and MemoryError leave every entry point as themselves (issue 17, defect 2).

pydantic-core reports whatever a Python function raises while it serializes as a
``PydanticSerializationError`` (a ``ValueError``): phi-wire's ``dumps`` turned a Ctrl-C into a
``WireError``, which any ``except ValueError`` swallows, and ``phi-wire convert`` printed it as a
traceback.

No timers: the interrupt is a real SIGINT that the process sends itself (``signal.raise_signal``)
the first time Python enters a named function while serializing, which is where a user's Ctrl-C
lands when it arrives during ``dumps`` (``ctrl_c_in``), or an exception that a value's own
serializer raises (``raising``). Each test checks that its interrupt did fire.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from corpus import ROOT, fixtures_root
from pydantic import BaseModel, model_serializer

import phi_wire
from phi_wire import clark_agent as clark
from phi_wire import operator_use as ou
from phi_wire import sse
from phi_wire.convert import convert
from phi_wire.validate import validate

PHI_CORE = fixtures_root() / "phi-core" / "0.10.0"
CLARK = fixtures_root() / "clark-agent" / "0.4.0"
OPERATOR_USE = fixtures_root() / "operator-use" / "d0da87a6"
ASSISTANT = PHI_CORE / "valid" / "AgentMessage" / "AgentMessage.llm_assistant_error.json"
SESSION = OPERATOR_USE / "sessions" / "branched.jsonl"
EVENTS = ROOT / "examples" / "events.jsonl"
PASSING = [KeyboardInterrupt(), SystemExit(3), MemoryError()]


@contextmanager
def ctrl_c_in(function: str) -> Iterator[list[str]]:
    """SIGINT, sent by this process to itself the first time Python enters ``function`` (by its
    name) inside the block; the list yielded holds the name once it was sent."""
    sent: list[str] = []

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and frame.f_code.co_name == function and not sent:
            sent.append(function)
            signal.raise_signal(signal.SIGINT)  # its handler raises KeyboardInterrupt here

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.setprofile(profile)
    try:
        yield sent
    finally:
        sys.setprofile(None)
        signal.signal(signal.SIGINT, previous)


def interrupted_in(function: str, call: Callable[[], object]) -> None:
    """``call()`` raises the KeyboardInterrupt of a Ctrl-C in ``function``, unchanged."""
    with ctrl_c_in(function) as sent, pytest.raises(KeyboardInterrupt):
        call()
    assert sent, f"{function} was never entered: the test proved nothing"


def raising(error: BaseException) -> BaseModel:
    """A value whose own serializer raises ``error`` (put into a JSON-value field unvalidated,
    as ``model_copy(update=...)`` and ``model_construct`` allow)."""

    class Raising(BaseModel):
        @model_serializer
        def write(self) -> Any:
            raise error

    return Raising()


def check_passes(error: BaseException, call: Callable[[], object]) -> None:
    with pytest.raises(type(error)) as raised:
        call()
    assert type(raised.value) is type(error)
    if isinstance(error, SystemExit):
        assert raised.value.code == error.code


def pydantic_own_json(value: BaseModel) -> str:
    """``value`` written by pydantic's own serializer, with the Python serializer functions
    phi-wire's models declare: ``model_dump_json`` given an option other than ``indent``,
    ``ensure_ascii`` or ``warnings`` (without one it runs ``dumps``'s serializer)."""
    return value.model_dump_json(exclude_unset=False)


def assistant() -> Any:
    message = phi_wire.loads(phi_wire.AgentMessage, ASSISTANT.read_bytes())
    assert isinstance(message, phi_wire.LlmMessage.__value__.__args__)  # the sorted-keys writer
    return message


UNSORTED_ARGUMENTS = {"path": {"b": [{"z": 1, "y": 2}], "a": 0}, "command": "ls"}
"""Tool-call arguments a program wrote unsorted, nested: ``dumps`` sorts them in Python
(``sorted_json`` finds them out of order with ``_in_order``, then ``sort_json``)."""

DUMPS_FUNCTIONS = ["_in_order", "sort_json", "<dictcomp>"]
"""The Python functions ``dumps`` runs inside ``sorted_json`` on such arguments."""


def with_unsorted_call(message: Any) -> Any:
    message.content = [phi_wire.ToolCallContent(id="t", name="n", arguments=UNSORTED_ARGUMENTS)]
    return message


@pytest.mark.parametrize("function", ["_serialize_sorted", "sort_json"])
@pytest.mark.parametrize("pretty", [False, True])
def test_ctrl_c_during_phi_core_dumps_is_a_keyboard_interrupt(function: str, pretty: bool) -> None:
    """The issue's case: dumps of an assistant message, interrupted in its Python serializer
    functions, once gave ``WireError: ... Error calling function _serialize_sorted:
    KeyboardInterrupt``. pydantic's own serializer still runs them: ``model_dump``, and
    ``model_dump_json`` given an option (``pydantic_own_json``)."""
    message = assistant()
    written = phi_wire.dumps(message, pretty=pretty)
    interrupted_in(function, lambda: pydantic_own_json(message))
    interrupted_in(function, lambda: message.model_dump())  # Python mode: the cause was kept
    assert phi_wire.dumps(message, pretty=pretty) == written  # nothing left behind


@pytest.mark.parametrize("function", DUMPS_FUNCTIONS)
@pytest.mark.parametrize("pretty", [False, True])
def test_ctrl_c_in_the_functions_dumps_runs_is_a_keyboard_interrupt(
    function: str, pretty: bool
) -> None:
    """``dumps`` writes an ``LlmMessage`` sorted without ``_serialize_sorted`` (issue 21): the
    Python functions it still runs, on a ``JsonValue`` out of order, let a Ctrl-C through."""
    message = with_unsorted_call(assistant())
    written = phi_wire.dumps(message, pretty=pretty)
    interrupted_in(function, lambda: phi_wire.dumps(message, pretty=pretty))
    interrupted_in(function, lambda: message.model_dump_json())
    assert phi_wire.dumps(message, pretty=pretty) == written


def events_with_messages() -> list[Any]:
    lines = EVENTS.read_text(encoding="utf-8").splitlines()
    events = [phi_wire.loads(phi_wire.AgentEvent, line) for line in lines]
    return [event for event in events if getattr(event, "message", None) is not None]


def events_with_unsorted_calls() -> list[Any]:
    """The events whose message holds a tool call, its arguments made ``UNSORTED_ARGUMENTS``."""
    events = events_with_messages()
    chosen = [
        event for event in events if event.message.role == "assistant" and event.message.tool_calls
    ]
    for event in chosen:
        with_unsorted_call(event.message)
    assert chosen
    return chosen


@pytest.mark.parametrize("function", ["_serialize_sorted", "sort_json", "<dictcomp>"])
def test_ctrl_c_inside_a_union_is_not_dropped(function: str) -> None:
    """pydantic-core drops what a serializer function raises inside a union (an event's message)
    and writes the next variant, so dumps returned as if no Ctrl-C had been pressed (no error at
    all: 188 of 300 timed interrupts of a dumps loop were lost so)."""
    for event in events_with_messages():
        written = phi_wire.dumps(event)
        interrupted_in(function, lambda: pydantic_own_json(event))  # noqa: B023
        assert phi_wire.dumps(event) == written


@pytest.mark.parametrize("function", DUMPS_FUNCTIONS)
def test_ctrl_c_inside_a_union_is_not_dropped_by_dumps(function: str) -> None:
    """The same for the functions ``dumps`` runs inside an event's message (issue 21)."""
    for event in events_with_unsorted_calls():
        written = phi_wire.dumps(event)
        interrupted_in(function, lambda: phi_wire.dumps(event))  # noqa: B023
        assert phi_wire.dumps(event) == written


@pytest.mark.xfail(
    strict=True,
    raises=pytest.fail.Exception,
    reason="pydantic-core drops an interrupt raised on the first instruction of a Python "
    "function it calls inside a union, before any try of that function; the command line "
    "notes the signal itself (test_ctrl_c_in_the_command_line_says_interrupted)",
)
@pytest.mark.parametrize("writer", ["model_dump_json", "dumps"])
def test_ctrl_c_on_the_first_instruction_inside_a_union_is_dropped_by_pydantic(
    writer: str,
) -> None:
    """What stays out of the library's reach (``phi_wire.serde._interrupts``): the function
    pydantic calls (``keeping``, the wrapper of ``_serialize_sorted``; ``sorted_json``, which
    ``dumps`` runs for a ``JsonValue``); a Ctrl-C handled on its first instruction never reaches
    its try."""
    event = events_with_unsorted_calls()[0]
    if writer == "dumps":
        interrupted_in("sorted_json", lambda: phi_wire.dumps(event))
    else:
        interrupted_in("keeping", lambda: pydantic_own_json(event))


def test_ctrl_c_during_operator_use_dumps_and_loads_is_a_keyboard_interrupt() -> None:
    """Operator-Use writes a session header's ``cwd`` through pydantic's Python ``ser_path``; its
    ``loads`` of a session file writes the lines holding ``null`` again (``fork_from``'s)."""
    text = SESSION.read_text(encoding="utf-8")
    session = ou.loads(ou.SessionFile, text)
    assert ou.dumps(session)
    interrupted_in("ser_path", lambda: ou.dumps(session))
    interrupted_in("ser_path", lambda: ou.dumps(session[0]))
    with_null = '{"type":"session","version":3,"id":"s","timestamp":1.0,"cwd":"/p","x":null}\n'
    interrupted_in("ser_path", lambda: ou.loads(ou.SessionFile, with_null))


@pytest.mark.parametrize("error", PASSING, ids=lambda error: type(error).__name__)
def test_what_a_serializer_raises_passes_through_every_format(error: BaseException) -> None:
    """KeyboardInterrupt, SystemExit (its code kept) and MemoryError, raised while a value is
    written (pydantic-core keeps only their text in JSON mode), leave dumps of each format as
    themselves; a ValueError there is still the WireError it was."""
    tool_call = clark.ToolCall(id="t", name="n", arguments={})
    clark_value = tool_call.model_copy(update={"arguments": raising(error)})
    ou_value = ou.ToolCallContent(id="t", name="n", args={"a": raising(error)})
    extension = phi_wire.ExtensionMessage.new("status", {})
    phi_value = extension.model_copy(update={"data": raising(error)})
    for call in (
        lambda: phi_wire.dumps(phi_value),
        lambda: phi_wire.dumps(phi_value, pretty=True),
        lambda: clark.dumps(clark_value),
        lambda: ou.dumps(ou_value),
        lambda: ou_value.model_dump(),
    ):
        check_passes(error, call)
    with pytest.raises(phi_wire.WireError):
        clark.dumps(tool_call.model_copy(update={"arguments": raising(ValueError("no"))}))


def test_ctrl_c_during_convert_is_a_keyboard_interrupt() -> None:
    """convert() turns a clark-agent tool result into phi-core's plain message through
    ``model_dump`` (pydantic keeps the interrupt only as a cause there), and writes its
    Operator-Use input with ``ou.dumps`` to read it."""
    stream = (CLARK / "streams" / "events.reasoning_tool_run.jsonl").read_text(encoding="utf-8")
    line = next(line for line in stream.splitlines() if '"type":"turn_end"' in line)
    turn_end = clark.loads(clark.AgentEvent, line)
    assert turn_end.tool_results and convert(turn_end, target="phi-core").value is not None
    interrupted_in("_serialize_sorted", lambda: convert(turn_end, target="phi-core"))
    for error in PASSING:
        call = ou.ToolCallContent(id="t", name="n", args={"a": raising(error)})
        message = ou.AssistantMessage(contents=[call])
        check_passes(error, lambda: convert(message, target="phi-core"))  # noqa: B023


def test_ctrl_c_during_strict_validate_is_a_keyboard_interrupt() -> None:
    """validate(strict=True) writes each document again to compare: a Ctrl-C there was a
    WireError, a ValueError its judge took for a problem of the document."""
    assert list(validate([str(ASSISTANT)], strict=True)) == []
    interrupted_in("written_json", lambda: list(validate([str(ASSISTANT)], strict=True)))


def test_ctrl_c_during_sse_encode_is_a_keyboard_interrupt() -> None:
    """The SSE server helpers write each event with dumps."""
    event = events_with_messages()[0]
    assert sse.encode(event).startswith(f"event: {event.type}\n".encode())
    interrupted_in("written_json", lambda: sse.encode(event))
    interrupted_in("written_json", lambda: b"".join(sse.sse_body([event])))


@pytest.mark.parametrize("function", ["from_json_text", "_validate_json_value"])
def test_ctrl_c_during_loads_is_a_keyboard_interrupt(function: str) -> None:
    """loads already let it through (kept tested): a Ctrl-C in a validator function pydantic
    calls, inside the AgentEvent union too; the exact path (no fast path) is the one tested."""
    for line in EVENTS.read_text(encoding="utf-8").splitlines()[:1]:  # AgentStart: both run
        interrupted_in(function, lambda: phi_wire.loads(phi_wire.AgentEvent, line))  # noqa: B023


CTRL_C_IN_CLI = """
import signal, sys
from phi_wire.cli import main

function, nth = sys.argv[1].split("#")
entered = 0

def profile(frame, event, arg):
    global entered
    if event == "call" and frame.f_code.co_name == function:
        entered += 1
        if entered == int(nth):
            signal.raise_signal(signal.SIGINT)

sys.setprofile(profile)
status = main(sys.argv[2:])
sys.exit(status if entered == int(nth) else 99)
"""
"""``phi-wire ARGS``, with a Ctrl-C sent the nth time Python enters the function ``NAME#n``; exit
status 99 if it never was."""


@pytest.mark.parametrize(
    ("function", "arguments"),
    [
        # dumps writes phi-core's messages without a Python function (issue 21): the Ctrl-C
        # lands in ``written_json``, which runs pydantic's serializer for it
        ("written_json#1", ["convert", "{clark}", "--to", "phi-core"]),
        ("written_json#1", ["convert", "{clark}", "--to", "phi-core", "-o", "{out}"]),
        ("ser_path#1", ["validate", "--strict", "{session}"]),
        ("written_json#1", ["validate", "--strict", "{assistant}"]),
        # the function pydantic calls, inside a union: dropped there, noted by the command line
        ("sorted_json#1", ["validate", "--strict", "{events}"]),
        ("sorted_json#1", ["convert", "{clark_events}", "--to", "phi-core"]),
        ("sorted_json#1", ["convert", "{clark_events}", "--to", "phi-core", "-o", "{out}"]),
    ],
)
def test_ctrl_c_in_the_command_line_says_interrupted(
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    function: str,
    arguments: list[str],
) -> None:
    """``phi-wire convert`` interrupted while it writes: ``phi-wire: interrupted``, exit 2, no
    traceback, no partial output file (it printed a traceback, exit 1, or a conversion error).
    An empty cache of its own: a small input then takes the path through the models, which calls
    the function, whatever expressions the run's other tests have cached by then."""
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", str(tmp_path_factory.mktemp("empty-cache")))
    paths = {
        "clark": str(CLARK / "history" / "history.multi_turn.jsonl"),
        "session": str(SESSION),
        "assistant": str(ASSISTANT),
        "events": str(EVENTS),
        "clark_events": str(CLARK / "streams" / "events.reasoning_tool_run.jsonl"),
        "out": str(tmp_path / "out.jsonl"),
    }
    command = [sys.executable, "-c", CTRL_C_IN_CLI, function]
    command += [argument.format(**paths) for argument in arguments]
    result = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert (result.returncode, result.stderr) == (2, "phi-wire: interrupted\n"), result
    assert os.listdir(tmp_path) == []  # no output file, no temporary file


def test_ctrl_c_from_outside_while_validate_runs_says_interrupted(tmp_path: Path) -> None:
    """A real Ctrl-C from another process, sent once the run has printed (and, its reader not
    reading on, is blocked writing more): the same one line and exit 2."""
    path = tmp_path / "bad.jsonl"
    path.write_text('{"type":"TurnStart","loop_id":"l"}\n' * 20000, encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "phi_wire", "validate", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    assert first.startswith(str(path).encode())  # running: it printed
    process.send_signal(signal.SIGINT)
    rest = process.stdout.read()  # read on, as a pager does: what was printed is delivered
    err = process.stderr.read().decode()
    assert process.wait() == 2 and err == "phi-wire: interrupted\n", err
    assert (first + rest).endswith(b"\n")  # whole lines only
