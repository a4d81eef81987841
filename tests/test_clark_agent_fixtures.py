"""clark-agent 0.4's own JSON, judged by ``phi_wire.clark_agent``: the compatibility proof.

Every record of ``<corpus>/clark-agent/0.4.0/manifest.json`` becomes one test case:

* ``valid-canonical``: ``dumps(loads(T, doc)) == doc`` byte for byte (JSONL per line) and
  ``schema(T)`` accepts the document. Where serde's own read-back differs from the file
  (``roundtrip_byte_exact: false``), phi-wire must give serde's read-back
  (``reserialized_after_read``) or serde's refusal (``read_back_error``), and the value serde wrote
  must be buildable in Python and write the file's bytes (``CONSTRUCTED``);
* ``accepted-noncanonical``: ``dumps(loads(T, input)) == canonical``. A timestamp clark-agent
  filled with the current time (``canonical_depends_on_clock``) is compared masked and must lie
  between the clock before and after the call; a canonical that is not a fixed point must read
  back as ``canonical_reserialized_after_read``;
* ``rejected``: ``loads`` raises ``WireError`` naming the type, and ``schema(T)`` rejects the
  input too.

Where phi-wire deliberately differs, the fixture id is listed in ``tests/deviations.toml`` under
``[clark-agent.*]`` with the reason; the listed behaviour is asserted instead, and an entry that no
longer applies fails.
"""

from __future__ import annotations

import json
import math
import re
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from corpus import Fixture, fixtures
from jsonschema import Draft202012Validator

import phi_wire.clark_agent as clark
from schemas import strict_json

VERSION = "0.4.0"
DEVIATIONS = tomllib.loads((Path(__file__).parent / "deviations.toml").read_text("utf-8"))[
    "clark-agent"
]
_VALIDATORS: dict[str, Draft202012Validator] = {}


def cases(kind: str) -> list[Any]:
    return [
        pytest.param(fixture, id=fixture.id) for fixture in fixtures(VERSION, kind, "clark-agent")
    ]


def wire_type(fixture: Fixture) -> Any:
    return getattr(clark, fixture.type_name)


def validator(type_name: str) -> Draft202012Validator:
    """The bundled ``schema(T)``, checked against the meta-schema once."""
    if type_name not in _VALIDATORS:
        bundle = clark.schema(type_name)
        Draft202012Validator.check_schema(bundle)
        _VALIDATORS[type_name] = Draft202012Validator(
            bundle, format_checker=Draft202012Validator.FORMAT_CHECKER
        )
    return _VALIDATORS[type_name]


def serde_json_text(raw: bytes) -> Any:
    """The document as serde_json sees it: UTF-8 without a BOM, no NaN/Infinity."""
    return strict_json(raw.decode("utf-8"))


def documents(fixture: Fixture) -> list[str]:
    text = fixture.read("file").decode("utf-8")
    if fixture.entry["format"] == "jsonl":
        assert text.endswith("\n"), "a JSONL fixture ends every line with \\n"
        return text[:-1].split("\n")
    return [text]


_TIMESTAMP = re.compile(r'"timestamp":(\d+)')


def assert_same_but_clock(written: str, expected: str, before: int, after: int) -> None:
    """Equal once every message timestamp is masked; the ones that differ were stamped by the
    clock during the call, as serde's default_timestamp does."""
    assert _TIMESTAMP.sub('"timestamp":T', written) == _TIMESTAMP.sub('"timestamp":T', expected)
    pairs = zip(_TIMESTAMP.findall(written), _TIMESTAMP.findall(expected), strict=True)
    for mine, theirs in pairs:
        if mine != theirs:
            assert before <= int(mine) <= after, f"timestamp {mine} is not the current time"


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def read_and_write(tp: Any, raw: bytes | str) -> tuple[str, int, int]:
    before = now_ms()
    written = clark.dumps(clark.loads(tp, raw))
    return written, before, now_ms()


def _prepared_with_infinite_temperature() -> Any:
    summary = json.loads(
        fixture_by_id("ProviderRequestSummary.temperature_inf").entry["reserialized_after_read"]
    )
    return clark.ProviderRequestSummary.model_validate({**summary, "temperature": math.inf})


def _plugin_with_quote() -> Any:
    text = fixture_by_id("AgentEvent.tool_gate_applied.plugin_with_quote_written").read("file")
    return clark.ToolGateApplied.model_validate(json.loads(text))


CONSTRUCTED: dict[str, Callable[[], Any]] = {
    # values serde wrote that its own reader (and so loads) cannot give back
    "AgentMessage.system.timestamp_none": lambda: clark.SystemMessage(
        content="PROMPT", timestamp=None
    ),
    "ProviderRequestSummary.temperature_inf": _prepared_with_infinite_temperature,
    "AgentEvent.tool_gate_applied.plugin_with_quote_written": _plugin_with_quote,
}


def fixture_by_id(fixture_id: str) -> Fixture:
    for kind in ("valid-canonical", "accepted-noncanonical", "rejected"):
        for fixture in fixtures(VERSION, kind, "clark-agent"):
            if fixture.entry["id"] == fixture_id:
                return fixture
    raise KeyError(fixture_id)


