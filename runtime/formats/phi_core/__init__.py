"""phi-core's folder: what phi-wire knows of phi-core beyond its schemas (``schemas/phi-core/``)
and generated models (``phi_wire.v0_8``, ``phi_wire.v0_10``).

* ``helpers``: the methods phi-core's types have in Rust (``Message.user``, ``Usage`` arithmetic,
  ``LlmMessage.new``, ``is_context_overflow``...), as the generated models' base classes;
* ``stream``: a provider's stream (``StreamEvent``) translated into ``AgentEvent``s as phi-core's
  loop does (``translate_stream``, ``MessageAccumulator``);
* ``recognise``: phi-core's shapes (type detection by first key);
* ``api.py.tmpl``: the public API of each version module (``tools/codegen`` appends it).

phi-core is the hub: every other format converts to and from it, so it has no converter here.
"""
