"""Operator-Use's folder: what phi-wire knows of Operator-Use beyond its schemas
(``schemas/operator-use/<commit>/``) and generated models (``phi_wire.operator_use``,
``phi_wire.operator_use_d1cdaad8``). Operator-Use is Python: pydantic reads and writes its JSON.

* ``base``: the generated models' bases (pydantic's lax reading, ``exclude_none`` writing);
* ``codec``: its ``loads``/``dumps`` (lax mode, its float forms, a session file as one document);
* ``session_tree``: ``build_session_context``, the active branch of a session file;
* ``api``: what its public modules add to the generated models;
* ``recognise``: its shapes and layouts (``d0da87a6``, ``d1cdaad8``);
* ``convert``: Operator-Use <-> phi-core (``docs/conversions/operator-use.md``);
* ``session_files``: its session file written from phi-core messages without models;
* ``api.py.tmpl``: its public modules' API (``tools/codegen`` appends it).
"""
