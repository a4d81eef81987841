"""The contract itself: schemas/phi-core/<version>/*.json.

Each file must pass the draft 2020-12 meta-schema, carry a stable ``$id`` naming its version,
document every type and field (``title``/``description``: the schema is the documentation other
languages read), put a ``discriminator`` on every closed tagged union, and resolve every ``$ref``
without the network. A failure message names the file and the JSON pointer to fix.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing.exceptions import Unresolvable

import phi_wire.v0_8
import phi_wire.v0_10
from schemas import bundled_validator, file_validator, schema_files, schema_versions

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
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
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


def branch_tag(version: str, ref: str, tag: str) -> Any:
    """The const value of ``tag`` in the branch ``ref`` points to (following allOf)."""
    files = schema_files(version)
    target, _, fragment = ref.partition("#/$defs/")
    for document in files.values() if not target else [files[target]]:
        branch = document["$defs"].get(fragment)
        if branch is None:
            continue
        for part in [branch, *branch.get("allOf", [])]:
            if "$ref" in part:
                found = branch_tag(version, part["$ref"], tag)
                if found is not None:
                    return found
            elif tag in part.get("properties", {}):
                return part["properties"][tag]["const"]
    return None


@pytest.mark.parametrize(("version", "name"), FILES)
def test_tagged_unions_carry_a_discriminator(version: str, name: str) -> None:
    """Codegen emits Field(discriminator=...) only from this keyword: without it, smart unions."""
    for def_name, definition in schema_files(version)[name]["$defs"].items():
        if definition.get("x-serde-tagging") != "internal":
            continue
        assert "discriminator" in definition, f"{name}#/$defs/{def_name}: add a discriminator"
        tag = definition["discriminator"]["propertyName"]
        mapping = definition["discriminator"]["mapping"]
        assert sorted(mapping.values()) == sorted(
            branch["$ref"] for branch in definition["oneOf"]
        ), f"{name}#/$defs/{def_name}: the mapping must list every oneOf branch once"
        for value, ref in mapping.items():
            assert branch_tag(version, ref, tag) == value, (
                f"{name}#/$defs/{def_name}: mapping {value!r} points to {ref}, "
                f"whose {tag!r} differs"
            )


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
            bundled_validator(version, def_name)  # passes the meta-schema
