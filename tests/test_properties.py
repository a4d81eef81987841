"""Property tests: the schema and the models are one contract.

For each wire type T, Hypothesis generates documents from ``schema(T)`` and checks that

* the models accept every document the schema accepts, and ``loads``/``dumps`` round-trip it
  (the second write equals the first);
* after a random one-place mutation (a value replaced by a wrong one, a key removed), the schema
  and the models still agree: valid for one iff valid for the other.

Documented divergences are excluded by name, each with its serde reason: the LlmMessage metadata
keys (phi-core drops a malformed value instead of failing) and LoopRecord.continuation_kind
(phi-core reads null as the default).
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schema_strategies import from_schema

import phi_wire.v0_8
import phi_wire.v0_10
from schemas import bundled_validator

TYPES = [
    "Usage",
    "Content",
    "Message",
    "LlmMessage",
    "AgentMessage",
    "StreamDelta",
    "ContinuationKind",
    "LoopConfigSnapshot",
    "ToolResult",
    "AgentEvent",
    "NodeTag",
    "CompactionBlock",
    "SessionFormation",
]
CASES = [("0.8", name) for name in TYPES] + [
    ("0.10", name) for name in [*TYPES, "BlockProvenance", "AnnotatedRequestPayload"]
]
MODULES: dict[str, ModuleType] = {"0.8": phi_wire.v0_8, "0.10": phi_wire.v0_10}

# Keys under which phi-core is deliberately more lenient than the schema (see the schema's
# x-serde-lenient and x-serde-null-as-default markers).
LENIENT_KEYS = {"turnId", "nodeId", "parentId", "tags", "provenanceHint", "continuation_kind"}

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def model_accepts(wire: ModuleType, tp: Any, document: Any) -> bool:
    try:
        wire.loads(tp, json.dumps(document, ensure_ascii=False))
    except wire.WireError:
        return False
    return True


@pytest.mark.parametrize(("version", "name"), CASES)
def test_schema_valid_documents_load_and_round_trip(version: str, name: str) -> None:
    wire = MODULES[version]
    tp = getattr(wire, name)
    validator = bundled_validator(f"phi-core/{version}", name)

    @SETTINGS
    @given(from_schema(wire.schema(tp)))
    def check(document: Any) -> None:
        assert validator.is_valid(document), list(validator.iter_errors(document))[:1]
        first = wire.dumps(wire.loads(tp, json.dumps(document, ensure_ascii=False)))
        assert wire.dumps(wire.loads(tp, first)) == first

    check()


REPLACEMENTS = [None, "x", -1, 1.5, True, [], {}, {"unknown": 1}]


@st.composite
def mutated(draw: st.DrawFn, document: Any) -> tuple[Any, list[Any]]:
    """``document`` with one value replaced or one key removed; returns it and the path."""
    paths: list[list[Any]] = []

    def collect(node: Any, path: list[Any]) -> None:
        paths.append(path)
        if isinstance(node, dict):
            for key, value in node.items():
                collect(value, [*path, key])
        elif isinstance(node, list):
            for index, value in enumerate(node):
                collect(value, [*path, index])

    collect(document, [])
    path = draw(st.sampled_from(paths))
    copy = json.loads(json.dumps(document))
    if not path:
        return draw(st.sampled_from(REPLACEMENTS)), path
    parent = copy
    for step in path[:-1]:
        parent = parent[step]
    if isinstance(parent, dict) and draw(st.booleans()):
        del parent[path[-1]]
    else:
        parent[path[-1]] = draw(st.sampled_from(REPLACEMENTS))
    return copy, path


@pytest.mark.parametrize(("version", "name"), CASES)
def test_schema_and_models_agree_on_mutations(version: str, name: str) -> None:
    wire = MODULES[version]
    tp = getattr(wire, name)
    validator = bundled_validator(f"phi-core/{version}", name)

    @SETTINGS
    @given(from_schema(wire.schema(tp)).flatmap(mutated))
    def check(case: tuple[Any, list[Any]]) -> None:
        document, path = case
        if LENIENT_KEYS.intersection(step for step in path if isinstance(step, str)):
            return
        assert validator.is_valid(document) == model_accepts(wire, tp, document), (
            f"schema and models disagree at {path}: schema "
            f"{'accepts' if validator.is_valid(document) else 'rejects'} "
            f"{json.dumps(document)[:300]}"
        )

    check()
