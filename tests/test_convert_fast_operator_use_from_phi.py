"""phi-core -> Operator-Use without the models (``FAST_SESSION_FILES``, taken by ``phi-wire
convert`` for a JSONL file of phi-core messages and for a phi-core Session file, both written as
one Operator-Use session file): for every phi-core message and session of the corpora (0.8 and
0.10), their corruptions, hand-made edge cases and generated documents, the file written, the
documents and losses (file, line, pointer, kind, reason, in order) are exactly the model path's,
and so is an error; and the corpus does take the fast path (it cannot fall back everywhere
unseen).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from command import run
from hypothesis import HealthCheck, given, settings
from schema_strategies import from_schema
from test_convert_fast import corpus_lines, corruptions

import phi_wire
import phi_wire.convert._files as convert_files
import phi_wire.v0_10 as phi
from phi_wire.convert import ConvertError, FastUnsupported, convert_stream
from phi_wire.formats.operator_use.convert import FAST_SESSION_FILES

SOURCE, TARGET = "phi-core", "operator-use"
VERSIONS = ("0.10.0", "0.8.0")
MESSAGES = corpus_lines(SOURCE, VERSIONS, {"AgentMessage"})
SESSIONS = corpus_lines(SOURCE, VERSIONS, {"Session"})
WRITE = FAST_SESSION_FILES[SOURCE, TARGET, "AgentMessage"]

Items = list[tuple[str, tuple[Any, ...]]] | tuple[str, str]
Run = Callable[..., tuple[Items, Items, bool]]


@pytest.fixture
def both(monkeypatch: pytest.MonkeyPatch) -> Iterator[Run]:
    """``run(lines)``: the items of ``convert_stream`` of the lines (one JSONL file, or one JSON
    document written over several lines) to Operator-Use with the fast path off, with it on,
    and whether it was taken."""
    monkeypatch.setattr(convert_files, "FAST_MIN_BYTES", 0)
    real = convert_files.session_file_converted

    def run(lines: list[bytes], source: str | None = SOURCE) -> tuple[Items, Items, bool]:
        taken = False

        def counted(*arguments: Any) -> Any:
            nonlocal taken
            done = real(*arguments)
            taken = done is not None
            return done

        results: list[Items] = []
        for converter in (lambda *_: None, counted):
            monkeypatch.setattr(convert_files, "session_file_converted", converter)
            try:
                items: Items = [
                    (type(item).__name__, tuple(item))
                    for item in convert_stream(lines, source=source, target=TARGET, name="in")
                ]
            except ConvertError as error:
                items = ("error", str(error))
            results.append(items)
        return results[0], results[1], taken

    yield run


def _line(document: Any) -> bytes:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "surrogatepass"
    )


def _written(line: bytes) -> bytes:
    """phi-core's own text of a valid message (``line`` itself when it is not valid)."""
    try:
        return phi_wire.dumps(phi_wire.loads(phi.AgentMessage, line)).encode()
    except phi_wire.WireError:
        return line


def _alike(run: Run, lines: list[bytes], source: str | None = SOURCE) -> bool:
    model, fast, taken = run(lines, source)
    assert fast == model, lines
    return taken


# --- hand-made messages ----------------------------------------------------------------------


def _user(timestamp: int = 1_779_702_067_386, text: str = "hi", **extra: Any) -> dict[str, Any]:
    return {
        "content": [{"text": text, "type": "text"}],
        "role": "user",
        "timestamp": timestamp,
        **extra,
    }


def _assistant(
    timestamp: int = 1_779_702_068_838,
    model: str = "claude-sonnet-4-5",
    arguments: Any = None,
    **extra: Any,
) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"text": "ok", "type": "text"}]
    if arguments is not None:
        content.append({"arguments": arguments, "id": "t1", "name": "bash", "type": "toolCall"})
    return {
        "content": content,
        "model": model,
        "provider": "anthropic",
        "role": "assistant",
        "stopReason": "toolUse",
        "timestamp": timestamp,
        "usage": {
            "cache_read": 0,
            "cache_write": 0,
            "input": 10,
            "output": 5,
            "reasoning": 0,
            "total_tokens": 15,
        },
        **extra,
    }


def _result(
    timestamp: int = 1_779_702_069_834, content: Any = None, call: str = "t1"
) -> dict[str, Any]:
    return {
        "content": [{"text": "done", "type": "text"}] if content is None else content,
        "isError": False,
        "role": "toolResult",
        "timestamp": timestamp,
        "toolCallId": call,
        "toolName": "bash",
    }


def _extension(role: str = "extension", kind: str = "ui.banner", data: Any = None) -> Any:
    return {"role": role, "kind": kind, "data": {"a": 1} if data is None else data}


