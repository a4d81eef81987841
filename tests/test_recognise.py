"""phi_wire.recognise: one public home for telling formats apart (runtime/recognise/): the order
its docstring documents settles each overlap the way it says, the marks it calls certain are
really one format's own (checked against the schemas and the corpora), and it never needs
pydantic."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import ROOT, fixtures_root

import phi_wire.clark_agent
import phi_wire.operator_use
import phi_wire.operator_use_d1cdaad8
from phi_wire.formats.clark_agent import recognise as clark_agent
from phi_wire.formats.operator_use import recognise as operator_use
from phi_wire.formats.phi_core import recognise as phi_core
from phi_wire.formats.pi import recognise as pi
from phi_wire.recognise import (
    ORDER,
    Recognised,
    candidates,
    fits,
    recognise,
    recognise_documents,
    recognise_lines,
    type_in,
)

TEXT_USER = {"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 1}
PI_ASSISTANT = {
    "role": "assistant",
    "content": [{"type": "text", "text": "hi"}],
    "api": "anthropic-messages",
    "provider": "anthropic",
    "model": "m",
    "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2},
    "stopReason": "stop",
    "timestamp": 1,
}
CLARK_ASSISTANT = {"role": "assistant", "content": [], "stop_reason": "end_turn", "timestamp": 1}


def formats(document: Any) -> list[str]:
    return [found.format for found in candidates(document)]


# --- the documented order -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        # a user message of text blocks: phi-core's, clark-agent's and pi's alike -> phi-core
        (TEXT_USER, ["phi-core", "clark-agent", "pi"]),
        # a text block: phi-core first
        ({"type": "text", "text": "x"}, ["phi-core", "clark-agent", "pi"]),
        # bare strings: phi-core's enums, then Operator-Use's, then clark-agent's
        ("error", ["phi-core", "operator-use", "clark-agent"]),
        ("xhigh", ["operator-use", "clark-agent"]),
        # pi-ai's message with its own keys: pi (certain) before phi-core (possible)
        (PI_ASSISTANT, ["pi", "phi-core"]),
        # the same message without pi's keys: phi-core's
        (
            {k: v for k, v in PI_ASSISTANT.items() if k != "api"}
            | {"usage": {"input": 1, "output": 1}},
            ["phi-core", "pi"],
        ),
        # both write input_tokens/output_tokens usage: Operator-Use first
        ({"input_tokens": 1, "output_tokens": 2}, ["operator-use", "clark-agent"]),
        # pi-agent-core and clark-agent write {"type": "agent_start"}: clark-agent first
        ({"type": "agent_start"}, ["clark-agent", "pi"]),
        # a user message whose content is a string: clark-agent's and pi's: clark-agent first
        ({"role": "user", "content": "hi", "timestamp": 1}, ["clark-agent", "pi"]),
        # marks of one format only
        (CLARK_ASSISTANT, ["clark-agent"]),
        ({"role": "user", "contents": [], "id": "m", "timestamp": 1.5}, ["operator-use"]),
        ({"type": "agentStart"}, ["yoagent"]),
        ({"session_id": "s", "loops": []}, ["phi-core"]),
    ],
)
def test_each_overlap_is_settled_as_the_docstring_says(document: Any, expected: list[str]) -> None:
    assert formats(document) == expected
    found = recognise(document)
    assert found is not None and found.format == expected[0]


def test_the_order_is_the_documented_one() -> None:
    assert ORDER == ("phi-core", "operator-use", "clark-agent", "otel-genai", "pi", "yoagent")


def test_nothing_is_recognised_in_what_names_no_format() -> None:
    for document in ({}, 42, None, "nonsense", [], [1, 2], {"foo": 1}):
        assert recognise(document) is None, document


def test_a_file_is_recognised_from_its_first_documents_together() -> None:
    """A clark-agent history that starts with a user message of text is clark-agent's (its
    next row has stop_reason); a pi event stream that starts with agent_start is pi's."""
    history = [TEXT_USER, CLARK_ASSISTANT]
    assert recognise(TEXT_USER).format == "phi-core"  # type: ignore[union-attr]
    assert recognise_documents(history) == Recognised("clark-agent", "0.4", "AgentMessage", True)
    stream = [
        {"type": "agent_start"},
        {"type": "turn_start"},
        {"type": "message_start", "message": {"role": "user", "content": "hi", "timestamp": 1}},
        {"type": "message_end", "message": PI_ASSISTANT},
    ]
    assert recognise_documents(stream[:3]).format == "clark-agent"  # type: ignore[union-attr]
    assert recognise_documents(stream).format == "pi"  # type: ignore[union-attr]


