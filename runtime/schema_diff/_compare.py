"""The comparison behind ``phi_wire.schema_diff`` (which documents it): two versions' schema
definitions walked side by side, each difference classified by the readers it breaks.

Kept apart from the public module so that the ``phi-wire`` command line, which registers the
``schema-diff`` subcommand on every run, does not pay for these classes (and ``copy``) unless the
subcommand runs.

Why one module of some 600 lines: the walk over two schemas and the classification of each
difference it meets are one recursion; the classes it reports with are small.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from enum import Enum
from pathlib import Path
from typing import Any, NamedTuple

from phi_wire.formats import FORMATS, UnknownVersion, find
from phi_wire.pointer import join
from phi_wire.serde import load_schema_files

from ._subsumes import absorbed, subsumes

__all__ = ["Change", "DifferentFormats", "Impact", "Report", "SchemaSet", "diff", "load"]

_ANNOTATIONS = {"title", "description", "$comment", "examples", "default", "deprecated"}
_SCALAR_BOUNDS = {
    "minimum": "lower",
    "exclusiveMinimum": "lower",
    "minLength": "lower",
    "minItems": "lower",
    "maximum": "upper",
    "exclusiveMaximum": "upper",
    "maxLength": "upper",
    "maxItems": "upper",
}
_UNION = ("oneOf", "anyOf")
# serde keywords that change the JSON itself, not only how it is read or written
_WIRE_KEYWORDS = {"x-serde-tagging"}


class Impact(Enum):
    """Which readers a change breaks."""

    NONE = "compatible"
    OLD_READERS = "breaks old readers of new data"
    NEW_READERS = "breaks new readers of old data"
    BOTH = "breaks old readers of new data and new readers of old data"

    @classmethod
    def of(cls, old_readers: bool, new_readers: bool) -> Impact:
        if old_readers and new_readers:
            return cls.BOTH
        if old_readers:
            return cls.OLD_READERS
        return cls.NEW_READERS if new_readers else cls.NONE

    @property
    def breaks_old_readers(self) -> bool:
        return self in (Impact.OLD_READERS, Impact.BOTH)

    @property
    def breaks_new_readers(self) -> bool:
        return self in (Impact.NEW_READERS, Impact.BOTH)


WIDER = Impact.OLD_READERS
"""The new schema accepts more: new data may hold what old readers refuse."""
NARROWER = Impact.NEW_READERS
"""The new schema accepts less: old data may hold what new readers refuse."""


class Change(NamedTuple):
    """One difference between the two versions of a definition."""

    type_name: str
    """The definition it is in (``AgentEvent``)."""
    pointer: str
    """JSON pointer into that definition (``/oneOf``, ``/properties/request_payload``)."""
    kind: str
    """``variant-added``, ``property-added``, ``required-added``, ``enum-value-removed``..."""
    summary: str
    """What changed, in words."""
    impact: Impact
    reached_from: tuple[str, ...] = ()
    """The other definitions whose documents can contain this one (directly or not)."""

    @property
    def breaking(self) -> bool:
        return self.impact is not Impact.NONE

    def as_json(self) -> dict[str, Any]:
        return {
            "type": self.type_name,
            "pointer": self.pointer,
            "kind": self.kind,
            "summary": self.summary,
            "breaks_old_readers_of_new_data": self.impact.breaks_old_readers,
            "breaks_new_readers_of_old_data": self.impact.breaks_new_readers,
            "reached_from": list(self.reached_from),
        }


class SchemaSet(NamedTuple):
    """The definitions of one version's schema files, by name."""

    label: str
    definitions: Mapping[str, Any]
    files: Mapping[str, str]
    """{definition name: the file that holds it}."""
    format: str | None = None
    """The wire format these are a version of (``phi-core``), None when nothing says."""

    def references(self, name: str) -> set[str]:
        """The definitions ``name`` refers to directly, but those a union takes in whatever
        they become (``anyOf: [Modality, {"type": "string"}]`` does not depend on Modality)."""
        return {_ref_name(ref) for ref in _refs(self.definitions[name], self.definitions)}


