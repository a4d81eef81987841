"""The TypeScript half of tools/codegen: ``generated/typescript/``, an npm package (``phi-wire``)
with, for each version the registry lists, TypeScript declarations of every wire type and
validators compiled ahead of time from the same schemas.

Pipeline, per version (``schemas/<format>/<version>/``):

1. the schema files become one document for json-schema-to-typescript (pinned in
   ``tools/typescript/package-lock.json``): every definition of the folder under its phi-core name,
   each reference replaced by that name (``tsType``) so the generator declares each type once and
   never invents ``U641``-style copies, arrays as ``readonly T[]``, doc comments from the schema's
   titles and descriptions; the scalars (``x-rust-type``) become ``number``/``string`` aliases and
   ``JsonValue`` a recursive JSON type;
2. ``tools/typescript/generate.mjs`` runs the generator and compiles the *unchanged* schema files
   with ajv (strict mode, discriminator on, phi-wire's dialect registered, no network) into
   standalone code, as an ES module and as CommonJS: one validator per wire type (not the
   scalars);
3. the declarations are finished here: the generator's "referenced by" boilerplate goes, every
   property becomes ``readonly`` (received data is not edited in place), a header names the
   schemas and their sha256; ``index.js``/``index.d.ts`` (from ``tools/templates/typescript/``)
   give each type ``isT(x): x is T`` and ``validateT(x)`` returning problems with JSON pointers;
   ``index.cjs``/``index.d.cts`` (over ``validators.cjs``, with ``types.d.cts``) are the same
   for CommonJS, which cannot ``require`` an ES module (a TypeScript project with ``module:
   node16`` and no ``"type": "module"`` gets TS1479).

The package also carries copies of the schema files (``schemas/``) for consumers who compile them
themselves, and a ``package.json`` whose ``exports`` name each version (``phi-wire/phi-core/0.10``),
with an ``import`` and a ``require`` entry, each with its declarations. Every step is
deterministic; ``tools/codegen --check`` compares the whole tree.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import string
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
NODE_TOOLS = ROOT / "tools" / "typescript"
GENERATOR = NODE_TOOLS / "generate.mjs"
TEMPLATES = ROOT / "tools" / "templates" / "typescript"
TREE = "typescript"
"""generated/typescript/: the npm package."""
PACKAGE_NAME = "phi-wire"

JSON_VALUE = (
    "null | boolean | number | string | readonly JsonValue[]"
    " | { readonly [key: string]: JsonValue }"
)
INTEGER_NOTE = (
    "In JavaScript a JSON number: integers past 2^53 (Number.MAX_SAFE_INTEGER) lose precision "
    "in JSON.parse, and the validators see the rounded value."
)
ROOT_NAME = "PhiWireTypes"
"""The generator needs a root schema; its declaration is dropped from the output."""
RESERVED = {"Problem", ROOT_NAME}
"""Names the package declares itself: no schema type may take them."""


class TypeScriptError(SystemExit):
    """A schema construct this half does not translate, or a tool that failed: codegen stops."""

    def __init__(self, message: str) -> None:
        super().__init__(f"codegen (TypeScript): {message}")


def ref_name(ref: str) -> str:
    """``message.json#/$defs/Usage`` -> ``Usage`` (names are unique across a version's files)."""
    _, _, name = ref.partition("#/$defs/")
    if not name or "/" in name:
        raise TypeScriptError(f"unsupported $ref {ref!r}")
    return name


PRIMITIVES = {
    "string": "string",
    "integer": "number",
    "number": "number",
    "boolean": "boolean",
    "null": "null",
}
"""JSON Schema's primitive types as TypeScript types."""


def named_type(schema: dict[str, Any], what: str) -> str:
    """The TypeScript type of a schema that is a bare reference or a primitive type: an array's
    items, a union's branch. Anything else would need a name the schemas do not give it."""
    if set(schema) == {"$ref"}:
        return ref_name(schema["$ref"])
    kind = schema.get("type")
    if isinstance(kind, str) and kind in PRIMITIVES and set(schema) <= {"type", "description"}:
        return PRIMITIVES[kind]
    raise TypeScriptError(f"{what} {schema} are not a bare $ref or a primitive type")


OPEN_OBJECT = "{ readonly [key: string]: unknown }"
"""An object with no declared key: any keys, any JSON values."""


def item_type(schema: dict[str, Any]) -> str:
    """The TypeScript type of an array's items (the schemas' arrays hold refs, primitives, or an
    object of any keys: pi's ``ModelCost.tiers``)."""
    if "$ref" in schema:  # a description beside it is the items' doc, not a new type
        return ref_name(schema["$ref"])
    if schema.get("type") == "object" and set(schema) <= {"type", "description"}:
        return OPEN_OBJECT
    return named_type(schema, "array items")


