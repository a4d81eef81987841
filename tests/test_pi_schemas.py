"""pi's schemas (``schemas/pi/0.73/``, ``schemas/pi/1.5/``) against what pi wrote: both corpora.

The schemas themselves, checked with the helpers the other formats' tests use (what the models
built from them read and write: tests/test_pi_fixtures.py):

* the conventions of ``schemas/README.md``, as they apply to pi: dialect, ``$id``, documentation,
  tagged unions in the form ajv and codegen take, named union branches, no ``format``, patterns in
  the shared syntax; objects **closed** except the ones listed in ``OPEN`` (pi's types name every
  key pi writes); the writer's facts on every node (``x-js-key-order``, ``x-js-number``);
* every fixture of ``<corpus>/pi/0.73.1`` and ``<corpus>/pi/1.5.2`` (manifest-driven) validates
  against its definition in Python's ``jsonschema`` (every file of the version registered, the
  dialect and its vocabulary from ``schemas/meta/``): single values by their type, every line of a
  stream or session by its line type and whole files by their file type, contexts whole, accepted
  inputs by what pi reads (``LegacySession`` below version 3) and canonicals by what it writes;
* ajv 8 in strict mode with ``discriminator: true`` compiles every definition and gives the same
  verdict on every one of those documents, and on the negative cases below;
* negative cases: per variant of each type a wrong tag, a missing required key and an unknown key
  are refused, and the facts that separate 0.73 from 1.5 are refused by the version without them;
* the order of ``properties`` is the order pi writes a new object in; every other key order in the
  corpora is a documented producer's (``OTHER_ORDERS``, migrated v1 lines);
* ``ISOTimestamp``'s pattern: Python's ``re``, ECMA-262 and ``Date.toISOString()`` agree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any, NamedTuple

import pytest
from corpus import Fixture, manifest
from jsonschema import Draft202012Validator
from node import run_node
from test_typescript import AJV_SETUP, meta_schemas, read_stdin_json

from schemas import (
    DIALECT,
    definitions,
    dialect_validator,
    file_validator,
    schema_files,
    schemas_in,
)

VERSIONS = {"pi/0.73": "0.73.1", "pi/1.5": "1.5.2"}
"""schema folder: the corpus version that judges it."""

FOLDERS = list(VERSIONS)
FILES = [(folder, name) for folder in FOLDERS for name in schema_files(folder)]

OPEN: dict[str, str] = {
    "Model": "pi's model schemas are open objects (pi-schema openObject); models.json adds keys",
    "ModelCost": "part of Model, open for the same reason",
    "LegacySessionHeader": "v1/v2 headers: pi reads any JSON and keeps unknown keys on migration",
    "LegacySessionEntry": "v1/v2 entries: migration touches a few keys and keeps the rest",
}
"""Object definitions that are not closed, with the reason (every other one is closed)."""

PRIMITIVES = {"string", "integer", "number", "boolean", "null"}


# --- the conventions ----------------------------------------------------------------------------


@pytest.mark.parametrize(("folder", "name"), FILES)
def test_schema_file_passes_the_dialect_with_its_id(folder: str, name: str) -> None:
    document = schema_files(folder)[name]
    Draft202012Validator.check_schema(document)
    assert document["$schema"] == DIALECT
    problems = [f"{e.json_path}: {e.message}" for e in dialect_validator().iter_errors(document)]
    assert not problems, f"{folder}/{name} breaks phi-wire's dialect: {problems}"
    assert document["$id"] == f"https://phi-wire.dev/schemas/{folder}/{name}"
    assert set(document) <= {"$schema", "$id", "title", "description", "$defs"}


@pytest.mark.parametrize("folder", FOLDERS)
def test_definition_names_are_unique_in_a_version(folder: str) -> None:
    seen: dict[str, str] = {}
    for file, document in schema_files(folder).items():
        for name in document["$defs"]:
            assert name not in seen, f"{folder}: {name} is defined in {seen[name]} and {file}"
            seen[name] = file


@pytest.mark.parametrize(("folder", "name"), FILES)
def test_every_type_and_field_is_documented(folder: str, name: str) -> None:
    missing = []
    for def_name, definition in schema_files(folder)[name]["$defs"].items():
        if definition.get("title") != def_name or not definition.get("description"):
            missing.append(f"#/$defs/{def_name}: title and description")
        for pointer, node in schemas_in(definition, f"#/$defs/{def_name}"):
            for prop, schema in node.get("properties", {}).items():
                if pointer.endswith(("/if", "/then")):
                    continue  # restates a documented property for the condition
                if not schema.get("description"):
                    missing.append(f"{pointer}/properties/{prop}: description")
    assert not missing, f"{folder}/{name}: add the missing documentation at {missing}"


def branch_target(folder: str, ref: str) -> dict[str, Any]:
    return definitions(folder)[ref.rpartition("/")[2]]


@pytest.mark.parametrize("folder", FOLDERS)
def test_unions_are_tagged_for_ajv_or_say_they_are_untagged(folder: str) -> None:
    """A tagged union: ``type: object``, ``oneOf`` of bare ``$ref``s, a ``propertyName``-only
    discriminator, the tag a required ``const`` in each branch, no tag twice. Any other union
    lists bare ``$ref``s or primitives and carries ``x-js-union``."""
    for name, definition in definitions(folder).items():
        where = f"{folder}#/$defs/{name}"
        if "discriminator" in definition:
            assert definition.get("type") == "object", where
            assert set(definition["discriminator"]) == {"propertyName"}, where
            tag = definition["discriminator"]["propertyName"]
            values = []
            for branch in definition["oneOf"]:
                assert set(branch) == {"$ref"}, where
                target = branch_target(folder, branch["$ref"])
                assert target.get("type") == "object", f"{where} -> {branch['$ref']}"
                assert "const" in target["properties"][tag], f"{where} -> {branch['$ref']}"
                assert tag in target["required"], f"{where} -> {branch['$ref']}"
                values.append(target["properties"][tag]["const"])
            assert len(set(values)) == len(values), f"{where}: a tag twice: {values}"
        elif "oneOf" in definition or "anyOf" in definition:
            assert definition.get("x-js-union") == "untagged", f"{where}: say how it is told apart"
            for branch in definition.get("oneOf", definition.get("anyOf")):
                named = set(branch) == {"$ref"}
                primitive = set(branch) == {"type"} and branch["type"] in PRIMITIVES
                assert named or primitive, f"{where}: name the branch {branch}"


@pytest.mark.parametrize(("folder", "name"), FILES)
def test_no_format_and_patterns_in_the_shared_syntax(folder: str, name: str) -> None:
    for pointer, node in schemas_in(schema_files(folder)[name]):
        assert "format" not in node, f"{folder}/{name}#{pointer}: a pattern, not format"
        if "pattern" in node:
            pattern = node["pattern"]
            re.compile(pattern)
            assert pattern.startswith("^") and node.get("type") == "string", pointer
            for syntax in (r"\d", r"\s", r"\w", r"\b", "(?=", "(?!", "(?<", "(?P"):
                assert syntax not in pattern.replace("\\\\", ""), f"{pointer}: {syntax}"


@pytest.mark.parametrize(("folder", "name"), FILES)
def test_objects_are_closed_unless_listed_and_carry_the_writer_facts(
    folder: str, name: str
) -> None:
    """pi's types name every key pi writes: each object with properties is closed (``OPEN``
    lists the exceptions and why), each object type keeps its key order as read, each number is
    a JavaScript number."""
    for def_name, definition in schema_files(folder)[name]["$defs"].items():
        for pointer, node in schemas_in(definition, f"#/$defs/{def_name}"):
            if "properties" in node and not pointer.endswith(("/if", "/then")):
                closed = node.get("additionalProperties") is False
                assert closed != (pointer == f"#/$defs/{def_name}" and def_name in OPEN), (
                    f"{folder}/{name}{pointer}: closed unless OPEN says why"
                )
            if node.get("type") in ("number", "integer"):
                assert node.get("x-js-number") is True, f"{folder}/{name}{pointer}: x-js-number"
        if "properties" in definition and "discriminator" not in definition:
            assert definition.get("x-js-key-order") == "as-read", f"{folder}#{def_name}"


def test_open_lists_only_open_definitions() -> None:
    for name in OPEN:
        for folder in FOLDERS:
            found = definitions(folder).get(name)
            if found is not None:
                assert found.get("additionalProperties") is not False, (folder, name)
                break
        else:
            pytest.fail(f"OPEN names {name}, which no version defines")


# --- the corpora ----------------------------------------------------------------------------------


class Case(NamedTuple):
    """One document of the corpus and the definition that must accept it."""

    where: str  # fixture id, file key and line
    folder: str
    type_name: str
    document: Any


def pi_lines(text: str) -> Iterator[tuple[int, Any]]:
    """A session file as pi's loader reads it: the text trimmed and split on \\n, blank lines
    skipped, a line that is not JSON skipped (JSON.parse tolerates a trailing \\r, as json does);
    (line number, value), value None for a skipped malformed line."""
    for number, line in enumerate(text.strip().split("\n"), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except ValueError:
            yield number, None


MALFORMED = {
    "Session.migrate.v2_crlf_blank_malformed": "input_file",
    "Session.migrate.v3_malformed_line_not_rewritten": "input_file canonical_file",
}
"""Fixtures with a line that is not JSON (pi skips it), and the files that hold it; no other file
of the corpora may have one."""


def session_cases(fixture: Fixture, key: str, folder: str) -> list[Case]:
    """A session file, whole and line by line; a header below version 3 makes it a LegacySession
    (what pi reads and migrates), otherwise a Session."""
    lines = list(pi_lines(fixture.read(key).decode("utf-8")))
    skipped = [number for number, value in lines if value is None]
    expected = key in MALFORMED.get(fixture.entry["id"], "").split()
    assert bool(skipped) == expected, f"{fixture.id} {key}: lines that are not JSON: {skipped}"
    values = [value for _, value in lines if value is not None]
    legacy = values[0].get("version", 1) < 3
    where = f"{fixture.id}:{key}"
    cases = [Case(where, folder, "LegacySession" if legacy else "Session", values)]
    for number, value in lines:
        if value is None:
            continue
        line_type = "LegacyFileEntry" if legacy else "FileEntry"
        if not legacy:
            line_type = "SessionHeader" if number == lines[0][0] else "SessionEntry"
        cases.append(Case(f"{where}:{number}", folder, line_type, value))
    return cases


def fixture_cases(folder: str, fixture: Fixture) -> list[Case]:
    entry, type_name = fixture.entry, fixture.type_name
    if fixture.kind == "accepted-noncanonical":
        return [
            case
            for key in ("input_file", "canonical_file")
            for case in session_cases(fixture, key, folder)
        ]
    assert fixture.kind == "valid-canonical", fixture.id
    if type_name == "Session":
        return session_cases(fixture, "file", folder)
    text = fixture.read("file").decode("utf-8")
    if entry["format"] == "json-compact" or entry["file"].endswith(".json"):
        source = (entry.get("source") or {}).get("file", "")
        if type_name == "AgentEvent" and source.startswith("streams/pi-coding-agent."):
            # cut out of an AgentSession stream: AgentSession's own agent_end (1.5: willRetry)
            type_name = "AgentSessionEvent"
        return [Case(fixture.id, folder, type_name, json.loads(text))]
    assert text.endswith("\n"), f"{fixture.id}: a JSONL file ends every line with \\n"
    lines = [json.loads(line) for line in text[:-1].split("\n")]
    whole = {"JsonAgentSessionEvent": "JsonModeOutput", "RpcOutput": "RpcOutput"}
    cases = []
    if folder == "pi/0.73" and type_name == "AgentSessionEvent" and lines[0]["type"] == "session":
        whole[type_name] = "JsonModeOutput"  # 0.73: the same writer as `pi --mode json`
    if type_name in whole:
        cases.append(Case(fixture.id, folder, whole[type_name], lines))
    line_type = {"RpcOutput": "RpcOutputLine"}.get(type_name, type_name)
    for number, value in enumerate(lines, start=1):
        header = number == 1 and value.get("type") == "session"
        cases.append(
            Case(f"{fixture.id}:{number}", folder, "SessionHeader" if header else line_type, value)
        )
    return cases


def corpus_cases() -> list[Case]:
    return [
        case
        for folder, version in VERSIONS.items()
        for fixture in manifest(version, "pi")
        for case in fixture_cases(folder, fixture)
    ]


CASES = corpus_cases()


def errors(case: Case) -> list[str]:
    validator = file_validator(case.folder, case.type_name)
    return [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message[:200]}"
        for error in validator.iter_errors(case.document)
    ]


def test_the_corpora_are_all_here() -> None:
    """Every manifest entry became cases, and every type of the manifests has a definition."""
    for folder, version in VERSIONS.items():
        fixtures = manifest(version, "pi")
        assert len(fixtures) > 250, f"{version}: only {len(fixtures)} fixtures"
        kinds = {fixture.kind for fixture in fixtures}
        assert kinds == {"valid-canonical", "accepted-noncanonical"}, kinds
        for fixture in fixtures:
            assert fixture.type_name in definitions(folder), f"{folder}: {fixture.type_name}"


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.folder}:{case.where}")
def test_every_corpus_document_validates_as_its_type(case: Case) -> None:
    found = errors(case)
    assert not found, f"{case.where}: {case.folder} {case.type_name} refuses it: {found[:5]}"


def test_agentsession_agent_end_is_not_the_core_agent_event() -> None:
    """1.5's AgentSession writes agent_end with willRetry, which pi-agent-core's AgentEvent has
    not: the corpus files such values under AgentEvent, and only AgentSessionEvent takes them."""
    moved = [
        case
        for case in CASES
        if case.folder == "pi/1.5"
        and case.type_name == "AgentSessionEvent"
        and case.document.get("type") == "agent_end"
        and ":" not in case.where.partition("AgentEvent.")[2]
    ]
    assert moved, "the 1.5 corpus has AgentSession agent_end values filed as AgentEvent"
    for case in moved:
        assert "willRetry" in case.document
        assert errors(case._replace(type_name="AgentEvent")), case.where


OTHER_ORDERS: dict[str, list[str]] = {
    # the faux provider keeps the scripted message's keys; pi's own error/abort messages too
    "AssistantMessage": [
        "role,content,api,provider,model,usage,stopReason,deferred,errorMessage,responseId,"
        "timestamp,durationMs,thinkingLevel"
    ],
    "SystemMessage": ["role,content,sections,timestamp,toolsAdded,toolsRemoved"],  # AgentSession
    # anthropic appends cacheWrite1h (and reasoning) after cost
    "Usage": ["input,output,cacheRead,cacheWrite,totalTokens,cost,cacheWrite1h,reasoning"],
    # a migrated v1 header: its own keys, version appended when it had none
    "SessionHeader": ["type,id,timestamp,cwd,provider,modelId,thinkingLevel,branchedFrom,version"],
}
"""The producers' key orders other than the schema's property order (docs/pi.md's table)."""


def migrated_v1_order(definition: dict[str, Any]) -> str:
    """A v1 entry after migration: its own keys in place, then id, parentId (and a compaction's
    firstKeptEntryId) appended."""
    own = [
        key
        for key in definition["properties"]
        if key not in ("type", "id", "parentId", "timestamp", "firstKeptEntryId")
    ]
    return ",".join(["type", "timestamp", *own, "id", "parentId", "firstKeptEntryId"])


def test_pi_writes_new_objects_in_the_schemas_property_order() -> None:
    """The order of ``properties`` is the order pi's own constructors write (what a writer uses for
    an object built anew); every other order in the corpora is a documented producer's."""
    unexplained = []
    for case in CASES:
        if not isinstance(case.document, dict) or case.type_name in UNTAGGED:
            continue
        name, _ = resolve_branch(case.folder, case.type_name, case.document)
        definition = definitions(case.folder)[name]
        orders = [",".join(definition["properties"]), *OTHER_ORDERS.get(name, [])]
        if name.endswith("Entry"):
            orders.append(migrated_v1_order(definition))
        keys = list(case.document)
        if not any(keys == [k for k in order.split(",") if k in case.document] for order in orders):
            unexplained.append(f"{case.where}: {name} {','.join(keys)}")
    assert not unexplained, f"key orders no producer explains: {unexplained[:10]}"


# --- ajv ----------------------------------------------------------------------------------------


def negative_cases() -> list[tuple[Case, str]]:
    """(document that must be refused, why): per type a wrong tag, a missing required key and an
    unknown key, taken from a real fixture; and the facts that tell the versions apart."""
    found: list[tuple[Case, str]] = []
    seen: set[tuple[str, str, str]] = set()
    for case in CASES:
        if not isinstance(case.document, dict) or case.type_name in UNTAGGED:
            continue
        branch, _ = resolve_branch(case.folder, case.type_name, case.document)
        if (case.folder, case.type_name, branch) in seen:
            continue  # one real document per variant of each type
        seen.add((case.folder, case.type_name, branch))
        found += [(mutated, why) for mutated, why in mutations(case)]
    found += version_facts()
    return found


UNTAGGED = {"RpcResponse", "RpcOutputLine", "LegacyFileEntry"}
"""Unions without a tag: version_facts holds their negative cases."""


def resolve_branch(folder: str, type_name: str, document: dict[str, Any]) -> tuple[str, str | None]:
    """(the object definition a document falls in, its tag key), following tags."""
    definition = definitions(folder)[type_name]
    if "discriminator" not in definition:
        return type_name, None
    tag = definition["discriminator"]["propertyName"]
    for branch in definition["oneOf"]:
        name = branch["$ref"].rpartition("/")[2]
        if definitions(folder)[name]["properties"][tag].get("const") == document.get(tag):
            inner, _ = resolve_branch(folder, name, document)
            return inner, tag
    raise AssertionError(f"{type_name}: no branch for {document.get(tag)!r}")


def mutations(case: Case) -> Iterator[tuple[Case, str]]:
    document = case.document
    name, tag = resolve_branch(case.folder, case.type_name, document)
    definition = definitions(case.folder)[name]
    if tag is not None:
        yield case._replace(document={**document, tag: "not-a-tag"}), f"wrong {tag}"
    required = [key for key in definition.get("required", []) if key != tag]
    if required:
        missing = {key: value for key, value in document.items() if key != required[-1]}
        yield case._replace(document=missing), f"{name} without {required[-1]}"
    if definition.get("additionalProperties") is False:
        yield case._replace(document={**document, "unknownKey": 1}), f"{name} with an unknown key"


def version_facts() -> list[tuple[Case, str]]:
    user = {"role": "user", "content": "hi", "timestamp": 1}
    usage = {
        "input": 1,
        "output": 2,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 3,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }
    assistant = {
        "role": "assistant",
        "content": [{"type": "text", "text": "hi"}],
        "api": "faux",
        "provider": "faux",
        "model": "m",
        "usage": usage,
        "stopReason": "stop",
        "timestamp": 1,
    }
    header = {
        "type": "session",
        "version": 3,
        "id": "s",
        "timestamp": "2025-12-01T10:00:00.000Z",
        "cwd": "/",
    }
    entry = {
        "type": "message",
        "id": "a1b2c3d4",
        "parentId": None,
        "timestamp": "2025-12-01T10:00:01.000Z",
        "message": user,
    }
    system = {"role": "system", "content": "", "timestamp": 1}
    both = ("pi/0.73", "pi/1.5")
    facts: list[tuple[tuple[str, ...], str, Any, str]] = [
        (("pi/0.73",), "Message", system, "0.73 has no system role"),
        (
            ("pi/0.73",),
            "AssistantMessage",
            {**assistant, "stopReason": "pending"},
            "0.73 has no pending",
        ),
        (
            ("pi/0.73",),
            "AssistantMessage",
            {**assistant, "durationMs": 5},
            "0.73 has no durationMs",
        ),
        (("pi/0.73",), "Usage", {**usage, "reasoning": 1}, "0.73 has no reasoning tokens"),
        (
            ("pi/0.73",),
            "SessionEntry",
            {**entry, "type": "context_edit"},
            "0.73 has no context_edit",
        ),
        (
            both,
            "AssistantMessage",
            {**assistant, "errorMessage": None},
            "optional keys are never null",
        ),
        (
            both,
            "AssistantMessage",
            {**assistant, "stopReason": "end_turn"},
            "stop reasons are closed",
        ),
        (
            both,
            "Message",
            {**user, "content": [{"type": "thinking", "thinking": "x"}]},
            "no thinking in user content",
        ),
        (both, "Session", [header, header], "one header"),
        (both, "Session", [entry], "no header"),
        (both, "Session", [{**header, "version": 2}, entry], "a v2 header is a LegacySession's"),
        (
            both,
            "SessionHeader",
            {**header, "timestamp": "2025-12-01T10:00:00Z"},
            "milliseconds always",
        ),
        (
            both,
            "SessionHeader",
            {**header, "timestamp": "2025-12-01T10:00:00.000Z\n"},
            "no newline",
        ),
        (
            both,
            "SessionHeader",
            {**header, "timestamp": "2025-02-29T10:00:00.000Z"},
            "2025 is no leap year",
        ),
        (
            both,
            "LegacySession",
            [{"type": "session", "id": "x"}, {"type": "session", "id": "y"}],
            "one header",
        ),
        (
            ("pi/1.5",),
            "AgentSessionEvent",
            {"type": "summarization_retry_attempt_start", "source": "compaction"},
            "compaction names its reason",
        ),
        (
            ("pi/1.5",),
            "AgentSessionEvent",
            {
                "type": "summarization_retry_attempt_start",
                "source": "branchSummary",
                "reason": "manual",
            },
            "a branch summary has no reason",
        ),
        (
            ("pi/1.5",),
            "JsonAssistantMessageEvent",
            {"type": "text_delta", "contentIndex": 0, "delta": "x", "partial": assistant},
            "no partial on the JSON wire",
        ),
        (
            ("pi/1.5",),
            "JsonAssistantMessageEvent",
            {"type": "toolcall_start", "contentIndex": 0},
            "toolcall_start names the call",
        ),
        (
            ("pi/1.5",),
            "RpcResponse",
            {"type": "response", "command": "prompt", "success": True},
            "prompt answers with data",
        ),
        (
            ("pi/1.5",),
            "RpcResponse",
            {"type": "response", "command": "nope", "success": True},
            "no such command succeeds",
        ),
        (
            ("pi/1.5",),
            "RpcResponse",
            {"type": "response", "command": "x", "success": False},
            "an error says why",
        ),
        (
            ("pi/1.5",),
            "RpcOutputLine",
            {"type": "extension_error", "extensionPath": "p", "event": "e"},
            "extension_error names the error",
        ),
    ]
    cases = []
    for folders, type_name, document, why in facts:
        for folder in folders:
            cases.append((Case(f"negative: {why}", folder, type_name, document), why))
    return cases


NEGATIVE = negative_cases()


@pytest.mark.parametrize(("case", "why"), NEGATIVE, ids=lambda item: getattr(item, "where", item))
def test_the_schemas_refuse_what_pi_does_not_write(case: Case, why: str) -> None:
    assert errors(case), f"{case.folder} {case.type_name} accepts a document with {why}"


AJV_JUDGE = """
let compiled = 0;
const verdicts = {};
for (const [folder, files] of Object.entries(input.folders)) {
  const ajv = strictAjv(input.meta);
  for (const file of files) ajv.addSchema(file);
  const byName = {};
  for (const file of files) {
    for (const name of Object.keys(file.$defs)) {
      const ref = `${file.$id}#/$defs/${name}`;
      compiled += attempt(ref, () => { byName[name] = ajv.compile({ $ref: ref }); });
    }
  }
  verdicts[folder] = input.cases
    .filter((item) => item.folder === folder)
    .map((item) => byName[item.type](item.document));
}
process.stdout.write(JSON.stringify({ failures, warnings, compiled, verdicts }));
"""


def test_ajv_strict_mode_compiles_every_definition_and_agrees_with_python() -> None:
    """One node run: every definition of both versions compiles with no error or warning, and
    ajv accepts every corpus document and refuses every negative case, as jsonschema does."""
    folders = {folder: list(schema_files(folder).values()) for folder in FOLDERS}
    judged = [(case, True) for case in CASES] + [(case, False) for case, _ in NEGATIVE]
    payload = {
        "meta": meta_schemas(),
        "folders": folders,
        "cases": [
            {"folder": c.folder, "type": c.type_name, "document": c.document} for c, _ in judged
        ],
    }
    result = run_node(AJV_SETUP + read_stdin_json() + AJV_JUDGE, payload)
    assert not result["failures"], "ajv strict mode refuses:\n" + "\n".join(result["failures"])
    assert not result["warnings"], "ajv strict mode warns:\n" + "\n".join(result["warnings"])
    assert result["compiled"] == sum(len(definitions(folder)) for folder in FOLDERS)
    for folder in FOLDERS:
        expected = [(case.where, valid) for case, valid in judged if case.folder == folder]
        verdicts = result["verdicts"][folder]
        disagree = [
            where for (where, valid), got in zip(expected, verdicts, strict=True) if valid != got
        ]
        assert not disagree, f"{folder}: ajv judges otherwise: {disagree[:10]}"


# --- ISOTimestamp ---------------------------------------------------------------------------------


def timestamp_samples() -> list[str]:
    """Every day of leap and common years around the century rules, impossible days of every
    month, and strings that are almost Date.toISOString() output."""
    samples = []
    for year in (1900, 1999, 2000, 2024, 2025, 2100, 2400):
        day = date(year, 1, 1)
        while day.year == year:
            samples.append(f"{day.isoformat()}T12:34:56.789Z")
            day += timedelta(days=1)
        for month in range(1, 13):
            samples += [
                f"{year:04d}-{month:02d}-{d}T00:00:00.000Z" for d in ("29", "30", "31", "32", "00")
            ]
    samples += [
        "0000-02-29T00:00:00.000Z",
        "9999-12-31T23:59:59.999Z",
        "+010000-01-01T00:00:00.000Z",
        "2025-01-01T24:00:00.000Z",
        "2025-01-01T23:60:00.000Z",
        "2025-01-01T23:59:60.000Z",
        "2025-01-01T23:59:59.99Z",
        "2025-01-01T23:59:59.9999Z",
        "2025-01-01T23:59:59.999Z\n",
        "2025-01-01T23:59:59.999z",
        "2025-01-01 23:59:59.999Z",
        "2025-01-01T23:59:59.999+00:00",
        " 2025-01-01T23:59:59.999Z",
        "2025-13-01T00:00:00.000Z",
        "\uff12\uff10\uff12\uff15-01-01T00:00:00.000Z",  # fullwidth digits
    ]
    return samples


def test_iso_timestamp_pattern_is_date_to_iso_string_in_every_engine() -> None:
    """ISOTimestamp accepts exactly the strings ``new Date(s).toISOString()`` gives back unchanged
    (four-digit years), in Python's jsonschema and in ajv alike: its fixed length stands in for the
    end anchor, so Python's ``$`` (which also matches before a final newline) never comes in."""
    samples = timestamp_samples()
    script = (
        AJV_SETUP
        + read_stdin_json()
        + """
    const ajv = strictAjv(input.meta);
    for (const file of input.files) ajv.addSchema(file);
    const check = ajv.compile({ $ref: input.ref });
    const roundTrip = (text) => {
      const parsed = new Date(text);
      return !Number.isNaN(parsed.getTime()) && parsed.toISOString() === text && text.length === 24;
    };
    const answers = input.samples.map((text) => [check(text), roundTrip(text)]);
    process.stdout.write(JSON.stringify(answers));
    """
    )
    for folder in FOLDERS:
        ref = f"https://phi-wire.dev/schemas/{folder}/session.json#/$defs/ISOTimestamp"
        answers = run_node(
            script,
            {
                "meta": meta_schemas(),
                "files": list(schema_files(folder).values()),
                "ref": ref,
                "samples": samples,
            },
        )
        python = file_validator(folder, "ISOTimestamp")
        wrong = [
            (text, ajv, truth, python.is_valid(text))
            for text, (ajv, truth) in zip(samples, answers, strict=True)
            if not ajv == truth == python.is_valid(text)
        ]
        assert not wrong, f"{folder}: (text, ajv, Date, jsonschema) disagree: {wrong[:10]}"
        assert sum(truth for _, truth in answers) > 2000  # the samples hold valid ones too
