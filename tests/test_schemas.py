"""The contract itself: every schema folder the registry lists (``schemas/<format>/<version>/``,
``runtime/formats/__init__.py``) and the dialect in ``schemas/meta/``.

Each file must name phi-wire's dialect in ``$schema`` and pass it (draft 2020-12 plus the ``x-``
vocabulary, each keyword's values checked), carry a stable ``$id`` naming its folder, document
every type and field (``title``/``description``: the schema is the documentation other languages
read), put a ``discriminator`` in the form ajv and datamodel-code-generator both accept on every
closed tagged union, give every union branch as a bare ``$ref`` (or a primitive type) so that every
language can name it, use no ``format`` (validators disagree on formats: a ``pattern`` says exactly
what is meant) and only patterns in the syntax every engine shares, leave objects open unless the
implementation refuses unknown keys, and resolve every ``$ref`` without the network. A failure
message names the file and the JSON pointer to fix. (ajv's own verdict on the same rules:
tests/test_typescript.py.)
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing.exceptions import Unresolvable

import phi_wire.v0_10
from schemas import (
    DIALECT,
    ROOT,
    bundled_validator,
    definitions,
    dialect_validator,
    entry_of,
    file_validator,
    folders_on_disk,
    meta_schema_files,
    schema_files,
    schema_folders,
    schemas_in,
)

FILES = [(folder, name) for folder in schema_folders() for name in schema_files(folder)]
PI_FOLDERS = ("pi/0.73", "pi/1.5")
"""pi's schema folders: closed objects, checked by tests/test_pi_schemas.py."""

PRIMITIVES = {"string", "integer", "number", "boolean", "null"}

CLOSED_OBJECTS: dict[str, str] = {}
"""{"<folder>/<file>#<pointer>": why}: the objects, other than the one-key objects of externally
tagged variants, whose implementation refuses unknown keys (``deny_unknown_fields``). None of the
registered formats has one today: serde and pydantic ignore unknown keys."""


@pytest.mark.parametrize(("folder", "name"), FILES)
def test_schema_file_is_valid_2020_12_with_stable_id(folder: str, name: str) -> None:
    document = schema_files(folder)[name]
    Draft202012Validator.check_schema(document)
    assert document["$schema"] == DIALECT, "name phi-wire's dialect, so strict validators know x-"
    problems = [
        f"{error.json_path}: {error.message}" for error in dialect_validator().iter_errors(document)
    ]
    assert not problems, f"{folder}/{name} breaks phi-wire's dialect: {problems}"
    assert document["$id"] == f"https://phi-wire.dev/schemas/{folder}/{name}", (
        "the $id is the file's stable address"
    )
    assert set(document) <= {"$schema", "$id", "title", "description", "$defs"}, (
        "files hold only $defs (no root schema)"
    )


@pytest.mark.parametrize("folder", schema_folders())
def test_definition_names_are_unique_in_a_version(folder: str) -> None:
    """They become the Python, TypeScript and JavaScript names of the version's module."""
    seen: dict[str, str] = {}
    for file, document in schema_files(folder).items():
        for name in document["$defs"]:
            assert name not in seen, f"{folder}: {name} is defined in {seen[name]} and {file}"
            seen[name] = file
    assert not {"Problem", "PhiWireTypes"} & set(seen), "names the npm package keeps for itself"


@pytest.mark.parametrize(("folder", "name"), FILES)
def test_every_type_and_field_is_documented(folder: str, name: str) -> None:
    missing = []
    for def_name, definition in schema_files(folder)[name]["$defs"].items():
        if not definition.get("title") or not definition.get("description"):
            missing.append(f"#/$defs/{def_name}: title and description")
        for pointer, node in schemas_in(definition, f"#/$defs/{def_name}"):
            for prop, schema in node.get("properties", {}).items():
                if not schema.get("description"):
                    missing.append(f"{pointer}/properties/{prop}: description")
    assert not missing, f"{folder}/{name}: add the missing documentation at {missing}"


def resolve_branch(folder: str, file: str, ref: str) -> tuple[str, dict[str, Any]]:
    """The (file, schema) a oneOf branch's ``$ref`` points to: one step, as ajv follows it."""
    target, _, fragment = ref.partition("#/$defs/")
    owner = target or file
    return owner, schema_files(folder)[owner]["$defs"][fragment]


