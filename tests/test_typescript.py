"""The TypeScript and JavaScript half: the schemas in ajv, the generated npm package
(``generated/typescript``) under ``tsc --strict``, and its validators on the whole corpus, for
every format and version the registry lists (``phi_wire.formats.VERSIONS``).

* ajv 8 in strict mode with ``discriminator: true`` compiles every schema of every version and
  every ``schema(T)`` bundle with no error and no warning, phi-wire's dialect registered, nothing
  fetched;
* every document the implementation wrote (valid-canonical fixtures, JSON Lines line by line, an
  Operator-Use session file as its entries, its derived contexts) type-checks as its type;
  deliberately wrong documents of each format fail with the compiler's error asserted;
  ``switch (event.type)`` narrows; the README's front-end example type-checks;
* the generated validators judge every fixture document exactly as Python's jsonschema does with
  the same schemas, except where ``tests/deviations.toml`` (``[javascript]`` for phi-core,
  ``[<format>.javascript]`` for the others) says why (JavaScript's numbers are doubles);
* the package is what ``tools/codegen`` writes (drift), importable by its name for every version,
  and its validators need no library at run time.

The node tools come from ``tools/typescript`` (``make node-tools``); a missing one fails the tests.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from corpus import ROOT
from node import PACKAGE, TOOLS, node, run_node, tsc
from wire_documents import KINDS, WRITTEN, Document, corpus, documents, has_text

from phi_wire.formats import VERSIONS, WireVersion, newest
from schemas import bundled_validator, definitions, jsonl_item_type, schema_files, strict_json

sys.path.insert(0, str(ROOT / "tools"))
import codegen
import codegen_typescript

DEVIATIONS = tomllib.loads((Path(__file__).parent / "deviations.toml").read_text(encoding="utf-8"))


def javascript_deviations(format: str) -> dict[str, Any]:
    """{fixture id: entry} where the JavaScript validators judge unlike Python's jsonschema:
    phi-core's ``[javascript]`` table, each other format's ``[<format>.javascript]``."""
    if format == "phi-core":
        return dict(DEVIATIONS["javascript"])
    return dict(DEVIATIONS.get(format, {}).get("javascript", {}))


TSCONFIG = {
    "compilerOptions": {
        "strict": True,
        "noEmit": True,
        "module": "nodenext",
        "moduleResolution": "nodenext",
        "target": "es2022",
        "lib": ["es2022", "dom"],  # dom: the README example uses EventSource
        "types": [],
        "skipLibCheck": False,  # the generated .d.ts files are checked too
        "noUnusedLocals": False,
    }
}


class Diagnostic(NamedTuple):
    file: str
    line: int
    code: str
    message: str


def read_stdin_json() -> str:
    return """
    const chunks = [];
    for await (const chunk of process.stdin) chunks.push(chunk);
    const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    """


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A TypeScript project that has the generated package installed as ``phi-wire``."""
    root = tmp_path_factory.mktemp("ts-project")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "phi-wire").symlink_to(PACKAGE, target_is_directory=True)
    (root / "package.json").write_text('{"type": "module", "private": true}\n')
    return root


def typecheck(project: Path, files: dict[str, str]) -> list[Diagnostic]:
    """Write ``files`` into a fresh folder of ``project`` and run ``tsc --strict`` on them."""
    folder = project / f"check-{len(list(project.glob('check-*')))}"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    config = {**TSCONFIG, "files": sorted(files)}
    (folder / "tsconfig.json").write_text(json.dumps(config, indent=2))
    status, output = tsc(folder)
    found = [  # each diagnostic with its indented elaboration lines
        Diagnostic(Path(m.group(1)).name, int(m.group(2)), m.group(3), m.group(4))
        for m in re.finditer(
            r"^(.+?)\((\d+),\d+\): error (TS\d+): (.*(?:\n  .*)*)$", output, re.MULTILINE
        )
    ]
    assert (status == 0) == (not found), f"tsc exit {status} but diagnostics {found}:\n{output}"
    return found


# --- ajv strict mode on the schemas ------------------------------------------------------------

AJV_SETUP = """
import Ajv2020 from "ajv/dist/2020.js";
const warnings = [];
const note = (...parts) => warnings.push(parts.join(" "));
const logger = { log() {}, warn: note, error: note };
function strictAjv(meta) {
  // strict: every strict check is an error; no loadSchema: a missing $ref fails, is never fetched
  const ajv = new Ajv2020({ strict: true, discriminator: true, allErrors: true, logger });
  for (const schema of meta) ajv.addMetaSchema(schema);
  const vocabulary = meta.find((schema) => schema.$vocabulary && schema.properties);
  ajv.addVocabulary(Object.keys(vocabulary.properties));
  return ajv;
}
function attempt(label, compile) {
  try { compile(); return 1; }
  catch (error) { failures.push(`${label}: ${error.message}`); return 0; }
}
const failures = [];
"""


def meta_schemas() -> list[dict[str, Any]]:
    return list(VERSIONS[0].load().meta_schemas().values())


