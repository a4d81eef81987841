"""Agent runs as the OpenTelemetry GenAI conventions' spans, made by the official SDK
(``opentelemetry-sdk``): an ``invoke_agent`` span per run, a ``chat`` span per model call (each
assistant message: its input the messages before it, its output the message, as the pinned
conventions' ``gen_ai.input.messages`` / ``gen_ai.output.messages`` JSON) and an
``execute_tool`` span per tool result, timed by the transcript's timestamps. Span and trace ids
are derived from the transcript's name (uuid5), never random: an export is reproducible."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator

import phi_wire.v0_10 as phi
from phi_wire import __version__
from phi_wire.convert import derived_id
from phi_wire.formats.otel_genai import codec
from phi_wire.formats.otel_genai.convert import from_phi_core

from ._runs import Run

__all__ = ["ATTRIBUTES", "spans_of_runs"]

ATTRIBUTES = {
    "operation": "gen_ai.operation.name",
    "provider": "gen_ai.provider.name",
    "request_model": "gen_ai.request.model",
    "response_model": "gen_ai.response.model",
    "finish_reasons": "gen_ai.response.finish_reasons",
    "input_tokens": "gen_ai.usage.input_tokens",
    "output_tokens": "gen_ai.usage.output_tokens",
    "cache_read": "gen_ai.usage.cache_read.input_tokens",
    "cache_creation": "gen_ai.usage.cache_creation.input_tokens",
    "reasoning": "gen_ai.usage.reasoning.output_tokens",
    "input": "gen_ai.input.messages",
    "output": "gen_ai.output.messages",
    "system": "gen_ai.system_instructions",
    "tools": "gen_ai.tool.definitions",
    "conversation": "gen_ai.conversation.id",
    "agent_id": "gen_ai.agent.id",
    "tool_name": "gen_ai.tool.name",
    "tool_call": "gen_ai.tool.call.id",
    "tool_type": "gen_ai.tool.type",
    "tool_arguments": "gen_ai.tool.call.arguments",
    "tool_result": "gen_ai.tool.call.result",
    "error": "error.type",
}
"""The conventions' attribute names phi-wire writes (semantic-conventions' GenAI registry)."""

_USAGE = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("cache_read", "cache_read"),
    ("cache_write", "cache_creation"),
    ("reasoning", "reasoning"),
)


class _DerivedIds(IdGenerator):
    """Trace and span ids derived from a seed and a counter (uuid5): the same transcript gives
    the same ids."""

    def __init__(self, seed: str) -> None:
        self.seed = seed
        self.count = 0

    def _next(self) -> int:
        self.count += 1
        return uuid.UUID(derived_id(self.seed, "otel span", str(self.count))).int

    def generate_span_id(self) -> int:
        return (self._next() >> 64) or 1

    def generate_trace_id(self) -> int:
        return self._next() or 1


def spans_of_runs(runs: Sequence[Run], name: str) -> list[ReadableSpan]:
    """The spans of ``runs`` (one trace per run), ids derived from ``name``."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(
        resource=Resource({"service.name": "phi-wire", "phi_wire.transcript": name}),
        id_generator=_DerivedIds(name),
    )
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("phi_wire.otel_export", __version__)
    for run in runs:
        _run_spans(tracer, run)
    provider.shutdown()
    return list(memory.get_finished_spans())


def _ms(message: dict[str, Any]) -> int | None:
    stamp = message.get("timestamp")
    return stamp * 1_000_000 if isinstance(stamp, int) and stamp > 0 else None


def _otel_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any] | None]:
    """Each phi-core message as an OpenTelemetry message (plain JSON), None for one that has none
    (an extension message); an assistant message with its ``finish_reason``."""
    found: list[dict[str, Any] | None] = []
    for message in messages:
        model = phi.loads(phi.AgentMessage, json.dumps(message))
        documents = from_phi_core([model]).value
        found.append(codec.plain(documents[0])[0] if documents else None)
    return found


