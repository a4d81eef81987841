"""Issue 23, traces: ``phi-wire export-otel`` sends corpus sessions and streams of every format to
an OTLP/HTTP receiver this test runs on 127.0.0.1 (a real server: the official exporter posts to
it), decodes what arrives with ``opentelemetry-proto`` and checks every span against the
transcript: one ``invoke_agent`` span per run, a ``chat`` span per assistant message (its
provider, model, finish reason, token usage, times, and messages that the OFFICIAL schemas read
from the corpus and strict mode accept), an ``execute_tool`` span per tool result. ``-o FILE``
writes OTLP JSON that the same checks read."""

from __future__ import annotations

import base64
import builtins
import json
import threading
from collections.abc import Iterator
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from command import run
from corpus import fixtures_root
from google.protobuf import json_format
from jsonschema import Draft202012Validator
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

import phi_wire.otel_genai as otel
from phi_wire.convert import Document, convert_file

ROOT = fixtures_root()
SPEC = ROOT / "otel-genai" / "spec" / "schemas"
OFFICIAL = {
    "gen_ai.input.messages": "gen-ai-input-messages.json",
    "gen_ai.output.messages": "gen-ai-output-messages.json",
    "gen_ai.system_instructions": "gen-ai-system-instructions.json",
    "gen_ai.tool.definitions": "gen-ai-tool-definitions.json",
}
TYPES = {
    "gen_ai.input.messages": "InputMessages",
    "gen_ai.output.messages": "OutputMessages",
    "gen_ai.system_instructions": "SystemInstructions",
    "gen_ai.tool.definitions": "ToolDefinitions",
}
FINISH = {"stop": "stop", "length": "length", "toolUse": "tool_call", "error": "error"}
TRANSCRIPTS = [
    ("phi-core", ROOT / "phi-core/0.10.0/sessions/session.main.json"),
    ("phi-core", ROOT / "phi-core/0.10.0/sessions/session.subagent_child.json"),
    ("phi-core", ROOT / "phi-core/0.10.0/streams/events.main_session.jsonl"),
    ("clark-agent", ROOT / "clark-agent/0.4.0/history/history.multi_turn.jsonl"),
    ("clark-agent", ROOT / "clark-agent/0.4.0/streams/events.reasoning_tool_run.jsonl"),
    ("operator-use", ROOT / "operator-use/d0da87a6/sessions/linear.jsonl"),
    ("operator-use", ROOT / "operator-use/d1cdaad8/sessions/linear_entries.jsonl"),
    ("pi", ROOT / "pi/1.5.2/sessions/branched.jsonl"),
]


@cache
def official(attribute: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads((SPEC / OFFICIAL[attribute]).read_text("utf-8")))


class _Receiver(BaseHTTPRequestHandler):
    bodies: list[bytes]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path != "/v1/traces":
            self.send_response(404)
            self.end_headers()
            return
        self.server.bodies.append(body)  # type: ignore[attr-defined]
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    server.bodies = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


# --- the transcript, as phi-core says it ------------------------------------------------------


def _phi_core(format: str, path: Path) -> list[Any]:
    return [
        json.loads(item.text)
        for item in convert_file(path, source=format, target="phi-core")
        if isinstance(item, Document)
    ]


def _runs(documents: list[Any]) -> list[list[dict[str, Any]]]:
    """Each run's messages: a session's loops, a stream's loops (its MessageEnd messages), or
    the one message list."""
    if len(documents) == 1 and "loops" in documents[0]:
        return [loop["messages"] for loop in documents[0]["loops"]]
    if all("type" in d and "role" not in d for d in documents):
        loops: dict[str, list[dict[str, Any]]] = {}
        for event in documents:
            messages = loops.setdefault(event["loop_id"], [])
            if event["type"] == "MessageEnd":
                messages.append(event["message"])
        return list(loops.values())
    return [documents]


# --- the checks -------------------------------------------------------------------------------


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    return getattr(value, kind)


def _spans(request: ExportTraceServiceRequest) -> list[tuple[Any, dict[str, Any]]]:
    return [
        (span, {a.key: _value(a.value) for a in span.attributes})
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]


def _document(attributes: dict[str, Any], attribute: str) -> list[Any]:
    text = attributes[attribute]
    document: list[Any] = json.loads(text)
    errors = list(official(attribute).iter_errors(document))
    assert not errors, (attribute, errors[0].message)
    assert otel.strict_problems(TYPES[attribute], text) == [], attribute
    return document


