"""OpenTelemetry GenAI's folder: what phi-wire knows of the semantic conventions' message
documents (``gen_ai.input.messages``, ``gen_ai.output.messages``, ``gen_ai.system_instructions``,
``gen_ai.tool.definitions``) beyond its schemas (``schemas/otel-genai/<version>/``) and generated
models (``phi_wire.otel_genai_2026_05``, ``phi_wire.otel_genai_2b902ce1``; ``phi_wire.otel_genai``
is the newest).

* ``base``: the generated models' base (open objects, key order and layout kept for ``dumps``);
* ``codec``: ``loads``/``dumps`` (an emitter's bytes kept; JSON-string attribute values read too);
* ``strict``: what the conventions ask beyond the official schema (each part type's fields, their
  names), and every emitter quirk phi-wire knows, as problems at their pointers;
* ``recognise``: the documents' shapes;
* ``convert``: the converters to and from phi-core (``_from_phi``, ``_to_phi``, ``_shared``);
* ``api.py.tmpl``: its public modules' API (``tools/codegen`` appends it).
"""
