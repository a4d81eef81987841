"""The contract itself: schemas/phi-core/<version>/*.json and the dialect in schemas/meta/.

Each file must name phi-wire's dialect in ``$schema`` and pass it (draft 2020-12 plus the ``x-``
vocabulary, each keyword's values checked), carry a stable ``$id`` naming its version, document
every type and field (``title``/``description``: the schema is the documentation other languages
read), put a ``discriminator`` in the form ajv and datamodel-code-generator both accept on every
closed tagged union, use no ``format`` (validators disagree on formats: a ``pattern`` says exactly
what is meant), and resolve every ``$ref`` without the network. A failure message names the file
and the JSON pointer to fix. (ajv's own verdict on the same rules: tests/test_typescript.py.)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing.exceptions import Unresolvable

import phi_wire.v0_8
import phi_wire.v0_10
from schemas import (
    DIALECT,
    bundled_validator,
    dialect_validator,
    file_validator,
    meta_schema_files,
    schema_files,
    schema_versions,
)

BASE = "https://phi-wire.dev/schemas/phi-core/"
MODULES = {"0.8": phi_wire.v0_8, "0.10": phi_wire.v0_10}
FILES = [(version, name) for version in schema_versions() for name in schema_files(version)]


def walk(node: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    yield pointer, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from walk(value, f"{pointer}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, f"{pointer}/{index}")


@pytest.mark.parametrize(("version", "name"), FILES)
def test_schema_file_is_valid_2020_12_with_stable_id(version: str, name: str) -> None:
    document = schema_files(version)[name]
    Draft202012Validator.check_schema(document)
    assert document["$schema"] == DIALECT, "name phi-wire's dialect, so strict validators know x-"
    problems = [
        f"{error.json_path}: {error.message}" for error in dialect_validator().iter_errors(document)
    ]
    assert not problems, f"{name} breaks phi-wire's dialect: {problems}"
    assert document["$id"] == f"{BASE}{version}/{name}", "the $id is the file's stable address"
    assert set(document) <= {"$schema", "$id", "title", "description", "$defs"}, (
        "files hold only $defs (no root schema)"
    )


@pytest.mark.parametrize(("version", "name"), FILES)
def test_every_type_and_field_is_documented(version: str, name: str) -> None:
    missing = []
    for def_name, definition in schema_files(version)[name]["$defs"].items():
        if not definition.get("title") or not definition.get("description"):
            missing.append(f"#/$defs/{def_name}: title and description")
        for pointer, node in walk(definition, f"#/$defs/{def_name}"):
            if isinstance(node, dict) and isinstance(node.get("properties"), dict):
                for prop, schema in node["properties"].items():
                    if not schema.get("description"):
                        missing.append(f"{pointer}/properties/{prop}: description")
    assert not missing, f"{name}: add the missing documentation at {missing}"


def resolve_branch(version: str, file: str, ref: str) -> tuple[str, dict[str, Any]]:
    """The (file, schema) a oneOf branch's ``$ref`` points to: one step, as ajv follows it."""
    target, _, fragment = ref.partition("#/$defs/")
    owner = target or file
    return owner, schema_files(version)[owner]["$defs"][fragment]


@pytest.mark.parametrize(("version", "name"), FILES)
def test_tagged_unions_carry_a_discriminator_ajv_can_use(version: str, name: str) -> None:
    """Codegen emits Field(discriminator=...) only from this keyword (without it, smart unions);
    ajv's discriminator needs it in its own form: ``type: object`` beside it, no ``mapping``, and
    in each oneOf branch (its $ref followed once) the tag as a required ``const`` property."""
    for def_name, definition in schema_files(version)[name]["$defs"].items():
        where = f"{name}#/$defs/{def_name}"
        if definition.get("x-serde-tagging") == "internal":
            assert "discriminator" in definition, f"{where}: add a discriminator"
        if "discriminator" not in definition:
            continue
        assert definition.get("type") == "object", f"{where}: put type: object beside discriminator"
        assert set(definition["discriminator"]) == {"propertyName"}, (
            f"{where}: the discriminator takes only propertyName (ajv rejects mapping)"
        )
        tag = definition["discriminator"]["propertyName"]
        values = []
        for index, branch in enumerate(definition["oneOf"]):
            assert set(branch) == {"$ref"}, f"{where}/oneOf/{index}: a branch is a bare $ref"
            owner, target = resolve_branch(version, name, branch["$ref"])
            at = f"{where}/oneOf/{index} -> {owner}#/$defs/{branch['$ref'].rpartition('/')[2]}"
            assert target.get("type") == "object", f"{at}: needs type: object"
            assert "const" in target.get("properties", {}).get(tag, {}), (
                f"{at}: needs properties/{tag} with a const (allOf members do not count for ajv)"
            )
            assert tag in target.get("required", []), f"{at}: {tag!r} must be required"
            values.append(target["properties"][tag]["const"])
        assert len(set(values)) == len(values), f"{where}: two branches share a tag: {values}"


