"""A NaN or an infinity in an Operator-Use value: never a silent null, never a traceback.

Operator-Use fact: its reader (pydantic on Python's ``json``) reads ``NaN``, ``Infinity``,
``-Infinity`` and ``1e400`` as floats, and its writer writes them as ``null``; phi-core's and
clark-agent's readers (serde_json) hold no such number. Before h19v the conversion read its source
through Operator-Use's writer, so tool-call arguments and custom details became ``null`` with no
loss, and a NaN cost raised a TypeError (``math.copysign`` of None). Each is now a ``changed``
loss at its pointer (``NOT_HELD``; ``WRITTEN_AS_NULL`` written back as Operator-Use), in every
direction, on the command line (whole and streamed) and in the library.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from command import run

import phi_wire.operator_use as ou
from phi_wire.convert import Document, Loss, Lost, convert, convert_file, convert_stream

NOT_HELD = "NaN/Infinity: phi-core cannot hold it: written as null"
WRITTEN_AS_NULL = "NaN/Infinity: Operator-Use's writer cannot write it: written as null"
"""The reasons said (``formats/operator_use/_non_finite``'s), as the command says them."""

USAGE = (
    '"usage":{"input_tokens":3000,"output_tokens":50,"cache_read_tokens":0,'
    '"cache_write_tokens":0,"cost":{"input":%s,"output":0.00375,"cache_read":0.0,'
    '"cache_write":0.0,"total":0.04875}}'
)
CALL = (
    '{"role":"assistant","contents":[{"type":"tool_call","id":"t1","name":"read_file",'
    '"kind":"read","args":{"a":NaN,"b":Infinity,"c":1,"d":[2,-Infinity]},"metadata":{}}],'
    '"id":"41ac9159-1699-4d1d-93e6-1f5f952cb98d","timestamp":1763899204.8456783,'
    + USAGE % "0.045"
    + ',"stop_reason":"tool_calls","error":""}'
)
"""The brief's reproducer (a list in the arguments too)."""
CALL_AT = ["/contents/0/args/a", "/contents/0/args/b", "/contents/0/args/d/1"]
CUSTOM = '{"role":"custom","custom_type":"k","contents":[],"details":{"x":1e400},"timestamp":NaN}'
CUSTOM_AT = ["/details/x", "/timestamp"]
PLAIN = (
    '{"role":"user","contents":[{"type":"text","content":"Read it."}],'
    '"id":"f8231d99-65e3-42cb-ad3c-3ba1322b7d97","timestamp":1763899203.5}'
)
SESSION = "\n".join(
    [
        '{"type":"session","version":3,"id":"019ab05e-e380-7a51-a2b2-bbd1c38dbe31",'
        '"timestamp":1763895600.731,"cwd":"/p"}',
        '{"id":"32b5dbc3","timestamp":1763895602.193,"type":"model_change","model_id":"gpt-5",'
        '"provider_id":"openai"}',
        '{"id":"af9e4e0d","timestamp":1763895603.0,"parent_id":"32b5dbc3","type":"message",'
        '"message":' + CALL.replace(USAGE % "0.045", USAGE % "NaN") + "}",
        '{"id":"0bbe5785","timestamp":1763902806.5,"parent_id":"af9e4e0d",'
        '"type":"custom_message","custom_type":"reminder","content":[{"type":"text",'
        '"content":"short"}],"display":false,"details":{"source":-Infinity}}',
    ]
)
"""A session file whose message carries a NaN cost (a traceback before) and NaN arguments, and
whose custom message's details an infinity."""
SESSION_LOST = [("3", "/message" + pointer) for pointer in CALL_AT] + [("4", "/details/source")]
TARGETS = ["phi-core", "clark-agent", "pi", "otel-genai"]


def _not_held(losses: list[Lost]) -> list[tuple[str, str]]:
    return [
        (lost.where.rpartition(":")[2], lost.loss.pointer)
        for lost in losses
        if lost.loss.reason == NOT_HELD and lost.loss.kind == "changed"
    ]


def _split(items: list[Document | Lost]) -> tuple[str, list[Lost]]:
    text = "".join(item.text + "\n" for item in items if isinstance(item, Document))
    return text, [item for item in items if isinstance(item, Lost)]


@pytest.mark.parametrize("target", TARGETS)
def test_message_lines_name_each_nan_in_every_direction(target: str, tmp_path: Path) -> None:
    path = tmp_path / "nan.jsonl"
    path.write_text(f"{PLAIN}\n{CALL}\n{CUSTOM}\n")
    text, losses = _split(list(convert_file(path, target=target, source="operator-use")))
    expected = [("2", at) for at in CALL_AT] + [("3", at) for at in CUSTOM_AT]
    assert sorted(_not_held(losses)) == sorted(expected)
    assert "NaN" not in text and "Infinity" not in text  # what each target reads: null
    lines = path.read_text().splitlines()
    streamed = _split(list(convert_stream(lines, target=target, name=str(path))))
    assert streamed[0] == text and sorted(_not_held(streamed[1])) == sorted(expected)


@pytest.mark.parametrize("target", TARGETS)
def test_a_session_file_names_each_nan_and_a_nan_cost_is_no_traceback(
    target: str, tmp_path: Path
) -> None:
    path = tmp_path / "session.jsonl"
    path.write_text(SESSION + "\n")
    _, losses = _split(list(convert_file(path, target=target)))
    assert sorted(_not_held(losses)) == sorted(SESSION_LOST)
    cost = [lost.loss for lost in losses if lost.where.endswith(":3")]
    assert Loss("/message/usage/cost/input", "dropped", "phi-core usage has no cost") in cost


@pytest.mark.parametrize("target", ["phi-core", "clark-agent"])
def test_a_session_file_big_enough_for_the_dict_path_hands_them_to_the_models(
    target: str, tmp_path: Path
) -> None:
    """Its NaN arguments and an infinity in custom details after 1,000 message entries (the
    dict converter tried first: ``FAST_MIN_BYTES``), its costs finite."""
    header, change, message, custom = SESSION.replace(USAGE % "NaN", USAGE % "0.0").split("\n")
    entry = json.loads(message)
    entries = []
    for index in range(1000):
        entry = {**entry, "id": f"{index:08x}", "parent_id": entry["id"]}
        entries.append(json.dumps(entry))
    custom = custom.replace('"parent_id":"af9e4e0d"', f'"parent_id":"{entry["id"]}"')
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join([header, change, message, *entries, custom]) + "\n")
    _, losses = _split(list(convert_file(path, target=target)))
    lost = sorted(_not_held(losses))
    assert lost == sorted(
        [(str(line), "/message" + at) for line in range(3, 1004) for at in CALL_AT]
        + [("1004", "/details/source")]
    )