def _attribute_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _run_spans(tracer: trace.Tracer, run: Run) -> None:
    messages = run.messages
    times = [_ms(message) for message in messages]
    known = [time for time in times if time is not None]
    # the run's span covers its children: its recorded times, widened to its messages'
    start = min([time for time in (run.start_ns, *known) if time is not None], default=0)
    end = max([time for time in (run.end_ns, *known) if time is not None], default=start)
    assistant = next((m for m in messages if m.get("role") == "assistant"), {})
    provider = run.provider or assistant.get("provider") or "unknown"
    model = run.model or assistant.get("model") or ""
    attributes: dict[str, Any] = {
        ATTRIBUTES["operation"]: "invoke_agent",
        ATTRIBUTES["provider"]: provider,
    }
    if model:
        attributes[ATTRIBUTES["request_model"]] = model
    if run.conversation:
        attributes[ATTRIBUTES["conversation"]] = run.conversation
    if run.agent:
        attributes[ATTRIBUTES["agent_id"]] = run.agent
    agent = tracer.start_span(
        "invoke_agent", kind=trace.SpanKind.INTERNAL, attributes=attributes, start_time=start
    )
    context = trace.set_span_in_context(agent)
    converted = _otel_messages(messages)
    system = [{"type": "text", "content": run.system_prompt}] if run.system_prompt else None
    tools = [
        {
            "type": "function",
            "name": t["name"],
            "description": t["description"],
            "parameters": t["parameters"],
        }
        for t in run.tools
    ]
    calls: dict[str, tuple[dict[str, Any], int | None]] = {}
    previous = start
    for index, message in enumerate(messages):
        time = times[index]
        stamp = time if time is not None else previous
        if message.get("role") == "assistant":
            inputs = []
            for item in converted[:index]:
                if item is not None:
                    inputs.append({k: v for k, v in item.items() if k != "finish_reason"})
            _chat_span(
                tracer, context, message, inputs, converted[index], system, tools, previous, stamp
            )
            for block in message["content"]:
                if block["type"] == "toolCall":
                    calls[block["id"]] = (block, stamp)
        elif message.get("role") == "toolResult":
            call, called = calls.get(message["toolCallId"], ({}, None))
            _tool_span(tracer, context, message, call, called or previous, stamp)
        previous = stamp
    agent.end(end_time=max(end, start))


def _chat_span(
    tracer: trace.Tracer,
    context: Any,
    message: dict[str, Any],
    inputs: list[dict[str, Any]],
    output: dict[str, Any] | None,
    system: list[dict[str, Any]] | None,
    tools: list[dict[str, Any]],
    start: int,
    end: int,
) -> None:
    model = message.get("model") or ""
    attributes: dict[str, Any] = {
        ATTRIBUTES["operation"]: "chat",
        ATTRIBUTES["provider"]: message.get("provider") or "unknown",
        ATTRIBUTES["request_model"]: model,
        ATTRIBUTES["response_model"]: model,
        ATTRIBUTES["input"]: _attribute_json(inputs),
    }
    if output is not None:
        attributes[ATTRIBUTES["output"]] = _attribute_json([output])
        attributes[ATTRIBUTES["finish_reasons"]] = [output["finish_reason"]]
    usage = message.get("usage") or {}
    for key, name in _USAGE:
        if isinstance(usage.get(key), int):
            attributes[ATTRIBUTES[name]] = usage[key]
    if system:
        attributes[ATTRIBUTES["system"]] = _attribute_json(system)
    if tools:
        attributes[ATTRIBUTES["tools"]] = _attribute_json(tools)
    if message.get("stopReason") == "error":
        attributes[ATTRIBUTES["error"]] = "_OTHER"
    span = tracer.start_span(
        f"chat {model}".strip(),
        context=context,
        kind=trace.SpanKind.CLIENT,
        attributes=attributes,
        start_time=min(start, end),
    )
    if message.get("error_message"):
        span.set_status(trace.Status(trace.StatusCode.ERROR, message["error_message"]))
    span.end(end_time=end)


def _tool_span(
    tracer: trace.Tracer,
    context: Any,
    message: dict[str, Any],
    call: dict[str, Any],
    start: int,
    end: int,
) -> None:
    name = message.get("toolName") or call.get("name") or ""
    attributes: dict[str, Any] = {
        ATTRIBUTES["operation"]: "execute_tool",
        ATTRIBUTES["tool_name"]: name,
        ATTRIBUTES["tool_call"]: message["toolCallId"],
        ATTRIBUTES["tool_type"]: "function",
    }
    if "arguments" in call:
        attributes[ATTRIBUTES["tool_arguments"]] = _attribute_json(call["arguments"])
    texts = [block["text"] for block in message["content"] if block["type"] == "text"]
    attributes[ATTRIBUTES["tool_result"]] = "\n".join(texts)
    if message.get("isError"):
        attributes[ATTRIBUTES["error"]] = "_OTHER"
    span = tracer.start_span(
        f"execute_tool {name}".strip(),
        context=context,
        kind=trace.SpanKind.INTERNAL,
        attributes=attributes,
        start_time=min(start, end),
    )
    if message.get("isError"):
        span.set_status(trace.Status(trace.StatusCode.ERROR))
    span.end(end_time=end)