def for_generator(node: Any) -> Any:
    """A schema node as json-schema-to-typescript should see it (see the module docstring)."""
    if isinstance(node, list):
        return [for_generator(item) for item in node]
    if not isinstance(node, dict):
        return node
    notes = {key: node[key] for key in ("description", "default") if key in node}
    if "$ref" in node:
        return {"tsType": ref_name(node["$ref"]), **notes}
    if set(node) <= {"description", "default"} and isinstance(node.get("description", ""), str):
        # a schema with no constraint: any JSON value (Operator-Use's Any), not an object
        return {"tsType": "unknown", **notes}
    if node.get("type") == "array" and "items" in node:
        return {"tsType": f"readonly {item_type(node['items'])}[]", **notes}
    open_object = node.get("type") == "object" and node.get("additionalProperties") is True
    if open_object and "properties" not in node:
        # a free-form map (Operator-Use's dict[str, Any]), read-only like every member
        return {"tsType": OPEN_OBJECT, **notes}
    values = node.get("additionalProperties")
    if node.get("type") == "object" and isinstance(values, dict) and "properties" not in node:
        # a map of typed values (pi's SystemMessage.sections: string or null)
        branches = values.get("anyOf") or values.get("oneOf") or [values]
        value_type = " | ".join(named_type(branch, "map values") for branch in branches)
        return {"tsType": f"{{ readonly [key: string]: {value_type} }}", **notes}
    # an open object with properties (OpenTelemetry GenAI's say they keep other keys): its
    # members and an index signature, so that a document with other keys type-checks
    return {
        key: for_generator(value)
        for key, value in node.items()
        if not key.startswith("x-") and key not in {"$comment", "pattern"}
    }


def doc_comment(name: str, definition: dict[str, Any]) -> str:
    text = str(definition.get("description", ""))
    title = str(definition.get("title", name))
    if title != name:
        text = f"{title}: {text}"
    if definition.get("type") == "integer" and definition.get("maximum", 0) > 2**53:
        text = f"{text}\n\n{INTEGER_NOTE}"
    if "*/" in text:
        raise TypeScriptError(f"{name}: a description may not contain */")
    return text


def declaration(name: str, definition: dict[str, Any], owner: str) -> dict[str, Any]:
    """One definition, ready for the generator, named ``name``."""
    where = f"{owner}#/$defs/{name}"
    if name in RESERVED:
        raise TypeScriptError(f"{where}: {name!r} is a name the package declares itself")
    rust = definition.get("x-rust-type")
    if rust == "serde_json::Value":
        result: dict[str, Any] = {"tsType": JSON_VALUE}
    elif "allOf" in definition:
        members = [ref_name(member["$ref"]) for member in definition["allOf"]]
        for prop, schema in definition.get("properties", {}).items():
            if set(schema) - {"const", "description"}:
                raise TypeScriptError(f"{where}: beside allOf only tag consts are translated")
            del prop  # a restated tag (ajv's discriminator needs it here): the members carry it
        result = {"tsType": " & ".join(members)}
    elif "oneOf" in definition or "anyOf" in definition:
        # tagged (oneOf with a discriminator), untagged, or pydantic's smart mode (anyOf): in
        # TypeScript each is the union of its branches, which the schemas name
        branches = definition.get("oneOf") or definition["anyOf"]
        where_branches = f"{where}: union branches"
        result = {"tsType": " | ".join(named_type(branch, where_branches) for branch in branches)}
    else:
        result = for_generator(definition)
    result["title"] = name
    result["description"] = doc_comment(name, definition)
    return result


def types_input(folder: Path) -> dict[str, Any]:
    """Every definition of a version's schema files, as one document for the generator."""
    definitions: dict[str, Any] = {}
    for path in sorted(folder.glob("*.json")):
        for name, definition in json.loads(path.read_text(encoding="utf-8"))["$defs"].items():
            if name in definitions:
                raise TypeScriptError(f"{name} is defined twice in {folder.relative_to(ROOT)}")
            definitions[name] = declaration(name, definition, path.name)
    root = {"title": ROOT_NAME, "type": "object", "additionalProperties": False}
    return {**root, "$defs": definitions}