def test_ajv_strict_mode_compiles_every_schema_and_bundle() -> None:
    versions = []
    for entry in VERSIONS:
        module = entry.load()
        files = list(schema_files(entry.folder).values())
        names = [name for document in files for name in document["$defs"]]
        versions.append(
            {
                "files": files,
                "refs": [
                    f"{document['$id']}#/$defs/{name}"
                    for document in files
                    for name in document["$defs"]
                ],
                "bundles": [module.schema(name) for name in names],
            }
        )
    script = (
        AJV_SETUP
        + read_stdin_json()
        + """
    let compiled = 0;
    for (const version of input.versions) {
      const ajv = strictAjv(input.meta);
      for (const file of version.files) ajv.addSchema(file);
      for (const ref of version.refs) compiled += attempt(ref, () => ajv.compile({ $ref: ref }));
      const alone = strictAjv(input.meta); // a bundle stands alone: no other schema added
      for (const bundle of version.bundles) {
        compiled += attempt(bundle.$id, () => alone.compile(bundle));
      }
    }
    process.stdout.write(JSON.stringify({ failures, warnings, compiled }));
    """
    )
    result = run_node(script, {"meta": meta_schemas(), "versions": versions})
    assert not result["failures"], "ajv strict mode refuses:\n" + "\n".join(result["failures"])
    assert not result["warnings"], "ajv strict mode warns:\n" + "\n".join(result["warnings"])
    expected = sum(len(version["refs"]) + len(version["bundles"]) for version in versions)
    assert result["compiled"] == expected


@pytest.mark.parametrize(
    ("change", "ajv_says"),
    [
        ("mapping", "discriminator: mapping is not supported"),
        ("no-object-type", 'missing type "object" for keyword "discriminator"'),
        ("x-typo", "must be valid"),  # the dialect: an undeclared x- keyword
        ("x-bad-value", "must be equal to one of the allowed values"),
        ("format", 'unknown format "date-time"'),
        ("tag-in-allOf-only", 'must have "properties/role"'),
    ],
)
def test_ajv_strict_mode_refuses_the_forms_the_schemas_left(change: str, ajv_says: str) -> None:
    """The compile test above can fail: each form the schemas gave up makes ajv refuse them."""
    files = {
        name: json.loads(json.dumps(doc)) for name, doc in schema_files("phi-core/0.10").items()
    }
    content = files["content.json"]["$defs"]
    if change == "mapping":
        content["Content"]["discriminator"]["mapping"] = {"text": "#/$defs/TextContent"}
    elif change == "no-object-type":
        del content["Content"]["type"]
    elif change == "x-typo":
        content["TextContent"]["x-serde-taging"] = "internal"
    elif change == "x-bad-value":
        content["Content"]["x-serde-tagging"] = "adjacent"
    elif change == "format":
        files["common.json"]["$defs"]["DateTime"]["format"] = "date-time"
    else:  # LlmMessage's variants as they were: the role only inside allOf
        llm = files["agent_message.json"]["$defs"]["LlmUserMessage"]
        for key in ("type", "properties", "required"):
            del llm[key]
    script = (
        AJV_SETUP
        + read_stdin_json()
        + """
    const ajv = strictAjv(input.meta);
    let message = "";
    try {
      for (const file of input.files) ajv.addSchema(file);
      for (const file of input.files) {
        for (const name of Object.keys(file.$defs)) {
          ajv.compile({ $ref: `${file.$id}#/$defs/${name}` });
        }
      }
    } catch (error) { message = error.message; }
    process.stdout.write(JSON.stringify({ message, warnings }));
    """
    )
    result = run_node(script, {"meta": meta_schemas(), "files": list(files.values())})
    assert ajv_says in result["message"] + " ".join(result["warnings"])


def test_validation_never_fetches_a_ref() -> None:
    """ajv has no loadSchema: an unknown $ref is a compile error, not a request; the Python
    registry's retrieve raises (tests/schemas.py)."""
    script = (
        AJV_SETUP
        + read_stdin_json()
        + """
    const ajv = strictAjv(input.meta);
    let message = "";
    const elsewhere = "https://phi-wire.dev/schemas/phi-core/0.10/nowhere.json#/$defs/X";
    try { ajv.compile({ $ref: elsewhere }); }
    catch (error) { message = `${error.constructor.name}: ${error.message}`; }
    process.stdout.write(JSON.stringify({ message }));
    """
    )
    assert run_node(script, {"meta": meta_schemas()})["message"].startswith("MissingRefError")
    from jsonschema import Draft202012Validator
    from referencing.exceptions import Unresolvable

    from schemas import registry

    remote = {"$ref": "https://phi-wire.dev/schemas/phi-core/0.10/nowhere.json"}
    with pytest.raises(Unresolvable):
        Draft202012Validator(remote, registry=registry("phi-core/0.10")).is_valid({})


# --- tsc --strict on the package and the corpus --------------------------------------------------


