"""phi-wire: phi-core's agent wire format, schema first.

The top-level package speaks the newest supported phi-core version (0.10, which reads every
0.8 document too); ``phi_wire.v0_8`` and ``phi_wire.v0_10`` pin one version each.

Its names are loaded on first use, so that ``phi-wire validate`` does not pay for pydantic and
every model when no document needs them.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and editors see; the same names as ``v0_10``
    from .v0_10 import *  # noqa: F403
    from .v0_10 import __all__ as __all__


def _newest() -> ModuleType:
    # import_module, not `from . import`: that would ask this module's __getattr__ for v0_10
    return importlib.import_module(".v0_10", __name__)


def __getattr__(name: str) -> Any:
    v0_10 = _newest()
    if name != "__all__" and name not in v0_10.__all__:
        raise AttributeError(f"module 'phi_wire' has no attribute {name!r}")
    value = getattr(v0_10, name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_newest().__all__})
