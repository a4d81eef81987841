"""phi-core 0.10's wire format: every wire type under its phi-core name, and the codecs for them.

The types come from ``generated.v0_10`` (made from ``schemas/phi-core/0.10`` by tools/codegen); the
codecs and helpers are version-independent (``_api``); ``schema`` reads this version's files.
"""

from __future__ import annotations

from ._api import *  # noqa: F403
from ._api import __all__ as _COMMON
from ._api import schema_function
from ._helpers import install
from .generated.v0_10 import *  # noqa: F403
from .generated.v0_10 import __all__ as _WIRE_TYPES

PHI_CORE_VERSION = "0.10"
"""The phi-core minor version whose wire format this module speaks."""

schema = schema_function(PHI_CORE_VERSION)
install(globals())

__all__ = [*_WIRE_TYPES, *_COMMON, "PHI_CORE_VERSION", "schema"]
