"""The phi-wire command line: validate stored JSON of phi-core, clark-agent and Operator-Use,
convert it from one format to another, print schemas, list wire types.

    phi-wire validate PATH... [--format auto|phi-core|clark-agent|operator-use] [--version V]
                              [--type T] [--output-format text|json] [--strict]
                              [--max-errors N] [--max-problems N] [--max-document-bytes N]
                              [--all-folders] [--include GLOB] [--exclude GLOB] [--quiet]
                              [--jobs N]
    phi-wire convert IN... --to FORMAT [--from FORMAT] [-o OUT] [--fail-on-loss] [-v]
                           [--include GLOB] [--exclude GLOB]
    phi-wire schema T [--format F] [--version V]
    phi-wire types [--format F] [--version V]
    phi-wire schema-diff OLD NEW [--output-format text|json]
                             [--fail-on any|old-readers|new-readers|none]

This module is the thin layer over phi_wire.validate and phi_wire.convert: arguments, output,
exit status.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from phi_wire import __version__

from ._convert import add_convert
from ._export_otel import add_export_otel
from ._schema import add_schema
from ._schema_diff import add_schema_diff
from ._shared import Output, OutputFailed, UsageError, interrupts_noted
from ._types import add_types
from ._validate import add_validate

__all__ = ["main", "parser"]


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="phi-wire", description=__doc__.split("\n\n")[0].rstrip(".")
    )
    root.add_argument("--version", action="version", version=f"phi-wire {__version__}")
    root.set_defaults(listing=False)  # see Output: types, schema and schema-diff set it
    commands = root.add_subparsers(dest="command", required=True)
    add_validate(commands)
    add_schema(commands)
    add_types(commands)
    add_convert(commands)
    add_schema_diff(commands)
    add_export_otel(commands)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    output = Output(sys.stdout, sys.stderr)
    try:
        with interrupts_noted(output):
            try:
                args = parser().parse_args(argv)
            except SystemExit as exit_:  # argparse printed the usage problem (or the help)
                return 0 if exit_.code == 0 else 2
            except OSError:  # the help could not be written
                return 2
            output.listing = args.listing
            status = int(args.run(args, output))
            output.stop_if_interrupted()  # pydantic dropped it, and nothing was written after it
            return status
    except UsageError as error:
        output.note(str(error))
        return 2
    except OutputFailed as error:
        output.note(f"{error}; not all was reported, so the run counts as failed")
        return 2
    except KeyboardInterrupt:
        output.note("interrupted")
        output.settle()  # what was printed before is kept; a reader gone is no second error
        return 2