EDGE_CASES: dict[str, list[Any]] = {
    "a conversation": [_user(), _assistant(arguments={"command": "ls"}), _result(), _user()],
    "results of one time merged": [
        _assistant(arguments={"a": 1}),
        _result(5000, call="t1"),
        _result(5000, call="t2"),
        _result(5000, [{"text": "x", "type": "text"}, {"text": "y", "type": "text"}]),
    ],
    "results of two times": [_result(5000), _result(5001), _result(5001)],
    "a result with no content": [_result(content=[])],
    "a result with an image": [
        _result(content=[{"data": "iVBORw0KGgo=", "mimeType": "image/png", "type": "image"}])
    ],
    "an empty error message": [_assistant(errorMessage="")],
    "an error message": [_assistant(errorMessage="boom")],
    "timestamps from 8.85e15": [_user(8_850_000_000_000_001), _user(2**64 - 1), _user(0)],
    "models changing": [
        _assistant(model="a"),
        _assistant(model="a"),
        _assistant(model="b"),
        _assistant(model=""),
    ],
    "an extension message": [_user(), _extension(), _assistant()],
    "an extension first": [_extension(data={"z": [1.5, None, "é"], "a": {}})],
    "an extension with a user's role": [_extension(role="user")],
    "an extension with an assistant's role": [_extension(role="assistant")],
    "an Operator-Use message carried": [
        _extension(
            kind="operator-use.system",
            data={"role": "system", "content": "be brief", "id": "s1", "timestamp": 1.5},
        )
    ],
    "an Operator-Use message of no such shape": [
        _extension(kind="operator-use.custom", data={"role": "custom", "x": 1})
    ],
    "unsorted arguments": [_assistant(arguments={"b": 1, "a": 2})],
    "nested unsorted arguments": [_assistant(arguments={"a": [{"d": 1, "c": 2}]})],
    "arguments not an object": [_assistant(arguments=[1, 2])],
    "edge numbers in arguments": [
        _assistant(arguments={"a": number})
        for number in (1e16, 1e-7, 0.1, 1.0, 2**63, 2**64 - 1, -(2**63), 1e300, -0.0)
    ],
    "usage beyond i64": [_assistant(usage={"input": 2**64 - 1, "output": 2**63})],
    "all stop reasons": [
        _assistant(stopReason=reason)
        for reason in (
            *("stop", "length", "toolUse", "error", "aborted", "guardRail"),
            *("maxTurns", "userStop", "handoff", "contextCompacted", "paused"),
        )
    ],
    "ids and tags": [
        _user(turnId="t", nodeId="n", parentId="p", tags=["x"], provenanceHint="h"),
        _user(tags=[]),
    ],
    "texts": [
        _user(text=text)
        for text in ("é\u2028\u2029\u0085\U0001f600", 'q"\\/\n\t\x01\x7f', "", "\u00e9" * 3)
    ],
    "thinking": [
        _assistant(content=[{"thinking": "hm", "type": "thinking", "signature": "s"}]),
        _assistant(content=[{"thinking": "hm", "type": "thinking"}]),
    ],
    "images in a user message": [
        _user(
            content=[
                {"data": "a", "mimeType": "image/png", "type": "image"},
                {"data": "b", "mimeType": "image/png", "type": "image"},
                {"text": "t", "type": "text"},
                {"data": "c", "mimeType": "image/png", "type": "image"},
            ]
        )
    ],
}
"""Messages (JSON) of each edge case, in one file (a user message after them: a file of one line
is read as one JSON document, which converts to one Operator-Use message, not a session file)."""

TEXT_EDITS: tuple[tuple[bytes, bytes], ...] = (
    (b'"hi"', b'"h\\u0069"'),  # an escape phi-core does not write
    (b'"hi"', b'"h\\/i"'),
    (b'"hi"', b'"\\ud800"'),  # a lone surrogate
    (b'"hi"', b'"\\ud83d\\ude00"'),
    (b'"hi"', b'"\\u001F"'),
    (b'"hi"', b'"\xe2\x80\xa8"'),  # U+2028 raw
    (b'{"command":"ls"}', b'{"command":"ls","command":"rm"}'),  # a key twice
    (b'{"command":"ls"}', b'{"command":-0}'),
    (b'{"command":"ls"}', b'{"command":1.50}'),
    (b'{"command":"ls"}', b'{"command":1E2}'),
    (b'{"command":"ls"}', b'{"command":100000000000000000000}'),
    (b'{"command":"ls"}', b'{"command":null}'),
    (b'"role":"user"', b'"role":"user","unknownKey":1'),
    (b'"isError":false', b'"isError":null'),
    (b'"timestamp":1779702067386', b'"timestamp":1.779702067386e12'),
)
"""Byte edits of the conversation's lines (each alone): what the text check must see."""


MODEL_PATH_CASES = frozenset(
    {
        "an Operator-Use message carried",  # read by its layout's models
        "edge numbers in arguments",  # 1e+16 and 1e-07: printed otherwise by the writers
        "timestamps from 8.85e15",
        "usage beyond i64",
    }
)
"""The edge cases that take the model path even as phi-core writes them; every other one is
converted dict to dict."""


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_edge_cases_convert_alike(both: Run, case: str) -> None:
    lines = [_line(message) for message in [*EDGE_CASES[case], _user()]]
    _alike(both, lines)
    assert _alike(both, [_written(line) for line in lines]) is (case not in MODEL_PATH_CASES)


