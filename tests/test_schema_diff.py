"""``phi_wire.schema_diff`` / ``phi-wire schema-diff``: its claims against reality.

* Each kind of change is classified as the schemas themselves judge documents: for a pair of
  schemas and sample documents, "breaks old readers of new data" holds exactly when some document
  a new writer can write (valid under the new schema, declared keys only: serde writes no other)
  is refused by the old schema, and the reverse for new readers; judged by Python's jsonschema.
* Between consecutive versions of each format the registry lists (phi-core 0.8 -> 0.10,
  Operator-Use's layouts d0da87a6 -> d1cdaad8), both ways, per type: every document of one
  version's corpus that its own models read (``tests/wire_documents.py``: a session file whole
  and line by line), and every part of one that is itself a wire type (a session's loops, their
  events, messages, content...), is read with the other version's models. A type reported
  compatible for a kind of reader must read every sample; a reported break must be witnessed by
  a sample that fails.
* Each pair's report is checked in (``tests/expected/``, ``REPORTS``) and the command line prints
  exactly it, with the documented exit statuses.
* Operator-Use's layouts also differ in key order (d1cdaad8 writes an LLM message's ``role``
  after the base message's fields): the order of ``properties`` is what each layout writes, not
  what a reader accepts, so schema-diff does not report it; both layouts read the other's order
  (the claims above).
"""

from __future__ import annotations

import copy
import functools
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from corpus import ROOT
from jsonschema import Draft202012Validator
from wire_documents import WRITTEN, documents

import phi_wire.v0_8
import phi_wire.v0_10
from phi_wire.cli import main as cli_main
from phi_wire.formats import FORMATS, versions
from phi_wire.pointer import escape
from phi_wire.schema_diff import DifferentFormats, Impact, Report, SchemaSet, diff, load
from schemas import entry_of, jsonl_item_type, registry, schema_files, strict_json

EXPECTED_DIR = Path(__file__).parent / "expected"
EXPECTED = EXPECTED_DIR / "schema-diff-0.8-0.10.txt"
MODULES = {"0.8": phi_wire.v0_8, "0.10": phi_wire.v0_10}

PAIRS = [
    (older.folder, newer.folder)
    for format in FORMATS
    for older, newer in zip(versions(format), versions(format)[1:], strict=False)
]
"""Consecutive versions of each format, oldest first."""
REPORTS = {
    ("phi-core/0.8", "phi-core/0.10"): ("schema-diff-0.8-0.10.txt", 1),
    ("operator-use/d0da87a6", "operator-use/d1cdaad8"): (
        "schema-diff-operator-use-d0da87a6-d1cdaad8.txt",
        0,
    ),
    ("otel-genai/2026-05", "otel-genai/2b902ce1"): (
        "schema-diff-otel-genai-2026-05-2b902ce1.txt",
        1,
    ),
    ("pi/0.73", "pi/1.5"): ("schema-diff-pi-0.73-1.5.txt", 1),
}
"""{(old, new): (the checked-in report, the exit status)} for every pair of PAIRS."""


# --- each kind of change, judged by jsonschema ---------------------------------------------------


def one_type(definition: dict[str, Any], **others: dict[str, Any]) -> SchemaSet:
    definitions = {"T": definition, **others}
    return SchemaSet("test", definitions, dict.fromkeys(definitions, "t.json"))


def reads(schemas: SchemaSet, document: Any) -> bool:
    """A reader of this version accepts the document."""
    root = {"$ref": "#/$defs/T", "$defs": schemas.definitions}
    return bool(Draft202012Validator(root).is_valid(document))


