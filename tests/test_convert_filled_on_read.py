"""Issue 19: Operator-Use's reader fills a missing message id with a random uuid4, a missing
session entry id with ``str(uuid4())[:8]`` and a missing timestamp with the time of reading
(``x-default-factory``). A conversion of such a document is the same on every run (an id derived
from the input, a timestamp 0), names each filled value as ``invented`` at its pointer, and never
calls a key the source did not have ``dropped`` (phi-core has no message id)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from command import run

from phi_wire.convert import Lost, convert_file, convert_stream

NO_ID_NOR_TIME = '{"role":"user","contents":[{"type":"text","content":"hi"}]}'
WITH_BOTH = (
    '{"role":"assistant","contents":[{"type":"text","content":"yes"}],'
    '"id":"f8231d99-65e3-42cb-ad3c-3ba1322b7d97","timestamp":1763895602.193}'
)
HEADER = '{"type":"session","version":3,"id":"019ab05e","timestamp":1763895600.731,"cwd":"/p"}'
ENTRY_WITHOUT_ID = (
    '{"timestamp":1763895602.5,"type":"model_change","model_id":"gpt-5","provider_id":"openai"}'
)
MESSAGE_ENTRY = (
    '{"id":"9e3779b1","type":"message","message":'
    '{"role":"user","contents":[{"type":"text","content":"hi"}]}}'
)
"""A message entry without a timestamp, its message without id nor timestamp."""
BIG = 200_000
"""Bytes enough for the dict converters (they take inputs of 128 kB or more)."""
TARGETS = ["operator-use", "operator-use/d1cdaad8", "phi-core", "clark-agent"]


def losses_at(err: str, where: str) -> list[tuple[str, str]]:
    """(kind, reason) of each loss ``-v`` lists at ``where`` (``file:line /pointer``)."""
    found = []
    heading = ""
    for line in err.splitlines():
        if line.startswith("phi-wire:   ") and not line.startswith("phi-wire:     "):
            heading = line.removeprefix("phi-wire:   ")
        elif line.removeprefix("phi-wire:     ") == where:
            _, kind, reason = heading.split(" ", 2)
            found.append((kind.rstrip(":"), reason))
    return found


def converted_twice(capsys: pytest.CaptureFixture[str], path: Path, target: str) -> tuple[str, str]:
    """The output and the ``-v`` report of converting ``path`` to ``target``; run twice, the
    same both times."""
    outputs = []
    for _ in range(2):
        code, out, err = run(
            capsys, "convert", "--from", "operator-use", "--to", target, "-o", "-", "-v", str(path)
        )
        assert code == 0, err
        outputs.append((out, err))
    assert outputs[0] == outputs[1]
    return outputs[0]


@pytest.mark.parametrize("target", TARGETS)
def test_a_message_without_id_nor_timestamp_converts_the_same_every_time(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, target: str
) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text(f"{WITH_BOTH}\n{NO_ID_NOR_TIME}\n")
    out, err = converted_twice(capsys, path, target)
    (id_loss,) = losses_at(err, f"{path}:2 /id")
    assert id_loss[0] == "invented" and "random uuid4" in id_loss[1], err
    (time_loss,) = losses_at(err, f"{path}:2 /timestamp")
    assert time_loss[0] == "invented" and "time of reading" in time_loss[1], err
    assert "dropped" not in {kind for kind, _ in losses_at(err, f"{path}:2 /id")}, err
    written = json.loads(out.splitlines()[1])
    assert written["timestamp"] == 0, out
    if target.startswith("operator-use"):
        assert written["id"] != json.loads(out.splitlines()[0])["id"], out


def test_a_big_input_takes_the_same_values_and_losses_as_a_small_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """An input big enough for the dict converters: they hand the line without id to the
    models, which make the same values and losses as for a small input."""
    lines = [WITH_BOTH] * (BIG // len(WITH_BOTH) + 1)
    big = tmp_path / "big.jsonl"
    big.write_text("\n".join([*lines, NO_ID_NOR_TIME]) + "\n")
    for target in ("phi-core", "operator-use"):
        out, err = converted_twice(capsys, big, target)
        where = f"{big}:{len(lines) + 1}"
        assert [kind for kind, _ in losses_at(err, f"{where} /id")] == ["invented"], err
        assert [kind for kind, _ in losses_at(err, f"{where} /timestamp")] == ["invented"], err
        assert json.loads(out.splitlines()[-1])["timestamp"] == 0, out


@pytest.mark.parametrize("target", TARGETS)
def test_a_session_file_entry_without_id_or_timestamp_converts_the_same_every_time(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, target: str
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(f"{HEADER}\n{ENTRY_WITHOUT_ID}\n{MESSAGE_ENTRY}\n")
    out, err = converted_twice(capsys, path, target)
    expected = {
        f"{path}:2 /id": "str(uuid4())[:8]",
        f"{path}:3 /timestamp": "time of reading",
        f"{path}:3 /message/id": "random uuid4",
        f"{path}:3 /message/timestamp": "time of reading",
    }
    for where, words in expected.items():
        kinds = losses_at(err, where)
        assert [kind for kind, _ in kinds] == ["invented"] and words in kinds[0][1], (where, err)
    if target.startswith("operator-use"):
        entry = json.loads(out.splitlines()[1])
        assert len(entry["id"]) == 8 and entry["id"] != "019ab05e", out
        message_entry = json.loads(out.splitlines()[2])
        assert message_entry["timestamp"] == 0 and message_entry["message"]["timestamp"] == 0


def test_convert_file_and_convert_stream_give_the_same_values_every_time(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text(f"{NO_ID_NOR_TIME}\n")
    for convert in (
        lambda: convert_file(path, target="operator-use"),
        lambda: convert_stream([NO_ID_NOR_TIME], target="operator-use", source="operator-use"),
    ):
        first, second = list(convert()), list(convert())
        assert first == second
        pointers = {item.loss.pointer: item.loss.kind for item in first if isinstance(item, Lost)}
        assert pointers == {"/id": "invented", "/timestamp": "invented"}, first


def test_phi_core_drops_no_id_the_source_did_not_have(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text(f"{NO_ID_NOR_TIME}\n")
    losses = [item.loss for item in convert_file(path, target="phi-core") if isinstance(item, Lost)]
    assert not [loss for loss in losses if loss.kind != "invented"], losses
