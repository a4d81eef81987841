"""``phi_wire.otel_export``: a persisted session or event stream of any format as OTLP traces that
follow the OpenTelemetry GenAI conventions (what ``phi-wire export-otel`` sends):

    from phi_wire.otel_export import export_otel

    export_otel(["session.json"], endpoint="http://localhost:4318")   # to a collector
    export_otel(["events.jsonl"], output="traces.json")               # OTLP JSON to a file

One trace per agent run: an ``invoke_agent`` span, under it a ``chat`` span per model call
(``gen_ai.operation.name``, ``gen_ai.provider.name``, ``gen_ai.request.model``,
``gen_ai.response.finish_reasons``, token usage with the cache counts, the messages as
``gen_ai.input.messages`` / ``gen_ai.output.messages`` / ``gen_ai.system_instructions`` /
``gen_ai.tool.definitions``) and an ``execute_tool`` span per tool execution, timed by the
transcript's timestamps. Built on the official ``opentelemetry-sdk`` and OTLP exporter packages:
the ``otel`` extra (``pip install "phi-wire[otel]"``); without it ``require`` raises
``MissingExtra``, one line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from phi_wire.remote import MissingExtra

from ._failed import ExportFailed

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan

__all__ = ["OTEL_EXTRA", "ExportFailed", "MissingExtra", "export_otel", "require", "spans_of"]

OTEL_EXTRA = "pip install 'phi-wire[otel]'"


def require() -> None:
    """Raise ``MissingExtra`` (one line naming ``pip install 'phi-wire[otel]'``) unless the
    OpenTelemetry SDK and its OTLP exporter are installed."""
    try:
        import opentelemetry.exporter.otlp.proto.http.trace_exporter
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError:
        raise MissingExtra(f"phi-wire export-otel needs the otel extra: {OTEL_EXTRA}") from None


def spans_of(path: str | os.PathLike[str]) -> list[ReadableSpan]:
    """The spans of the transcript at ``path`` (any format ``phi-wire convert`` reads;
    ``phi_wire.convert.ConvertError`` if it cannot be read)."""
    require()
    from ._runs import runs_of
    from ._spans import spans_of_runs

    return spans_of_runs(runs_of(path), os.fspath(path))


def export_otel(
    paths: Sequence[str | os.PathLike[str]],
    *,
    endpoint: str | None = None,
    output: str | os.PathLike[str] | None = None,
) -> list[ReadableSpan]:
    """The spans of every transcript at ``paths``, sent to the OTLP/HTTP ``endpoint`` and/or
    written to ``output`` as OTLP JSON; returned."""
    require()
    from ._write import otlp_json, send

    spans = [span for path in paths for span in spans_of(path)]
    if endpoint is not None:
        send(spans, endpoint)
    if output is not None:
        document: dict[str, Any] = otlp_json(spans)
        from phi_wire.convert import write_atomically

        write_atomically(os.fspath(output), [json.dumps(document, indent=1) + "\n"])
    return spans