def test_the_package_declarations_typecheck_strict(project: Path) -> None:
    """Every version's declarations, each of its types named once (skipLibCheck is off)."""
    lines = [
        f'import type * as V{index} from "phi-wire/{entry.folder}";\n'
        f"export type All{index} = "
        f"[{', '.join(f'V{index}.{name}' for name in sorted(definitions(entry.folder)))}];\n"
        for index, entry in enumerate(VERSIONS)
    ]
    assert typecheck(project, {"all.ts": "".join(lines)}) == []


@pytest.mark.parametrize("entry", VERSIONS, ids=lambda entry: entry.label)
def test_every_wire_type_is_declared_under_its_name(entry: Any) -> None:
    declared = set(
        re.findall(
            r"^export (?:type|interface) (\w+)",
            (PACKAGE / entry.folder / "types.d.ts").read_text(encoding="utf-8"),
            re.MULTILINE,
        )
    )
    assert declared == set(definitions(entry.folder))


def fixture_module(entry: WireVersion, docs: list[Document]) -> str:
    """One fixture's documents assigned to its type: a JSON Lines file as an array of them, a
    type that is itself a JSON Lines document (an Operator-Use ``SessionFile``) as its entries."""
    fixture = docs[0].fixture
    kind = f"W.{fixture.type_name}"
    header = f'import type * as W from "phi-wire/{entry.folder}";\n// {fixture.id}\n'
    listed = ",\n".join(doc.text for doc in docs)
    item = jsonl_item_type(entry.folder, fixture.type_name)
    if item is not None and {doc.type_name for doc in docs} == {item}:
        return f"{header}export const document: {kind} = [\n{listed}\n];\n"
    # each document as the type it is judged as (a pi stream's header line is a SessionHeader)
    kinds = " | ".join(sorted({f"W.{doc.type_name}" for doc in docs}))
    if ":" in docs[0].where:  # a JSON Lines file of documents of the type
        return f"{header}export const documents: readonly ({kinds})[] = [\n{listed}\n];\n"
    return f"{header}export const document: {kinds} = {docs[0].text};\n"


@pytest.mark.parametrize("entry", VERSIONS, ids=lambda entry: entry.label)
def test_every_valid_fixture_typechecks_as_its_type(project: Path, entry: WireVersion) -> None:
    """Every document the implementation wrote and reads back (``wire_documents.WRITTEN``)."""
    by_fixture: dict[str, list[Document]] = {}
    for document in documents(entry, *WRITTEN):
        by_fixture.setdefault(document.fixture.id, []).append(document)
    written = list(by_fixture.values())
    files = {f"f{index:03d}.ts": fixture_module(entry, docs) for index, docs in enumerate(written)}
    diagnostics = typecheck(project, files)
    ids = {name: written[index][0].fixture.id for index, name in enumerate(sorted(files))}
    assert not diagnostics, "fixtures that do not type-check as their type:\n" + "\n".join(
        f"{ids[d.file]} line {d.line}: {d.code} {d.message}" for d in diagnostics[:20]
    )
    assert written and len(files) == len(corpus(entry, *WRITTEN))


NARROWING = """
import type { AgentEvent, Content, Message } from "phi-wire/phi-core/0.10";

// switch (event.type) narrows each case to its variant; the default proves the union closed.
export function describe(event: AgentEvent): string {
  switch (event.type) {
    case "AgentStart":
      return `${event.agent_id} ${event.session_id}`;
    case "TurnRequest":
      return `${event.turn_index}: ${event.payload.messages.length} messages`;
    case "MessageUpdate":
      return "Text" in event.delta ? event.delta.Text.delta : "";
    case "MessageEnd": {
      const message = event.message;
      return "kind" in message ? message.kind : message.role;
    }
    case "ToolExecutionEnd":
      return `${event.tool_name} ${event.is_error}`;
    case "AgentEnd": case "TurnStart": case "TurnEnd": case "MessageStart":
    case "ToolExecutionStart": case "ToolExecutionUpdate": case "ProgressMessage":
    case "InputRejected": case "ParallelLoopStart": case "ParallelLoopEnd":
    case "CompactionStarted": case "PrunApplied": case "RevertApplied": case "CompactionEnded":
      return event.type;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

export function text(message: Message): string {
  if (message.role === "assistant") return message.stopReason;
  const piece = (block: Content): string =>
    block.type === "text" ? block.text : block.type === "toolCall" ? block.name : "";
  return message.content.map(piece).join("");
}
"""


def test_discriminated_unions_narrow(project: Path) -> None:
    assert typecheck(project, {"narrowing.ts": NARROWING}) == []


