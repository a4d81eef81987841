"""OpenTelemetry GenAI's ground truth (``<fixtures>/otel-genai/``), read in place: what five real
instrumentations write (``instrumented/``) and the conventions' own examples and test cases
(``spec/``).

* default mode judges every document as the official schema does: the official schemas are read
  from the corpus folder at test time (never copied here) and run with ``jsonschema``, on every
  corpus document and on documents generated from them (each value replaced, each key removed),
  for both pinned versions, with no deliberate difference (``tests/deviations.toml`` has no
  ``otel-genai`` entry);
* ``dumps`` gives back every document's bytes (key order, spacing, ``null``s), and a span
  attribute's JSON-string form too;
* strict mode reports every per-part note of the manifest at its pointer, and each quirk the
  corpus README names (``parts: []``, ``result``, ``thinking``, JSON-string arguments, raw
  Anthropic tools; the held-out ``anthropic_image`` and raw bytes on documents made here).
"""

from __future__ import annotations

import copy
import json
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from command import run
from corpus import ROOT, fixtures_root
from jsonschema import Draft202012Validator

import phi_wire.otel_genai as newest
import phi_wire.otel_genai_2026_05 as may
from phi_wire.errors import WireError
from phi_wire.recognise import recognise

CORPUS = fixtures_root() / "otel-genai"
INSTRUMENTED = CORPUS / "instrumented"
SPEC = CORPUS / "spec"
MODULES = {"newest": newest, "2026-05": may}
OFFICIAL_FOLDERS = {"newest": SPEC / "schemas", "2026-05": SPEC / "schemas-2026-05"}
TYPES = {
    "gen_ai.input.messages": "InputMessages",
    "gen_ai.output.messages": "OutputMessages",
    "gen_ai.system_instructions": "SystemInstructions",
    "gen_ai.tool.definitions": "ToolDefinitions",
}
OFFICIAL_FILES = {
    "gen_ai.input.messages": "gen-ai-input-messages.json",
    "gen_ai.output.messages": "gen-ai-output-messages.json",
    "gen_ai.system_instructions": "gen-ai-system-instructions.json",
    "gen_ai.tool.definitions": "gen-ai-tool-definitions.json",
}
TOML = tomllib.loads((ROOT / "tests" / "deviations.toml").read_text())
"""Where phi-wire's formats deliberately differ: nothing for OpenTelemetry GenAI."""


@cache
def official(version: str, attribute: str) -> Draft202012Validator:
    path = OFFICIAL_FOLDERS[version] / OFFICIAL_FILES[attribute]
    return Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))


def instrumented_files() -> list[dict[str, Any]]:
    manifest = json.loads((INSTRUMENTED / "manifest.json").read_text(encoding="utf-8"))
    return [entry for entry in manifest["files"] if entry["kind"] == "message_attribute"]


def spec_files() -> list[dict[str, Any]]:
    manifest = json.loads((SPEC / "manifest.json").read_text(encoding="utf-8"))
    return [entry for entry in manifest["files"] if entry["kind"] == "message"]


def documents() -> list[tuple[str, str, Path]]:
    """(id, attribute, path) of every message document of the corpus."""
    found = [
        (entry["file"], entry["attribute"], INSTRUMENTED / entry["file"])
        for entry in instrumented_files()
    ]
    found += [(entry["path"], entry["attribute"], SPEC / entry["path"]) for entry in spec_files()]
    return found


def test_the_corpus_is_all_there() -> None:
    """201 instrumented documents (the rest held out) and 23 of the conventions'."""
    assert len(instrumented_files()) == 201
    assert len(spec_files()) == 23
    assert all(path.is_file() for _, _, path in documents())


def phi_wire_verdict(version: str, attribute: str, text: str) -> bool:
    module = MODULES[version]
    try:
        module.loads(getattr(module, TYPES[attribute]), text)
    except WireError:
        return False
    return True


@pytest.mark.parametrize("version", MODULES)
@pytest.mark.parametrize(("name", "attribute", "path"), documents(), ids=lambda v: str(v))
def test_default_mode_judges_as_the_official_schema(
    name: str, attribute: str, path: Path, version: str
) -> None:
    text = path.read_text(encoding="utf-8")
    document = json.loads(text)
    expected = official(version, attribute).is_valid(document)
    assert phi_wire_verdict(version, attribute, text) == expected, name


