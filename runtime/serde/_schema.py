"""Self-contained JSON Schemas for one wire type, bundled from the files in ``schemas/``.

The schema files reference each other by relative URI (``message.json#/$defs/Usage``). A consumer
in another language wants one document it can load without a resolver, so ``schema_for`` copies
the type's definition and everything it references into one ``$defs`` table and rewrites every
``$ref`` to point inside it. Nothing is ever fetched: the files ship inside the package.

Every schema names phi-wire's dialect in ``$schema``: draft 2020-12 plus the vocabulary of its
``x-`` keywords, whose meta-schemas (``schemas/meta/``) ship in the package too, so a strict
validator can check a bundle against them without the network (``meta_schemas``).
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = ["DIALECT", "load_schema_files", "meta_schemas", "schema_for", "schema_id_base"]

DIALECT = "https://phi-wire.dev/schemas/meta/dialect.json"
"""The meta-schema every phi-wire schema names in ``$schema``: draft 2020-12 plus x- keywords."""

META_FOLDER = "meta"
"""``schemas/meta/``: the dialect and vocabulary meta-schemas; not a wire format."""


def schema_id_base(folder: str) -> str:
    """The ``$id`` prefix of the files in ``schemas/<folder>`` (``phi-core/0.10``)."""
    return f"https://phi-wire.dev/schemas/{folder}/"


def _schema_root() -> Traversable:
    """The schemas/ folder: package data in an installed wheel, the source folder otherwise."""
    from importlib import resources  # here: importing it costs every program ~10 ms at start

    try:
        return resources.files("phi_wire.schemas")
    except ModuleNotFoundError:  # editable install: its finder cannot map a data-only folder
        return Path(__file__).resolve().parents[2] / "schemas"


@functools.cache
def load_schema_files(folder: str) -> dict[str, dict[str, Any]]:
    """{file name: parsed schema} of ``schemas/<folder>`` (``phi-core/0.10``), read from the
    installed package."""
    directory = _schema_root()
    for part in folder.split("/"):
        # one part per call: a namespace package's MultiplexedPath takes one (Python 3.11)
        directory = directory.joinpath(part)
    return {
        entry.name: json.loads(entry.read_text(encoding="utf-8"))
        for entry in directory.iterdir()
        if entry.name.endswith(".json")
    }


def meta_schemas() -> dict[str, dict[str, Any]]:
    """{``$id``: meta-schema} of the dialect the schemas name in ``$schema`` and of its ``x-``
    vocabulary: register them with a validator (with draft 2020-12's own meta-schemas) to check a
    schema or a bundle against its dialect offline."""
    documents = load_schema_files(META_FOLDER).values()
    return copy.deepcopy({document["$id"]: document for document in documents})


def _split_ref(ref: str, current: str) -> tuple[str, str]:
    """("message.json#/$defs/Usage", "event.json") -> ("message.json", "Usage")."""
    target, _, fragment = ref.partition("#")
    prefix = "/$defs/"
    if not fragment.startswith(prefix) or "/" in fragment[len(prefix) :]:
        raise ValueError(f"unsupported $ref {ref!r} in {current}")
    return (target or current), fragment[len(prefix) :]


def _find(files: dict[str, dict[str, Any]], name: str) -> str:
    owners = [file for file, document in files.items() if name in document.get("$defs", {})]
    if len(owners) != 1:
        raise KeyError(f"no single schema definition named {name!r} (found in {owners})")
    return owners[0]


def _rewrite(node: Any, current: str, pending: list[tuple[str, str]]) -> Any:
    if isinstance(node, dict):
        result: dict[str, Any] = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                target = _split_ref(value, current)
                pending.append(target)
                result[key] = f"#/$defs/{target[1]}"
            else:
                result[key] = _rewrite(value, current, pending)
        return result
    if isinstance(node, list):
        return [_rewrite(item, current, pending) for item in node]
    return node


@functools.cache
def _bundle(folder: str, name: str) -> dict[str, Any]:
    files = load_schema_files(folder)
    defs: dict[str, Any] = {}
    pending = [(_find(files, name), name)]
    while pending:
        file, def_name = pending.pop()
        if def_name in defs:
            continue
        defs[def_name] = _rewrite(files[file]["$defs"][def_name], file, pending)
    return {
        "$schema": DIALECT,
        "$id": f"{schema_id_base(folder)}bundled/{name}.json",
        "title": name,
        "description": defs[name].get("description", ""),
        "$ref": f"#/$defs/{name}",
        "$defs": dict(sorted(defs.items())),
    }


def schema_for(folder: str, tp: object) -> dict[str, Any]:
    """The bundled schema of ``tp`` (a generated class or type alias, or its name)."""
    name = tp if isinstance(tp, str) else getattr(tp, "__name__", None)
    if not isinstance(name, str):
        raise TypeError(f"not a wire type: {tp!r}")
    return copy.deepcopy(_bundle(folder, name))
