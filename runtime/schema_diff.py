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

Definitions are matched by name across the two folders. Each change is reported where it happens
(the definition and a JSON pointer into it) with the types whose documents can contain it
(``reached_from``), and ``Report.compatibility(T)`` answers for a whole type: its definition and
everything it references. Annotations never change a verdict: changed defaults, serde keywords
(except the tagging, which changes the JSON itself) and an object that became open or closed are
listed as notes.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._schema_compare import Change, Impact, Report, SchemaSet, diff, load

__all__ = [
    "Change",
    "Impact",
    "Report",
    "SchemaSet",
    "add_subcommand",
    "diff",
    "load",
    "main",
]

_IMPLEMENTATION = {"Change", "Impact", "Report", "SchemaSet", "diff", "load"}


def __getattr__(name: str) -> Any:
    """The comparison's names, loaded on first use (the command line imports this module)."""
    if name not in _IMPLEMENTATION:
        raise AttributeError(f"module 'phi_wire.schema_diff' has no attribute {name!r}")
    from . import _schema_compare

    value = getattr(_schema_compare, name)
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
versions (0.8, 0.10). Exit status: 0 no breaking change (of the kind --fail-on names), 1 breaking
changes found, 2 a usage error."""


def add_subcommand(commands: Any) -> argparse.ArgumentParser:
    """Register ``schema-diff`` on the ``phi-wire`` command line's subparsers."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "schema-diff",
        help="breaking changes between two schema versions",
        description=DESCRIPTION,
    )
    parser.add_argument("old", metavar="OLD", help="schema folder or version, e.g. 0.8")
    parser.add_argument("new", metavar="NEW", help="schema folder or version, e.g. 0.10")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--fail-on",
        choices=tuple(FAIL_ON),
        default="any",
        help="which breaking changes make the exit status 1 (default: any)",
    )
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """The ``schema-diff`` subcommand: print the report, exit 0, 1 or 2 (see DESCRIPTION)."""
    import json

    from ._schema_compare import Impact, diff

    try:
        report = diff(args.old, args.new)
    except (ValueError, OSError) as error:
        print(f"phi-wire: schema-diff: {error}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(report.text())
    impact = Impact[FAIL_ON[args.fail_on]]
    return 1 if impact is not Impact.NONE and report.breaking(impact) else 0


def main(argv: list[str] | None = None) -> int:
    """``python -m phi_wire.schema_diff OLD NEW``: the subcommand on its own."""
    parser = argparse.ArgumentParser(prog="phi-wire")
    add_subcommand(parser.add_subparsers(dest="command", required=True))
    arguments = sys.argv[1:] if argv is None else argv
    try:
        args = parser.parse_args(["schema-diff", *arguments])
    except SystemExit as exit_:
        return 0 if exit_.code == 0 else 2
    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