# {folder: [(name, source, expected tsc code, a fragment of its message)]}: each source imports
# the folder's version as W; every format has a few.
WRONG: dict[str, list[tuple[str, str, str, str]]] = {}
WRONG["phi-core/0.10"] = [
    (
        "missing_field",
        'export const e: W.AgentEvent = {"type":"TurnStart","loop_id":"l","turn_index":0,'
        '"triggered_by":"User"};',
        "TS2322",
        "timestamp",
    ),
    (
        "unknown_tag",
        'export const c: W.Content = {"type":"Text","text":"hi"};',
        "TS2820",
        "Did you mean '\"text\"'?",
    ),
    (
        "string_for_number",
        'export const u: W.Usage = {"input":"12","output":3};',
        "TS2322",
        "Type 'string' is not assignable to type 'number'",
    ),
    (
        "misspelt_key",
        'export const c: W.Content = {"type":"text","txt":"hi"};',
        "TS2353",
        "'\"txt\"' does not exist in type 'TextContent'",
    ),
    (
        "wrong_variant_field",
        "export function f(e: W.AgentEvent): string {\n"
        '  return e.type === "TurnStart" ? e.agent_id : "";\n}',
        "TS2339",
        "Property 'agent_id' does not exist on type 'TurnStart'",
    ),
    (
        "readonly_field",
        "export function f(e: W.AgentEvent): void {\n"
        '  if (e.type === "AgentStart") e.loop_id = "x";\n}',
        "TS2540",
        "'loop_id' because it is a read-only property",
    ),
    (
        "readonly_array",
        "export function f(m: W.UserMessage): void {\n"
        "  m.content.push({type: 'text', text: ''});\n}",
        "TS2339",
        "Property 'push' does not exist",
    ),
    (
        "turn_request_in_0_8",
        'import type * as Old from "phi-wire/phi-core/0.8";\n'
        'export const t: Old.AgentEvent["type"] = "TurnRequest";',
        "TS2322",
        '"TurnRequest"',
    ),
]
WRONG["clark-agent/0.4"] = [
    (
        "stop_reason_of_another_format",
        'export const m: W.AgentMessage = {"role":"assistant","content":[],"stop_reason":"stop"};',
        "TS2322",
        "Type '\"stop\"' is not assignable to type 'StopReason'",
    ),
    (
        "one_block_for_user_content",
        'export const m: W.UserMessage = {"role":"user","content":{"type":"text","text":"hi"}};',
        "TS2353",
        "does not exist in type 'UserBlocks'",
    ),
    (
        "phi_core_tool_call_block",
        'export const b: W.AssistantBlock = {"type":"toolCall","id":"c","name":"n",'
        '"arguments":{}};',
        "TS2820",
        '"toolCall"',
    ),
    (
        "readonly_history_row",
        "export function f(m: W.ToolResultMessage): void {\n  m.is_error = true;\n}",
        "TS2540",
        "'is_error' because it is a read-only property",
    ),
    (
        "missing_record_payload",
        'export const r: W.TrajectoryRecord = {"schema_version":1,"seq":0,'
        '"recorded_at_unix_ms":0,"run_id":"r"};',
        "TS2741",
        "'payload' is missing",
    ),
]
WRONG["operator-use/d0da87a6"] = [
    (
        "unknown_entry_type",
        'export const e: W.SessionFileEntry = {"type":"mesage","id":"a1b2c3d4",'
        '"timestamp":1763892000.0,"message":{"role":"user"}};',
        "TS2820",
        '"mesage"',
    ),
    (
        "string_token_count",
        'export const u: W.Usage = {"input_tokens":"15"};',
        "TS2322",
        "Type 'string' is not assignable to type 'number'",
    ),
    (
        "pi_text_key",
        'export const c: W.Content = {"type":"text","text":"hi"};',
        "TS2353",
        "'\"text\"' does not exist in type 'TextContent'",
    ),
    (
        "new_layout_field_in_old_layout",
        'export const c: W.ToolResultContent = {"type":"tool_result","terminate_message":"x"};',
        "TS2353",
        "'\"terminate_message\"' does not exist",
    ),
    (
        "session_file_of_lines",
        'export const f: W.SessionFile = ["{\\"type\\":\\"session\\"}"];',
        "TS2322",
        "Type 'string' is not assignable to type 'SessionFileEntry'",
    ),
]
WRONG["operator-use/d0da87a6"].append(
    (
        "write_into_args",
        "export function f(c: W.ToolCallContent): void {\n"
        '  if (c.args) c.args["command"] = "rm";\n}',
        "TS2542",
        "only permits reading",
    )
)
WRONG["operator-use/d1cdaad8"] = [
    (
        "message_without_role",
        'export const m: W.AgentMessage = {"contents":[],"id":"m1","timestamp":1.0};',
        "TS2322",
        "AgentMessage",
    ),
]
for _otel in ("otel-genai/2026-05", "otel-genai/2b902ce1"):
    WRONG[_otel] = [
        (
            "message_without_parts",
            'export const m: W.ChatMessage = {"role":"user"};',
            "TS2741",
            "'parts'",
        ),
        (
            "text_part_of_a_number",
            'export const p: W.TextPart = {"type":"text","content":1};',
            "TS2322",
            "Type 'number' is not assignable to type 'string'",
        ),
        (
            "tool_definitions_not_an_array",
            'export const t: W.ToolDefinitions = {"type":"function","name":"f"};',
            "TS2353",
            "readonly ToolDefinition[]",
        ),
    ]