class Report(NamedTuple):
    """Every change from ``old`` to ``new``; ``breaking`` ones decide the exit status."""

    old: str
    new: str
    changes: tuple[Change, ...]
    notes: tuple[Change, ...]
    """Changes that alter no reader's verdict (defaults, serde keywords)."""
    added_types: tuple[str, ...]
    removed_types: tuple[str, ...]
    dependencies: Mapping[str, frozenset[str]]
    """{type: itself and every type it contains}: the scope of ``compatibility``."""

    def breaking(self, impact: Impact | None = None) -> tuple[Change, ...]:
        """The breaking changes; those that break ``impact``'s readers when it is given."""
        if impact is None:
            return tuple(change for change in self.changes if change.breaking)
        return tuple(
            change
            for change in self.changes
            if (impact.breaks_old_readers and change.impact.breaks_old_readers)
            or (impact.breaks_new_readers and change.impact.breaks_new_readers)
        )

    def compatibility(self, type_name: str) -> Impact:
        """Whom the changes to ``type_name`` (and to every type it contains) break."""
        scope = self.dependencies.get(type_name, frozenset({type_name}))
        found = [change.impact for change in self.changes if change.type_name in scope]
        return Impact.of(
            any(impact.breaks_old_readers for impact in found),
            any(impact.breaks_new_readers for impact in found),
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "old": self.old,
            "new": self.new,
            "breaking": len(self.breaking()),
            "changes": [change.as_json() for change in self.changes],
            "notes": [note.as_json() for note in self.notes],
            "added_types": list(self.added_types),
            "removed_types": list(self.removed_types),
        }

    def text(self) -> str:
        old_readers = len(self.breaking(Impact.OLD_READERS))
        new_readers = len(self.breaking(Impact.NEW_READERS))
        lines = [
            f"schema-diff {self.old} -> {self.new}: {len(self.breaking())} breaking "
            f"(old readers of new data: {old_readers}, new readers of old data: {new_readers}), "
            f"{len(self.changes) - len(self.breaking())} compatible, {len(self.notes)} notes",
        ]
        by_type: dict[str, list[Change]] = {}
        for change in (*self.changes, *self.notes):
            by_type.setdefault(change.type_name, []).append(change)
        for type_name in sorted(by_type):
            lines.append("")
            lines.append(type_name)
            for change in by_type[type_name]:
                verdict = change.impact.value if change in self.changes else "note"
                lines.append(f"  {verdict}: {change.pointer or '/'}: {change.summary}")
                if change.reached_from:
                    lines.append(f"    reached from: {', '.join(change.reached_from)}")
        for title, names in (("added", self.added_types), ("removed", self.removed_types)):
            if names:
                lines.append("")
                lines.append(f"Types {title}: {', '.join(names)}")
        return "\n".join(lines) + "\n"


# --- loading -------------------------------------------------------------------------------------


def load(source: str | Path) -> SchemaSet:
    """A schema folder (a path holding ``*.json`` files with ``$defs``) or a registered version
    (``0.10``, ``0.10.3``, ``phi-core/0.10``), read from the installed package."""
    path = Path(source)
    if path.is_dir():
        documents = {
            file.name: json.loads(file.read_text(encoding="utf-8"))
            for file in sorted(path.glob("*.json"))
        }
        label = str(source)
        format = _format_named(documents.values())
    else:
        text = str(source)
        format_name, _, version = text.rpartition("/")
        try:
            entry = find(version, format_name or "phi-core")
        except UnknownVersion as error:
            raise ValueError(
                f"{source!r} is neither a schema folder nor a version: {error}"
            ) from None
        documents = dict(sorted(load_schema_files(entry.folder).items()))
        label = entry.label
        format = entry.format
    definitions: dict[str, Any] = {}
    files: dict[str, str] = {}
    for file_name, document in documents.items():
        defs = document.get("$defs") if isinstance(document, dict) else None
        if not isinstance(defs, dict):
            raise ValueError(f"{source}/{file_name}: a schema file holds its types in $defs")
        for name, definition in defs.items():
            if name in definitions:
                raise ValueError(f"{source}: {name} is defined in {files[name]} and {file_name}")
            definitions[name] = definition
            files[name] = file_name
    if not definitions:
        raise ValueError(f"{source}: no schema files with $defs")
    return SchemaSet(label, definitions, files, format)


def _format_named(documents: Iterable[Any]) -> str | None:
    """The format a folder's schema files all name in their ``$id``
    (``https://phi-wire.dev/schemas/<format>/<version>/<file>``), else None."""
    named = set()
    for document in documents:
        identifier = document.get("$id") if isinstance(document, dict) else None
        parts = identifier.split("/") if isinstance(identifier, str) else []
        named.add(parts[-3] if len(parts) >= 3 and parts[-3] in FORMATS else None)
    return named.pop() if len(named) == 1 else None


