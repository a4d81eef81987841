"""serde's sequence form of structs (runtime/_sequence.py): read as phi-core reads it."""

from __future__ import annotations

import pytest

import phi_wire.v0_8 as wire
from phi_wire import WireError


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
