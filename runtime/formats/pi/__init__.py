"""pi's folder (pi-ai, pi-agent-core, pi-coding-agent): recognised so that pi's files are named,
not judged as another format's; phi-wire does not read or write pi yet.

* ``recognise``: pi's shapes.
"""
