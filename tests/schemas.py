"""JSON Schema validators for the tests: the bundled ``schema(T)`` and the raw schema files.

Nothing is ever fetched: the registry holds the files of ``schemas/`` and its ``retrieve`` raises.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource

from phi_wire.formats import find

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "schemas" / "phi-core"


def schema_versions() -> list[str]:
    return sorted(path.name for path in SCHEMA_DIR.iterdir() if path.is_dir())


def schema_files(version: str) -> dict[str, dict[str, Any]]:
    return {
        path.name: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted((SCHEMA_DIR / version).glob("*.json"))
    }


def _no_network(uri: str) -> Resource[Any]:
    raise NoSuchResource(ref=uri)


@functools.cache
def registry(version: str) -> Registry[Any]:
    resources = [
        (document["$id"], Resource.from_contents(document))
        for document in schema_files(version).values()
    ]
    return Registry(retrieve=_no_network).with_resources(resources)  # type: ignore[call-arg]


@functools.cache
def file_validator(version: str, type_name: str) -> Draft202012Validator:
    """Validates against ``<file>.json#/$defs/<type_name>`` through the multi-file registry."""
    for document in schema_files(version).values():
        if type_name in document["$defs"]:
            root = {"$ref": f"{document['$id']}#/$defs/{type_name}"}
            return Draft202012Validator(
                root, registry=registry(version), format_checker=Draft202012Validator.FORMAT_CHECKER
            )
    raise KeyError(type_name)


@functools.cache
def bundled_validator(version: str, type_name: str) -> Draft202012Validator:
    """Validates against the self-contained ``schema(T)`` (no registry at all)."""
    bundle = find(version).load().schema(type_name)
    Draft202012Validator.check_schema(bundle)
    return Draft202012Validator(bundle, format_checker=Draft202012Validator.FORMAT_CHECKER)


def strict_json(raw: bytes | str) -> Any:
    """json.loads that, like serde_json, refuses NaN and Infinity."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(raw, parse_constant=refuse)