@pytest.mark.parametrize(("folder", "name"), FILES)
def test_tagged_unions_carry_a_discriminator_ajv_can_use(folder: str, name: str) -> None:
    """Codegen emits Field(discriminator=...) only from this keyword (without it, smart unions);
    ajv's discriminator needs it in its own form: ``type: object`` beside it, no ``mapping``, and
    in each oneOf branch (its $ref followed once) the tag as a required ``const`` property."""
    for def_name, definition in schema_files(folder)[name]["$defs"].items():
        where = f"{folder}/{name}#/$defs/{def_name}"
        if definition.get("x-serde-tagging") == "internal":
            assert "discriminator" in definition, f"{where}: add a discriminator"
        if "discriminator" not in definition:
            continue
        assert definition.get("type") == "object", f"{where}: put type: object beside discriminator"
        assert set(definition["discriminator"]) == {"propertyName"}, (
            f"{where}: the discriminator takes only propertyName (ajv rejects mapping)"
        )
        assert "anyOf" not in definition, f"{where}: a discriminator goes with oneOf"
        tag = definition["discriminator"]["propertyName"]
        values = []
        for index, branch in enumerate(definition["oneOf"]):
            assert set(branch) == {"$ref"}, f"{where}/oneOf/{index}: a branch is a bare $ref"
            owner, target = resolve_branch(folder, name, branch["$ref"])
            at = f"{where}/oneOf/{index} -> {owner}#/$defs/{branch['$ref'].rpartition('/')[2]}"
            assert target.get("type") == "object", f"{at}: needs type: object"
            assert "const" in target.get("properties", {}).get(tag, {}), (
                f"{at}: needs properties/{tag} with a const (allOf members do not count for ajv)"
            )
            assert tag in target.get("required", []), f"{at}: {tag!r} must be required"
            values.append(target["properties"][tag]["const"])
        assert len(set(values)) == len(values), f"{where}: two branches share a tag: {values}"


@pytest.mark.parametrize(("folder", "name"), FILES)
def test_union_definitions_name_their_branches(folder: str, name: str) -> None:
    """A union definition (``oneOf``/``anyOf``) lists bare ``$ref``s or primitive types: the
    TypeScript generator declares ``A | B`` from the names, and a branch that is an inline array or
    object has no name in any language (clark-agent's ``UserContent::Blocks`` is ``UserBlocks``).
    A union without a discriminator is untagged, externally tagged or pydantic's smart mode: its
    definition says which (``x-serde-tagging``/``x-union-mode``, pi's ``x-js-union``)."""
    for def_name, definition in schema_files(folder)[name]["$defs"].items():
        where = f"{folder}/{name}#/$defs/{def_name}"
        for key in ("oneOf", "anyOf"):
            for index, branch in enumerate(definition.get(key, [])):
                named = set(branch) == {"$ref"}
                primitive = branch.get("type") in PRIMITIVES and set(branch) <= {"type"}
                assert named or primitive, f"{where}/{key}/{index}: name this branch in $defs"
        if ("oneOf" in definition or "anyOf" in definition) and "discriminator" not in definition:
            picks = {"x-serde-tagging", "x-union-mode", "x-js-union"} & set(definition)
            assert picks, (
                f"{where}: say how the implementation picks a branch "
                "(x-serde-tagging/x-union-mode/x-js-union)"
            )


@pytest.mark.parametrize(("folder", "name"), FILES)
def test_no_format_keyword(folder: str, name: str) -> None:
    """ajv knows no format without a plugin and Python's jsonschema checks date-time only with an
    extra installed, and they disagree at the edges (years past 9999): a pattern says it exactly.
    (A *property* named ``format``, as clark-agent's ReasoningItem has, is fine.)"""
    found = [
        pointer for pointer, node in schemas_in(schema_files(folder)[name]) if "format" in node
    ]
    assert not found, f"{folder}/{name}: replace format with a pattern at {found}"


# Syntax that ECMA-262 (ajv: RegExp with the u flag), Python's re and RE2 do not read alike.
NOT_SHARED = {
    r"\d": "use [0-9] (Python's \\d matches any Unicode digit)",
    r"\D": "use [^0-9]",
    r"\s": "list the whitespace (each engine has its own \\s)",
    r"\S": "list the whitespace",
    r"\w": "use [A-Za-z0-9_] (Python's \\w is Unicode)",
    r"\W": "use [^A-Za-z0-9_]",
    r"\b": "no word boundaries",
    r"\B": "no word boundaries",
    "(?=": "no lookahead (RE2)",
    "(?!": "no lookahead (RE2)",
    "(?<=": "no lookbehind (RE2)",
    "(?<!": "no lookbehind (RE2)",
    "(?P": "no Python-only groups",
}
BACKREFERENCE = re.compile(r"(?<!\\)(?:\\\\)*\\[1-9]")