WRONG["pi/0.73"] = [
    (
        "system_role_in_0_73",
        'export const m: W.Message = {"role":"system","content":"","timestamp":1};',
        "TS2322",
        '"system"',
    ),
    (
        "snake_case_usage",
        'export const u: W.Usage = {"input":1,"output":1,"cache_read":0,"cacheWrite":0,'
        '"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}};',
        "TS2353",
        "'\"cache_read\"' does not exist",
    ),
]
WRONG["pi/1.5"] = [
    (
        "string_timestamp_on_a_message",
        'export const m: W.UserMessage = {"role":"user","content":"hi","timestamp":"1"};',
        "TS2322",
        "Type 'string' is not assignable to type 'number'",
    ),
    (
        "a_cumulative_message_on_a_json_mode_update",
        'export const e: W.JsonMessageUpdateEvent = {"type":"message_update","usage":'
        '{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"cost":{"input":0,"output":0,'
        '"cacheRead":0,"cacheWrite":0,"total":0}},"assistantMessageEvent":{"type":"text_delta",'
        '"contentIndex":0,"delta":"h"},"message":{}};',
        "TS2353",
        "'\"message\"' does not exist",
    ),
]


FREE_FORM = """
import type * as W from "phi-wire/operator-use/d0da87a6";

// Python's Any is any JSON value, not only an object; dict[str, Any] holds any values
export const details: readonly W.CustomMessage[] = [
  {"role":"custom","custom_type":"t","timestamp":1.0,"details":"text"},
  {"role":"custom","custom_type":"t","timestamp":1.0,"details":[1,{"a":null}]},
  {"role":"custom","custom_type":"t","timestamp":1.0,"details":null},
];
export const call: W.ToolCallContent = {"type":"tool_call","args":{"n":1,"list":[true]}};
// a smart-union block needs no tag: {} is a TextContent
export const blocks: readonly W.Content[] = [{}, {"signature":"s"}];
"""


def test_operator_use_free_form_values_typecheck(project: Path) -> None:
    assert typecheck(project, {"free_form.ts": FREE_FORM}) == []


def test_every_format_has_wrong_documents() -> None:
    assert {folder.partition("/")[0] for folder in WRONG} == {entry.format for entry in VERSIONS}
    assert set(WRONG) <= {entry.folder for entry in VERSIONS}


@pytest.mark.parametrize("folder", sorted(WRONG))
def test_wrong_documents_fail_to_typecheck(project: Path, folder: str) -> None:
    header = f'import type * as W from "phi-wire/{folder}";\n'
    files = {f"{name}.ts": header + source + "\n" for name, source, _, _ in WRONG[folder]}
    found: dict[str, list[Diagnostic]] = {}
    for diagnostic in typecheck(project, files):
        found.setdefault(diagnostic.file.removesuffix(".ts"), []).append(diagnostic)
    for name, _, code, fragment in WRONG[folder]:
        errors = found.get(name, [])
        assert errors, f"{name} type-checks, but it is wrong"
        assert any(d.code == code and fragment in d.message for d in errors), (
            f"{name}: expected {code} mentioning {fragment!r}, tsc said {errors}"
        )


def code_block(markdown: str, heading: str, language: str = "ts") -> str:
    """The first ``language`` code block after ``heading`` in a markdown text."""
    start = markdown.index(heading)
    match = re.search(rf"```{language}\n(.*?)```", markdown[start:], re.DOTALL)
    assert match, f"no ```{language} block after {heading!r}"
    return match.group(1)


