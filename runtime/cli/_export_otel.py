"""``phi-wire export-otel SESSION... [--endpoint URL | -o FILE]``: persisted sessions and event
streams of any format as OTLP traces following the OpenTelemetry GenAI conventions
(``phi_wire.otel_export``), sent to a collector's OTLP/HTTP endpoint or written as OTLP JSON.
Without the ``otel`` extra, or when a transcript cannot be read or the collector does not take
the spans: one line, exit status 2."""

from __future__ import annotations

import argparse
from typing import Any

from ._shared import Output, UsageError

DESCRIPTION = """Export persisted sessions and event streams (any format phi-wire convert reads:
a phi-core Session or event stream, a clark-agent history or stream, an Operator-Use session
file...) as OTLP traces that follow the OpenTelemetry GenAI semantic conventions: one trace per
agent run (an invoke_agent span), a chat span per model call (operation, provider, request and
response model, finish reasons, token usage with cache counts, and the messages as
gen_ai.input.messages, gen_ai.output.messages, gen_ai.system_instructions and
gen_ai.tool.definitions) and an execute_tool span per tool execution, timed by the transcript's
timestamps. --endpoint sends them to a collector's OTLP/HTTP endpoint (http://host:4318;
/v1/traces is added); -o writes OTLP JSON. Needs the otel extra: pip install 'phi-wire[otel]'."""


def run_export_otel(args: argparse.Namespace, output: Output) -> int:
    from phi_wire import otel_export  # on use: `phi-wire validate` starts without pydantic
    from phi_wire.convert import ConvertError
    from phi_wire.remote import MissingExtra

    if args.endpoint is None and args.output is None:
        raise UsageError("export-otel: give --endpoint URL or -o FILE")
    try:
        spans = otel_export.export_otel(args.paths, endpoint=args.endpoint, output=args.output)
    except MissingExtra as error:
        raise UsageError(str(error)) from None
    except ConvertError as error:
        raise UsageError(f"export-otel: {error}") from None
    except otel_export.ExportFailed as error:
        raise UsageError(f"export-otel: {error}") from None
    except OSError as error:
        raise UsageError(f"export-otel: {error}") from None
    traces = len({span.context.trace_id for span in spans if span.context is not None})
    where = " and ".join(
        place
        for place in (
            args.endpoint and f"sent to {args.endpoint}",
            args.output and f"written to {args.output}",
        )
        if place
    )
    noun = "trace" if traces == 1 else "traces"
    output.note(f"{len(spans)} spans in {traces} {noun} {where}")
    return 0


def add_export_otel(commands: Any) -> None:
    command = commands.add_parser(
        "export-otel",
        help="sessions and event streams as OTLP traces (OpenTelemetry GenAI)",
        description=DESCRIPTION,
    )
    command.add_argument("paths", metavar="SESSION", nargs="+", help="a persisted transcript")
    command.add_argument("--endpoint", metavar="URL", help="a collector's OTLP/HTTP endpoint")
    command.add_argument("-o", "--output", metavar="FILE", help="write OTLP JSON to FILE")
    command.set_defaults(run=run_export_otel)
