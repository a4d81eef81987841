"""``dumps`` writes phi-core's sorted ``LlmMessage`` and every model without a Python call per
message (issue 21, goal 3), and writes exactly what it wrote before.

Before, ``dumps`` ran pydantic's own serializer of each model, in which an ``LlmMessage`` was
dumped to Python objects, sorted by ``sort_json`` and written again (``LlmMessageBase``), each
``JsonValue`` sorted in Python too, and each enum member's ``.value`` read through two Python
calls: 0.45x ``json.dumps`` on phi-core's events. Now a second pydantic-core serializer per model
class (``phi_wire.serde._write``) writes that subtree sorted itself, and a ``JsonValue`` already
in order is written as it is.

The reference for "the same bytes" is pydantic's own serializer of the models (``pydantic_own``),
which still runs the Python serializers (their own tests check it against the corpus), over every
document of phi-core's corpora (both versions: the manifests' documents, the event streams and
the sessions; compact and pretty), clark-agent's and Operator-Use's, and generated documents.

The work is counted, not timed: the Python functions ``dumps`` runs while writing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from functools import partial
from types import ModuleType
from typing import Any

import pytest
from corpus import fixtures, fixtures_root
from hypothesis import HealthCheck, given, settings
from pydantic import BaseModel, Field
from pydantic_own import pydantic_json
from python_calls import python_calls
from schema_strategies import ANY_JSON, from_schema

import phi_wire
import phi_wire.clark_agent as clark
import phi_wire.v0_8
import phi_wire.v0_10
from phi_wire.serde._write import writer

VERSIONS: dict[str, ModuleType] = {"0.8.0": phi_wire.v0_8, "0.10.0": phi_wire.v0_10}
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reference(value: Any, pretty: bool) -> str:
    """What ``dumps`` wrote before issue 21: pydantic's own serializer of the model (with the
    Python serializers of ``LlmMessage`` and ``JsonValue``); other values are written as then."""
    if isinstance(value, BaseModel):
        return pydantic_json(value, pretty)
    return phi_wire.dumps(value, pretty=pretty)


def same_as_before(dumps: Any, value: Any) -> None:
    for pretty in (False, True):
        assert dumps(value, pretty=pretty) == reference(value, pretty), (type(value), pretty)


def phi_core_documents(version: str, inputs: bool = True) -> Iterator[tuple[str, Any, bytes]]:
    """(name, wire type, document) of every document phi-core wrote or reads in the corpus of
    ``version``: the manifest's valid and accepted documents, each event stream's lines, the
    sessions; with ``inputs`` False, only what phi-core wrote (no accepted input)."""
    wire = VERSIONS[version]
    for fixture in fixtures(version, "valid-canonical"):
        tp = getattr(wire, fixture.type_name)
        text = fixture.read("file")
        lines = text.splitlines() if fixture.entry["format"] == "jsonl" else [text]
        for number, line in enumerate(lines, 1):
            yield f"{fixture.id}:{number}", tp, line
    for fixture in fixtures(version, "accepted-noncanonical"):
        tp = getattr(wire, fixture.type_name)
        for key in ("input_file", "canonical_file") if inputs else ("canonical_file",):
            document = fixture.read(key)
            try:
                wire.loads(tp, document)
            except wire.WireError:  # an input phi-wire rejects (tests/test_fixtures.py DEVIATIONS)
                continue
            yield f"{fixture.id}:{key}", tp, document
    base = fixtures_root() / "phi-core" / version
    for path in sorted((base / "streams").glob("*.jsonl")):
        for number, line in enumerate(path.read_bytes().splitlines(), 1):
            yield f"{path.name}:{number}", wire.AgentEvent, line
    for path in sorted((base / "sessions").glob("*.json")):
        yield path.name, wire.Session, path.read_bytes()


@pytest.mark.parametrize("version", sorted(VERSIONS))
def test_every_phi_core_document_is_written_as_before(version: str) -> None:
    wire = VERSIONS[version]
    count = 0
    for name, tp, document in phi_core_documents(version):
        value = wire.loads(tp, document)
        for pretty in (False, True):
            assert wire.dumps(value, pretty=pretty) == reference(value, pretty), name
        count += 1
    assert count > 300  # the manifest, the streams and the sessions were all read


@pytest.mark.parametrize("version", sorted(VERSIONS))
def test_every_phi_core_model_has_its_native_writer(version: str) -> None:
    """No model of phi-core's falls back to pydantic's own serializer (same bytes, but slower):
    ``_write`` knows how to sort every schema of their sorted subtrees."""
    wire = VERSIONS[version]
    models = [
        item
        for item in vars(wire).values()
        if isinstance(item, type) and issubclass(item, BaseModel) and item.__module__ != "pydantic"
    ]
    assert len(models) > 30
    assert [model.__name__ for model in models if writer(model) is None] == []


def jsonl_documents(folder: str) -> Iterator[bytes]:
    for path in sorted((fixtures_root() / folder).glob("*.jsonl")):
        yield from path.read_bytes().splitlines()


def test_clark_agent_documents_are_written_as_before() -> None:
    """The native writer serves every format written by ``phi_wire.dumps``: clark-agent's bytes
    (key order kept, not sorted) are unchanged too. (Operator-Use's ``dumps`` is its own.)"""
    kinds = [("streams", clark.AgentEvent), ("history", clark.AgentMessage)]
    kinds += [("trajectory", clark.TrajectoryRecord)]
    count = 0
    for folder, tp in kinds:
        for line in jsonl_documents(f"clark-agent/0.4.0/{folder}"):
            value = clark.loads(tp, line)
            same_as_before(clark.dumps, value)
            assert clark.dumps(value) == line.decode("utf-8")
            count += 1
    assert count > 100


GENERATED = ["AgentEvent", "AgentMessage", "LlmMessage", "Content", "ToolResult", "StreamDelta"]


@pytest.mark.parametrize("version", sorted(VERSIONS))
@pytest.mark.parametrize("name", GENERATED)
def test_generated_documents_are_written_as_before(version: str, name: str) -> None:
    """Documents drawn from the schema, their ``JsonValue`` objects in any key order (read, then
    written sorted at every depth)."""
    wire = VERSIONS[version]
    tp = getattr(wire, name)

    @SETTINGS
    @given(from_schema(wire.schema(tp)))
    def check(document: Any) -> None:
        same_as_before(wire.dumps, wire.loads(tp, json.dumps(document, ensure_ascii=False)))

    check()


def keys_in_order(text: str) -> bool:
    """Whether every object of the JSON ``text`` has its keys sorted."""
    sorted_everywhere = True

    def check(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal sorted_everywhere
        keys = [key for key, _ in pairs]
        sorted_everywhere = sorted_everywhere and keys == sorted(keys)
        return dict(pairs)

    json.loads(text, object_pairs_hook=check)
    return sorted_everywhere


@SETTINGS
@given(ANY_JSON, ANY_JSON)
def test_values_a_program_puts_in_a_message_are_written_sorted(first: Any, second: Any) -> None:
    """``JsonValue`` maps built in Python in any order, by construction, assignment, an update
    in place, ``model_copy`` and ``model_construct``: written sorted at every depth, as before."""
    wire = phi_wire.v0_10
    call = wire.ToolCallContent(id="t", name="n", arguments={"z": first, "a": [second, first]})
    message = assistant(wire)
    message.content = [call, wire.TextContent(text="hi")]
    same_as_before(wire.dumps, message)
    message.content[0].arguments = {"y": second, "b": {"d": first, "c": second}}  # assignment
    same_as_before(wire.dumps, message)
    message.content[0].arguments["a"] = first  # in place, after the check on assignment
    same_as_before(wire.dumps, message)
    copied = message.model_copy(update={"content": [call.model_copy(update={"arguments": second})]})
    same_as_before(wire.dumps, copied)
    built = wire.ToolCallContent.model_construct(id="t", name="n", arguments={"q": 1, "p": first})
    same_as_before(wire.dumps, built)
    extension = wire.ExtensionMessage.new("kind", {"z": first, "a": {"y": second, "b": 1}})
    same_as_before(wire.dumps, extension)
    assert keys_in_order(wire.dumps(message))
    assert keys_in_order(json.dumps(json.loads(wire.dumps(extension))["data"]))


EDGE_FLOATS = [0.0, -0.0, 1.0, -1.5, 0.1, 1e16, 1e15, 1e-7, 1.5e-5, 5e-324, 2.2250738585072014e-308]
EDGE_FLOATS += [1.7976931348623157e308, 123456789012345680.0, 9007199254740993.0, 2.0**64, 1e300]


def test_floats_at_the_edges_are_written_as_serde_writes_them() -> None:
    """Floats inside a message's arguments and an extension's data: the same text as before
    (pydantic-core's shortest round-trip form, ``1.0`` for a whole float), the same values."""
    wire = phi_wire.v0_10
    data = {"floats": EDGE_FLOATS, "nested": {"b": EDGE_FLOATS[::-1], "a": -0.0}}
    call = wire.ToolCallContent(id="t", name="n", arguments=data)
    extension = wire.ExtensionMessage.new("floats", data)
    for value in (call, extension):
        same_as_before(wire.dumps, value)
    written = json.loads(wire.dumps(call))["arguments"]["floats"]
    assert written == EDGE_FLOATS and math.copysign(1.0, written[1]) == -1.0
    assert ",1.0," in wire.dumps(call) and "5e-324" in wire.dumps(extension)


def assistant(wire: ModuleType) -> Any:
    document = (
        fixtures_root() / "phi-core/0.10.0/valid/AgentMessage/AgentMessage.llm_all_metadata.json"
    )
    return wire.loads(wire.AgentMessage, document.read_bytes())


@pytest.mark.parametrize("pretty", [False, True])
def test_a_value_of_the_wrong_type_is_still_a_wire_error(pretty: bool) -> None:
    """Put in a model unvalidated (in place, ``model_construct``), in the sorted subtree and
    outside it: a ``WireError``, never written."""
    wire = phi_wire.v0_10
    message = assistant(wire)
    message.content.append(5)  # a list changed in place: no validation
    unvalidated = [
        message,
        wire.TextContent.model_construct(text=5),
        wire.TurnId.model_construct(loopId="l", turnIndex="0"),
        wire.LlmUserMessage.model_construct(content="hi", timestamp=1, role="user"),
        wire.NodeTag.model_construct(kind="not a kind", text="t", created_at_turn=0),
    ]
    for value in unvalidated:
        with pytest.raises(wire.WireError, match="cannot be written"):
            wire.dumps(value, pretty=pretty)


WRITING = {"dumps", "writer", "written_json"}
"""``dumps`` itself: the entry point, its writer's look-up, the call of pydantic-core."""

VALUES = {"sorted_json", "_in_order"}
"""A ``JsonValue``: its order checked (one call, and one per object or array inside it)."""


@pytest.mark.parametrize("version", sorted(VERSIONS))
def test_dumps_runs_no_python_per_message(version: str) -> None:
    """Every corpus document, phi-core's own output, is written with no Python function but
    ``dumps``'s own and one check per ``JsonValue``: no ``_serialize_sorted``, ``sort_json``, no
    enum ``value`` descriptor (before: some 20 Python calls per message)."""
    wire = VERSIONS[version]
    for name, tp, document in phi_core_documents(version, inputs=False):
        value = wire.loads(tp, document)
        for pretty in (False, True):
            if not isinstance(value, BaseModel):
                continue  # an enum member or a list: written through its TypeAdapter, as before
            written = wire.dumps(value, pretty=pretty)  # the class's writer built, once
            names = python_calls(partial(wire.dumps, value, pretty=pretty))
            assert wire.dumps(value, pretty=pretty) == written
            extra = [name for name in names if name not in WRITING | VALUES]
            assert extra == [], (name, extra[:5])
            assert names.count("dumps") == 1 and names.count("written_json") == 1


class Branch(phi_wire.base.WireModel):
    """A recursive model outside any sorted subtree (its reference stays a reference)."""

    zeta: int
    children: list[Branch] = Field(default_factory=list)


class SortedBranch(phi_wire.base.LlmMessageBase):
    """A recursive model written sorted, as an ``LlmMessage`` is (a sorted copy of its
    definition, referenced from inside itself)."""

    zeta: int
    alpha: Branch | None = None
    children: list[SortedBranch] = Field(default_factory=list)


class WithMap(phi_wire.base.LlmMessageBase):
    """A sorted model with a ``dict`` field: pydantic-core cannot write it sorted itself."""

    zeta: dict[str, int]


def test_recursive_models_are_written_as_before() -> None:
    tree = SortedBranch(
        zeta=1,
        alpha=Branch(zeta=2, children=[Branch(zeta=3)]),
        children=[SortedBranch(zeta=4, children=[SortedBranch(zeta=5)])],
    )
    assert writer(SortedBranch) is not None and writer(Branch) is not None
    same_as_before(phi_wire.dumps, tree)
    # the whole subtree sorted, the plain model inside it too; alone, that model is not
    assert phi_wire.dumps(tree).startswith('{"alpha":{"children":[{"children":[],"zeta":3}],')
    assert phi_wire.dumps(tree.alpha) == '{"zeta":2,"children":[{"zeta":3,"children":[]}]}'


def test_a_model_the_writer_cannot_sort_is_written_by_pydantic() -> None:
    """No native writer (``_write`` does not sort a ``dict`` schema): pydantic's own serializer
    writes it, sorted by ``LlmMessageBase`` as before."""
    value = WithMap(zeta={"b": 1, "a": 2})
    assert writer(WithMap) is None
    assert phi_wire.dumps(value) == '{"zeta":{"a":2,"b":1}}'
    same_as_before(phi_wire.dumps, value)
