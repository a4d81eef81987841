"""The contract for clark-agent: schemas/clark-agent/0.4/*.json.

The same bar as phi-core's schemas (tests/test_schemas.py): draft 2020-12, a stable ``$id``,
every type and field documented, ``$ref``s relative and resolvable offline; plus the conventions
the cross-language work settles: each discriminated ``oneOf`` has ``"type": "object"`` and a
``discriminator`` with ``propertyName`` and no ``mapping``, and every branch has the tag in
``properties`` (as a ``const``) and in ``required``; the only ``x-`` keywords are those
``schemas/README.md`` documents.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from corpus import ROOT
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource

import phi_wire.clark_agent as clark

FOLDER = ROOT / "schemas" / "clark-agent" / "0.4"
BASE = "https://phi-wire.dev/schemas/clark-agent/0.4/"
FILES = {path.name: json.loads(path.read_text("utf-8")) for path in sorted(FOLDER.glob("*.json"))}
SCALARS = {"U64", "I64", "U32", "Usize", "F32", "JsonValue"}


def walk(node: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    yield pointer, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from walk(value, f"{pointer}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, f"{pointer}/{index}")


@pytest.mark.parametrize("name", sorted(FILES))
def test_schema_file_is_valid_2020_12_with_stable_id_and_documented(name: str) -> None:
    document = FILES[name]
    Draft202012Validator.check_schema(document)
    assert document["$id"] == BASE + name
    assert set(document) <= {"$schema", "$id", "title", "description", "$defs"}
    missing = [
        f"{pointer}/properties/{prop}"
        for def_name, definition in document["$defs"].items()
        for pointer, node in walk(definition, f"#/$defs/{def_name}")
        if isinstance(node, dict) and isinstance(node.get("properties"), dict)
        for prop, schema in node["properties"].items()
        if not schema.get("description")
    ] + [
        f"#/$defs/{def_name}"
        for def_name, definition in document["$defs"].items()
        if not definition.get("title") or not definition.get("description")
    ]
    assert not missing, f"{name}: document {missing}"


def branch(ref: str, current: str) -> dict[str, Any]:
    target, _, fragment = ref.partition("#/$defs/")
    return FILES[target or current]["$defs"][fragment]  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", sorted(FILES))
def test_discriminated_unions_follow_the_ajv_strict_conventions(name: str) -> None:
    for def_name, definition in FILES[name]["$defs"].items():
        if "discriminator" not in definition:
            assert definition.get("x-serde-tagging") in (None, "untagged"), def_name
            continue
        assert definition["type"] == "object", f"{def_name}: add type object"
        assert set(definition["discriminator"]) == {"propertyName"}, f"{def_name}: no mapping"
        tag = definition["discriminator"]["propertyName"]
        for option in definition["oneOf"]:
            target = branch(option["$ref"], name)
            assert "const" in target["properties"][tag] and tag in target["required"], (
                f"{def_name} -> {option['$ref']}: the tag must be a required const"
            )


def test_only_documented_x_keywords_are_used() -> None:
    readme = (ROOT / "schemas" / "README.md").read_text("utf-8")
    documented = set(re.findall(r"^\| `(x-[a-z-]+)", readme, re.MULTILINE))
    used = {
        key
        for document in FILES.values()
        for _, node in walk(document)
        if isinstance(node, dict)
        for key in node
        if key.startswith("x-")
    }
    assert used <= documented, f"document {sorted(used - documented)} in schemas/README.md"


def test_refs_are_relative_and_resolve_offline() -> None:
    def refuse(uri: str) -> Resource[Any]:
        raise NoSuchResource(ref=uri)

    registry: Registry[Any] = Registry(retrieve=refuse).with_resources(  # type: ignore[call-arg]
        (document["$id"], Resource.from_contents(document)) for document in FILES.values()
    )
    for name, document in FILES.items():
        for pointer, node in walk(document):
            if isinstance(node, dict) and isinstance(node.get("$ref"), str):
                assert not node["$ref"].startswith(("http:", "https:")), f"{name}{pointer}"
        for def_name in document["$defs"]:
            root = {"$ref": f"{document['$id']}#/$defs/{def_name}"}
            Draft202012Validator(root, registry=registry).is_valid(None)


def test_every_schema_type_is_a_public_name_and_bundles() -> None:
    for document in FILES.values():
        for def_name in document["$defs"]:
            if def_name in SCALARS:
                continue
            assert hasattr(clark, def_name), f"phi_wire.clark_agent lacks {def_name}"
            bundle = clark.schema(def_name)
            Draft202012Validator.check_schema(bundle)
            refs = [
                node["$ref"]
                for _, node in walk(bundle)
                if isinstance(node, dict) and "$ref" in node
            ]
            assert all(ref.removeprefix("#/$defs/") in bundle["$defs"] for ref in refs)
