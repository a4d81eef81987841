"""``phi-wire types``: the wire types of a format's version."""

from __future__ import annotations

import argparse
from typing import Any

from phi_wire.formats import FORMATS
from phi_wire.validate import (
    wire_types,
)

from ._shared import Output, checked_version


def add_types(commands: Any) -> None:
    types = commands.add_parser("types", help="list the wire types")
    types.add_argument("--format", choices=FORMATS, default="phi-core")
    types.add_argument("--version", help="the version of --format (default: its default)")
    types.set_defaults(run=run_types, listing=True)


def run_types(args: argparse.Namespace, output: Output) -> int:
    for name in wire_types(checked_version(args.version, args.format), args.format):
        output.line(name)
    output.flush()
    return 0
