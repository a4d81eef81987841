"""serde's sequence form of structs (runtime/serde/_sequence.py): read as phi-core reads it."""

from __future__ import annotations

import pytest

import phi_wire.v0_8 as wire
from phi_wire import WireError
from phi_wire.serde import _codec


@pytest.mark.parametrize(
    ("tp", "text", "written"),
    [
        (
            wire.Usage,
            "[1,2]",
            '{"input":1,"output":2,"reasoning":0,"cache_read":0,"cache_write":0,"total_tokens":0}',
        ),
        (wire.Content, '["text","hi"]', '{"type":"text","text":"hi"}'),
        (
            wire.AgentEvent,
            '["TurnStart","l",0,"2026-05-25T09:41:07Z","User"]',
            '{"type":"TurnStart","loop_id":"l","turn_index":0,"timestamp":"2026-05-25T09:41:07Z","triggered_by":"User"}',
        ),
        (wire.ContinuationKind, '{"Rerun":["t"]}', '{"Rerun":{"tag":"t"}}'),
        # untagged: not a valid Message, so the extension lane ([role, kind, data]) takes it
        (wire.AgentMessage, '["user","x","y"]', '{"role":"user","kind":"x","data":"y"}'),
        # nested: a message and a delta body inside an object
        (
            wire.AgentEvent,
            '{"type":"MessageUpdate","loop_id":"l","message":["user",[["text","a"]],5],"delta":{"Text":["d"]}}',
            '{"type":"MessageUpdate","loop_id":"l","message":{"content":[{"text":"a","type":"text"}],"role":"user","timestamp":5},"delta":{"Text":{"delta":"d"}}}',
        ),
    ],
)
def test_sequence_forms_read_as_objects(tp: object, text: str, written: str) -> None:
    assert wire.dumps(wire.loads(tp, text)) == written


@pytest.mark.parametrize(
    ("tp", "text"),
    [
        (wire.Usage, "[1]"),  # output has no default
        (wire.Usage, "[1,2,3,4,5,6,7]"),  # one element too many
        (wire.LlmMessage, '["user"]'),  # content and timestamp missing
        (wire.Content, '["Text","hi"]'),  # unknown tag
        (wire.StopReason, '["stop"]'),  # a unit enum has no sequence form
    ],
)
def test_sequence_forms_phi_core_rejects(tp: object, text: str) -> None:
    with pytest.raises(WireError):
        wire.loads(tp, text)


HUGE_EXPONENT = "1e" + "0" * 4300 + "1"


@pytest.mark.parametrize(
    "text",
    [
        '["toolCall","c","n",[NaN,HUGE]]',  # issue 10: a bare ValueError from json.dumps
        '["toolCall","c","n",[Infinity]]',
        '["toolCall","c","n",{"x":-Infinity}]',
        '["toolCall","c","n",[1e400]]',
    ],
)
def test_sequence_forms_with_numbers_json_cannot_hold_are_wire_errors(text: str) -> None:
    with pytest.raises(WireError, match="invalid JSON"):
        wire.loads(wire.Content, text.replace("HUGE", HUGE_EXPONENT))


def test_sequence_forms_keep_serdes_number_reading() -> None:
    text = '["toolCall","c","n",[-0,HUGE,123456789012345680000.0]]'.replace("HUGE", HUGE_EXPONENT)
    assert wire.dumps(wire.loads(wire.Content, text)) == (
        '{"type":"toolCall","id":"c","name":"n","arguments":[-0.0,10.0,1.2345678901234567e+20]}'
    )


@pytest.mark.parametrize(
    ("text", "pointer", "key"),
    [
        ('["assistant",[],"stop","m","p",{"input":1,"input":2,"output":3},5,null]', "/5", "input"),
        ('["user",[{"type":"text","text":"a","text":"b"}],5]', "/1/0", "text"),
        ('["user",[["text","a"],{"type":"text","text":"a","text":"b"}],5]', "/1/1", "text"),
    ],
)
def test_duplicate_fields_inside_sequence_forms_are_rejected(
    text: str, pointer: str, key: str
) -> None:
    """serde buffers the sequence form's elements and then reads each struct: a repeated field
    is still an error there (it was accepted, last one winning)."""
    with pytest.raises(WireError) as caught:
        wire.loads(wire.Message, text)
    assert caught.value.pointer == pointer
    assert str(caught.value).endswith(f"duplicate field `{key}`")


def test_the_sequence_form_is_tried_only_where_an_array_is_in_the_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An invalid document costs one validation, not a Python walk of its arrays (issue 10)."""
    calls: list[object] = []
    convert = _codec.objects_from_sequences

    def counting(tp: object, value: object) -> object:
        calls.append(tp)
        return convert(tp, value)

    monkeypatch.setattr(_codec, "objects_from_sequences", counting)
    # arrays everywhere, but the error is a string where an integer goes
    text = (
        '{"type":"MessageEnd","loop_id":"l","message":{"role":"user",'
        '"content":[{"type":"text","text":"[x]"}],"timestamp":"5"}}'
    )
    with pytest.raises(WireError, match="/message/timestamp"):
        wire.loads(wire.AgentEvent, text)
    assert calls == []
    with pytest.raises(WireError):  # an array where a struct goes: the sequence form is tried
        wire.loads(wire.AgentEvent, '{"type":"MessageEnd","loop_id":"l","message":["user",5]}')
    assert calls == [wire.AgentEvent]


def test_an_array_for_llm_meta_is_an_error_not_a_crash() -> None:
    """``LlmMeta`` derives from ``LlmMessageBase`` but holds no ``Message``: the walk looked for
    one among its bases and raised StopIteration out of ``loads`` (found with issue 17)."""
    for text in ("[1]", "[]"):
        with pytest.raises(WireError):
            wire.loads(wire.LlmMeta, text)
