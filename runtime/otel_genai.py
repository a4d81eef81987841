"""The newest OpenTelemetry GenAI conventions phi-wire speaks (the GenAI message documents:
``gen_ai.input.messages``, ``gen_ai.output.messages``, ``gen_ai.system_instructions``,
``gen_ai.tool.definitions``): every name of the pinned module of that version,
``phi_wire.otel_genai_2b902ce1``. Code that must not move when a newer version comes imports a
pinned module (``phi_wire.otel_genai_2026_05``, ``phi_wire.otel_genai_2b902ce1``), as
``phi_wire.v0_10`` is pinned where ``phi_wire`` follows phi-core's newest.
"""

from phi_wire.otel_genai_2b902ce1 import *  # noqa: F403
from phi_wire.otel_genai_2b902ce1 import __all__ as __all__
