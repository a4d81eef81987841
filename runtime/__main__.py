"""``python -m phi_wire``: the ``phi-wire`` command line."""

from phi_wire.cli import main

raise SystemExit(main())
