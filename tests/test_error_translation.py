"""pydantic's errors as WireErrors (runtime/serde/_error_translation.py): found values are named as
the document wrote them, and models built in Python get the same translation."""

from __future__ import annotations

from typing import Any

import pytest

import phi_wire.v0_10 as wire
from phi_wire import WireError

BIG = "18446744073709551616"  # u64::MAX + 1: serde_json reads an f64
SMALL = "-9223372036854775809"  # i64::MIN - 1: an f64 too
LONG = "1" + "0" * 5000  # past pydantic's and Python's integer limits

WHEN = '"timestamp":"2026-05-25T09:41:07Z"'
TURN_START = '{"type":"TurnStart","loop_id":"l","turn_index":N,' + WHEN + ',"triggered_by":"User"}'
COMPACTION = (
    '{"type":"CompactionStarted","loop_id":"l","estimated_tokens":N,"message_count":1,' + WHEN + "}"
)
TURN_ID = '{"role":"user","content":[],"timestamp":1,"turnId":{"loopId":"l","turnIndex":N}}'


@pytest.mark.parametrize(
    ("kind", "tp", "template", "pointer"),
    [
        ("u64", wire.Usage, '{"input":N,"output":1}', "/input"),
        ("u64", wire.Message, '{"role":"user","content":[],"timestamp":N}', "/timestamp"),
        ("u32", wire.AgentEvent, TURN_START, "/turn_index"),
        (
            "u32",
            wire.LlmMessage,
            TURN_ID,
            None,
        ),
        ("usize", wire.AgentEvent, COMPACTION, "/estimated_tokens"),
    ],
)
@pytest.mark.parametrize(
    ("lexeme", "serde_reads"),
    [
        (BIG, "floating point 1.8446744073709552e+19"),
        (SMALL, "floating point -9.223372036854776e+18"),  # below i64::MIN
        ("-0", "floating point -0.0"),
        (LONG, "floating point 1e+5000"),
    ],
)
def test_an_out_of_range_integer_is_named_as_written(
    kind: str, tp: Any, template: str, pointer: str | None, lexeme: str, serde_reads: str
) -> None:
    """Issue 10: "timestamp":18446744073709551616 was reported as "found floating point
    1.8446744073709552e+19", the float pydantic was shown after serde's number pass."""
    text = template.replace("N", lexeme)
    if lexeme == LONG:
        with pytest.raises(WireError, match="number out of range"):  # f64 overflow: serde too
            wire.loads(tp, text)
        return
    if pointer is None:  # LlmMessage metadata: phi-core drops a malformed turnId
        assert wire.loads(tp, text).turn_id is None
        return
    with pytest.raises(WireError) as caught:
        wire.loads(tp, text)
    error = caught.value
    assert error.pointer == pointer, kind
    assert f"found integer {lexeme}, which serde_json reads as {serde_reads}" in str(error), str(
        error
    )


def test_long_lexemes_are_shortened_in_messages() -> None:
    lexeme = "1" * 300  # a valid f64 for serde (1.1e299), not a u64
    with pytest.raises(WireError) as caught:
        wire.loads(wire.Usage, f'{{"input":{lexeme},"output":1}}')
    message = str(caught.value)
    assert "found integer 111111111111111111111111...(300 characters)" in message, message
    assert len(message) < 200


def test_numbers_that_need_no_rewrite_keep_pydantics_description() -> None:
    with pytest.raises(WireError, match=r"found floating point 1\.0$"):
        wire.loads(wire.Usage, '{"input":1.0,"output":1,"x":-0}')  # -0 elsewhere: a rewrite ran
    with pytest.raises(WireError, match=r"expected a value >= 0, found integer -1$"):
        wire.loads(wire.Usage, '{"input":-1,"output":1}')


def test_python_input_errors_point_at_the_keys_given() -> None:
    with pytest.raises(WireError) as caught:
        wire.AssistantMessage(
            content=[],
            stop_reason="stop",
            model="m",
            provider="p",
            usage={"input": "5", "output": 1},
            timestamp=1,
        )
    assert caught.value.pointer == "/usage/input"
    assert str(caught.value) == (
        'AssistantMessage /usage/input: expected a valid integer, found string "5"'
    )


def test_invalid_documents_are_reported_alike_without_the_shortcuts_for_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two savings for an invalid document: the scan keeps a small document as parsed, so the
    translation does not parse it again (``_scan.KEEP_BYTES``), and one error skips the choice
    among union branches (``_select``). The reports are the same with both switched off, for the
    corruptions of every corpus document the fast-path tests use (and the documents themselves)."""
    import random

    from test_validate_fastpath import corpus_documents, mutations

    from phi_wire import v0_8, v0_10
    from phi_wire.serde import _error_translation, _scan

    modules = {"0.8.0": v0_8, "0.10.0": v0_10}
    rng = random.Random(20261124)
    cases = []
    for release, module in modules.items():
        for _, type_name, original in corpus_documents(release):
            cases.append((module, type_name, original))
            try:
                compact = module.dumps(module.loads(getattr(module, type_name), original))
            except WireError:
                continue
            if compact.startswith("{") and compact != "{}":
                cases += [
                    (module, type_name, mutated) for mutated in mutations(compact.encode(), rng)
                ]

    def reports() -> list[Any]:
        found: list[Any] = []
        for module, type_name, document in cases:
            try:
                module.loads(getattr(module, type_name), document)
                found.append("accepted")
            except WireError as error:
                found.append((str(error), error.problems, error.omitted))
        return found

    with_shortcuts = reports()
    assert sum(report != "accepted" for report in with_shortcuts) > 1000
    monkeypatch.setattr(_scan, "KEEP_BYTES", -1)
    monkeypatch.setattr(_error_translation, "_select", _error_translation._select_among)
    assert reports() == with_shortcuts


@pytest.mark.parametrize(
    ("tag", "found"),
    [('["a"]', "an array of 1"), ('{"x":1}', "an object"), ("1", "integer 1"), ("true", "boolean")],
)
def test_a_tag_that_is_not_a_string_is_named_as_json(tag: str, found: str) -> None:
    """pydantic says a tag that is no string by its Python ``str()`` (``unknown variant
    "['a']"``); the message names the JSON kind found instead (issue 17's first input)."""
    with pytest.raises(WireError) as raised:
        wire.loads(wire.AgentEvent, '{"type":' + tag + "}")
    message = str(raised.value)
    assert "invalid tag `type`: expected one of 'AgentStart'," in message
    assert message.endswith(f"found {found}") or f"found {found} " in message, message
    assert "['a']" not in message and "{'x'" not in message
