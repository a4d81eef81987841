"""``phi_wire.pi``: pi's newest line, 1.5 (``@earendil-works/pi-*``), the same names and objects as
``phi_wire.pi_1_5``; ``phi_wire.pi_0_73`` pins the ``@mariozechner/pi-*`` 0.73 line
(``phi_wire.formats`` lists both). docs/pi.md says what each reads and writes.
"""

from __future__ import annotations

from phi_wire.pi_1_5 import *  # noqa: F403
from phi_wire.pi_1_5 import __all__ as __all__