def test_the_readme_front_end_example_typechecks(project: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = code_block(readme, "## Front ends")
    assert "EventSource" in example and "switch (event.type)" in example
    package_readme = (PACKAGE / "README.md").read_text(encoding="utf-8")
    package_example = "declare const line: string;\n" + code_block(package_readme, "```ts")
    files = {"readme.ts": example, "package_readme.ts": package_example}
    assert typecheck(project, files) == []


def test_the_schema_recipes_run(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """schemas/README.md's recipes for Python's jsonschema and for ajv, run as written."""
    readme = (ROOT / "schemas" / "README.md").read_text(encoding="utf-8")
    exec(compile(code_block(readme, "### Python (jsonschema)", "python"), "recipe.py", "exec"), {})
    assert capsys.readouterr().out.splitlines() == ["True", "[]"]
    folder = project / "recipe"
    folder.mkdir()
    ajv = folder / "node_modules" / "ajv"
    ajv.parent.mkdir()
    ajv.symlink_to(TOOLS / "node_modules" / "ajv", target_is_directory=True)
    (folder / "node_modules" / "phi-wire").symlink_to(PACKAGE, target_is_directory=True)
    bundle = newest("phi-core").load().schema("AgentEvent")
    (folder / "agent_event.json").write_text(json.dumps(bundle))
    (folder / "recipe.mjs").write_text(code_block(readme, "### JavaScript (ajv 8)", "js"))
    result = subprocess.run(
        [node(), "recipe.mjs"], cwd=folder, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "false [ '', '/turn_index' ]\n"


# --- the generated validators against Python's jsonschema ---------------------------------------


def python_verdict(folder: str, type_name: str, text: str) -> bool | None:
    """Valid under the schema (jsonschema), or None when it is not JSON at all."""
    try:
        document = strict_json(text)
    except ValueError:
        return None
    return bool(bundled_validator(folder, type_name).is_valid(document))


JUDGE = """
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const api = await import(input.module);
process.stdout.write(JSON.stringify(input.documents.map(([type, text]) => {
  let value;
  try { value = JSON.parse(text); } catch { return null; }  // not JSON: nothing to judge
  return api[`is${type}`](value);
})));
"""


@pytest.mark.parametrize("entry", VERSIONS, ids=lambda entry: entry.label)
def test_validators_judge_every_fixture_as_python_jsonschema(entry: WireVersion) -> None:
    """Every document of every fixture (``wire_documents``: valid, accepted and canonical forms,
    rejected inputs, session files line by line, derived and written-unreadable files)."""
    docs = list(documents(entry))
    module = (PACKAGE / entry.folder / "index.js").as_uri()
    payload = [[doc.type_name, doc.text] for doc in docs]
    verdicts = run_node(JUDGE, {"module": module, "documents": payload})
    differ: dict[str, list[str]] = {}
    for doc, javascript in zip(docs, verdicts, strict=True):
        python = python_verdict(entry.folder, doc.type_name, doc.text)
        if javascript != python:
            differ.setdefault(doc.fixture.entry["id"], []).append(
                f"{doc.where}: python {python}, javascript {javascript}"
            )
    table = "[javascript]" if entry.format == "phi-core" else f"[{entry.format}.javascript]"
    ids = {doc.fixture.entry["id"] for doc in docs}
    listed = set(javascript_deviations(entry.format)) & ids
    unlisted = {key: value for key, value in differ.items() if key not in listed}
    assert not unlisted, (
        "the JavaScript validators judge these fixtures unlike Python's jsonschema; fix the "
        f"schema or list them in deviations.toml {table} with the reason: {unlisted}"
    )
    stale = sorted(listed - set(differ))
    assert not stale, f"deviations.toml {table} lists fixtures judged alike now: {stale}"
    with_documents = {
        fixture.entry["id"] for fixture in corpus(entry, *KINDS) if has_text(entry, fixture)
    }
    assert docs and ids == with_documents, "a fixture with a document was not judged"


@pytest.mark.parametrize("format", sorted({entry.format for entry in VERSIONS}))
def test_every_javascript_deviation_says_why_and_what(format: str) -> None:
    known = {
        fixture.entry["id"]
        for entry in VERSIONS
        if entry.format == format
        for fixture in corpus(entry)
    }
    for fixture_id, entry in javascript_deviations(format).items():
        assert fixture_id in known, f"{format}: the javascript table lists unknown {fixture_id}"
        assert entry.get("reason"), f"{format} javascript.{fixture_id} needs a reason"


@pytest.mark.parametrize(
    ("folder", "type_name", "template", "numbers", "javascript", "python"),
    [
        # u64::MAX, u64::MAX + 1 (phi-core rejects it), 2^53 + 1, -1
        (
            "phi-core/0.10",
            "Usage",
            '{{"input":{0},"output":0}}',
            (2**64 - 1, 2**64, 2**53 + 1, -1),
            [True, True, True, False],
            [True, False, True, False],
        ),
        # clark-agent's i64 counters: i64::MAX, i64::MAX + 1 (serde rejects it), i64::MIN - 1
        (
            "clark-agent/0.4",
            "Usage",
            '{{"input_tokens":{0}}}',
            (2**63 - 1, 2**63, -(2**63) - 1, -1),
            [True, True, True, True],
            [True, False, False, True],
        ),
    ],
)
def test_integers_past_2_to_the_53_are_rounded_not_judged(
    folder: str,
    type_name: str,
    template: str,
    numbers: tuple[int, ...],
    javascript: list[bool],
    python: list[bool],
) -> None:
    """What the javascript deviation tables describe, shown directly: JSON.parse rounds integers
    past 2^53 to doubles, so ajv cannot tell u64::MAX + 1 from u64::MAX, nor i64::MAX + 1 from
    i64::MAX (Python can)."""
    module = (PACKAGE / folder / "index.js").as_uri()
    texts = [template.format(number) for number in numbers]
    verdicts = run_node(JUDGE, {"module": module, "documents": [[type_name, t] for t in texts]})
    assert verdicts == javascript
    assert [python_verdict(folder, type_name, text) for text in texts] == python


# --- the package itself ---------------------------------------------------------------------------

API = """
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const api = await import("phi-wire/phi-core/0.10");  // by its name, through package.json exports
process.stdout.write(JSON.stringify({
  valid: api.isAgentEvent(input.good),
  problems: api.validateAgentEvent(input.bad),
  content: api.validateContent({ type: "text" }),
  exported: Object.keys(api).length,
}));
"""


def test_the_validator_api_reports_json_pointers(project: Path) -> None:
    script_file = project / "api.mjs"
    script_file.write_text(API)
    good = {
        "type": "TurnStart",
        "loop_id": "l",
        "turn_index": 0,
        "timestamp": "+10000-01-01T00:00:00Z",
        "triggered_by": "User",
    }
    bad = {**good, "turn_index": -1, "timestamp": "2026-02-30T00:00:00Z"}
    result = subprocess.run(
        [node(), str(script_file)],
        input=json.dumps({"good": good, "bad": bad}),
        capture_output=True,
        text=True,
        cwd=project,
        check=True,
    )
    answer = json.loads(result.stdout)
    assert answer["valid"] is True
    assert answer["problems"] == [
        {"pointer": "/turn_index", "message": "must be >= 0", "keyword": "minimum"},
        {
            "pointer": "/timestamp",
            "message": "must be a DateTime as phi-core reads it",
            "keyword": "pattern",
        },
    ]
    assert answer["content"] == [
        {"pointer": "", "message": "must have required property 'text'", "keyword": "required"}
    ]
    wire_types = [
        name
        for document in schema_files("phi-core/0.10").values()
        for name, definition in document["$defs"].items()
        if "x-rust-type" not in definition
    ]
    assert answer["exported"] == 2 * len(wire_types)


BY_NAME = """
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const api = await import(`phi-wire/${input.folder}`);  // through package.json exports
process.stdout.write(JSON.stringify({
  exported: Object.keys(api).sort(),
  valid: api[`is${input.type}`](input.good),
  problems: api[`validate${input.type}`](input.bad),
}));
"""


@pytest.mark.parametrize("entry", VERSIONS, ids=lambda entry: entry.label)
def test_every_version_is_exported_by_name(project: Path, entry: WireVersion) -> None:
    """``phi-wire/<format>/<version>`` resolves for every registered version and exports isT and
    validateT for each of its wire types; a valid document passes, a broken one is reported at
    its pointer."""
    written = next(
        doc
        for doc in documents(entry, "valid-canonical")
        if isinstance(strict_json(doc.text), dict)
    )
    good = strict_json(written.text)
    key = next(iter(good))  # its first key (a tag or a field): no schema takes this array there
    bad = {**good, key: {"not": ["what", "the", "schema", "says"]}}
    script_file = project / f"by-name-{entry.folder.replace('/', '-')}.mjs"
    script_file.write_text(BY_NAME)
    request = {"folder": entry.folder, "type": written.type_name, "good": good, "bad": bad}
    result = subprocess.run(
        [node(), str(script_file)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        cwd=project,
        check=True,
    )
    answer = json.loads(result.stdout)
    names = codegen_typescript.validator_refs(ROOT / "schemas" / entry.folder)
    assert answer["exported"] == sorted(
        f"{verb}{name}" for name in names for verb in ("is", "validate")
    )
    assert answer["valid"] is True
    assert answer["problems"] and all(
        problem["pointer"].startswith(f"/{key}") or problem["pointer"] == ""
        for problem in answer["problems"]
    ), answer["problems"]


@pytest.mark.parametrize("entry", VERSIONS, ids=lambda entry: entry.label)
def test_the_validators_need_nothing_at_run_time(entry: Any) -> None:
    """ajv's standalone code, self-contained: no import, no require (no ajv in the browser), as
    an ES module and as CommonJS, each exporting every validator."""
    names = set(codegen_typescript.validator_refs(ROOT / "schemas" / entry.folder))
    for module, exported in (("validators.js", "export const"), ("validators.cjs", "exports\\.")):
        code = (PACKAGE / entry.folder / module).read_text(encoding="utf-8")
        assert not re.search(r"^\s*import\b|\brequire\(", code, re.MULTILINE), module
        declared = set(re.findall(rf"^{exported} ?(\w+) =", code, re.MULTILINE))
        assert declared == names, module


def test_the_package_manifest_lists_every_version() -> None:
    manifest = json.loads((PACKAGE / "package.json").read_text(encoding="utf-8"))
    assert manifest["name"] == "phi-wire" and manifest["type"] == "module"
    assert "dependencies" not in manifest, "the validators need no library at run time"
    for entry in VERSIONS:
        for condition in ("import", "require"):  # ES modules and CommonJS
            target = manifest["exports"][f"./{entry.folder}"][condition]
            assert (PACKAGE / target["types"]).is_file()
            assert (PACKAGE / target["default"]).is_file()
    npm = shutil.which("npm")
    assert npm, "npm is not installed"
    packed = subprocess.run(
        [npm, "pack", "--dry-run", "--json", "--ignore-scripts"],
        cwd=PACKAGE,
        capture_output=True,
        text=True,
        check=True,
    )
    files = {item["path"] for item in json.loads(packed.stdout)[0]["files"]}
    for entry in VERSIONS:
        names = {"index.js", "index.d.ts", "types.d.ts", "validators.js"}
        names |= {"index.cjs", "index.d.cts", "types.d.cts", "validators.cjs"}
        assert {f"{entry.folder}/{name}" for name in names} <= files
    assert {"schemas/meta/dialect.json", "schemas/meta/serde.json", "package.json"} <= files


COMMONJS_CONSUMER = """
import * as wire from "phi-wire/FOLDER";  // compiled to require(): this project is CommonJS
import type { TYPE } from "phi-wire/FOLDER";

const good: unknown = JSON.parse(process.argv[2]);
const bad: unknown = JSON.parse(process.argv[3]);
if (!wire.isTYPE(good)) throw new Error("a valid document judged invalid");
const typed: TYPE = good;
const problems: readonly wire.Problem[] = wire.validateTYPE(bad);
const exported = Object.keys(wire).filter((name) => name !== "default").length;  // (tsc's interop)
console.log(JSON.stringify({ module: typeof module, exported, typed: typeof typed, problems }));
"""


@pytest.fixture(scope="module")
def commonjs_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CommonJS TypeScript project (no ``"type": "module"``, ``module: node16``) that has the
    generated package installed as ``phi-wire``."""
    root = tmp_path_factory.mktemp("ts-commonjs")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "phi-wire").symlink_to(PACKAGE, target_is_directory=True)
    (root / "package.json").write_text('{"private": true}\n')
    return root


@pytest.mark.parametrize("entry", VERSIONS, ids=lambda entry: entry.label)
def test_a_commonjs_project_requires_every_version(
    commonjs_project: Path, entry: WireVersion
) -> None:
    """Issue 17: the package was ES modules only, and a CommonJS TypeScript project (``module:
    node16``, no ``"type": "module"``) could not import it (TS1479). Now ``exports`` has a
    ``require`` entry with its own declarations: tsc --strict accepts such a consumer and emits
    ``require`` calls, and node runs them."""
    written = next(
        doc
        for doc in documents(entry, "valid-canonical")
        if isinstance(strict_json(doc.text), dict)
    )
    good = strict_json(written.text)
    key = next(iter(good))
    bad = {**good, key: {"not": ["what", "the", "schema", "says"]}}
    folder = commonjs_project / entry.folder.replace("/", "-")
    folder.mkdir()
    source = COMMONJS_CONSUMER.replace("FOLDER", entry.folder).replace("TYPE", written.type_name)
    (folder / "consumer.ts").write_text(source, encoding="utf-8")
    options = {**TSCONFIG["compilerOptions"], "noEmit": False, "outDir": "out", "lib": ["es2022"]}
    options.update(module="node16", moduleResolution="node16")
    (folder / "globals.d.ts").write_text(  # what the consumer uses of node (no @types/node here)
        "declare const process: { argv: string[] };\n"
        "declare const module: unknown;\n"
        "declare const console: { log(text: string): void };\n"
    )
    config = {"compilerOptions": options, "files": ["consumer.ts", "globals.d.ts"]}
    (folder / "tsconfig.json").write_text(json.dumps(config, indent=2))
    status, output = tsc(folder)
    assert status == 0, output
    emitted = (folder / "out" / "consumer.js").read_text(encoding="utf-8")
    assert f'require("phi-wire/{entry.folder}")' in emitted
    result = subprocess.run(
        [node(), str(folder / "out" / "consumer.js"), json.dumps(good), json.dumps(bad)],
        capture_output=True,
        text=True,
        cwd=folder,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    names = codegen_typescript.validator_refs(ROOT / "schemas" / entry.folder)
    assert answer["module"] == "object" and answer["exported"] == 2 * len(names)
    assert answer["typed"] == "object"
    assert answer["problems"] and all(
        problem["pointer"].startswith(f"/{key}") or problem["pointer"] == ""
        for problem in answer["problems"]
    ), answer["problems"]


# --- drift --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fresh_tree() -> Iterator[Path]:
    scratch = ROOT / "build" / "test-codegen-typescript"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    yield codegen_typescript.build(scratch, codegen.registered_versions(), codegen.schema_digest)
    shutil.rmtree(scratch, ignore_errors=True)


def test_the_checked_in_package_matches_the_schemas(fresh_tree: Path) -> None:
    drift = codegen.diff_trees(fresh_tree, PACKAGE, "generated/typescript")
    assert not drift, "generated/typescript is stale; run tools/codegen:\n" + "".join(drift[:40])


def test_a_hand_edit_of_the_package_is_reported(fresh_tree: Path, tmp_path: Path) -> None:
    edited = tmp_path / "typescript"
    shutil.copytree(PACKAGE, edited, symlinks=True)
    types = edited / "phi-core" / "0.10" / "types.d.ts"
    types.write_text(types.read_text().replace('"toolUse"', '"tool_use"', 1))
    (edited / "phi-core" / "0.10" / "stray.js").write_text("export {};\n")
    drift = "".join(codegen.diff_trees(fresh_tree, edited, "generated/typescript"))
    assert '"tool_use"' in drift and "generated/typescript/phi-core/0.10/stray.js" in drift


def test_typescript_generation_is_deterministic(fresh_tree: Path) -> None:
    scratch = ROOT / "build" / "test-codegen-typescript-again"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    try:
        again = codegen_typescript.build(
            scratch, codegen.registered_versions(), codegen.schema_digest
        )
        assert codegen.tree_files(again) == codegen.tree_files(fresh_tree)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
