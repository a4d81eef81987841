"""phi-wire: phi-core's agent wire format, schema first.

The top-level package speaks the newest supported phi-core version (0.10, which reads every
0.8 document too); ``phi_wire.v0_8`` and ``phi_wire.v0_10`` pin one version each.
"""

from .v0_10 import *  # noqa: F403
from .v0_10 import __all__ as __all__