# --- comparing -----------------------------------------------------------------------------------


def _ref_name(ref: str) -> str:
    """``message.json#/$defs/Usage`` -> ``Usage``: definitions are matched by name."""
    return ref.rpartition("/$defs/")[2] or ref


def _refs(node: Any, definitions: Mapping[str, Any] | None = None) -> Iterator[str]:
    """The references in ``node``; given the ``definitions``, not those an ``anyOf`` absorbs."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            elif key == "anyOf" and definitions is not None and isinstance(value, list):
                skipped = absorbed(definitions, value)
                for index, branch in enumerate(value):
                    if index not in skipped:
                        yield from _refs(branch, definitions)
            elif not key.startswith("x-"):
                yield from _refs(value, definitions)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item, definitions)


def _types(node: Mapping[str, Any]) -> set[str] | None:
    """The JSON types a node allows, or None when it does not say (any)."""
    kind = node.get("type")
    if kind is None:
        if "const" in node or "enum" in node:
            values = [node["const"]] if "const" in node else list(node["enum"])
            return {_json_type(value) for value in values}
        return None
    kinds = {kind} if isinstance(kind, str) else set(kind)
    if "number" in kinds:
        kinds.add("integer")  # an integer is a number: integer -> number only widens
    return kinds


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _branch_key(branch: Any) -> str:
    """How a union's branch is matched across versions: a $ref's type, else its own JSON."""
    if isinstance(branch, dict) and set(branch) == {"$ref"}:
        return _ref_name(branch["$ref"])
    return _canonical(branch)


class _Comparer:
    """Walks two versions of one definition side by side, collecting changes and notes."""

    def __init__(self, old: SchemaSet, new: SchemaSet, type_name: str) -> None:
        self.old = old
        self.new = new
        self.type_name = type_name
        self.changes: list[Change] = []
        self.notes: list[Change] = []

    def add(self, pointer: str, kind: str, summary: str, impact: Impact) -> None:
        self.changes.append(Change(self.type_name, pointer, kind, summary, impact))

    def note(self, pointer: str, kind: str, summary: str) -> None:
        self.notes.append(Change(self.type_name, pointer, kind, summary, Impact.NONE))

    def compare(self, old: Any, new: Any, pointer: str) -> None:
        if not isinstance(old, dict) or not isinstance(new, dict):
            if old != new:  # boolean schemas, or something that is not a schema
                self.add(
                    pointer, "changed", f"{_canonical(old)} became {_canonical(new)}", Impact.BOTH
                )
            return
        self.compare_annotations(old, new, pointer)
        if "$ref" in old or "$ref" in new:
            self.compare_refs(old, new, pointer)
            return
        if any(key in old or key in new for key in _UNION):
            self.compare_unions(old, new, pointer)
        if "allOf" in old or "allOf" in new:
            self.compare_all_of(old, new, pointer)
        self.compare_values(old, new, pointer)
        if "properties" in old or "properties" in new or "required" in old or "required" in new:
            self.compare_objects(old, new, pointer)
        if "items" in old or "items" in new:
            self.compare(old.get("items", {}), new.get("items", {}), join_pointer(pointer, "items"))
        handled = {
            "$ref", "oneOf", "anyOf", "allOf", "discriminator", "type", "enum", "const",
            "properties", "required", "additionalProperties", "items", "pattern",
            *_SCALAR_BOUNDS,
        }  # fmt: skip
        for key in sorted((old.keys() | new.keys()) - handled - _ANNOTATIONS):
            if key.startswith("x-") or old.get(key) == new.get(key):
                continue
            self.add(
                join_pointer(pointer, key),
                "keyword-changed",
                f"{key} changed from {_shown(old, key)} to {_shown(new, key)} (not analysed)",
                Impact.BOTH,
            )

    def compare_annotations(self, old: dict[str, Any], new: dict[str, Any], pointer: str) -> None:
        if old.get("default", ...) != new.get("default", ...):
            self.note(
                join_pointer(pointer, "default"),
                "default-changed",
                f"default {_shown(old, 'default')} became {_shown(new, 'default')}: data "
                "without the field reads differently",
            )
        for key in sorted(k for k in old.keys() | new.keys() if k.startswith("x-")):
            if old.get(key) == new.get(key):
                continue
            summary = f"{key} {_shown(old, key)} became {_shown(new, key)}"
            if key in _WIRE_KEYWORDS:
                self.add(join_pointer(pointer, key), "serde-changed", summary, Impact.BOTH)
            else:
                self.note(join_pointer(pointer, key), "serde-changed", summary)

    def compare_refs(self, old: dict[str, Any], new: dict[str, Any], pointer: str) -> None:
        old_ref, new_ref = old.get("$ref"), new.get("$ref")
        if old_ref is not None and new_ref is not None:
            if _ref_name(old_ref) != _ref_name(new_ref):
                self.add(
                    pointer,
                    "reference-changed",
                    f"refers to {_ref_name(new_ref)} instead of {_ref_name(old_ref)}",
                    Impact.BOTH,
                )
            return  # the same definition: compared on its own
        before = _ref_name(old_ref) if old_ref else "an inline schema"
        after = _ref_name(new_ref) if new_ref else "an inline schema"
        self.add(pointer, "reference-changed", f"{before} became {after}", Impact.BOTH)

    def branch_keys(self, schemas: SchemaSet, node: dict[str, Any]) -> dict[str, str]:
        """{key: shown name} of a union's branches: a $ref's type (with its tag), else the
        branch's own JSON."""
        tag = node.get("discriminator", {}).get("propertyName")
        keys: dict[str, str] = {}
        for branch in node.get("oneOf") or node.get("anyOf") or []:
            key = _branch_key(branch)
            if isinstance(branch, dict) and set(branch) == {"$ref"}:
                value = _tag_value(schemas, key, tag) if tag else None
                keys[key] = f"{key} ({tag} {_canonical(value)})" if value is not None else key
            else:
                keys[key] = key
        return keys

    def taker(
        self,
        readers: SchemaSet,
        union: dict[str, Any],
        kind: str,
        writers: SchemaSet,
        other: dict[str, Any],
        shown: dict[str, str],
        key: str,
    ) -> str | None:
        """The branch of ``union`` (an ``anyOf`` of ``readers``) that takes every document of the
        branch ``key`` of ``other`` (of ``writers``) in, if one plainly does."""
        if kind != "anyOf":
            return None  # a oneOf branch that overlaps another fails: not plain
        branch = next(
            (b for b in other.get("anyOf", other.get("oneOf", [])) if _branch_key(b) == key), None
        )
        for candidate in union.get("anyOf", []):
            if subsumes(readers.definitions, candidate, writers.definitions, branch):
                return _branch_key(candidate)
        return None

    def compare_unions(self, old: dict[str, Any], new: dict[str, Any], pointer: str) -> None:
        old_kind = next((key for key in _UNION if key in old), None)
        new_kind = next((key for key in _UNION if key in new), None)
        where = join_pointer(pointer, new_kind or old_kind or "oneOf")
        if old_kind is None or new_kind is None:
            self.add(where, "union-changed", "a union became another kind of schema", Impact.BOTH)
            return
        old_branches = self.branch_keys(self.old, old)
        new_branches = self.branch_keys(self.new, new)
        for key in new_branches.keys() - old_branches.keys():
            taker = self.taker(self.old, old, old_kind, self.new, new, new_branches, key)
            summary = f"variant {new_branches[key]} added"
            if taker is None:
                self.add(where, "variant-added", summary, WIDER)
            else:
                summary += f": old readers take its data as {taker}"
                self.add(where, "variant-added", summary, Impact.NONE)
        for key in old_branches.keys() - new_branches.keys():
            taker = self.taker(self.new, new, new_kind, self.old, old, old_branches, key)
            summary = f"variant {old_branches[key]} removed"
            if taker is None:
                self.add(where, "variant-removed", summary, NARROWER)
            else:
                summary += f": new readers take its data as {taker}"
                self.add(where, "variant-removed", summary, Impact.NONE)
        if old_kind != new_kind:  # anyOf -> oneOf: overlapping branches now fail
            self.add(where, "union-changed", f"{old_kind} became {new_kind}", Impact.BOTH)
        old_tag = old.get("discriminator", {}).get("propertyName")
        new_tag = new.get("discriminator", {}).get("propertyName")
        if old_tag != new_tag:
            self.add(
                join_pointer(pointer, "discriminator"),
                "tag-changed",
                f"tagged by {new_tag!r} instead of {old_tag!r}",
                Impact.BOTH,
            )

    def compare_all_of(self, old: dict[str, Any], new: dict[str, Any], pointer: str) -> None:
        before = [_canonical(part) for part in old.get("allOf", [])]
        after = [_canonical(part) for part in new.get("allOf", [])]
        if sorted(before) != sorted(after):
            self.add(
                join_pointer(pointer, "allOf"),
                "members-changed",
                "the schemas it combines changed",
                Impact.BOTH,
            )

    def compare_values(self, old: dict[str, Any], new: dict[str, Any], pointer: str) -> None:
        old_types, new_types = _types(old), _types(new)
        beside_unions = any(k in old for k in _UNION) and any(k in new for k in _UNION)
        if beside_unions and (old_types is None or new_types is None):
            old_types = new_types = None  # "type" beside a union's branches adds nothing to them
        if old_types != new_types and not ("enum" in old and "enum" in new):
            where = join_pointer(pointer, "type")
            if old_types is None or (new_types is not None and new_types < old_types):
                self.add(where, "type-narrowed", f"now {_shown_types(new_types)}", NARROWER)
            elif new_types is None or new_types > old_types:
                self.add(where, "type-widened", f"now {_shown_types(new_types)}", WIDER)
            else:
                shown = f"{_shown_types(old_types)} became {_shown_types(new_types)}"
                self.add(where, "type-changed", shown, Impact.BOTH)
        if "enum" in old or "enum" in new or "const" in old or "const" in new:
            self.compare_enums(old, new, pointer)
        for key, side in _SCALAR_BOUNDS.items():
            before, after = old.get(key), new.get(key)
            if before == after:
                continue
            where = join_pointer(pointer, key)
            looser = after is None or (
                before is not None and (after < before if side == "lower" else after > before)
            )
            summary = f"{key} {_shown(old, key)} became {_shown(new, key)}"
            if looser:
                self.add(where, "bound-widened", summary, WIDER)
            else:
                self.add(where, "bound-narrowed", summary, NARROWER)
        if old.get("pattern") != new.get("pattern"):
            if old.get("pattern") is None:
                self.add(
                    join_pointer(pointer, "pattern"), "pattern-added", "pattern added", NARROWER
                )
            elif new.get("pattern") is None:
                self.add(
                    join_pointer(pointer, "pattern"), "pattern-removed", "pattern removed", WIDER
                )
            else:
                self.add(
                    join_pointer(pointer, "pattern"),
                    "pattern-changed",
                    "pattern changed (not analysed: counted as breaking both)",
                    Impact.BOTH,
                )

    def compare_enums(self, old: dict[str, Any], new: dict[str, Any], pointer: str) -> None:
        def values(node: dict[str, Any]) -> dict[str, Any] | None:
            if "const" in node:
                return {_canonical(node["const"]): node["const"]}
            if "enum" in node:
                return {_canonical(value): value for value in node["enum"]}
            return None  # any value of its type

        before, after = values(old), values(new)
        if before == after:
            return
        key = "enum" if "enum" in new or "enum" in old else "const"
        where = join_pointer(pointer, key)
        if before is None or after is None:
            impact = NARROWER if before is None else WIDER
            self.add(
                where, f"{key}-changed", f"{key} {'added' if before is None else 'removed'}", impact
            )
            return
        for value in sorted(after.keys() - before.keys()):
            self.add(where, "enum-value-added", f"value {value} added", WIDER)
        for value in sorted(before.keys() - after.keys()):
            self.add(where, "enum-value-removed", f"value {value} removed", NARROWER)

    def compare_objects(self, old: dict[str, Any], new: dict[str, Any], pointer: str) -> None:
        old_props: dict[str, Any] = old.get("properties", {})
        new_props: dict[str, Any] = new.get("properties", {})
        old_required, new_required = set(old.get("required", [])), set(new.get("required", []))
        old_closed = old.get("additionalProperties") is False
        new_closed = new.get("additionalProperties") is False
        for name in sorted(new_props.keys() - old_props.keys()):
            where = join_pointer(pointer, "properties", name)
            required = name in new_required
            # old readers of an open object skip the new key; a closed one refuses it
            impact = Impact.of(old_closed, required)
            what = "required" if required else "optional"
            why = "old readers refuse it (closed object)" if old_closed else "old readers skip it"
            self.add(where, "property-added", f"{what} property {name!r} added: {why}", impact)
        for name in sorted(old_props.keys() - new_props.keys()):
            where = join_pointer(pointer, "properties", name)
            # old readers miss it in new data if they required it; a closed new object refuses it
            impact = Impact.of(name in old_required, new_closed)
            why = "new readers refuse it (closed object)" if new_closed else "new readers skip it"
            if name in old_required:
                why += "; old readers require it"
            self.add(where, "property-removed", f"property {name!r} removed: {why}", impact)
        for name in sorted(old_props.keys() & new_props.keys()):
            self.compare(
                old_props[name], new_props[name], join_pointer(pointer, "properties", name)
            )
        for name in sorted((new_required - old_required) & old_props.keys()):
            where = join_pointer(pointer, "required")
            self.add(where, "required-added", f"{name!r} became required", NARROWER)
        for name in sorted((old_required - new_required) & new_props.keys()):
            where = join_pointer(pointer, "required")
            self.add(where, "required-removed", f"{name!r} is no longer required", WIDER)
        if old_closed != new_closed:  # writers write declared keys only: readers see no other
            where = join_pointer(pointer, "additionalProperties")
            state = "refused" if new_closed else "accepted"
            kind = "object-closed" if new_closed else "object-opened"
            self.note(where, kind, f"unknown keys are now {state}")