def test_a_jsonl_of_session_entries_is_a_session_file() -> None:
    header = {"type": "session", "version": 3, "id": "s", "timestamp": 1.0, "cwd": "/p"}
    leaf = {"id": "a1", "timestamp": 1.5, "type": "leaf", "target_id": "b"}
    assert recognise_lines([header, leaf]) == Recognised(
        "operator-use", "d0da87a6", "SessionFile", True
    )
    pi_header = dict(header, timestamp="2026-01-01T00:00:00.000Z")
    assert recognise_lines([pi_header]).type == "SessionFile"  # type: ignore[union-attr]
    assert recognise_lines([pi_header]).format == "pi"  # type: ignore[union-attr]


def test_the_operator_use_layout_is_told() -> None:
    d1 = {"contents": [], "id": "m", "timestamp": 1.0, "role": "user"}  # role last
    assert recognise(d1) == Recognised("operator-use", "d1cdaad8", "AgentMessage", True)
    entry = {"id": "a", "timestamp": 1.0, "type": "message", "message": d1}
    header = {"type": "session", "version": 3, "id": "s", "timestamp": 1.0, "cwd": "/p"}
    assert recognise_lines([header, entry]).version == "d1cdaad8"  # type: ignore[union-attr]


def test_an_array_of_one_type_is_a_list_of_it() -> None:
    items = [{"type": "reasoning.text", "format": "unknown", "text": "t"}] * 2
    assert recognise(items) == Recognised("clark-agent", "0.4", "list[ReasoningItem]", True)
    assert recognise([TEXT_USER, {"type": "MessageEnd"}]) is None  # two types: nothing
    # clark-agent's sequence form of a struct is that struct, not a list
    assert recognise(["system", "PROMPT", 1]).type == "AgentMessage"  # type: ignore[union-attr]
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    assert recognise(deep) is None  # nested arrays are looked into one level only


def test_type_in_a_format_falls_back_on_its_commonest_type() -> None:
    assert type_in("phi-core", {"foo": 1}) == "AgentEvent"
    assert type_in("clark-agent", {"foo": 1}) == "AgentMessage"
    assert type_in("operator-use", {"foo": 1}) == "AgentMessage"
    assert type_in("phi-core", [TEXT_USER, TEXT_USER]) == "list[AgentMessage]"
    assert type_in("clark-agent", "end_turn") == "StopReason"


def test_fits_accepts_a_possible_claim() -> None:
    assert fits("pi", {"type": "agent_start"})
    assert fits("phi-core", TEXT_USER) and fits("clark-agent", TEXT_USER)
    assert not fits("clark-agent", PI_ASSISTANT)
    assert fits("clark-agent", [CLARK_ASSISTANT, CLARK_ASSISTANT])
    assert not fits("no-such-format", TEXT_USER)


# --- the certain marks are one format's own ------------------------------------------------


def schema_words(folder: str, files: tuple[str, ...] = ("*",)) -> set[str]:
    """Every property name and string constant the schemas of a format version hold (``files``:
    only those schema files)."""
    words: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "properties" and isinstance(value, dict):
                    words.update(value)
                if key in ("const", "enum"):
                    words.update(
                        v
                        for v in (value if isinstance(value, list) else [value])
                        if isinstance(v, str)
                    )
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for pattern in files:
        for path in (ROOT / "schemas" / folder).glob(f"{pattern}.json"):
            walk(json.loads(path.read_text(encoding="utf-8")))
    return words


PHI_MESSAGES = ("message", "content", "agent_message")
"""phi-core's schema files of messages, their blocks and usage."""


def test_pi_only_keys_are_in_no_message_schema_phi_wire_speaks() -> None:
    """pi's marks are keys phi-core drops from a message: none of them is a property of
    phi-core's messages, blocks or usage (else phi-core would keep it), nor clark-agent's or
    Operator-Use's (``details`` aside: clark-agent's tool results have details too, and pi's are
    told by their camelCase role first; nor ``cost``: Operator-Use's usage has a cost too, and
    pi's is told by its camelCase counters)."""
    phi = schema_words("phi-core/0.10", PHI_MESSAGES) | schema_words("phi-core/0.8", PHI_MESSAGES)
    assert not pi.PI_ONLY_KEYS & phi, pi.PI_ONLY_KEYS & phi
    others = schema_words("clark-agent/0.4") | schema_words("operator-use/d0da87a6")
    assert pi.PI_ONLY_KEYS & others <= {"details", "cost"}, pi.PI_ONLY_KEYS & others


def test_clark_agents_own_keys_are_not_in_the_other_formats_messages() -> None:
    clark = schema_words("clark-agent/0.4")
    rest = schema_words("phi-core/0.10", PHI_MESSAGES) | schema_words("operator-use/d0da87a6")
    own = clark_agent._OWN_KEYS | clark_agent._OWN_MESSAGE_KEYS
    assert own <= clark, own - clark
    # Operator-Use's tool result block has is_error too, and its assistant stop_reason: both
    # are told apart by Operator-Use's contents/args first (it comes earlier in the order)
    assert own & rest <= {"is_error", "stop_reason"}, own & rest


