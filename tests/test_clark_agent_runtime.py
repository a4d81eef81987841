"""The serde facts phi_wire.clark_agent needs beyond phi-core's, one test each, and
``recognise``, the cheap "is this clark-agent's JSON, and which type" for the command line."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from typing import Any

import pytest
from corpus import fixtures, fixtures_root

import phi_wire.clark_agent as clark
from phi_wire.formats.clark_agent.recognise import recognise
from phi_wire.serde._wire import _to_f32

# --- f32 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3.4028235e38, 3.4028235e38),  # rounds down to f32::MAX (struct.pack refused it)
        (-3.4028235e38, -3.4028235e38),
        (3.4028235677973366e38, math.inf),  # halfway to 2^128: ties to even, so infinity
        (1e40, math.inf),
        (0.30000000000000004, 0.3),
    ],
)
def test_f32_rounds_to_nearest_including_up_to_f32_max(value: float, expected: float) -> None:
    assert _to_f32(value) == expected


def test_f32_max_is_written_as_serde_does() -> None:
    text = (
        '{"iteration":0,"temperature":3.4028235e38,"system_prompt_bytes":0,'
        '"system_prompt_chars":0,"message_count":0,"message_counts":{"system":0,"user":0,'
        '"assistant":0,"tool_result":0,"custom":0},"content_counts":'
        + json.dumps({name: 0 for name in clark.ProviderContentCounts.model_fields})
        + ',"tool_count":0,"tool_names":[],"tool_schema_bytes":0}'
    )
    written = clark.dumps(clark.loads(clark.ProviderRequestSummary, text))
    assert '"temperature":3.4028235e+38' in written


# --- serde_json preserve_order -----------------------------------------------------------------


def test_value_keys_keep_their_order_and_a_repeated_key_its_first_place() -> None:
    text = '{"role":"custom","kind":"k","payload":{"b":1,"a":{"z":1,"y":2},"b":3},"timestamp":1}'
    written = clark.dumps(clark.loads(clark.AgentMessage, text))
    assert (
        written == '{"role":"custom","kind":"k","payload":{"b":3,"a":{"z":1,"y":2}},"timestamp":1}'
    )


def test_a_python_built_value_keeps_its_order_and_serde_number_range() -> None:
    message = clark.CustomMessage(kind="k", payload={"z": 2**64, "a": -0.0}, timestamp=1)
    assert clark.dumps(message) == (
        '{"role":"custom","kind":"k","payload":{"z":1.8446744073709552e+19,"a":-0.0},"timestamp":1}'
    )


def test_a_repeated_struct_field_is_still_rejected() -> None:
    with pytest.raises(clark.WireError, match="duplicate field `kind`"):
        clark.loads(clark.AgentMessage, '{"role":"custom","kind":"a","kind":"b"}')


# --- default_timestamp --------------------------------------------------------------------------


def test_a_missing_timestamp_is_now_and_a_null_one_is_omitted() -> None:
    before = time.time_ns() // 1_000_000
    stamped = clark.loads(clark.AgentMessage, '{"role":"user","content":"hi"}')
    built = clark.UserMessage(content="hi")
    after = time.time_ns() // 1_000_000
    assert before <= stamped.timestamp <= after and before <= built.timestamp <= after
    unset = clark.loads(clark.AgentMessage, '{"role":"user","content":"hi","timestamp":null}')
    assert clark.dumps(unset) == '{"role":"user","content":"hi"}'


# --- &'static str ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "pointer"),
    [
        (
            '{"type":"tool_gate_applied","iteration":0,"plugin":"g\\u0061te","allow":null}',
            "/plugin",
        ),
        ('{"type":"tool_gate_applied","plugin":"a\\"b","iteration":0}', "/plugin"),
        ('["context_transform_applied",0,"a\\/b",[],[]]', "/2"),
    ],
)
def test_an_escaped_plugin_name_is_not_a_borrowed_string(text: str, pointer: str) -> None:
    with pytest.raises(clark.WireError, match="borrowed string") as caught:
        clark.loads(clark.AgentEvent, text)
    assert caught.value.pointer == pointer


def test_escapes_elsewhere_in_an_event_and_in_owned_plugin_names_are_fine() -> None:
    event = clark.loads(
        clark.AgentEvent,
        '{"type":"context_transform_applied","iteration":0,"plugin":"budget","before":'
        '[{"role":"user","content":"a\\nb","timestamp":1}],"after":[]}',
    )
    assert event.plugin == "budget"
    record = clark.loads(
        clark.TrajectoryPayload,
        '{"kind":"context_transform_applied","iteration":0,"plugin":"a\\/b",'
        '"before_count":1,"after_count":1}',
    )
    assert record.plugin == "a/b"


# --- enums, sequence forms, skips ---------------------------------------------------------------


@pytest.mark.parametrize("text", ['"openrouter-v9"', '{"openrouter-v9":null}', '"unknown"'])
def test_an_unknown_reasoning_format_reads_as_unknown(text: str) -> None:
    assert clark.loads(clark.ReasoningFormat, text) is clark.ReasoningFormat.UNKNOWN


def test_sequence_form_fills_only_fields_with_serde_default() -> None:
    image = clark.loads(clark.UserBlock, '["image","https://x/y.png"]')
    assert (image.media_type, image.alt) == (None, None)  # #[serde(default)]
    with pytest.raises(clark.WireError):  # ReasoningItem's Options have no #[serde(default)]
        clark.loads(clark.ReasoningItem, '["reasoning.summary",null,"unknown"]')
    item = clark.loads(clark.ReasoningItem, '["reasoning.summary",null,"unknown",null,"s"]')
    assert item.summary == "s"


def test_tool_result_omits_false_flags_and_null_details() -> None:
    assert clark.dumps(clark.ToolResult(content=[])) == '{"content":[]}'
    flagged = clark.ToolResult(content=[], is_error=True, terminate=True, details=0)
    assert clark.dumps(flagged) == '{"content":[],"is_error":true,"details":0,"terminate":true}'


def test_untagged_user_content_names_both_lanes() -> None:
    with pytest.raises(clark.WireError) as caught:
        clark.loads(clark.AgentMessage, '{"role":"user","content":{"type":"text","text":"x"}}')
    assert caught.value.pointer == "/content"
    assert "a valid string or a valid array" in str(caught.value)


# --- recognise ------------------------------------------------------------------------------------


def documents(implementation: str, version: str) -> Iterator[tuple[str, str, Any]]:
    """(fixture id, manifest type, parsed document) of every valid or accepted fixture."""
    for kind, key in (("valid-canonical", "file"), ("accepted-noncanonical", "input_file")):
        for fixture in fixtures(version, kind, implementation):
            text = fixture.read(key).decode("utf-8")
            jsonl = fixture.entry.get("format") == "jsonl"
            for line in text[:-1].split("\n") if jsonl else [text]:
                yield fixture.entry["id"], fixture.type_name, json.loads(line)


TOP_LEVEL = {
    "AgentMessage",
    "AgentEvent",
    "TrajectoryRecord",
    "AssistantStreamChunk",
    "ReasoningItem",
    "RunIdentity",
    "ProviderRequestSummary",
    "ToolSchema",
    "TrajectoryPayload",
}


def reads_as(type_name: str, document: Any) -> bool:
    try:
        clark.loads(getattr(clark, type_name), json.dumps(document))
    except clark.WireError:
        return False
    return True


def test_recognise_names_the_type_of_every_clark_document() -> None:
    wrong = []
    for fixture_id, type_name, document in documents("clark-agent", "0.4.0"):
        found = recognise(document)
        if type_name in TOP_LEVEL:
            right = found == type_name
        else:  # a part (a block, a bare enum name): some type that reads it, or none
            right = found is None or reads_as(found, document)
        if not right:
            wrong.append((fixture_id, found))
    assert not wrong, f"recognised wrongly: {wrong}"


@pytest.mark.parametrize("version", ["0.8.0", "0.10.0"])
def test_recognise_claims_phi_core_documents_only_where_clark_agent_reads_them(
    version: str,
) -> None:
    """A phi-core document may also be clark-agent's (a user message of text blocks); a claim
    that clark-agent would reject is wrong."""
    wrong = [
        (fixture_id, found)
        for fixture_id, _, document in documents("phi-core", version)
        if (found := recognise(document)) is not None and not reads_as(found, document)
    ]
    assert not wrong, f"claimed for clark-agent, which rejects them: {wrong}"


def test_recognise_leaves_other_implementations_alone() -> None:
    claimed = []
    for path in sorted((fixtures_root() / "others").rglob("*.json*")):
        text = path.read_text(encoding="utf-8")
        try:
            docs = [json.loads(text)]
        except ValueError:
            docs = [json.loads(line) for line in text.splitlines() if line.strip()]
        for document in docs:
            found = recognise(document)
            if found is not None and not reads_as(found, document):
                claimed.append((path.name, found))
    assert not claimed, f"claimed documents clark-agent rejects: {claimed}"
    rows = fixtures_root() / "others" / "clark-agent" / "clark-agent.history-rows.jsonl"
    assert {recognise(json.loads(line)) for line in rows.read_text().splitlines()} == {
        "AgentMessage"
    }
