"""``phi-wire schema-diff``: what breaks between two versions of a format's schemas."""

from __future__ import annotations

import argparse
import json
from typing import Any

from phi_wire import schema_diff

from ._shared import Output, UsageError


def run_schema_diff(args: argparse.Namespace, output: Output) -> int:
    """Print the report; exit 0, 1 or 2 (see ``schema_diff.DESCRIPTION``)."""
    try:
        report = schema_diff.diff(args.old, args.new, across_formats=args.across_formats)
    except schema_diff.DifferentFormats as error:
        raise UsageError(
            f"schema-diff: {error.reason}; --across-formats compares them anyway"
        ) from None
    except (ValueError, OSError) as error:
        raise UsageError(f"schema-diff: {error}") from None
    if args.format == "json":
        output.line(json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    else:
        output.line(report.text().removesuffix("\n"))
    output.flush()
    impact = schema_diff.Impact[schema_diff.FAIL_ON[args.fail_on]]
    return 1 if impact is not schema_diff.Impact.NONE and report.breaking(impact) else 0


def add_schema_diff(commands: Any) -> None:
    command = commands.add_parser(
        "schema-diff",
        help="breaking changes between two schema versions",
        description=schema_diff.DESCRIPTION,
    )
    command.add_argument("old", metavar="OLD", help="schema folder or version, e.g. 0.8")
    command.add_argument("new", metavar="NEW", help="schema folder or version, e.g. 0.10")
    command.add_argument(
        "--output-format",
        "--format",
        dest="format",
        choices=("text", "json"),
        default="text",
        help="the report's form (--format: the same, as before validate's --format named the "
        "wire format)",
    )
    command.add_argument(
        "--fail-on",
        choices=tuple(schema_diff.FAIL_ON),
        default="any",
        help="which breaking changes make the exit status 1 (default: any)",
    )
    command.add_argument(
        "--across-formats",
        action="store_true",
        help="compare versions of two formats (refused otherwise: every difference between two "
        "implementations would read as breaking)",
    )
    command.set_defaults(run=run_schema_diff, listing=True)
