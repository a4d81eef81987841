"""JSON Schema validators for the tests: the bundled ``schema(T)`` and the raw schema files, and
the dialect meta-schema (``schemas/meta/``) that every schema names in ``$schema``.

Nothing is ever fetched: the registries hold the files of ``schemas/`` and draft 2020-12's own
meta-schemas, and their ``retrieve`` raises.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema_specifications import REGISTRY as DRAFT_META_SCHEMAS
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource
from referencing.jsonschema import DRAFT202012

from phi_wire.formats import find

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "schemas" / "phi-core"
META_DIR = ROOT / "schemas" / "meta"
DIALECT = "https://phi-wire.dev/schemas/meta/dialect.json"


def schema_versions() -> list[str]:
    return sorted(path.name for path in SCHEMA_DIR.iterdir() if path.is_dir())


def schema_files(version: str) -> dict[str, dict[str, Any]]:
    return {
        path.name: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted((SCHEMA_DIR / version).glob("*.json"))
    }


def _no_network(uri: str) -> Resource[Any]:
    raise NoSuchResource(ref=uri)


def resource(document: dict[str, Any]) -> Resource[Any]:
    """A schema file as a draft 2020-12 resource (its ``$schema`` is phi-wire's dialect, which
    ``referencing`` does not know by name)."""
    return DRAFT202012.create_resource(document)


def meta_schema_files() -> dict[str, dict[str, Any]]:
    return {
        path.name: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(META_DIR.glob("*.json"))
    }


@functools.cache
def meta_registry() -> Registry[Any]:
    """Draft 2020-12's meta-schemas plus phi-wire's dialect and vocabulary; fetches nothing."""
    offline: Registry[Any] = Registry(retrieve=_no_network)  # type: ignore[call-arg]
    offline = offline.combine(DRAFT_META_SCHEMAS)
    return offline.with_resources(
        (document["$id"], resource(document)) for document in meta_schema_files().values()
    )


@functools.cache
def dialect_validator() -> Draft202012Validator:
    """Validates a schema (a file or a bundle) against phi-wire's dialect, x- keywords included."""
    dialect = meta_registry().contents(DIALECT)
    return Draft202012Validator(dialect, registry=meta_registry())


@functools.cache
def registry(version: str) -> Registry[Any]:
    documents = schema_files(version).values()
    return meta_registry().with_resources((doc["$id"], resource(doc)) for doc in documents)


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
