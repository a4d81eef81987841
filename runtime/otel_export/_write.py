"""Spans sent where OTLP goes: to a collector's OTLP/HTTP endpoint by the official exporter
(``opentelemetry-exporter-otlp-proto-http``), or to a file as OTLP JSON (the protobuf encoding of
the official ``opentelemetry-exporter-otlp-proto-common``, written as the OTLP specification's
JSON: trace and span ids in hex, not protobuf JSON's base64)."""

from __future__ import annotations

import base64
import logging
from collections.abc import Sequence
from typing import Any

from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult

from ._failed import ExportFailed

__all__ = ["otlp_json", "read_otlp_json", "send"]

_IDS = ("traceId", "spanId", "parentSpanId")


def send(spans: Sequence[ReadableSpan], endpoint: str, timeout: float = 10.0) -> None:
    """``spans`` exported to the OTLP/HTTP ``endpoint`` (its ``/v1/traces`` added unless given);
    ``ExportFailed`` if the collector does not take them."""
    url = (
        endpoint
        if endpoint.rstrip("/").endswith("/v1/traces")
        else endpoint.rstrip("/") + "/v1/traces"
    )
    exporter = OTLPSpanExporter(endpoint=url, timeout=timeout)
    said = _Said()
    logger = logging.getLogger("opentelemetry.exporter.otlp.proto.http")
    logger.addHandler(said)
    propagate, logger.propagate = logger.propagate, False  # its retries: one line here instead
    try:
        result = exporter.export(list(spans))
    finally:
        logger.propagate = propagate
        logger.removeHandler(said)
        exporter.shutdown()
    if result is not SpanExportResult.SUCCESS:
        why = f" ({said.first})" if said.first else ""
        raise ExportFailed(f"the collector at {url} did not take the spans{why}")


class _Said(logging.Handler):
    """The first thing the exporter logged (why it retried), on one line."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.first = ""

    def emit(self, record: logging.LogRecord) -> None:
        if not self.first and record.levelno >= logging.WARNING:
            self.first = " ".join(record.getMessage().split())[:300]


def _ids(value: Any, to_hex: bool) -> Any:
    if isinstance(value, dict):
        return {
            key: (
                _id(item, to_hex) if key in _IDS and isinstance(item, str) else _ids(item, to_hex)
            )
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_ids(item, to_hex) for item in value]
    return value


def _id(text: str, to_hex: bool) -> str:
    if to_hex:
        return base64.b64decode(text).hex()
    return base64.b64encode(bytes.fromhex(text)).decode("ascii")


def otlp_json(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """``spans`` as an OTLP/JSON ``ExportTraceServiceRequest`` (what a collector's
    ``/v1/traces`` takes as ``application/json``)."""
    message = json_format.MessageToDict(encode_spans(list(spans)))
    converted: dict[str, Any] = _ids(message, to_hex=True)
    return converted


def read_otlp_json(document: dict[str, Any]) -> ExportTraceServiceRequest:
    """An OTLP/JSON document read back as the protobuf request (hex ids as the bytes they say)."""
    request = ExportTraceServiceRequest()
    json_format.ParseDict(_ids(document, to_hex=False), request)
    return request
