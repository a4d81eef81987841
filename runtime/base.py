"""The public seam between phi-wire's runtime and the code built on it: the generated models and
the validator.

For the generated models (``tools/codegen``): the base classes and annotated scalar types the
schemas' serde facts need (``WireModel``, ``WireEnum``, ``F32``, ``JsonValue``, ``Timestamp``,
``LlmMessageBase``; ``OrderedJsonValue`` for formats built with serde_json's ``preserve_order``) and
the helper bases that give models phi-core's methods.

For the validator and other tools: ``adapter(tp)``, the one pydantic ``TypeAdapter`` per wire
type that ``loads`` and ``dumps`` use, and ``fast_path_role_of``, which tells the validate fast
path what a validator function inside a model does (``phi_wire.primitives`` explains the promise);
``CANONICAL_TIMESTAMP_TEXT``, the regular expression of exactly what chrono writes for a
timestamp (on a day every year has).
"""

from __future__ import annotations

from .formats.phi_core.helpers import (
    ExtensionHelpers,
    LlmMessageHelpers,
    MessageHelpers,
    UsageHelpers,
)
from .primitives import (
    CANONICAL_TIMESTAMP,
    CANONICAL_TIMESTAMP_TEXT,
    TRANSPARENT,
    FastPathRole,
    adapter,
    fast_path_role_of,
)
from .serde import (
    F32,
    JsonValue,
    LlmMessageBase,
    OrderedJsonValue,
    Timestamp,
    WireEnum,
    WireModel,
)

__all__ = [
    "CANONICAL_TIMESTAMP",
    "CANONICAL_TIMESTAMP_TEXT",
    "F32",
    "TRANSPARENT",
    "ExtensionHelpers",
    "FastPathRole",
    "JsonValue",
    "LlmMessageBase",
    "LlmMessageHelpers",
    "MessageHelpers",
    "OrderedJsonValue",
    "Timestamp",
    "UsageHelpers",
    "WireEnum",
    "WireModel",
    "adapter",
    "fast_path_role_of",
]
