"""``python -m phi_wire.cli``: the command line, as ``phi-wire`` runs it."""

from phi_wire.cli import main

raise SystemExit(main())