@pytest.mark.parametrize(("folder", "name"), FILES)
def test_patterns_use_the_syntax_every_engine_shares(folder: str, name: str) -> None:
    """Rule 5 of schemas/README.md's conventions. (A pattern's verdicts in both engines:
    tests/test_timestamp_pattern.py for DateTime, the only pattern today.)"""
    for pointer, node in schemas_in(schema_files(folder)[name]):
        if "pattern" not in node:
            continue
        pattern = node["pattern"]
        where = f"{folder}/{name}#{pointer}/pattern"
        re.compile(pattern)
        for syntax, fix in NOT_SHARED.items():
            assert syntax not in pattern.replace("\\\\", ""), f"{where}: {syntax}: {fix}"
        assert not BACKREFERENCE.search(pattern), f"{where}: no backreferences (RE2)"
        assert pattern.startswith("^"), f"{where}: anchor the pattern with ^"
        assert node.get("type") == "string", f"{where}: a pattern goes with type: string"


@pytest.mark.parametrize(("folder", "name"), FILES)
def test_objects_are_open_unless_the_implementation_refuses_unknown_keys(
    folder: str, name: str
) -> None:
    """Rule 7: serde and pydantic ignore unknown keys, and ``phi-wire schema-diff`` judges an
    added key by it. Closed: an externally tagged variant's one-key object (``{"Rerun": {...}}``:
    serde reads one key as the variant), and what CLOSED_OBJECTS lists with the reason. pi's
    rule is the reverse (pi validates nothing: its schemas state what its types allow, closed but
    for the objects tests/test_pi_schemas.py lists as open), checked there."""
    if folder.startswith("pi/"):
        assert folder in PI_FOLDERS
        return
    found = definitions(folder)
    external_variants = {
        branch["$ref"].rpartition("/")[2]
        for definition in found.values()
        if definition.get("x-serde-tagging") == "external"
        for branch in definition.get("oneOf", definition.get("anyOf", []))
        if "$ref" in branch
    }
    for pointer, node in schemas_in(schema_files(folder)[name]):
        where = f"{folder}/{name}#{pointer}"
        if node.get("additionalProperties") is False or node.get("unevaluatedProperties") is False:
            one_key = len(node.get("properties", {})) == 1 == len(node.get("required", []))
            variant = pointer.removeprefix("/$defs/") in external_variants and one_key
            assert variant or where in CLOSED_OBJECTS, (
                f"{where} is closed: open it, or say why it is closed"
            )


def test_meta_schemas_are_valid_and_declare_every_x_keyword() -> None:
    files = meta_schema_files()
    assert set(files) == {"dialect.json", "serde.json"}
    for document in files.values():
        Draft202012Validator.check_schema(document)
    dialect, vocabulary = files["dialect.json"], files["serde.json"]
    assert dialect["$id"] == DIALECT
    assert dialect["$vocabulary"]["https://phi-wire.dev/vocab/serde"] is False, (
        "optional: validators that do not know the vocabulary still validate"
    )
    declared = set(vocabulary["properties"])
    assert set(vocabulary["propertyNames"]["then"]["enum"]) == declared
    used = {
        key
        for folder in folders_on_disk()  # pi's keywords are in use before pi is registered
        for document in schema_files(folder).values()
        for _, node in schemas_in(document)
        for key in node
        if key.startswith("x-")
    }
    assert used <= declared, f"undeclared x- keywords: {sorted(used - declared)}"
    assert used == declared, f"declared but unused x- keywords: {sorted(declared - used)}"
    assert all(vocabulary["properties"][key].get("description") for key in declared)


def readme_keyword_table() -> dict[str, list[Any] | None]:
    """schemas/README.md's table of x- keywords: {keyword: the values its first cell lists, or
    None where it shows a placeholder (``"<value>"``, ``{alias: value}``) or no value}."""
    readme = (ROOT / "schemas" / "README.md").read_text(encoding="utf-8")
    table: dict[str, list[Any] | None] = {}
    for cell in re.findall(r"^\| `(x-[^`]+)` \|", readme, re.MULTILINE):
        keyword, _, shown = cell.partition(":")
        values: list[Any] | None = []
        for token in (part.strip() for part in shown.split("\\|") if shown):
            if token == "true":
                values.append(True)  # type: ignore[union-attr]
            elif re.fullmatch(r'"[^"<>]+"', token):
                values.append(token.strip('"'))  # type: ignore[union-attr]
            else:
                values = None
                break
        table[keyword.strip()] = values
    return table


