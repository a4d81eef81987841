"""Breaking changes between two versions of a wire format's schemas, per type (``phi-wire
schema-diff OLD NEW``): what ``buf breaking`` does for protobuf, for phi-wire's JSON Schemas.

Schema fact: a reader accepts what its schema accepts, and a writer writes what its schema
declares (serde writes no key its type does not have). So a change that lets new writers write
what old readers refuse (a new enum value or union variant, a key a *closed* object refuses, a
field no longer required, a wider type or bound) breaks **old readers of new data**; one that
makes new readers refuse what old writers wrote (a removed variant or value, a new required field
or one that became required, a narrower type) breaks **new readers of old data**. Objects are
open unless ``additionalProperties: false`` (serde ignores unknown keys): an optional property
added to or removed from an open object breaks no one. What is not compared in detail (a changed
pattern, a reference to another type) counts as breaking both: the verdict errs on the safe side.
A union's variant added or removed breaks no one when another branch of the reading version
plainly takes all its documents (OpenTelemetry GenAI's ``GenericPart``, any object with a string
``type``, takes a new typed part); and an enum beside its own type (``anyOf: [Modality,
{"type": "string"}]``) carries no change of the enum to the types that hold it.

The two are versions of one format: ``diff`` refuses a phi-core version against a clark-agent one
(``DifferentFormats``), whose every difference would read as breaking, unless
``across_formats=True`` (``--across-formats``). Definitions are matched by name across the two
folders. Each change is reported where it happens
(the definition and a JSON pointer into it) with the types whose documents can contain it
(``reached_from``), and ``Report.compatibility(T)`` answers for a whole type: its definition and
everything it references. Annotations never change a verdict: changed defaults, serde keywords
(except the tagging, which changes the JSON itself) and an object that became open or closed are
listed as notes. ``phi-wire schema-diff`` (``phi_wire.cli``) prints a report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._compare import (
        Change,
        DifferentFormats,
        Impact,
        Report,
        SchemaSet,
        diff,
        load,
    )

__all__ = [
    "Change",
    "DifferentFormats",
    "Impact",
    "Report",
    "SchemaSet",
    "diff",
    "load",
]

_IMPLEMENTATION = {"Change", "DifferentFormats", "Impact", "Report", "SchemaSet", "diff", "load"}


def __getattr__(name: str) -> Any:
    """The comparison's names, loaded on first use (the command line imports this module)."""
    if name not in _IMPLEMENTATION:
        raise AttributeError(f"module 'phi_wire.schema_diff' has no attribute {name!r}")
    from . import _compare

    value = getattr(_compare, name)
    globals()[name] = value
    return value


FAIL_ON = {
    "any": "BOTH",
    "old-readers": "OLD_READERS",
    "new-readers": "NEW_READERS",
    "none": "NONE",
}
"""``--fail-on`` choices: the ``Impact`` whose breaking changes make the exit status 1."""

DESCRIPTION = """Report, per type, the changes from OLD to NEW that break old readers of new data
(a new enum value or union variant, a key a closed object refuses, a field no longer required, a
wider type) and those that break new readers of old data (a removed variant or value, a new
required field or one that became required, a narrower type). OLD and NEW are schema folders or
versions (0.8, 0.10; clark-agent/0.4, operator-use/d1cdaad8) of one format: two formats are
compared only with --across-formats. Exit status: 0 no breaking change (of the kind --fail-on
names), 1 breaking changes found, 2 a usage error (two formats without --across-formats)."""