def join_pointer(pointer: str, *tokens: str) -> str:
    return pointer + join(*tokens)


def _shown(node: Mapping[str, Any], key: str) -> str:
    return _canonical(node[key]) if key in node else "(none)"


def _shown_types(types: set[str] | None) -> str:
    if types is None:
        return "any type"
    if {"number", "integer"} <= types:
        types = types - {"integer"}
    return " or ".join(sorted(types))


def _tag_value(schemas: SchemaSet, name: str, tag: str) -> Any:
    definition = schemas.definitions.get(name, {})
    return definition.get("properties", {}).get(tag, {}).get("const")


def _closure(graph: Mapping[str, set[str]], start: str) -> set[str]:
    seen = {start}
    pending = [start]
    while pending:
        for target in graph.get(pending.pop(), set()):
            if target not in seen:
                seen.add(target)
                pending.append(target)
    return seen


class DifferentFormats(ValueError):
    """``diff`` of versions of two different formats, not asked for: two implementations differ
    everywhere, so every difference would be reported as breaking."""

    def __init__(self, old: SchemaSet, new: SchemaSet) -> None:
        def named(schemas: SchemaSet) -> str:
            known = schemas.label.startswith(f"{schemas.format} ")
            return schemas.label if known else f"{schemas.label} ({schemas.format})"

        self.reason = (
            f"{named(old)} and {named(new)} are versions of two formats: a diff across formats "
            "reports every difference between two implementations as breaking"
        )
        super().__init__(f"{self.reason}; pass across_formats=True to compare them anyway")