def _check(request: ExportTraceServiceRequest, format: str, path: Path) -> None:
    spans = _spans(request)
    runs = _runs(_phi_core(format, path))
    agents = [(s, a) for s, a in spans if a["gen_ai.operation.name"] == "invoke_agent"]
    assert len(agents) == len(runs)  # a run without messages (input rejected) too
    by_id = {span.span_id: (span, a) for span, a in agents}
    chats = [(s, a) for s, a in spans if a["gen_ai.operation.name"] == "chat"]
    tools = [(s, a) for s, a in spans if a["gen_ai.operation.name"] == "execute_tool"]
    assistants = [m for messages in runs for m in messages if m.get("role") == "assistant"]
    results = [m for messages in runs for m in messages if m.get("role") == "toolResult"]
    assert len(chats) == len(assistants) and len(tools) == len(results)
    for (span, attributes), message in zip(chats, assistants, strict=True):
        agent, _ = by_id[span.parent_span_id]
        assert span.trace_id == agent.trace_id and span.kind == span.SPAN_KIND_CLIENT
        assert attributes["gen_ai.provider.name"] == (message["provider"] or "unknown")
        assert attributes["gen_ai.request.model"] == message["model"]
        reason = FINISH.get(message["stopReason"], message["stopReason"])
        if message["stopReason"] == "contextCompacted":
            reason = "compaction"
        assert attributes["gen_ai.response.finish_reasons"] == [reason]
        usage = message["usage"]
        assert attributes["gen_ai.usage.input_tokens"] == usage["input"]
        assert attributes["gen_ai.usage.output_tokens"] == usage["output"]
        assert attributes["gen_ai.usage.cache_read.input_tokens"] == usage["cache_read"]
        assert attributes["gen_ai.usage.cache_creation.input_tokens"] == usage["cache_write"]
        if message["timestamp"] > 0:
            assert span.end_time_unix_nano == message["timestamp"] * 1_000_000
        assert agent.start_time_unix_nano <= span.start_time_unix_nano <= span.end_time_unix_nano
        assert span.end_time_unix_nano <= agent.end_time_unix_nano
        output = _document(attributes, "gen_ai.output.messages")
        texts = [b["text"] for b in message["content"] if b["type"] == "text"]
        expected = texts if message["content"] else [""]  # no content: one empty text part
        assert [p["content"] for p in output[0]["parts"] if p["type"] == "text"] == expected
        calls = [b["id"] for b in message["content"] if b["type"] == "toolCall"]
        assert [p["id"] for p in output[0]["parts"] if p["type"] == "tool_call"] == calls
        _document(attributes, "gen_ai.input.messages")
        for attribute in ("gen_ai.system_instructions", "gen_ai.tool.definitions"):
            if attribute in attributes:
                _document(attributes, attribute)
    for (span, attributes), message in zip(tools, results, strict=True):
        assert span.parent_span_id in by_id
        assert attributes["gen_ai.tool.call.id"] == message["toolCallId"]
        assert attributes["gen_ai.tool.name"] == message["toolName"]
        if message["timestamp"] > 0:
            assert span.end_time_unix_nano == message["timestamp"] * 1_000_000


IDS = [f"{path.parent.parent.name}/{path.name}" for _, path in TRANSCRIPTS]


@pytest.mark.parametrize(("format", "path"), TRANSCRIPTS, ids=IDS)
def test_export_to_a_receiver_on_localhost(
    receiver: ThreadingHTTPServer,
    format: str,
    path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    endpoint = f"http://127.0.0.1:{receiver.server_address[1]}"
    code, _, err = run(capsys, "export-otel", str(path), "--endpoint", endpoint)
    assert code == 0, err
    bodies: list[bytes] = receiver.bodies  # type: ignore[attr-defined]
    assert len(bodies) == 1
    _check(ExportTraceServiceRequest.FromString(bodies[0]), format, path)


def _from_otlp_json(document: Any) -> ExportTraceServiceRequest:
    """OTLP JSON (ids in hex, as the specification says) read as the protobuf request."""

    def ids(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                key: base64.b64encode(bytes.fromhex(item)).decode()
                if key in ("traceId", "spanId", "parentSpanId") and item
                else ids(item)
                for key, item in value.items()
            }
        return [ids(item) for item in value] if isinstance(value, list) else value

    request = ExportTraceServiceRequest()
    json_format.ParseDict(ids(document), request)
    return request


@pytest.mark.parametrize(("format", "path"), TRANSCRIPTS, ids=IDS)
def test_export_to_an_otlp_json_file(
    tmp_path: Path, format: str, path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "traces.json"
    code, _, err = run(capsys, "export-otel", str(path), "-o", str(out))
    assert code == 0, err
    document = json.loads(out.read_text())
    span = document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert len(span["traceId"]) == 32 and len(span["spanId"]) == 16
    int(span["traceId"], 16)
    _check(_from_otlp_json(document), format, path)
    again = tmp_path / "again.json"
    run(capsys, "export-otel", str(path), "-o", str(again))
    assert again.read_text() == out.read_text()  # ids derived, not random


def test_without_the_extra_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    real = builtins.__import__

    def no_sdk(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("opentelemetry"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_sdk)
    path = TRANSCRIPTS[0][1]
    code, out, err = run(capsys, "export-otel", str(path), "-o", str(tmp_path / "t.json"))
    assert (code, out, err.count("\n")) == (2, "", 1), err
    assert "pip install 'phi-wire[otel]'" in err


def test_a_collector_that_refuses_is_one_line(
    receiver: ThreadingHTTPServer, capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint = f"http://127.0.0.1:{receiver.server_address[1]}/elsewhere/v1/traces"
    code, out, err = run(capsys, "export-otel", str(TRANSCRIPTS[3][1]), "--endpoint", endpoint)
    assert (code, out, err.count("\n")) == (2, "", 1), err
    assert "did not take the spans" in err
