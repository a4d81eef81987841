"""A user's script, type-checked (never run) by tests/test_static_types.py with ``mypy --strict``.

Each ``assert_type`` states the static type a call must have (mypy reports a mismatch as an
error); each line marked ``# error:`` must be an error, with the words after the marker in mypy's
message, and no other line may be one; each ``reveal_type`` marked ``# reveals:`` must reveal a
type that starts with the words after the marker.
Every format module is here (``phi_wire``, the pinned ``v0_8``/``v0_10``, ``clark_agent``, both
Operator-Use layouts, both OpenTelemetry GenAI versions, ``pi`` and the pinned
``pi_0_73``/``pi_1_5``), each with a union alias and a model class.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import assert_type, reveal_type

import phi_wire
import phi_wire.clark_agent as clark
import phi_wire.convert as conversions
import phi_wire.operator_use as ou
import phi_wire.operator_use_d1cdaad8 as ou1
import phi_wire.otel_genai as otel
import phi_wire.otel_genai_2b902ce1 as otel_pinned
import phi_wire.otel_genai_2026_05 as otel5
import phi_wire.pi as pi
import phi_wire.pi_0_73 as pi073
import phi_wire.pi_1_5 as pi15
import phi_wire.v0_8 as v8
import phi_wire.v0_10 as v10
from phi_wire import sse
from phi_wire.convert import Conversion, Document, Lost, convert, convert_file
from phi_wire.convert.values import (
    AnyValue,
    ClarkAgentValue,
    OperatorUseValue,
    PhiCoreValue,
    PiValue,
)

TEXT = "{}"

# --- loads: a union alias and a model class of every module ----------------------------------
event = phi_wire.loads(phi_wire.AgentEvent, TEXT)  # the README's first example
reveal_type(event)  # reveals: phi_wire.v0_10.event.AgentStart | phi_wire.v0_10.event.AgentEnd |
assert_type(event, phi_wire.AgentEvent)
print(event.no_such_attribute)  # error: has no attribute "no_such_attribute"
assert_type(phi_wire.loads(phi_wire.UserMessage, TEXT), phi_wire.UserMessage)
assert_type(phi_wire.loads(list[phi_wire.Message], TEXT), list[phi_wire.Message])

assert_type(v8.loads(v8.Message, TEXT), v8.Message)
assert_type(v8.loads(v8.AgentEvent, b"{}", max_problems=3), v8.AgentEvent)
assert_type(v8.loads(v8.AssistantMessage, TEXT), v8.AssistantMessage)
print(v8.loads(v8.Message, TEXT).no_such_attribute)  # error: has no attribute "no_such_attribute"

content = v10.loads(v10.Content, TEXT)
reveal_type(content)  # reveals: phi_wire.v0_10.content.TextContent | phi_wire.v0_10.content.
assert_type(content, v10.Content)
assert_type(v10.loads(v10.AgentMessage, TEXT, fail_fast=True), v10.AgentMessage)
assert_type(v10.loads(v10.Usage, TEXT).input, int)
print(v10.loads(v10.Usage, TEXT).no_such_attribute)  # error: has no attribute "no_such_attribute"

row = clark.loads(clark.AgentMessage, TEXT)
reveal_type(row)  # reveals: phi_wire.clark_agent.types.SystemMessage | phi_wire.clark_agent.
assert_type(row, clark.AgentMessage)
print(row.no_such_attribute)  # error: has no attribute "no_such_attribute"
assert_type(clark.loads(clark.ToolResult, TEXT), clark.ToolResult)

session = ou.loads(ou.SessionFile, TEXT)
reveal_type(session)  # reveals: phi_wire.formats.operator_use.base.SessionFileLines[
assert_type(session, ou.SessionFileLines[ou.SessionFileEntry])
assert_type(session.skipped, tuple[ou.WireError, ...])
print(session.no_such_attribute)  # error: has no attribute "no_such_attribute"
assert_type(ou.loads(ou.SessionFileEntry, TEXT), ou.SessionFileEntry)
assert_type(ou.loads(list[ou.SessionFileEntry], TEXT), list[ou.SessionFileEntry])
assert_type(ou.loads(ou.Usage, TEXT), ou.Usage)
assert_type(ou1.loads(ou1.SessionFile, TEXT), ou1.SessionFileLines[ou1.SessionFileEntry])
assert_type(ou1.loads(ou1.AgentMessage, TEXT), ou1.AgentMessage)

inputs = otel.loads(otel.InputMessages, TEXT)
reveal_type(inputs)  # reveals: list[phi_wire.otel_genai_2b902ce1.input_messages.ChatMessage]
assert_type(inputs, otel.InputMessages)
assert_type(inputs, otel_pinned.InputMessages)  # the newest is the pinned module's names
assert_type(otel.loads(otel.ChatMessage, TEXT).parts, list[otel.MessagePart])
assert_type(otel.loads(otel.MessagePart, TEXT), otel.MessagePart)
print(otel.loads(otel.TextPart, TEXT).no_such_attribute)  # error: has no attribute "no_such_attr
assert_type(otel5.loads(otel5.OutputMessages, b"[]"), otel5.OutputMessages)
assert_type(otel5.loads(otel5.FunctionToolDefinition, TEXT).name, str)
assert_type(otel.strict_problems(otel.InputMessages, TEXT), list[otel.Problem])
assert_type(otel5.strict_problems("ToolDefinitions", TEXT), list[otel5.Problem])
otel.loads(3, TEXT)  # error: incompatible type "int"
pi_event = pi.loads(pi.AgentEvent, TEXT)
reveal_type(pi_event)  # reveals: phi_wire.pi_1_5.event.AgentStartEvent | phi_wire.pi_1_5.event.
assert_type(pi_event, pi.AgentEvent)
assert_type(pi.loads(pi.AssistantMessage, TEXT), pi15.AssistantMessage)
assert_type(pi.loads(pi.AssistantMessage, TEXT).usage.cost.total, float)
print(pi.loads(pi.Usage, TEXT).no_such_attribute)  # error: has no attribute "no_such_attribute"
pi_session = pi.loads(pi.Session, TEXT)
reveal_type(pi_session)  # reveals: phi_wire.formats.pi.lines.JsonLines[
assert_type(pi_session, pi.JsonLines[pi.FileEntry])
assert_type(pi_session.migrated_from, int | None)
assert_type(pi073.loads(pi073.LegacySession, TEXT), pi073.JsonLines[pi073.LegacyFileEntry])
assert_type(pi073.loads(pi073.Message, TEXT), pi073.Message)
assert_type(pi15.loads(list[pi15.Message], TEXT), list[pi15.Message])

phi_wire.loads(3, TEXT)  # error: incompatible type "int"

# --- dumps takes what loads gives, and JSON built of it --------------------------------------
assert_type(phi_wire.dumps(event), str)
assert_type(v8.dumps([v8.user_message("hi")], pretty=True), str)
assert_type(clark.dumps(row), str)
assert_type(ou.dumps(session), str)
assert_type(ou1.dumps({"k": [1, None, "s"]}), str)
phi_wire.dumps(object())  # error: incompatible type "object"
ou.dumps({1, 2})  # error: incompatible type "set[int]"
assert_type(otel.dumps(inputs), str)
assert_type(otel5.dumps([otel5.TextPart(content="hi")]), str)
otel.dumps(object())  # error: incompatible type "object"
assert_type(pi.dumps(pi_session), str)
assert_type(pi073.dumps(pi_event), str)

# --- schema takes a type or its name ---------------------------------------------------------
assert_type(phi_wire.schema(phi_wire.AgentEvent), dict[str, object])
assert_type(clark.schema("AgentMessage"), dict[str, object])
assert_type(ou.schema(ou.SessionFile), dict[str, object])
assert_type(otel.schema(otel.InputMessages), dict[str, object])
assert_type(otel5.schema("SystemInstructions"), dict[str, object])
assert_type(pi.schema(pi.Session), dict[str, object])
v10.schema(3)  # error: incompatible type "int"

# --- convert: the target's values ------------------------------------------------------------
to_phi = convert(row, source="clark-agent", target="phi-core")
assert_type(to_phi, Conversion[PhiCoreValue])
assert_type(convert(row).value, PhiCoreValue)
assert_type(convert(event, target="clark-agent").value, ClarkAgentValue)
assert_type(convert(session, target="operator-use").value, OperatorUseValue)
assert_type(convert(row, target="pi").value, PiValue)
TARGET: str = "phi-core"
assert_type(convert(session, target=TARGET).value, AnyValue)
print(to_phi.value.no_such_attribute)  # error: has no attribute "no_such_attribute"
convert(object())  # error: No overload variant of "convert" matches argument type "object"
# phi_wire.convert imports its names when first used; a type checker sees each one as it is
assert_type(convert_file("history.jsonl", target="phi-core"), Iterator[Document | Lost])
assert_type(conversions.MAX_INPUT_BYTES, int)
print(conversions.convert_fil)  # error: Module has no attribute "convert_fil"

# --- SSE: the events asked for ---------------------------------------------------------------
assert_type(sse.events("http://127.0.0.1:1/events"), Iterator[phi_wire.AgentEvent])
assert_type(sse.events("http://127.0.0.1:1/events", v8.AgentEvent), Iterator[v8.AgentEvent])
assert_type(sse.aevents("http://127.0.0.1:1/events"), AsyncIterator[v10.AgentEvent])
assert_type(
    sse.aevents("http://127.0.0.1:1/events", clark.AgentEvent, until=None),
    AsyncIterator[clark.AgentEvent],
)
for received in sse.events("http://127.0.0.1:1/events", until=lambda e: e.type == "AgentEnd"):
    print(received.no_such_attribute)  # error: has no attribute "no_such_attribute"