def validator_refs(folder: Path) -> dict[str, str]:
    """{type name: its schema's URI} for every wire type but the scalars (``x-rust-type``)."""
    refs: dict[str, str] = {}
    for path in sorted(folder.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        for name, definition in document["$defs"].items():
            if "x-rust-type" not in definition:
                refs[name] = f"{document['$id']}#/$defs/{name}"
    return refs


def run_generate(request: dict[str, Any]) -> dict[str, dict[str, str]]:
    node = shutil.which("node")
    if node is None:
        raise TypeScriptError("node is not installed (node 20 or later)")
    if not (NODE_TOOLS / "node_modules" / ".package-lock.json").is_file():
        raise TypeScriptError("tools/typescript/node_modules is missing: run `make node-tools`")
    result = subprocess.run(
        [node, str(GENERATOR)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        cwd=NODE_TOOLS,
        check=False,
    )
    if result.returncode != 0 or result.stderr.strip():
        raise TypeScriptError(f"generate.mjs failed (exit {result.returncode}):\n{result.stderr}")
    answer: dict[str, dict[str, str]] = json.loads(result.stdout)
    return answer


# The generator's note under each named type's doc comment: true, and noise in a package.
_REFERENCED = re.compile(
    r" \*\n \* This interface was referenced by `[^`]*`'s JSON-Schema\n"
    r" \* via the `definition` \"[^\"]*\"\.\n"
)
_ROOT_DECLARATION = f"export interface {ROOT_NAME} {{}}\n"
_SCHEMA_CONSTANT = re.compile(r"^const (schema\d+) = .*;$")
_MEMBER = re.compile(r"^  (?=[A-Za-z_$][\w$]*\??: |\[key: string\]: )", re.MULTILINE)
_INDEX_SIGNATURE = re.compile(r"^  \[k: string\]: unknown(?: \| undefined)?;$", re.MULTILINE)
"""The generator's member for an open object's other keys (``additionalProperties: true``)."""


_UCS2LENGTH = re.compile(
    r'^const (func\d+) = require\("ajv/dist/runtime/ucs2length"\)\.default;$', re.MULTILINE
)
_UCS2LENGTH_INLINE = (
    "const {name} = (text) => {{ let length = 0; for (const _ of text) length++; return length; }};"
    "  // ajv's ucs2length: code points"
)


def finish_validators(text: str, header: str) -> str:
    """ajv's standalone module without the schema constants it declares and never uses (their
    descriptions were a tenth of the file), and with ajv's one run-time helper it requires
    (``ucs2length``, for ``minLength``/``maxLength``: pi's ``ISOTimestamp``) written inline, so
    that the validators import nothing (an ES module cannot ``require``)."""
    text = _UCS2LENGTH.sub(lambda found: _UCS2LENGTH_INLINE.format(name=found[1]), text)
    if "require(" in text:
        raise TypeScriptError("ajv's standalone code requires a run-time module: inline it here")
    lines = text.rstrip("\n").split("\n")
    unused = {
        match.group(1)
        for line in lines
        if (match := _SCHEMA_CONSTANT.match(line))
        and len(re.findall(rf"\b{match.group(1)}\b", text)) == 1
    }
    kept = [
        line
        for line in lines
        if not ((match := _SCHEMA_CONSTANT.match(line)) and match.group(1) in unused)
    ]
    return header + "\n".join(kept) + "\n"


def finish_types(text: str, header: str) -> str:
    """The generator's declarations with readonly members and without its boilerplate."""
    if text.count(_ROOT_DECLARATION) != 1:
        raise TypeScriptError("the generator's output changed: no root declaration to drop")
    text = _REFERENCED.sub("", text.replace(_ROOT_DECLARATION, ""))
    if "referenced by" in text:
        raise TypeScriptError("the generator's output changed: its boilerplate is still there")
    text = _INDEX_SIGNATURE.sub("  [key: string]: unknown;", text)
    blocks = re.split(r"(?m)^(export interface \w+ \{\n(?:.*\n)*?\}\n)", text)
    finished = [
        _MEMBER.sub("  readonly ", block) if block.startswith("export interface") else block
        for block in blocks
    ]
    for block in finished:
        if block.startswith("export interface"):
            for line in block.split("\n")[1:-2]:
                allowed = ("  readonly ", "  /**", "   *", "    ")
                if line.startswith("  ") and not line.startswith(allowed):
                    raise TypeScriptError(f"a member the readonly rule missed: {line!r}")
    return header + "".join(finished)


def render(template: str, **values: str) -> str:
    text = (TEMPLATES / template).read_text(encoding="utf-8")
    return string.Template(text).substitute(values)


def pattern_types(folder: Path) -> str:
    """``[[pattern, type name], ...]`` as JavaScript, for the types defined by a pattern."""
    pairs = []
    for path in sorted(folder.glob("*.json")):
        for name, definition in json.loads(path.read_text(encoding="utf-8"))["$defs"].items():
            if "pattern" in definition:
                pairs.append([definition["pattern"], name])
    return json.dumps(pairs)


def index_files(entry: Any, names: Iterable[str], header: str) -> dict[str, str]:
    """``index.js`` (the typed API over the compiled validators) and its declarations, and the
    same for CommonJS (``index.cjs``, ``index.d.cts``)."""
    names = sorted(names)
    problems = render(
        "problems.js.tmpl", format=entry.format, pattern_types=pattern_types(SCHEMAS / entry.folder)
    )
    declarations = "".join(
        render("validator.d.ts.tmpl", name=name, label=entry.label) for name in names
    )
    files = {}
    for module, declared, api in (("js", "ts", "js"), ("cjs", "cts", "cjs")):
        # one isT/validateT pair per type
        functions = "".join(render(f"validator.{module}.tmpl", name=name) for name in names)
        files[f"index.{module}"] = render(
            f"index.{module}.tmpl", header=header, problems=problems, functions=functions
        )
        files[f"index.d.{declared}"] = render(
            "index.d.ts.tmpl",
            header=header,
            declarations=declarations,
            declared=f".d.{declared}",
            api=f".{api}",
        )
    return files


def package_version() -> str:
    """phi-wire's own release, from runtime/__init__.py (the wheel's version)."""
    tree = ast.parse((ROOT / "runtime" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__version__" for target in node.targets
        ):
            return str(ast.literal_eval(node.value))
    raise TypeScriptError("runtime/__init__.py has no literal __version__")


def package_json(entries: list[Any]) -> str:
    exports: dict[str, Any] = {
        f"./{entry.folder}": {
            "import": {
                "types": f"./{entry.folder}/index.d.ts",
                "default": f"./{entry.folder}/index.js",
            },
            "require": {
                "types": f"./{entry.folder}/index.d.cts",
                "default": f"./{entry.folder}/index.cjs",
            },
        }
        for entry in entries
    }
    exports["./schemas/*"] = "./schemas/*"
    manifest = {
        "name": PACKAGE_NAME,
        "version": package_version(),
        "description": "TypeScript types and ahead-of-time compiled validators for LLM-agent "
        f"wire formats ({', '.join(dict.fromkeys(entry.format for entry in entries))}), generated "
        "from phi-wire's JSON Schemas.",
        "license": "MIT",
        "type": "module",
        "sideEffects": False,
        "exports": exports,
        "files": sorted({entry.format for entry in entries} | {"schemas", "README.md"}),
        "engines": {"node": ">=18"},
    }
    return json.dumps(manifest, indent=2) + "\n"


def build(scratch: Path, entries: list[Any], digest: Callable[[Path], str]) -> Path:
    """Generate the whole TypeScript tree into ``scratch`` and return it."""
    tree = scratch / "generated" / TREE
    tree.mkdir(parents=True)
    meta = [json.loads(path.read_text()) for path in sorted((SCHEMAS / "meta").glob("*.json"))]
    request = {
        "metaSchemas": meta,
        "versions": [
            {
                "folder": entry.folder,
                "typesInput": types_input(SCHEMAS / entry.folder),
                "schemaFiles": [
                    json.loads(path.read_text(encoding="utf-8"))
                    for path in sorted((SCHEMAS / entry.folder).glob("*.json"))
                ],
                "validators": validator_refs(SCHEMAS / entry.folder),
            }
            for entry in entries
        ],
    }
    answer = run_generate(request)
    for entry in entries:
        folder = SCHEMAS / entry.folder
        header = (
            f"// Generated by tools/codegen from schemas/{entry.folder} - do not edit.\n"
            f"// schemas sha256: {digest(folder)}\n"
        )
        target = tree / entry.folder
        target.mkdir(parents=True)
        generated = answer[entry.folder]
        types = finish_types(generated["types"], header)
        (target / "types.d.ts").write_text(types)
        (target / "types.d.cts").write_text(types)  # declarations only: the same for CommonJS
        (target / "validators.js").write_text(finish_validators(generated["validators"], header))
        (target / "validators.cjs").write_text(
            finish_validators(generated["validatorsCommonJS"], header)
        )
        names = validator_refs(folder)
        for name, text in index_files(entry, names, header).items():
            (target / name).write_text(text)
        shutil.copytree(folder, tree / "schemas" / entry.folder)
    shutil.copytree(SCHEMAS / "meta", tree / "schemas" / "meta")
    (tree / "package.json").write_text(package_json(entries))
    (tree / "README.md").write_text(
        render("README.md.tmpl", versions=", ".join(f"`{entry.folder}`" for entry in entries))
    )
    return tree