def diff(
    old: str | Path | SchemaSet, new: str | Path | SchemaSet, *, across_formats: bool = False
) -> Report:
    """Compare two versions (folders, version names or loaded ``SchemaSet``s) of one format;
    versions of two formats raise ``DifferentFormats`` (a ``ValueError``) unless
    ``across_formats``. A folder whose files name no format is compared with anything."""
    before = old if isinstance(old, SchemaSet) else load(old)
    after = new if isinstance(new, SchemaSet) else load(new)
    if (
        not across_formats
        and before.format is not None
        and after.format is not None
        and before.format != after.format
    ):
        raise DifferentFormats(before, after)
    changes: list[Change] = []
    notes: list[Change] = []
    for name in sorted(before.definitions.keys() & after.definitions.keys()):
        comparer = _Comparer(before, after, name)
        comparer.compare(before.definitions[name], after.definitions[name], "")
        changes.extend(comparer.changes)
        notes.extend(comparer.notes)
    graph: dict[str, set[str]] = {}
    for schemas in (before, after):
        for name in schemas.definitions:
            graph.setdefault(name, set()).update(schemas.references(name))
    dependencies = {name: frozenset(_closure(graph, name)) for name in graph}
    containers = {
        name: tuple(
            sorted(other for other, deps in dependencies.items() if name in deps and other != name)
        )
        for name in graph
    }

    def placed(found: Iterable[Change]) -> tuple[Change, ...]:
        return tuple(
            Change(c.type_name, c.pointer, c.kind, c.summary, c.impact, containers[c.type_name])
            for c in sorted(found, key=lambda c: (c.type_name, c.pointer, c.kind, c.summary))
        )

    return Report(
        old=before.label,
        new=after.label,
        changes=placed(changes),
        notes=placed(notes),
        added_types=tuple(sorted(after.definitions.keys() - before.definitions.keys())),
        removed_types=tuple(sorted(before.definitions.keys() - after.definitions.keys())),
        dependencies=dependencies,
    )