def test_the_readme_table_lists_every_x_keyword_with_its_values() -> None:
    """The table in schemas/README.md and meta/serde.json say the same: every declared keyword
    has a row, and a row that lists values lists exactly the values the vocabulary allows."""
    vocabulary = meta_schema_files()["serde.json"]["properties"]
    table = readme_keyword_table()
    assert set(table) == set(vocabulary), (
        f"schemas/README.md's x- table and meta/serde.json differ: "
        f"{sorted(set(table) ^ set(vocabulary))}"
    )
    for keyword, shown in table.items():
        declared = vocabulary[keyword]
        allowed = declared.get("enum", [declared["const"]] if "const" in declared else None)
        if allowed is not None:
            assert shown is not None and sorted(map(str, shown)) == sorted(map(str, allowed)), (
                f"{keyword}: the README shows {shown}, meta/serde.json allows {allowed}"
            )


def test_the_package_ships_the_meta_schemas() -> None:
    shipped = phi_wire.v0_10.meta_schemas()
    assert shipped == {document["$id"]: document for document in meta_schema_files().values()}
    shipped[DIALECT]["title"] = "changed"  # a copy: the caller cannot change the package's
    assert phi_wire.v0_10.meta_schemas()[DIALECT]["title"] != "changed"


@pytest.mark.parametrize(("folder", "name"), FILES)
def test_refs_are_relative_and_resolve_offline(folder: str, name: str) -> None:
    document = schema_files(folder)[name]
    for pointer, node in schemas_in(document):
        if isinstance(node.get("$ref"), str):
            assert not node["$ref"].startswith(("http:", "https:")), (
                f"{folder}/{name}{pointer}: use a relative $ref"
            )
    for def_name in document["$defs"]:
        validator = file_validator(folder, def_name)
        try:
            validator.is_valid(None)
        except Unresolvable as error:  # pragma: no cover - the failure message is the point
            pytest.fail(f"{folder}/{name}#/$defs/{def_name} does not resolve offline: {error}")


def scalar(definition: dict[str, Any]) -> bool:
    """A scalar the Python models type with a hand-written or built-in type (U64, DateTime,
    JsonValue, Operator-Use's Path), not a generated class."""
    return "x-rust-type" in definition or "x-python-import" in definition


@pytest.mark.parametrize("folder", schema_folders())
def test_every_schema_type_is_importable_and_bundles(folder: str) -> None:
    module = entry_of(folder).load()
    for def_name, definition in definitions(folder).items():
        if scalar(definition):
            continue
        assert hasattr(module, def_name), f"{module.__name__} lacks {def_name}"
        bundle = module.schema(getattr(module, def_name))
        refs = [node["$ref"] for _, node in schemas_in(bundle) if "$ref" in node]
        assert all(ref.startswith("#/$defs/") for ref in refs), refs
        assert all(ref.removeprefix("#/$defs/") in bundle["$defs"] for ref in refs)
        bundled_validator(folder, def_name)  # passes the draft 2020-12 meta-schema
        assert bundle["$schema"] == DIALECT


def roots(folder: str) -> list[str]:
    """The types no other type of the version contains: their bundles hold every type."""
    found = definitions(folder)
    referenced = {
        node["$ref"].rpartition("/")[2]
        for name, definition in found.items()
        for _, node in schemas_in(definition)
        if "$ref" in node and node["$ref"].rpartition("/")[2] != name
    }
    return sorted(name for name in found if name not in referenced)


@pytest.mark.parametrize(
    ("folder", "root"), [(folder, root) for folder in schema_folders() for root in roots(folder)]
)
def test_bundles_pass_phi_wires_dialect(folder: str, root: str) -> None:
    """The bundles of the types nothing else contains (between them every type of the version):
    checking every bundle against the dialect takes minutes and proves nothing more."""
    bundle = entry_of(folder).load().schema(root)
    problems = [error.message for error in dialect_validator().iter_errors(bundle)]
    assert not problems, f"schema({root}) of {folder} breaks phi-wire's dialect: {problems}"