def closed(node: Any) -> Any:
    """The schema as writers follow it: no key but the declared ones."""
    if isinstance(node, list):
        return [closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    result = {key: closed(value) for key, value in node.items()}
    if "properties" in result:
        result.setdefault("additionalProperties", False)
    return result


def writes(schemas: SchemaSet, document: Any) -> bool:
    """A writer of this version can write the document."""
    root = {"$ref": "#/$defs/T", "$defs": closed(dict(schemas.definitions))}
    return bool(Draft202012Validator(root).is_valid(document))


OBJECT = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
CLOSED = {**OBJECT, "additionalProperties": False}
VARIANT_A = {"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]}
VARIANT_B = {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"]}


def union(*names: str) -> dict[str, Any]:
    return {
        "type": "object",
        "oneOf": [{"$ref": f"#/$defs/{name}"} for name in names],
        "discriminator": {"propertyName": "k"},
    }


def with_property(base: dict[str, Any], required: bool) -> dict[str, Any]:
    result = copy.deepcopy(base)
    result["properties"]["b"] = {"type": "integer"}
    if required:
        result["required"].append("b")
    return result


CASES: list[tuple[str, dict[str, Any], dict[str, Any], Impact, list[Any]]] = [
    (
        "enum value added",
        {"enum": ["x", "y"]},
        {"enum": ["x", "y", "z"]},
        Impact.OLD_READERS,
        ["x", "z"],
    ),
    ("enum value removed", {"enum": ["x", "y"]}, {"enum": ["x"]}, Impact.NEW_READERS, ["x", "y"]),
    (
        "variant added",
        union("A"),
        union("A", "B"),
        Impact.OLD_READERS,
        [{"k": "a"}, {"k": "b"}],
    ),
    (
        "variant removed",
        union("A", "B"),
        union("A"),
        Impact.NEW_READERS,
        [{"k": "a"}, {"k": "b"}],
    ),
    (
        "optional property added to an open object",
        OBJECT,
        with_property(OBJECT, required=False),
        Impact.NONE,
        [{"a": "x"}, {"a": "x", "b": 1}, {"a": "x", "b": "text"}],
    ),
    (
        "optional property added to a closed object",
        CLOSED,
        with_property(CLOSED, required=False),
        Impact.OLD_READERS,
        [{"a": "x"}, {"a": "x", "b": 1}],
    ),
    (
        "required property added",
        OBJECT,
        with_property(OBJECT, required=True),
        Impact.NEW_READERS,
        [{"a": "x"}, {"a": "x", "b": 1}],
    ),
    (
        "required property removed from a closed object",
        with_property(CLOSED, required=True),
        CLOSED,
        Impact.BOTH,
        [{"a": "x"}, {"a": "x", "b": 1}],
    ),
    (
        "optional property removed from an open object",
        with_property(OBJECT, required=False),
        OBJECT,
        Impact.NONE,
        [{"a": "x"}, {"a": "x", "b": 1}],
    ),
    (
        "field became required",
        {**OBJECT, "required": []},
        OBJECT,
        Impact.NEW_READERS,
        [{}, {"a": "x"}],
    ),
    (
        "field no longer required",
        OBJECT,
        {**OBJECT, "required": []},
        Impact.OLD_READERS,
        [{}, {"a": "x"}],
    ),
    (
        "nullable field narrowed",
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
        {"anyOf": [{"type": "string"}]},
        Impact.NEW_READERS,
        ["x", None],
    ),
    (
        "type narrowed",
        {"type": ["string", "null"]},
        {"type": "string"},
        Impact.NEW_READERS,
        ["x", None],
    ),
    (
        "integer widened to number",
        {"type": "integer"},
        {"type": "number"},
        Impact.OLD_READERS,
        [1, 1.5],
    ),
    (
        "maximum lowered",
        {"type": "integer", "maximum": 10},
        {"type": "integer", "maximum": 5},
        Impact.NEW_READERS,
        [3, 7],
    ),
    (
        "minimum lowered",
        {"type": "integer", "minimum": 0},
        {"type": "integer", "minimum": -5},
        Impact.OLD_READERS,
        [3, -1],
    ),
    (
        "object closed (writers never wrote other keys)",
        OBJECT,
        CLOSED,
        Impact.NONE,
        [{"a": "x"}, {"a": "x", "z": 0}],
    ),
    (
        "pattern changed",
        {"type": "string", "pattern": "^a"},
        {"type": "string", "pattern": "^b"},
        Impact.BOTH,
        ["a", "b"],
    ),
    (
        "a property's type changed",
        {"type": "object", "properties": {"a": {"type": "string"}}},
        {"type": "object", "properties": {"a": {"type": "integer"}}},
        Impact.BOTH,
        [{"a": "x"}, {"a": 1}],
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "impact", "samples"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
def test_each_kind_of_change_is_classified_as_the_schemas_judge(
    old: dict[str, Any], new: dict[str, Any], impact: Impact, samples: list[Any]
) -> None:
    variants = {"A": VARIANT_A, "B": VARIANT_B}
    before, after = one_type(old, **variants), one_type(new, **variants)
    report = diff(before, after)
    assert report.compatibility("T") is impact, report.text()
    # the samples prove the claim: a break has a witness, a compatibility has a counterexample
    old_readers_fail = any(writes(after, d) and not reads(before, d) for d in samples)
    new_readers_fail = any(writes(before, d) and not reads(after, d) for d in samples)
    assert (old_readers_fail, new_readers_fail) == (
        impact.breaks_old_readers,
        impact.breaks_new_readers,
    )


def test_annotations_and_serde_keywords_are_notes_except_the_tagging() -> None:
    old = {
        "type": "string",
        "description": "old words",
        "default": "a",
        "x-skip-serializing-if": "is_none",
    }
    new = {"type": "string", "description": "new words", "default": "b"}
    report = diff(one_type(old), one_type(new))
    assert report.changes == ()
    assert sorted(note.kind for note in report.notes) == ["default-changed", "serde-changed"]
    retagged = diff(
        one_type({"type": "object", "x-serde-tagging": "internal"}),
        one_type({"type": "object", "x-serde-tagging": "external"}),
    )
    assert retagged.compatibility("T") is Impact.BOTH


def test_a_break_reaches_every_type_that_contains_it() -> None:
    holder = {"type": "object", "properties": {"inner": {"$ref": "#/$defs/T"}}}
    old = SchemaSet(
        "old", {"T": {"enum": ["x"]}, "Holder": holder, "Other": {"type": "string"}}, {}
    )
    new = SchemaSet(
        "new", {"T": {"enum": ["x", "y"]}, "Holder": holder, "Other": {"type": "string"}}, {}
    )
    report = diff(old, new)
    assert report.compatibility("Holder") is Impact.OLD_READERS
    assert report.compatibility("Other") is Impact.NONE
    assert report.changes[0].reached_from == ("Holder",)


def test_a_variant_a_fallback_branch_takes_breaks_no_reader() -> None:
    """A union whose last branch takes any object with a string ``type`` (OpenTelemetry GenAI's
    ``GenericPart``) gains a typed variant: old readers take its data through the fallback, so
    the addition is compatible; removing the fallback breaks new readers of old data."""
    generic = {
        "type": "object",
        "properties": {"type": {"type": "string"}},
        "required": ["type"],
        "additionalProperties": True,
    }
    typed = {
        "type": "object",
        "properties": {"type": {"type": "string", "const": "x"}, "n": {"type": "string"}},
        "required": ["type", "n"],
        "additionalProperties": True,
    }
    old = one_type({"anyOf": [{"$ref": "#/$defs/G"}]}, G=generic, X=typed)
    new = one_type({"anyOf": [{"$ref": "#/$defs/X"}, {"$ref": "#/$defs/G"}]}, G=generic, X=typed)
    assert diff(old, new).compatibility("T") is Impact.NONE
    assert reads(old, {"type": "x", "n": "y"}) and reads(new, {"type": "x", "n": "y"})
    assert (
        diff(new, one_type({"anyOf": [{"$ref": "#/$defs/X"}]}, X=typed)).compatibility("T")
        is Impact.NEW_READERS
    )


def test_an_enum_beside_its_own_type_reaches_no_container() -> None:
    """``anyOf: [Modality, {"type": "string"}]``: a value added to the enum breaks readers of the
    enum alone, not of the object whose property takes any string anyway."""
    holder = {
        "type": "object",
        "properties": {"m": {"anyOf": [{"$ref": "#/$defs/E"}, {"type": "string"}]}},
    }
    old = SchemaSet("old", {"E": {"type": "string", "enum": ["a"]}, "Holder": holder}, {})
    new = SchemaSet("new", {"E": {"type": "string", "enum": ["a", "b"]}, "Holder": holder}, {})
    report = diff(old, new)
    assert report.compatibility("E") is Impact.OLD_READERS
    assert report.compatibility("Holder") is Impact.NONE


def test_a_reference_to_another_type_counts_as_breaking_both() -> None:
    old = one_type({"$ref": "#/$defs/A"}, A={"type": "string"}, B={"type": "string"})
    new = one_type({"$ref": "#/$defs/B"}, A={"type": "string"}, B={"type": "string"})
    assert diff(old, new).compatibility("T") is Impact.BOTH


# --- each pair of versions against the fixtures, read by the other version's models ------------


class Parts:
    """The parts of a document that are wire types themselves, found by walking the document
    along its version's schema (a union's branch: the one the document is valid under)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.files = schema_files(folder)
        self.owner = {name: file for file, doc in self.files.items() for name in doc["$defs"]}

    @functools.cache  # noqa: B019 - one instance per version, kept for the module
    def validator(self, file: str, pointer: str) -> Draft202012Validator:
        root = {"$ref": f"{self.files[file]['$id']}#{pointer}"}
        return Draft202012Validator(root, registry=registry(self.folder))

    def of(self, type_name: str, value: Any) -> Iterator[tuple[str, Any]]:
        file = self.owner[type_name]
        yield type_name, value
        yield from self.walk(
            file, f"/$defs/{type_name}", self.files[file]["$defs"][type_name], value
        )

    def walk(self, file: str, pointer: str, node: Any, value: Any) -> Iterator[tuple[str, Any]]:
        if not isinstance(node, dict):
            return
        if "$ref" in node:
            target, _, fragment = node["$ref"].partition("#/$defs/")
            name = fragment
            yield from self.of(name, value) if (target or file) == self.owner[name] else ()
            return
        for index, part in enumerate(node.get("allOf", [])):
            yield from self.walk(file, f"{pointer}/allOf/{index}", part, value)
        for key in ("oneOf", "anyOf"):
            for index, branch in enumerate(node.get(key, [])):
                where = f"{pointer}/{key}/{index}"
                if self.validator(file, where).is_valid(value):
                    yield from self.walk(file, where, branch, value)
                    break
        if isinstance(value, dict):
            for name, schema in node.get("properties", {}).items():
                if name in value:
                    where = f"{pointer}/properties/{escape(name)}"
                    yield from self.walk(file, where, schema, value[name])
        if isinstance(value, list) and "items" in node:
            for item in value:
                yield from self.walk(file, f"{pointer}/items", node["items"], item)


def sample_text(folder: str, type_name: str, value: Any) -> str:
    """A value as a document its readers take: JSON, or JSON Lines for a type that is one."""
    if jsonl_item_type(folder, type_name) is not None:
        return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in value)
    return json.dumps(value, ensure_ascii=False)


@functools.cache
def samples(folder: str) -> dict[str, list[str]]:
    """{wire type: distinct texts} of every document of a version's corpus that its own models
    read (valid, canonical forms, session files whole and by line), and of every part of one that
    is a wire type."""
    entry = entry_of(folder)
    module = entry.load()
    parts = Parts(folder)
    found: dict[str, dict[str, None]] = {}
    texts = [
        (doc.type_name, doc.text)
        for doc in documents(entry, *WRITTEN, "accepted-noncanonical")
        if doc.where != "input_file"
    ]
    for fixture in {
        doc.fixture.id: doc.fixture for doc in documents(entry, "session-file")
    }.values():
        texts.append((fixture.type_name, fixture.read("file").decode("utf-8")))
    texts += WITNESSES.get(folder, [])
    for type_name, text in texts:
        if not loads_in(module, type_name, text):
            continue  # written but not readable back (NaN written as null): no sample of either
        value = (
            [strict_json(line) for line in text.splitlines()]
            if jsonl_item_type(folder, type_name)
            else strict_json(text)
        )
        for name, part in parts.of(type_name, value):
            found.setdefault(name, {})[sample_text(folder, name, part)] = None
    return {name: list(values) for name, values in found.items()}


WITNESSES: dict[str, list[tuple[str, str]]] = {
    # what the newest conventions define and no emitter of the corpus wrote (a finish reason and
    # a modality added), and what 2026-05 took that the newest does not (a text system
    # instruction without its content, a generic part then): documents made here
    "otel-genai/2b902ce1": [
        ("OutputMessages", '[{"role":"assistant","parts":[],"finish_reason":"compaction"}]'),
        (
            "InputMessages",
            '[{"role":"user","parts":[{"type":"uri","modality":"document","uri":"gs://b/f.pdf"}]}]',
        ),
    ],
    "otel-genai/2026-05": [("SystemInstructions", '[{"type":"text"}]')],
}
"""{version: (type, text)} documents the corpus lacks, each witnessing a change it reports."""


def loads_in(module: ModuleType, type_name: str, text: str) -> bool:
    try:
        module.loads(getattr(module, type_name), text)
    except module.WireError:
        return False
    return True


@pytest.mark.parametrize(
    ("old", "new"), [pair for older, newer in PAIRS for pair in ((older, newer), (newer, older))]
)
def test_claims_hold_when_each_version_reads_the_others_fixtures(old: str, new: str) -> None:
    report = diff(old, new)
    old_entry, new_entry = entry_of(old), entry_of(new)
    modules = {old: old_entry.load(), new: new_entry.load()}
    old_samples, new_samples = samples(old), samples(new)
    checked = 0
    wrong: list[str] = []
    unwitnessed: list[str] = []
    for type_name in sorted(set(old_samples) | set(new_samples)):
        if not all(hasattr(module, type_name) for module in modules.values()):
            continue  # a scalar (U64, DateTime...) or a type only one version has
        impact = report.compatibility(type_name)
        new_data, old_data = new_samples.get(type_name, []), old_samples.get(type_name, [])
        old_fail = [text for text in new_data if not loads_in(modules[old], type_name, text)]
        new_fail = [text for text in old_data if not loads_in(modules[new], type_name, text)]
        checked += len(new_data) + len(old_data)
        for breaks, failing, readers in (
            (impact.breaks_old_readers, old_fail, f"{old} readers of {new} data"),
            (impact.breaks_new_readers, new_fail, f"{new} readers of {old} data"),
        ):
            if failing and not breaks:
                wrong.append(
                    f"{type_name}: reported compatible for {readers}, fails {failing[0][:200]}"
                )
            if breaks and not failing:
                unwitnessed.append(f"{type_name}: reported breaking {readers}, no fixture fails")
    assert not wrong, "schema-diff missed a break:\n" + "\n".join(wrong)
    expected = {
        f"{name}: reported breaking {readers}, no fixture fails"
        for name, readers in UNWITNESSED.get((old, new), frozenset())
    }
    assert set(unwitnessed) == expected, "breaks the corpus does not show:\n" + "\n".join(
        sorted(set(unwitnessed) ^ expected)
    )
    assert checked > MINIMUM_SAMPLES[old_entry.format], checked


def _unwitnessed_pi() -> dict[tuple[str, str], frozenset[tuple[str, str]]]:
    """pi's reported breaks that no fixture of either corpus shows (the same readers whichever
    way round the pair is diffed):

    * ``BranchSummaryMessage.fromId`` went from string to string | null: schema-diff calls a union
      that replaces a plain type a break both ways (conservative), and neither corpus has a 1.5
      branchSummary message with ``fromId`` null; the types that contain one say so too;
    * ``ThinkingLevel`` gained ``"max"`` in 1.5, which no 1.5 fixture uses.
    """
    old_readers, new_readers = "pi/0.73 readers of pi/1.5 data", "pi/1.5 readers of pi/0.73 data"
    holding_from_id = (
        "AgentEndEvent",
        "AgentEvent",
        "AgentMessage",
        "BranchSummaryMessage",
        "FileEntry",
        "MessageEndEvent",
        "MessageStartEvent",
        "MessageUpdateEvent",
        "SessionContext",
        "SessionEntry",
        "SessionMessageEntry",
        "TurnEndEvent",
    )
    holding_max = ("ThinkingLevel", "ThinkingLevelChangedEvent", "ToolExecutionUpdateEvent")
    found = {(name, new_readers) for name in holding_from_id}
    found |= {("BranchSummaryMessage", old_readers)}
    found |= {(name, old_readers) for name in holding_max}
    return {("pi/0.73", "pi/1.5"): frozenset(found), ("pi/1.5", "pi/0.73"): frozenset(found)}


UNWITNESSED = _unwitnessed_pi()
"""{(old, new): {(type, readers)}}: reported breaks no corpus document witnesses (why: in
``_unwitnessed_pi``), asserted exactly: a fixture that shows one makes the entry fail."""
MINIMUM_SAMPLES = {"phi-core": 2000, "operator-use": 300, "otel-genai": 500, "pi": 1000}
"""Samples a pair is checked on, at least: a corpus that went missing cannot pass quietly."""


def test_the_0_8_to_0_10_report_names_phi_cores_own_changes() -> None:
    """phi-core-wire.md section 4: TurnRequest is new (0.8 rejects it), Turn.request_payload and
    LlmMessage.provenanceHint are new optional keys, everything else is unchanged."""
    report = diff("0.8", "0.10")
    assert [(c.type_name, c.kind, c.impact) for c in report.changes] == [
        ("AgentEvent", "variant-added", Impact.OLD_READERS),
        ("LlmMeta", "property-added", Impact.NONE),
        ("Turn", "property-added", Impact.NONE),
    ]
    assert report.breaking() == report.breaking(Impact.OLD_READERS)
    assert "TurnRequest" in report.added_types and not report.removed_types


def test_the_operator_use_report_names_the_layouts_own_changes() -> None:
    """docs/operator-use.md: d1cdaad8 adds ToolResultContent.terminate_message and
    MessageMeta.channel_message_id, two optional keys of open objects, and writes an LLM message's
    role last; nothing breaks a reader of either layout."""
    report = diff("operator-use/d0da87a6", "operator-use/d1cdaad8")
    assert [(c.type_name, c.pointer, c.impact) for c in report.changes] == [
        ("MessageMeta", "/properties/channel_message_id", Impact.NONE),
        ("ToolResultContent", "/properties/terminate_message", Impact.NONE),
    ]
    assert not report.breaking() and not report.notes
    assert not report.added_types and not report.removed_types


def property_orders(folder: str) -> dict[str, list[str]]:
    return {
        name: list(definition["properties"])
        for document in schema_files(folder).values()
        for name, definition in document["$defs"].items()
        if "properties" in definition
    }


def test_the_layouts_key_order_is_not_a_schema_change() -> None:
    """The order of ``properties`` is the key order each layout writes (its models write in that
    order), not a rule for readers: d1cdaad8 moves ``role`` from first to after BaseMessage's
    fields (contents, id, timestamp) in the four LLM messages, and
    schema-diff, which compares properties by name, reports nothing there. That both layouts read
    the other's order is what the claims test above checks on the corpus."""
    old, new = (property_orders(f"operator-use/{layout}") for layout in ("d0da87a6", "d1cdaad8"))
    moved = {
        name: new[name]
        for name in old.keys() & new.keys()
        if [key for key in old[name] if key in new[name]]
        != [key for key in new[name] if key in old[name]]
    }
    assert set(moved) == {"SystemMessage", "UserMessage", "AssistantMessage", "ToolMessage"}
    for name, order in moved.items():  # role after BaseMessage's fields, the rest unchanged
        base = old[name][1:4]
        assert old[name][0] == "role" and base == ["contents", "id", "timestamp"]
        assert order == [*base, "role", *old[name][4:]], name
    report = diff("operator-use/d0da87a6", "operator-use/d1cdaad8")
    assert not {change.type_name for change in (*report.changes, *report.notes)} & set(moved)


# --- the command line --------------------------------------------------------------------------


def run_cli(*arguments: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli_main(["schema-diff", *arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_every_pair_of_versions_has_its_report_checked_in() -> None:
    """schemas/README.md, conventions rule 10: a new version comes with its report."""
    assert set(REPORTS) == set(PAIRS)
    assert {path.name for path in EXPECTED_DIR.glob("schema-diff-*.txt")} == {
        name for name, _ in REPORTS.values()
    }


@pytest.mark.parametrize(("old", "new"), sorted(REPORTS))
def test_the_checked_in_report_is_what_the_command_prints(
    old: str, new: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``phi-wire schema-diff <format>/<old> <format>/<new>`` (phi-core's also by version alone)."""
    name, exit_status = REPORTS[(old, new)]
    expected = (EXPECTED_DIR / name).read_text(encoding="utf-8")
    status, out, _ = run_cli(old, new, capsys=capsys)
    assert status == exit_status, "exit status 1 when a change breaks a reader, else 0"
    assert out == expected, (
        f"the report changed; if that is right, regenerate tests/expected/{name} with "
        f"`phi-wire schema-diff {old} {new}`"
    )


def test_exit_statuses_and_formats(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run_cli("0.8", "0.8", capsys=capsys)[0] == 0
    assert run_cli("0.8", "0.10", "--fail-on", "new-readers", capsys=capsys)[0] == 0
    assert run_cli("0.10", "0.8", "--fail-on", "new-readers", capsys=capsys)[0] == 1
    assert run_cli("0.8", "0.10", "--fail-on", "none", capsys=capsys)[0] == 0
    status, out, _ = run_cli("0.8", "0.10", "--format", "json", capsys=capsys)
    answer = json.loads(out)
    assert status == 1 and answer["breaking"] == 1
    assert answer["changes"][0]["breaks_old_readers_of_new_data"] is True
    folders = [str(ROOT / "schemas" / "phi-core" / version) for version in ("0.8", "0.10")]
    status, out, _ = run_cli(*folders, capsys=capsys)
    assert status == 1 and out.splitlines()[2:] == EXPECTED.read_text().splitlines()[2:]
    status, _, err = run_cli("0.8", "0.9", capsys=capsys)
    assert status == 2 and "neither a schema folder nor a version" in err
    (tmp_path / "empty").mkdir()
    status, _, err = run_cli("0.8", str(tmp_path / "empty"), capsys=capsys)
    assert status == 2 and "no schema files" in err
    assert run_cli("0.8", capsys=capsys)[0] == 2


def test_a_diff_across_formats_is_refused_unless_asked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Issue 17, defect 10: ``schema-diff 0.8 clark-agent/0.4`` printed some 300 lines of
    "breaking" changes between two implementations. Refused: exit 2 and one line saying why and
    how to force it (``--across-formats``); the library raises ``DifferentFormats``, a
    ``ValueError``, unless ``across_formats=True``."""
    status, out, err = run_cli("0.8", "clark-agent/0.4", capsys=capsys)
    assert (status, out, err.count("\n")) == (2, "", 1), err
    assert err.startswith("phi-wire: schema-diff: phi-core 0.8 and clark-agent 0.4 are versions ")
    assert "--across-formats compares them anyway" in err
    schemas = ROOT / "schemas"
    folders = [schemas / "phi-core" / "0.10", schemas / "operator-use" / "d1cdaad8"]
    status, out, err = run_cli(*map(str, folders), capsys=capsys)  # the files' $id say whose
    assert (status, out) == (2, "") and f"{folders[1]} (operator-use) are versions" in err, err
    status, out, _ = run_cli("0.8", "clark-agent/0.4", "--across-formats", capsys=capsys)
    assert status == 1 and out.startswith("schema-diff phi-core 0.8 -> clark-agent 0.4: ")
    with pytest.raises(DifferentFormats, match="pass across_formats=True") as raised:
        diff("0.8", "clark-agent/0.4")
    assert isinstance(raised.value, ValueError)
    assert diff("0.8", "clark-agent/0.4", across_formats=True).breaking()
    # a folder whose files name no format (no $id) is compared with any version
    for source in folders[0].glob("*.json"):
        document = json.loads(source.read_text(encoding="utf-8"))
        document.pop("$id")
        (tmp_path / source.name).write_text(json.dumps(document), encoding="utf-8")
    assert load(tmp_path).format is None and load(folders[0]).format == "phi-core"
    assert not diff(tmp_path, "0.10").changes
    assert diff(tmp_path, "clark-agent/0.4").breaking()


def test_the_command_line_loads_the_comparison_only_when_it_runs() -> None:
    """Every ``phi-wire`` run registers the subcommand; only schema-diff pays for the rest."""
    check = (
        "import sys\n"
        "from phi_wire.cli import parser\n"
        "parser().parse_args(['types'])\n"
        "assert 'phi_wire.schema_diff._compare' not in sys.modules, 'loaded eagerly'\n"
        "from phi_wire.schema_diff import Impact\n"
        "assert 'phi_wire.schema_diff._compare' in sys.modules\n"
        "assert Impact.NONE.value == 'compatible'\n"
    )
    result = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_command_runs_as_installed() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "phi_wire", "schema-diff", "0.8", "0.10", "--fail-on", "none"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == EXPECTED.read_text(encoding="utf-8")


def test_load_reads_versions_from_the_installed_package() -> None:
    assert load("0.10.3").label == "phi-core 0.10"
    assert (
        load("phi-core/0.8").definitions == load(ROOT / "schemas" / "phi-core" / "0.8").definitions
    )
    assert isinstance(diff("0.8", "0.10"), Report)
