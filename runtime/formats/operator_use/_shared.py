"""What both directions of Operator-Use <-> phi-core 0.10 share: the second lane's roles, the
stop-reason tables (``docs/conversions/operator-use.md``), the losses of one conversion, an
image block's data read (``is_base64``, ``image_mime``)."""

from __future__ import annotations

import base64
import json
from typing import Any

from phi_wire.convert import UnsupportedConversion

from ._from_phi_words import STOP_REASONS_FROM_PHI as STOP_REASONS_FROM_PHI  # its home: no model

U64_MAX = 2**64 - 1
SECOND_LANE = ("system", "custom", "branch_summary", "compaction_summary")
"""Operator-Use roles phi-core has no message for: carried whole in an ExtensionMessage."""
EXTENSION_KIND = "operator-use.{role}"
"""An ExtensionMessage's kind for an Operator-Use message of that role; data is its JSON."""

STOP_REASONS_TO_PHI: dict[str, tuple[str, str | None]] = {
    "stop": ("stop", None),
    "length": ("length", None),
    "tool_calls": ("toolUse", None),
    "error": ("error", None),
    "abort": ("aborted", None),
    "content_filter": (
        "guardRail",
        "phi-core has no content-filter stop reason: guardRail is the nearest (it maps back)",
    ),
}
"""Operator-Use stop reason -> (phi-core stop reason, the loss reason when not exact)."""


MODEL_IN_ENTRIES = "Operator-Use keeps the model in model_change entries, not in messages"
"""The loss of an assistant's model and provider (a message list; a session file keeps them)."""

_IMAGE_MAGIC = (
    ("iVBORw0KGgo", "image/png"),
    ("/9j/", "image/jpeg"),
    ("R0lGOD", "image/gif"),
    ("UklGR", "image/webp"),
)


def image_mime(data: str) -> str:
    for prefix, mime in _IMAGE_MAGIC:
        if data.startswith(prefix):
            return mime
    return "image/png"


def is_base64(data: str) -> bool:
    """Base64's alphabet, padded or not (producers often strip the ``=``; an image's data
    carried to phi-core is carried as written)."""
    try:
        base64.b64decode(data + "=" * (-len(data) % 4), validate=True)
    except ValueError:
        return False
    return True


def _only_messages(values: list[Any], direction: str) -> None:
    """A list converts as a message list: anything else in it is refused, naming the first."""
    for index, item in enumerate(values):
        if not isinstance(getattr(item, "role", None), str):
            raise UnsupportedConversion(
                f"no {direction} conversion for {type(item).__name__} (item {index}): a list "
                "converts as a list of messages"
            )


def _json(value: Any, dumps: Any) -> Any:
    return json.loads(dumps(value))
