"""The public seam between phi-wire's runtime and the code built on it: the generated models and
the validator.

For the generated models (``tools/codegen``): the base classes and annotated scalar types the
schemas' serde facts need (``WireModel``, ``WireEnum``, ``F32``, ``JsonValue``, ``Timestamp``,
``LlmMessageBase``; ``OrderedJsonValue`` for formats built with serde_json's ``preserve_order``) and
the helper bases that give models phi-core's methods.

For the validator and other tools: ``adapter(tp)``, the one pydantic ``TypeAdapter`` per wire
type that ``loads`` and ``dumps`` use, and ``fast_path_role_of``, which tells the validate fast
path what a validator function inside a model does (``_marks`` explains the promise);
``CANONICAL_TIMESTAMP_TEXT``, the regular expression of exactly what chrono writes for a
timestamp (on a day every year has).
"""

from __future__ import annotations

from typing import Any

from ._codec import adapter
from ._helpers import ExtensionHelpers, LlmMessageHelpers, MessageHelpers, UsageHelpers
from ._marks import CANONICAL_TIMESTAMP, FAST_PATH_ROLE, TRANSPARENT, FastPathRole
from ._ordered_value import OrderedJsonValue
from ._timestamp import CANONICAL as CANONICAL_TIMESTAMP_TEXT
from ._wire import F32, JsonValue, LlmMessageBase, Timestamp, WireEnum, WireModel

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


def fast_path_role_of(function: Any) -> FastPathRole | None:
    """The role a validator function (or class) declared for the fast path, or None."""
    role: FastPathRole | None = getattr(function, FAST_PATH_ROLE, None)
    return role
