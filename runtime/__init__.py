"""phi-wire: phi-core's agent wire format, schema first.

The top-level package speaks the newest supported phi-core version; ``phi_wire.v0_8`` pins 0.8.
"""

from .v0_8 import *  # noqa: F403
from .v0_8 import __all__ as __all__