@pytest.mark.parametrize("source", [SOURCE, None])
def test_the_conversation_takes_the_fast_path(both: Run, source: str | None) -> None:
    """With ``--from phi-core`` (taken before recognising) or recognised."""
    lines = [_written(_line(message)) for message in EDGE_CASES["a conversation"]]
    assert _alike(both, lines, source)
    broken = [*lines[:-1], lines[-1][:-1]]  # not JSON: the same error both ways
    assert not _alike(both, broken, source)


@pytest.mark.parametrize("edit", range(len(TEXT_EDITS)))
def test_text_edits_convert_alike(both: Run, edit: int) -> None:
    lines = [_written(_line(message)) for message in EDGE_CASES["a conversation"]]
    old, new = TEXT_EDITS[edit]
    edited = [line.replace(old, new) for line in lines]
    assert edited != lines
    _alike(both, edited)


def test_the_corpus_messages_convert_alike_and_by_the_fast_path(both: Run) -> None:
    """Every message alone, twice (a merged tool result), and all the valid ones as one file
    (each as phi-core writes it)."""
    taken = 0
    valid: list[bytes] = []
    for line in MESSAGES:
        taken += _alike(both, [line, line])
        written = _written(line)
        if written != line or _valid(line):
            valid.append(written)
    assert len(valid) >= 15
    assert taken >= 10, (taken, len(valid))
    assert _alike(both, valid)


def test_corrupted_messages_convert_alike(both: Run) -> None:
    checked = 0
    for seed, line in enumerate(MESSAGES):
        for variant in corruptions(_written(line), seed):
            _alike(both, [variant, _written(line)])
            checked += 1
    assert checked > 300


def test_generated_messages_convert_alike(both: Run) -> None:
    @settings(
        max_examples=60,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(from_schema(phi_wire.schema(phi.AgentMessage)))
    def check(document: Any) -> None:
        line = _line(document)
        _alike(both, [line, _written(line), _written(line)])

    check()


def test_the_corpus_sessions_convert_alike_and_by_the_fast_path(both: Run) -> None:
    """Each session as one line and as ``save_session`` writes it (pretty)."""
    assert len(SESSIONS) >= 2
    taken = 0
    for line in SESSIONS:
        pretty = json.dumps(json.loads(line), indent=2, ensure_ascii=False).encode()
        taken += _alike(both, [line])
        taken += _alike(both, pretty.split(b"\n"))
    assert taken >= 2


def test_corrupted_sessions_convert_alike(both: Run) -> None:
    checked = 0
    for number, line in enumerate(SESSIONS):
        for seed in range(3):
            for variant in corruptions(line, number * 10 + seed):
                _alike(both, [variant])
                checked += 1
    assert checked > 50


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_sessions_of_edge_cases_convert_alike(both: Run, case: str) -> None:
    """A corpus session whose loops hold the edge case's messages, then its own."""
    session = json.loads(max(_valid_sessions(), key=len))
    loops = session["loops"]
    session["loops"] = [{**loops[0], "messages": EDGE_CASES[case]}, *loops]
    _alike(both, [phi_wire.dumps(phi_wire.loads(phi.Session, _line(session))).encode()])


@pytest.mark.parametrize("source", [SOURCE, None])
def test_a_session_file_of_a_corpus_session_takes_the_fast_path(
    both: Run, source: str | None
) -> None:
    written = [
        phi_wire.dumps(phi_wire.loads(phi.Session, line)).encode() for line in _valid_sessions()
    ]
    assert len(written) >= 2
    assert all(_alike(both, [line], source) for line in written)


def test_an_extension_message_of_an_assistants_role_is_a_custom_message_not_a_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """phi-core reads ``{"role":"assistant","kind":...,"data":...}`` as an ExtensionMessage; the
    session file's writer took it for an assistant and asked it for its model (an
    AttributeError traceback on main)."""
    source = tmp_path / "in.jsonl"
    source.write_bytes(b"".join(_line(m) + b"\n" for m in [_user(), _extension("assistant")]))
    out = tmp_path / "out.jsonl"
    code, _, err = run(
        capsys, "convert", "--from", SOURCE, "--to", TARGET, str(source), "-o", str(out)
    )
    assert code == 0, err
    entries = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [entry["type"] for entry in entries] == ["session", "message", "message"]
    assert entries[2]["message"]["role"] == "custom"
    assert "a custom message's role is custom" in err


def test_the_writer_hands_back_what_it_cannot_write_exactly() -> None:
    for messages in (
        [_assistant(arguments={"b": 1, "a": 2})],
        [_assistant(arguments={"a": 1e16})],
        [_assistant(arguments={"a": 2**64})],
        [_extension(kind="operator-use.system", data={"role": "system", "content": "x"})],
    ):
        texts = [_line(message).decode() for message in messages]
        with pytest.raises(FastUnsupported):
            WRITE(messages, texts, "in")


def _valid(line: bytes) -> bool:
    try:
        phi_wire.loads(phi.AgentMessage, line)
    except phi_wire.WireError:
        return False
    return True


def _valid_sessions() -> list[bytes]:
    found = []
    for line in SESSIONS:
        try:
            phi_wire.loads(phi.Session, line)
        except phi_wire.WireError:
            continue
        found.append(line)
    return found
