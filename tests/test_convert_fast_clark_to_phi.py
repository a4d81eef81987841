"""clark-agent history rows -> phi-core by the dict converter
(``phi_wire.formats.clark_agent._fast_to_phi``): for every clark-agent message of the corpus, its
corruptions and generated ones, the fast path's documents and losses equal the model path's
exactly, and the fast path is taken on the corpus (it cannot silently fall back everywhere)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from schema_strategies import from_schema
from test_convert_fast import check_equivalent, corpus_lines, corruptions, fast_conversions

import phi_wire.clark_agent as clark
from phi_wire.convert import FastUnsupported, Losses
from phi_wire.formats.clark_agent.convert import FAST_CONVERTERS

fast = fast_conversions
SOURCE, TARGET = "clark-agent", "phi-core"
LINES = corpus_lines("clark-agent", ("0.4.0",), {"AgentMessage"})


def test_the_corpus_converts_alike_and_by_the_fast_path(fast: Callable[..., Any]) -> None:
    """Every row of the corpus' histories (what clark-agent writes) goes the fast way."""
    written = corpus_lines("clark-agent", ("0.4.0",), {"AgentMessage"}, jsonl_only=True)
    assert len(written) >= 19
    assert check_equivalent(fast, written, SOURCE, TARGET) == len(written)
    taken = check_equivalent(fast, LINES, SOURCE, TARGET)
    valid = sum(1 for line in LINES if _valid(line))
    assert taken >= valid * 0.6, (taken, valid)


def test_corrupted_rows_convert_alike(fast: Callable[..., Any]) -> None:
    lines = [variant for seed, line in enumerate(LINES) for variant in corruptions(line, seed)]
    assert len(lines) > 200
    check_equivalent(fast, lines, SOURCE, TARGET)


@settings(
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(from_schema(clark.schema(clark.AgentMessage)))
def test_generated_rows_convert_alike(fast: Callable[..., Any], document: Any) -> None:
    line = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
    written = line
    if _valid(line):
        written = clark.dumps(clark.loads(clark.AgentMessage, line)).encode()
    check_equivalent(fast, [line, written], SOURCE, TARGET)


def test_a_missing_timestamp_is_handed_to_the_model_path() -> None:
    """The reader stamps it with the time of reading (an ``invented`` loss of reading), which a
    dict cannot know: the line takes the model path."""
    convert = FAST_CONVERTERS[SOURCE, TARGET, "AgentMessage"]
    for row in ({"role": "user", "content": "hi"}, {"role": "custom", "kind": "k", "payload": 1}):
        try:
            convert([row], "AgentMessage")
        except FastUnsupported:
            continue
        raise AssertionError(row)
    assert (
        convert([{"role": "user", "content": "hi", "timestamp": 1}], "AgentMessage")[1] == Losses()
    )


def _valid(line: bytes) -> bool:
    try:
        clark.loads(clark.AgentMessage, line)
    except clark.WireError:
        return False
    return True
