"""clark-agent's folder: what phi-wire knows of clark-agent 0.4 beyond its schemas
(``schemas/clark-agent/0.4/``) and generated models (``phi_wire.clark_agent``).

* ``recognise``: its shapes (history rows, events, trajectories);
* ``convert``: clark-agent <-> phi-core (the mapping table: ``docs/conversions/clark-agent.md``);
* ``api.py.tmpl``: its public module's API (``tools/codegen`` appends it).

Its serde facts (``serde_json``'s ``preserve_order``, the current time for a missing timestamp)
are keywords of phi-wire's schema vocabulary, so the engine implements them (``phi_wire.serde``).
"""
