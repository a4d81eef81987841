"""yoagent's folder (0.13 and later): recognised so that its files are named, not judged as
another format's; phi-wire does not read or write yoagent.

* ``recognise``: yoagent's shapes.
"""