def test_the_manifests_verdicts_are_the_official_schemas() -> None:
    """The corpus's own verdicts (jsonschema, newest schemas) are the ones this test computes,
    so the comparison above runs the schemas the corpus was judged with."""
    for entry in instrumented_files():
        document = json.loads((INSTRUMENTED / entry["file"]).read_text(encoding="utf-8"))
        assert official("newest", entry["attribute"]).is_valid(document) == entry["valid"]
    verdicts = [entry.get("valid_against_newest") for entry in spec_files()]
    for entry, verdict in zip(spec_files(), verdicts, strict=True):
        if verdict is not None:
            document = json.loads((SPEC / entry["path"]).read_text(encoding="utf-8"))
            assert official("newest", entry["attribute"]).is_valid(document) == verdict


_REPLACEMENTS: tuple[Any, ...] = (None, 1, 1.5, True, "x", "", [], {}, {"type": "text"}, [1])


def _pointers(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _pointers(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _pointers(item, (*path, index))


def mutants(document: Any) -> Iterator[Any]:
    """Documents made from ``document``: each value replaced by each of a few JSON values, each
    key removed, each array item removed."""
    for path in _pointers(document):
        if not path:
            continue
        *head, last = path
        for replacement in _REPLACEMENTS:
            changed = copy.deepcopy(document)
            parent = changed
            for token in head:
                parent = parent[token]
            parent[last] = copy.deepcopy(replacement)
            yield changed
        changed = copy.deepcopy(document)
        parent = changed
        for token in head:
            parent = parent[token]
        del parent[last]
        yield changed


def _distinct_shapes() -> list[tuple[str, str, Path]]:
    """One document per scenario and attribute (the span copy): the mutants of the others add
    nothing but time."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for name, attribute, path in documents():
        key = (name.split(".")[0], attribute)
        if ".log" in name or key in seen:
            continue
        seen.add(key)
        kept.append((name, attribute, path))
    return kept


@pytest.mark.parametrize("version", MODULES)
@pytest.mark.parametrize(("name", "attribute", "path"), _distinct_shapes(), ids=lambda v: str(v))
def test_default_mode_judges_generated_documents_as_the_official_schema(
    name: str, attribute: str, path: Path, version: str
) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    checked = 0
    for mutant in mutants(document):
        text = json.dumps(mutant)
        expected = official(version, attribute).is_valid(mutant)
        found = phi_wire_verdict(version, attribute, text)
        assert found == expected, f"{name}: {text}"
        checked += 1
    assert checked > 0


def test_tool_parameters_need_no_deviation() -> None:
    """The official schema refers to draft-07's meta-schema for a function tool's parameters,
    which phi-wire's schemas cannot (nothing on the network): no difference follows, because a
    tool whose parameters fail it is still a GenericToolDefinition (a type and a name)."""
    document = [{"type": "function", "name": "f", "parameters": {"type": "STRING"}}]
    for version, module in MODULES.items():
        assert official(version, "gen_ai.tool.definitions").is_valid(document)
        value = module.loads(module.ToolDefinitions, json.dumps(document))
        assert isinstance(value[0], module.FunctionToolDefinition)
    assert "otel-genai" not in TOML


@pytest.mark.parametrize(("name", "attribute", "path"), documents(), ids=lambda v: str(v))
def test_dumps_gives_back_the_emitters_bytes(name: str, attribute: str, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for module in MODULES.values():
        tp = getattr(module, TYPES[attribute])
        try:
            value = module.loads(tp, text)
        except WireError:
            continue  # invalid here (the 2026-05 output messages without finish_reason...)
        assert module.dumps(value) == text, name
        wrapped = json.dumps(text)  # the attribute's value on a span, as a JSON string
        assert module.dumps(module.loads(tp, wrapped)) == wrapped


def _expected_findings(entry: dict[str, Any], document: Any) -> set[str]:
    """The pointers strict mode must report: the manifest's notes, and the quirks the corpus
    README names that its notes do not count (found here from the document itself)."""
    found = {"/" + note["path"] for note in entry["strict_notes"]}
    if entry["attribute"] == "gen_ai.tool.definitions":
        found |= {f"/{index}" for index, tool in enumerate(document) if "input_schema" in tool}
        return found
    if entry["attribute"] == "gen_ai.system_instructions":
        return found
    for index, message in enumerate(document):
        if message["parts"] == []:
            found.add(f"/{index}/parts")
        for number, part in enumerate(message["parts"]):
            arguments = part.get("arguments")
            if part.get("type") == "tool_call" and isinstance(arguments, str):
                found.add(f"/{index}/parts/{number}/arguments")
    return found


def _covers(expected: str, pointers: set[str]) -> bool:
    return any(pointer == expected or pointer.startswith(expected + "/") for pointer in pointers)


@pytest.mark.parametrize("entry", instrumented_files(), ids=lambda entry: str(entry["file"]))
def test_strict_mode_reports_each_note_and_named_quirk_at_its_pointer(
    entry: dict[str, Any],
) -> None:
    text = (INSTRUMENTED / entry["file"]).read_text(encoding="utf-8")
    document = json.loads(text)
    expected = _expected_findings(entry, document)
    name = TYPES[entry["attribute"]]
    problems = newest.strict_problems(name, text)
    pointers = {problem.pointer for problem in problems}
    for pointer in expected:
        assert _covers(pointer, pointers), f"{entry['file']}: nothing reported at {pointer}"
    for pointer in pointers:
        assert any(_covers(want, {pointer}) for want in expected), (
            f"{entry['file']}: {pointer} reported, but no note or named quirk is there"
        )
    assert bool(problems) == (not entry["strict_valid"] or bool(expected))


def test_strict_mode_names_the_emitters() -> None:
    """Each finding says what is wrong and, for a known quirk, who writes it."""
    pydantic = INSTRUMENTED / "pydantic-ai-2.68.0" / "agent_tool_call.3.gen_ai.input.messages.json"
    messages = {
        p.pointer: p.message for p in newest.strict_problems("InputMessages", pydantic.read_text())
    }
    assert (
        "pydantic-ai" in messages["/3/parts/0/result"]
        and "'response'" in messages["/3/parts/0/result"]
    )
    openai = INSTRUMENTED / "openai-v2-2.4b0" / "chat_multiturn.0.gen_ai.input.messages.json"
    found = newest.strict_problems(newest.InputMessages, openai.read_text())
    assert [p.pointer for p in found] == ["/4/parts"] and "openai-v2" in found[0].message


HELD_OUT_QUIRKS: list[tuple[str, str, list[Any], str, str]] = [
    # (what, type, document, pointer, words the message must hold)
    (
        "anthropic SDK: an image as an empty anthropic_image part",
        "InputMessages",
        [
            {
                "role": "user",
                "parts": [{"type": "anthropic_image"}, {"type": "text", "content": "?"}],
            }
        ],
        "/0/parts/0/type",
        "no image",
    ),
    (
        "google-genai log record: raw bytes where base64 belongs",
        "InputMessages",
        [
            {
                "role": "user",
                "parts": [
                    {
                        "type": "blob",
                        "modality": "image",
                        "mime_type": "image/png",
                        "content": {"__bytes_b64__": "iVBORw0KGgo="},
                    }
                ],
            }
        ],
        "/0/parts/0/content",
        "raw bytes",
    ),
    (
        "a blob whose content is not base64",
        "OutputMessages",
        [
            {
                "role": "assistant",
                "finish_reason": "stop",
                "parts": [
                    {
                        "type": "blob",
                        "modality": "image",
                        "mime_type": "image/png",
                        "content": "not base64!",
                    }
                ],
            }
        ],
        "/0/parts/0/content",
        "base64",
    ),
    (
        "a blob without its mime_type",
        "InputMessages",
        [
            {
                "role": "user",
                "parts": [{"type": "blob", "modality": "image", "content": "iVBORw0KGgo="}],
            }
        ],
        "/0/parts/0",
        "mime_type",
    ),
    (
        "a text part without content (the official schema's generic part takes it)",
        "InputMessages",
        [{"role": "user", "parts": [{"type": "text"}]}],
        "/0/parts/0",
        "'content'",
    ),
    (
        "a tool call without name",
        "OutputMessages",
        [
            {
                "role": "assistant",
                "finish_reason": "tool_call",
                "parts": [{"type": "tool_call", "id": "c"}],
            }
        ],
        "/0/parts/0",
        "'name'",
    ),
    (
        "a reasoning part under pydantic-ai's name",
        "OutputMessages",
        [
            {
                "role": "assistant",
                "finish_reason": "stop",
                "parts": [{"type": "thinking", "content": "hm"}],
            }
        ],
        "/0/parts/0/type",
        "'reasoning'",
    ),
    (
        "openai-agents, pydantic-ai, litellm: Chat Completions' tool shape",
        "ToolDefinitions",
        [{"type": "function", "function": {"name": "f", "parameters": {}}}],
        "/0/function",
        "Chat Completions",
    ),
    (
        "OpenLLMetry: Anthropic's raw tool",
        "ToolDefinitions",
        [{"name": "f", "description": "d", "input_schema": {"type": "object"}}],
        "/0/input_schema",
        "OpenLLMetry",
    ),
    (
        "Bedrock's toolSpec",
        "ToolDefinitions",
        [{"type": "bedrock", "name": "f", "toolSpec": {"name": "f"}}],
        "/0/toolSpec",
        "Bedrock",
    ),
]


@pytest.mark.parametrize(
    ("what", "name", "document", "pointer", "words"), HELD_OUT_QUIRKS, ids=lambda v: str(v)[:40]
)
def test_strict_mode_reports_the_held_out_quirks(
    what: str, name: str, document: list[Any], pointer: str, words: str
) -> None:
    text = json.dumps(document)
    # the official schema takes them all, but the provider formats of tool definitions
    official_verdict = name != "ToolDefinitions" or "toolSpec" in text
    assert official("newest", _attribute(name)).is_valid(document) == official_verdict
    assert phi_wire_verdict("newest", _attribute(name), text) == official_verdict
    problems = newest.strict_problems(name, text)
    assert [p.pointer for p in problems] == [pointer], what
    assert words in problems[0].message, what


def _attribute(name: str) -> str:
    return next(attribute for attribute, type_name in TYPES.items() if type_name == name)


def test_the_cli_names_the_documents_and_strict_maps_to_strict_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``phi-wire validate`` recognises the documents (and a span attribute's JSON string) as
    otel-genai's, with and without ``--format``; ``--strict`` reports strict mode's findings."""
    document = INSTRUMENTED / "pydantic-ai-2.68.0" / "agent_tool_call.3.gen_ai.input.messages.json"
    wrapped = tmp_path / "attribute.json"
    wrapped.write_text(json.dumps(document.read_text()))
    for options in ([], ["--format", "otel-genai"]):
        code, out, err = run(capsys, "validate", *options, str(document), str(wrapped))
        assert code == 0, out + err
        assert "otel-genai" in out + err
        code, out, err = run(capsys, "validate", "--strict", *options, str(document), str(wrapped))
        assert code == 1
        assert out.count("otel-genai InputMessages /3/parts/0/result: pydantic-ai") == 2, out


@pytest.mark.parametrize(
    "text",
    [
        # a lone surrogate escape: Python's json (the emitters' writer) takes it, pydantic's
        # parser does not; the official schema sees a string
        '[{"role":"user","parts":[{"type":"text","content":"\\ud800"}]}]',
        # a key twice: the last one counts, for json.loads and for phi-wire
        '[{"role":"user","role":7,"parts":[]}]',
        '[{"role":7,"role":"user","parts":[]}]',
    ],
)
def test_text_pythons_json_reads_is_judged_as_the_official_schema(text: str) -> None:
    expected = official("newest", "gen_ai.input.messages").is_valid(json.loads(text))
    assert phi_wire_verdict("newest", "gen_ai.input.messages", text) == expected
    if expected:  # written back as read (a repeated key once, with the value that counts)
        written = newest.dumps(newest.loads(newest.InputMessages, text))
        assert json.loads(written) == json.loads(text)
        assert written == text or '"role"' in text.replace('"role"', "", 1)


@pytest.mark.parametrize(("name", "attribute", "path"), documents(), ids=lambda v: str(v))
def test_every_document_is_recognised_as_its_attributes_type(
    name: str, attribute: str, path: Path
) -> None:
    """Told apart from the other formats, as the document and as a span attribute's JSON
    string (every valid one; an invalid one is otel-genai's or no format's): output messages
    are ``OutputMessages`` when each has a ``finish_reason`` (the anthropic SDK writes none:
    input and output messages are then one shape)."""
    text = path.read_text(encoding="utf-8")
    expected = {TYPES[attribute]}
    if attribute == "gen_ai.output.messages":
        expected.add("InputMessages")
    valid = official("newest", attribute).is_valid(json.loads(text))
    for document in (json.loads(text), text):
        found = recognise(document)
        if found is None and not valid:
            continue  # a broken document (a bare string for a part): judged with --format
        assert found is not None and found.format == "otel-genai", (name, found)
        assert found.type in expected, (name, found)


def test_strict_mode_knows_each_versions_conventions() -> None:
    """A compaction part and the document modality came after 2026-05: strict mode of 2026-05
    names them, the newest's does not."""
    text = json.dumps(
        [
            {
                "role": "user",
                "parts": [
                    {"type": "compaction", "content": "earlier"},
                    {"type": "uri", "modality": "document", "uri": "gs://b/f.pdf"},
                ],
            }
        ]
    )
    assert newest.strict_problems(newest.InputMessages, text) == []
    found = may.strict_problems(may.InputMessages, text)
    assert [problem.pointer for problem in found] == ["/0/parts/0/type", "/0/parts/1/modality"]
