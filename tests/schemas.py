"""JSON Schema validators for the tests: the bundled ``schema(T)`` and the raw schema files of every
version the registry lists, and the dialect meta-schema (``schemas/meta/``) that every schema names
in ``$schema``.

A version is named by its folder, ``<format>/<version>`` (``phi-core/0.10``, ``clark-agent/0.4``,
``operator-use/d0da87a6``): ``WireVersion.folder``. Nothing is ever fetched: the registries hold
the files of ``schemas/`` and draft 2020-12's own meta-schemas, and their ``retrieve`` raises.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema_specifications import REGISTRY as DRAFT_META_SCHEMAS
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource
from referencing.jsonschema import DRAFT202012

from phi_wire.formats import VERSIONS, WireVersion

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "schemas"
META_DIR = SCHEMA_DIR / "meta"
DIALECT = "https://phi-wire.dev/schemas/meta/dialect.json"


def schema_folders() -> list[str]:
    """Every registered version's folder (``phi-core/0.10``...), in the registry's order."""
    return [entry.folder for entry in VERSIONS]


def folders_on_disk() -> list[str]:
    """Every ``<format>/<version>`` folder under schemas/, registered or not (pi's two are not yet:
    tests/test_pi_schemas.py checks them), the dialect's ``meta/`` left out."""
    return sorted(
        f"{path.parent.name}/{path.name}"
        for path in SCHEMA_DIR.glob("*/*")
        if path.is_dir() and path.parent.name != "meta"
    )


def entry_of(folder: str) -> WireVersion:
    """The registry entry of a schema folder; an unregistered folder is an error."""
    for entry in VERSIONS:
        if entry.folder == folder:
            return entry
    raise KeyError(f"{folder} is not a registered version (runtime/formats/__init__.py)")


@functools.cache
def schema_files(folder: str) -> dict[str, dict[str, Any]]:
    """{file name: parsed schema} of ``schemas/<folder>`` (shared: copy before changing it)."""
    return {
        path.name: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted((SCHEMA_DIR / folder).glob("*.json"))
    }


@functools.cache
def definitions(folder: str) -> dict[str, dict[str, Any]]:
    """{type name: its definition} across a version's files (names are unique in a version)."""
    return {
        name: definition
        for document in schema_files(folder).values()
        for name, definition in document["$defs"].items()
    }


def jsonl_item_type(folder: str, type_name: str) -> str | None:
    """The type of each line when ``type_name`` is a JSON Lines document (``x-jsonl``: an
    Operator-Use ``SessionFile`` is its entries, one per line), else None."""
    definition = definitions(folder)[type_name]
    if not definition.get("x-jsonl"):
        return None
    return str(definition["items"]["$ref"]).rpartition("/")[2]


# Keywords whose value is a schema, a list of schemas or a map of schemas (draft 2020-12).
SCHEMA_VALUED = {"items", "not", "if", "then", "else", "contains", "additionalProperties"}
SCHEMA_LISTS = {"oneOf", "anyOf", "allOf", "prefixItems"}
SCHEMA_MAPS = {"properties", "patternProperties", "$defs", "dependentSchemas"}


def schemas_in(node: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object in ``node`` (a file or a definition), with its JSON pointer: the
    values of schema keywords only, never a map of property names."""
    if not isinstance(node, dict):
        return
    yield pointer, node
    for key, value in node.items():
        if key in SCHEMA_VALUED:
            yield from schemas_in(value, f"{pointer}/{key}")
        elif key in SCHEMA_LISTS and isinstance(value, list):
            for index, item in enumerate(value):
                yield from schemas_in(item, f"{pointer}/{key}/{index}")
        elif key in SCHEMA_MAPS and isinstance(value, dict):
            for name, item in value.items():
                yield from schemas_in(item, f"{pointer}/{key}/{name.replace('~', '~0')}")


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
def registry(folder: str) -> Registry[Any]:
    documents = schema_files(folder).values()
    return meta_registry().with_resources((doc["$id"], resource(doc)) for doc in documents)


@functools.cache
def file_validator(folder: str, type_name: str) -> Draft202012Validator:
    """Validates against ``<file>.json#/$defs/<type_name>`` through the multi-file registry."""
    for document in schema_files(folder).values():
        if type_name in document["$defs"]:
            root = {"$ref": f"{document['$id']}#/$defs/{type_name}"}
            return Draft202012Validator(
                root, registry=registry(folder), format_checker=Draft202012Validator.FORMAT_CHECKER
            )
    raise KeyError(type_name)


@functools.cache
def bundled_validator(folder: str, type_name: str) -> Draft202012Validator:
    """Validates against the self-contained ``schema(T)`` (no registry at all)."""
    bundle = entry_of(folder).load().schema(type_name)
    Draft202012Validator.check_schema(bundle)
    return Draft202012Validator(bundle, format_checker=Draft202012Validator.FORMAT_CHECKER)


def strict_json(raw: bytes | str) -> Any:
    """json.loads that, like serde_json, refuses NaN and Infinity."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(raw, parse_constant=refuse)