def test_phi_cores_event_tags_and_enums_are_its_schemas() -> None:
    phi = schema_words("phi-core/0.10")
    assert phi >= phi_core.EVENT_TAGS, phi_core.EVENT_TAGS - phi
    for name, values in phi_core.UNIT_ENUMS.items():
        assert set(values) <= phi, (name, set(values) - phi)


def test_operator_use_enums_are_its_schemas() -> None:
    words = schema_words("operator-use/d0da87a6")
    for name, values in operator_use.UNIT_ENUMS.items():
        assert set(values) <= words, (name, set(values) - words)


def corpus_documents(implementation: str, version: str) -> Iterator[tuple[str, Any]]:
    """(file, parsed document) of every JSON and JSONL file of a corpus."""
    base = fixtures_root() / implementation / version
    for path in sorted(base.rglob("*.json*")):
        if path.name == "manifest.json" or "pi-schemas" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        try:
            yield path.name, json.loads(text)
        except ValueError:
            for line in text.split("\n"):
                try:
                    yield path.name, json.loads(line)
                except ValueError:
                    continue  # a blank or malformed line some fixtures hold on purpose


PI_MARKS = pi.PI_ONLY_KEYS - {"details"}
"""``details`` is pi's on a tool result message only: pi-agent-core's tool result object
(``{content, details}``) is phi-core's event ToolResult too."""


def has_pi_mark(value: Any) -> bool:
    if isinstance(value, dict):
        return bool(PI_MARKS & value.keys()) or any(has_pi_mark(v) for v in value.values())
    if isinstance(value, list):
        return any(has_pi_mark(item) for item in value)
    return False


def test_every_pi_document_with_a_pi_mark_is_recognised_as_pis() -> None:
    """pi's corpus (written by pi 0.73.1 itself): a document holding a key only pi writes is
    pi's, never phi-core's; and no pi document is taken for clark-agent's or Operator-Use's
    unless it is JSON they write the same way (no pi mark)."""
    wrong = []
    for name, document in corpus_documents("pi", "0.73.1"):
        found = recognise(document)
        if has_pi_mark(document) and (found is None or found.format != "pi"):
            wrong.append((name, found))
    assert not wrong, wrong[:10]


@pytest.mark.parametrize(
    ("implementation", "version"),
    [("phi-core", "0.10.0"), ("phi-core", "0.8.0")],
)
def test_no_valid_phi_core_document_is_taken_for_another_format(
    implementation: str, version: str
) -> None:
    """Everything phi-core wrote is phi-core's, or has no format's shape at all (a bare number,
    a part of a document no other format has either) and is judged as phi-core by default."""
    base = fixtures_root() / implementation / version / "valid"
    wrong = []
    for path in sorted(base.rglob("*.json")):
        found = recognise(json.loads(path.read_text(encoding="utf-8")))
        if found is not None and found.format != "phi-core":
            wrong.append((path.name, found))
    assert not wrong, wrong


# --- one home, no pydantic -------------------------------------------------------------------


def test_the_generated_modules_reexport_the_recognisers() -> None:
    assert phi_wire.clark_agent.recognise is clark_agent.recognise
    assert phi_wire.operator_use.recognise is operator_use.recognise
    assert phi_wire.operator_use_d1cdaad8.layout_of is operator_use.layout_of
    for module in (phi_wire.clark_agent, phi_wire.operator_use, phi_wire.operator_use_d1cdaad8):
        assert "WIRE_TYPES" in module.__all__ and "AgentMessage" in module.WIRE_TYPES
        assert "loads" not in module.WIRE_TYPES and "recognise" not in module.WIRE_TYPES


@pytest.mark.parametrize(
    "name",
    ["phi_wire.recognise_clark_agent", "phi_wire.operator_use_shape", "phi_wire.validate._detect"],
)
def test_the_old_module_names_are_gone(name: str) -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(name)


def test_recognition_imports_no_pydantic() -> None:
    code = (
        "import sys, json\n"
        "from phi_wire.recognise import recognise, recognise_lines\n"
        "recognise({'role': 'tool_result', 'tool_call_id': 'c', 'tool_name': 't', 'content': []})\n"
        "recognise_lines([{'type': 'session', 'cwd': '/', 'timestamp': 1.0}])\n"
        "assert 'pydantic' not in sys.modules, 'phi_wire.recognise imports pydantic'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_each_module_says_what_it_is_for() -> None:
    from phi_wire.formats import FOLDERS

    for name in ("phi_wire.recognise", *(f"{folder}.recognise" for folder in FOLDERS.values())):
        module = importlib.import_module(name)
        assert module.__doc__ and len(module.__doc__.split()) > 20, name
        assert Path(module.__file__ or "").suffix == ".py"