@pytest.mark.parametrize(("version", "name"), FILES)
def test_no_format_keyword(version: str, name: str) -> None:
    """ajv knows no format without a plugin and Python's jsonschema checks date-time only with an
    extra installed, and they disagree at the edges (years past 9999): a pattern says it exactly."""
    found = [
        pointer
        for pointer, node in walk(schema_files(version)[name])
        if isinstance(node, dict) and "format" in node and "type" in node
    ]
    assert not found, f"{name}: replace format with a pattern at {found}"


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
        for version in schema_versions()
        for document in schema_files(version).values()
        for _, node in walk(document)
        if isinstance(node, dict)
        for key in node
        if key.startswith("x-")
    }
    assert used <= declared, f"undeclared x- keywords: {sorted(used - declared)}"
    assert all(vocabulary["properties"][key].get("description") for key in declared)


def test_the_package_ships_the_meta_schemas() -> None:
    shipped = phi_wire.v0_10.meta_schemas()
    assert shipped == {document["$id"]: document for document in meta_schema_files().values()}
    shipped[DIALECT]["title"] = "changed"  # a copy: the caller cannot change the package's
    assert phi_wire.v0_10.meta_schemas()[DIALECT]["title"] != "changed"


@pytest.mark.parametrize(("version", "name"), FILES)
def test_refs_are_relative_and_resolve_offline(version: str, name: str) -> None:
    document = schema_files(version)[name]
    for pointer, node in walk(document):
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            assert not node["$ref"].startswith(("http:", "https:")), (
                f"{name}{pointer}: use a relative $ref"
            )
    for def_name in document["$defs"]:
        validator = file_validator(version, def_name)
        try:
            validator.is_valid(None)
        except Unresolvable as error:  # pragma: no cover - the failure message is the point
            pytest.fail(f"{name}#/$defs/{def_name} does not resolve offline: {error}")


@pytest.mark.parametrize("version", sorted(MODULES))
def test_every_schema_type_is_importable_and_bundles(version: str) -> None:
    module = MODULES[version]
    for document in schema_files(version).values():
        for def_name in document["$defs"]:
            if def_name in {"U64", "U32", "Usize", "F32", "DateTime", "JsonValue"}:
                continue  # scalars: typed as int/float/Timestamp/Any in Python
            assert hasattr(module, def_name), (
                f"phi_wire.v{version.replace('.', '_')} lacks {def_name}"
            )
            bundle = module.schema(getattr(module, def_name))
            refs = [
                node["$ref"]
                for _, node in walk(bundle)
                if isinstance(node, dict) and "$ref" in node
            ]
            assert all(ref.startswith("#/$defs/") for ref in refs), refs
            assert all(ref.removeprefix("#/$defs/") in bundle["$defs"] for ref in refs)
            bundled_validator(version, def_name)  # passes the draft 2020-12 meta-schema
            assert bundle["$schema"] == DIALECT


@pytest.mark.parametrize("version", sorted(MODULES))
@pytest.mark.parametrize("root", ["AgentEvent", "Session", "StreamEvent"])
def test_bundles_pass_phi_wires_dialect(version: str, root: str) -> None:
    """The largest bundles (between them every type of the version): checking all of them
    against the dialect takes a minute and proves nothing more."""
    bundle = MODULES[version].schema(root)
    problems = [error.message for error in dialect_validator().iter_errors(bundle)]
    assert not problems, f"schema({root}) breaks phi-wire's dialect: {problems}"