@pytest.mark.parametrize("target", ["phi-core", "clark-agent"])
def test_the_command_lists_them_whole_and_streamed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, target: str
) -> None:
    """The brief's command; and a file big enough to be streamed batch by batch (its NaN line in
    the second batch)."""
    small = tmp_path / "nan.jsonl"
    small.write_text(CALL + "\n")
    big = tmp_path / "big.jsonl"
    big.write_text(f"{PLAIN}\n" * 1500 + f"{CALL}\n")
    for path, line in ((small, 1), (big, 1501)):
        args = ("convert", "--from", "operator-use", "--to", target, str(path), "-v")
        code, _, err = run(capsys, *args, "-o", str(tmp_path / "out.jsonl"))
        assert code == 0, err
        assert f"changed: {NOT_HELD}" in err
        for pointer in CALL_AT:
            assert f"{path}:{line} {pointer}\n" in err


def test_the_library_converts_models_naming_each_nan() -> None:
    messages = [ou.loads(ou.AgentMessage, line) for line in (PLAIN, CALL, CUSTOM)]
    listed = convert(messages, source="operator-use", target="phi-core")
    expected = [Loss(f"/1{at}", "changed", NOT_HELD) for at in CALL_AT]
    expected += [Loss(f"/2{at}", "changed", NOT_HELD) for at in CUSTOM_AT]
    assert sorted(loss for loss in listed.losses if loss.reason == NOT_HELD) == sorted(expected)
    one = convert(messages[1], source="operator-use", target="clark-agent")
    assert [loss.pointer for loss in one.losses if loss.reason == NOT_HELD] == CALL_AT
    usage = ou.loads(ou.Usage, "{" + (USAGE % "NaN").partition(":")[2][1:])
    assert convert(usage, source="operator-use", target="phi-core").losses == (
        Loss("/cost/input", "dropped", "phi-core usage has no cost"),
        Loss("/cost/output", "dropped", "phi-core usage has no cost"),
        Loss("/cost/total", "dropped", "phi-core usage has no cost"),
    )


def test_written_back_as_operator_use_each_nan_is_named(tmp_path: Path) -> None:
    """Operator-Use -> Operator-Use: its reader read the NaN, its writer writes null."""
    path = tmp_path / "nan.jsonl"
    path.write_text(f"{PLAIN}\n{CALL}\n")
    text, losses = _split(list(convert_file(path, target="operator-use")))
    assert json.loads(text.splitlines()[1])["contents"][0]["args"]["a"] is None
    assert [(lost.where, lost.loss) for lost in losses] == [
        (f"{path}:2", Loss(at, "changed", WRITTEN_AS_NULL)) for at in CALL_AT
    ]
