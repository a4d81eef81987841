"""``phi-wire schema``: the self-contained JSON Schema of one wire type."""

from __future__ import annotations

import argparse
import json
from typing import Any

from phi_wire.formats import FORMATS, find

from ._shared import Output, UsageError, checked_version


def add_schema(commands: Any) -> None:
    schema = commands.add_parser("schema", help="print the self-contained JSON Schema of a type")
    schema.add_argument("type")
    schema.add_argument("--format", choices=FORMATS, default="phi-core")
    schema.add_argument("--version", help="the version of --format (default: its default)")
    schema.set_defaults(run=run_schema, listing=True)


def run_schema(args: argparse.Namespace, output: Output) -> int:
    wire = find(checked_version(args.version, args.format), args.format).load()
    if args.type not in wire.WIRE_TYPES:
        more = "" if args.format == "phi-core" else f" --format {args.format}"
        raise UsageError(f"unknown wire type {args.type!r}; phi-wire types{more} lists them")
    try:
        bundle = wire.schema(args.type)
    except KeyError:
        raise UsageError(f"no schema for {args.type!r}") from None
    output.line(json.dumps(bundle, indent=2, ensure_ascii=False))
    output.flush()
    return 0
