"""pi's folder (pi-ai, pi-agent-core, pi-coding-agent; the 0.73 and 1.5 lines): how pi writes and
reads its JSON, for the public modules ``phi_wire.pi_0_73`` and ``phi_wire.pi_1_5``
(``phi_wire.pi`` is the newest). Nothing is imported here: the modules are imported one by one.

* ``recognise``: pi's shapes, and which line a document is (``version_of``).
* ``js_number``, ``js_json``: ``JSON.parse`` and ``JSON.stringify``, byte for byte.
* ``base``: the generated models' base (key order as read, absent apart from null).
* ``session_open``: ``SessionManager.open()``: what it skips, the migrations it performs.
* ``lines``: a whole JSONL document (a session file, the CLI's output).
* ``codec``: ``loads``/``dumps``; ``api``: the names each public module adds.
"""
