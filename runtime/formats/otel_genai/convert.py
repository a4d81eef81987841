"""OpenTelemetry GenAI <-> phi-core 0.10: the conventions' four documents and phi-core's messages,
message lists, sessions, event streams and tool definitions.

The mapping table is in ``docs/conversions/otel-genai.md``. The decisions this module implements,
in short:

* The value of a conversion to OpenTelemetry is a **list of documents** (each a list of models:
  ``SystemInstructions``, ``InputMessages``, ``OutputMessages``, ``ToolDefinitions``), what one
  model call's span holds; ``phi-wire convert`` writes one document per line. A message list is
  the last model call's view: its output is the last message when that is the model's, its input
  every message before. An event stream is each model call's: a ``TurnRequest`` (system prompt,
  messages, tools) and its ``TurnEnd`` (the reply).
* Back, each document's messages in order (a list of documents: one list), a
  ``SystemInstructions`` as an ``ExtensionMessage`` of kind ``SYSTEM_INSTRUCTIONS_KIND``, a
  message whose role phi-core lacks (``system``, ``developer``) as one of kind ``MESSAGE_KIND``
  (both come back as they were), tool definitions as phi-core ``ToolDefinition``\\ s. A
  ``system`` message of one text part is clark-agent's system message (``CLARK_SYSTEM_KIND``),
  and that one is a ``system`` message in its place among the input messages.
* ``thinking`` <-> ``reasoning`` (signatures dropped), ``toolCall`` <-> ``tool_call``, a tool
  result <-> a ``tool`` message's ``tool_call_response`` (the name comes back from the call with
  its id), an image <-> a ``blob`` (base64) or ``uri`` part (a URL).
* Emitters' quirks are read with a loss: ``parts: []`` (content the emitter already lost),
  pydantic-ai's ``result`` and ``thinking``, JSON-string ``arguments``, ``anthropic_image``, raw
  bytes.
"""

from __future__ import annotations

from ._from_phi import from_phi_core
from ._shared import (
    CLARK_SYSTEM_KIND,
    FINISH_REASON_FROM_PHI,
    FINISH_REASON_TO_PHI,
    MESSAGE_KIND,
    SYSTEM_INSTRUCTIONS_KIND,
)
from ._to_phi import to_phi_core

__all__ = [
    "CLARK_SYSTEM_KIND",
    "FINISH_REASON_FROM_PHI",
    "FINISH_REASON_TO_PHI",
    "MESSAGE_KIND",
    "SYSTEM_INSTRUCTIONS_KIND",
    "from_phi_core",
    "to_phi_core",
]
