"""phi-core messages and events -> clark-agent by the dict converters
(``phi_wire.formats.clark_agent._fast_from_phi``): for every phi-core message and event of the
corpora (every version), their corruptions and generated ones, the fast path's documents and
losses equal the model path's exactly, and the fast path is taken on the corpus (it cannot
silently fall back everywhere)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from schema_strategies import from_schema
from test_convert_fast import check_equivalent, corpus_lines, corruptions, fast_conversions

import phi_wire
import phi_wire.v0_10 as phi
from phi_wire.convert import FastUnsupported
from phi_wire.convert._fast import absent_nulls
from phi_wire.formats.clark_agent.convert import FAST_CONVERTERS

fast = fast_conversions
SOURCE, TARGET = "phi-core", "clark-agent"
VERSIONS = ("0.10.0", "0.8.0")
TYPES = ("AgentMessage", "AgentEvent")
LINES = {kind: corpus_lines("phi-core", VERSIONS, {kind}) for kind in TYPES}


@pytest.mark.parametrize("kind", TYPES)
def test_the_corpus_converts_alike_and_by_the_fast_path(
    fast: Callable[..., Any], kind: str
) -> None:
    """Every document of the corpora converts alike; every event of the recorded stream goes
    the fast way but those with a null the reader reads as absent (a loss of reading, which the
    model path names)."""
    taken = check_equivalent(fast, LINES[kind], SOURCE, TARGET)
    valid = sum(1 for line in LINES[kind] if _valid(kind, line))
    assert taken >= valid * 0.5, (taken, valid)
    if kind == "AgentEvent":
        written = corpus_lines("phi-core", ("0.10.0",), {kind}, jsonl_only=True)
        assert len(written) >= 40
        nulls = absent_nulls("phi-core", "0.10")
        assert nulls is not None
        plain = [line for line in written if not nulls.found(json.loads(line))]
        assert len(plain) >= 140
        assert check_equivalent(fast, written, SOURCE, TARGET) == len(plain)


@pytest.mark.parametrize("kind", TYPES)
def test_corrupted_documents_convert_alike(fast: Callable[..., Any], kind: str) -> None:
    lines = [
        variant for seed, line in enumerate(LINES[kind]) for variant in corruptions(line, seed)
    ]
    assert len(lines) > 200
    check_equivalent(fast, lines, SOURCE, TARGET)


@pytest.mark.parametrize("kind", TYPES)
def test_generated_documents_convert_alike(fast: Callable[..., Any], kind: str) -> None:
    @settings(
        max_examples=40,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(from_schema(phi_wire.schema(getattr(phi, kind))))
    def check(document: Any) -> None:
        line = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
        written = line
        if _valid(kind, line):
            written = phi_wire.dumps(phi_wire.loads(getattr(phi, kind), line)).encode()
        check_equivalent(fast, [line, written], SOURCE, TARGET)

    check()


def test_a_signature_that_may_carry_reasoning_details_takes_the_model_path() -> None:
    convert = FAST_CONVERTERS[SOURCE, TARGET, "AgentMessage"]
    message = {
        "content": [{"signature": '{"details":[]}', "thinking": "", "type": "thinking"}],
        "model": "",
        "provider": "",
        "role": "assistant",
        "stopReason": "stop",
        "timestamp": 1,
        "usage": {"input": 0, "output": 0},
    }
    with pytest.raises(FastUnsupported):
        convert([message], "AgentMessage")


def _valid(kind: str, line: bytes) -> bool:
    try:
        phi_wire.loads(getattr(phi, kind), line)
    except phi_wire.WireError:
        return False
    return True
