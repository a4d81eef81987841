"""phi-wire: phi-core's agent wire format, schema first.

The top-level package speaks the newest supported phi-core version (0.10, which reads every
0.8 document too); ``phi_wire.v0_8`` and ``phi_wire.v0_10`` pin one version each
(``phi_wire.formats`` lists them).

Its names are loaded on first use, so that ``phi-wire validate`` does not pay for pydantic and
every model when no document needs them.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and editors see; the same names as ``v0_10``
    from .v0_10 import *  # noqa: F403
    from .v0_10 import __all__ as __all__

__version__ = "0.2.0"
"""phi-wire's own release (the wheel's version is read from here)."""


def _is_submodule(name: str) -> bool:
    from importlib.util import find_spec

    return find_spec(f"{__name__}.{name}") is not None


def _newest() -> ModuleType:
    from .formats import newest

    return newest().load()


def __getattr__(name: str) -> Any:
    if name != "__all__" and (name.startswith("__") or _is_submodule(name)):
        # `from phi_wire import <submodule>` asks here before it imports the submodule: neither
        # that nor a dunder may cost the models' import
        raise AttributeError(f"module 'phi_wire' has no attribute {name!r}")
    newest = _newest()
    if name != "__all__" and name not in newest.__all__:
        raise AttributeError(f"module 'phi_wire' has no attribute {name!r}")
    value = getattr(newest, name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_newest().__all__})