@pytest.mark.parametrize("fixture", cases("valid-canonical"))
def test_valid_fixture_round_trips_byte_exact(fixture: Fixture) -> None:
    """Read and written again, each document is the same bytes; the schema accepts it."""
    tp = wire_type(fixture)
    for number, text in enumerate(documents(fixture), start=1):
        errors = [
            error.message
            for error in validator(fixture.type_name).iter_errors(serde_json_text(text.encode()))
        ]
        assert not errors, f"document {number}: schema({fixture.type_name}) rejects it: {errors}"
        if not fixture.entry["roundtrip_byte_exact"]:
            continue  # test_valid_fixture_that_serde_cannot_read_back
        written, _, _ = read_and_write(tp, text)
        assert written == text, f"document {number}: phi-wire writes other bytes than clark-agent"


@pytest.mark.parametrize(
    "fixture",
    [case for case in cases("valid-canonical") if not case.values[0].entry["roundtrip_byte_exact"]],
)
def test_valid_fixture_that_serde_cannot_read_back(fixture: Fixture) -> None:
    """Serde wrote these from values JSON cannot carry back (a timestamp of None, an infinite f32,
    a plugin name with a quote): reading gives what serde's own read-back gives, and the value
    built in Python writes the file (or deviations.toml [clark-agent.construct] says why not)."""
    tp = wire_type(fixture)
    (text,) = documents(fixture)
    if "read_back_error" in fixture.entry:
        with pytest.raises(clark.WireError, match="borrowed string"):
            clark.loads(tp, text)
    else:
        written, before, after = read_and_write(tp, text)
        expected = fixture.entry["reserialized_after_read"]
        assert_same_but_clock(written, expected, before, after)
    fixture_id = fixture.entry["id"]
    if fixture_id in DEVIATIONS["construct"]:
        assert fixture_id not in CONSTRUCTED, "listed as a deviation and constructed: pick one"
        return
    assert fixture_id in CONSTRUCTED, "build this value in CONSTRUCTED or list a deviation"
    assert clark.dumps(CONSTRUCTED[fixture_id]()) == text


@pytest.mark.parametrize("fixture", cases("accepted-noncanonical"))
def test_accepted_fixture_is_rewritten_as_clark_agent_does(fixture: Fixture) -> None:
    """Accepted input is written as clark-agent writes it (timestamps of "now" masked)."""
    tp = wire_type(fixture)
    written, before, after = read_and_write(tp, fixture.read("input_file"))
    canonical = fixture.read("canonical_file").decode("utf-8")
    if fixture.entry.get("canonical_depends_on_clock"):
        assert_same_but_clock(written, canonical, before, after)
    else:
        assert written == canonical
    again = fixture.entry.get("canonical_reserialized_after_read")
    if again is not None:
        rewritten, before, after = read_and_write(tp, canonical)
        assert_same_but_clock(rewritten, again, before, after)


@pytest.mark.parametrize("fixture", cases("rejected"))
def test_rejected_fixture_is_rejected(fixture: Fixture) -> None:
    """clark-agent's rejects raise WireError naming the type and a JSON pointer; the schema
    rejects them too, or deviations.toml [clark-agent.schema] says why it cannot."""
    tp = wire_type(fixture)
    raw = fixture.read("input_file")
    with pytest.raises(clark.WireError) as caught:
        clark.loads(tp, raw)
    message = str(caught.value)
    assert message.startswith(fixture.type_name), message
    assert caught.value.pointer == "" or caught.value.pointer.startswith("/"), message
    try:
        document = serde_json_text(raw)
    except ValueError:
        return  # not JSON at all: nothing for a schema to judge
    schema_accepts = validator(fixture.type_name).is_valid(document)
    if fixture.entry["id"] in DEVIATIONS["schema"]:
        assert schema_accepts, "listed in [clark-agent.schema] but the schema rejects it now"
    else:
        assert not schema_accepts, (
            f"schema({fixture.type_name}) accepts what clark-agent rejects "
            f"({fixture.entry['error']}); tighten the schema or list the fixture in "
            "deviations.toml [clark-agent.schema] with the reason"
        )


def test_every_clark_deviation_names_a_known_fixture_and_a_reason() -> None:
    known = {
        fixture.entry["id"]
        for kind in ("valid-canonical", "accepted-noncanonical", "rejected")
        for fixture in fixtures(VERSION, kind, "clark-agent")
    }
    for section, entries in DEVIATIONS.items():
        assert set(entries) <= known, f"[clark-agent.{section}] names unknown fixtures"
        for fixture_id, entry in entries.items():
            assert entry.get("reason"), f"[clark-agent.{section}] {fixture_id} needs a reason"


def test_every_manifest_type_is_a_public_name() -> None:
    types = {
        f.type_name
        for k in ("valid-canonical", "rejected")
        for f in fixtures(VERSION, k, "clark-agent")
    }
    missing = sorted(name for name in types if not hasattr(clark, name))
    assert not missing, f"phi_wire.clark_agent lacks {missing}"
