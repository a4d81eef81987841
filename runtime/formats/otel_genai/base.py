"""The public seam OpenTelemetry GenAI's generated models import: every object of the conventions'
documents is open (``additionalProperties: true``: unknown keys are kept, not dropped), and an
emitter writes its keys in its own order (openai-v2 ``content`` before ``type``, google-genai
``type`` last), with or without ``null`` for an absent value. ``OtelModel`` records which keys a
read object had, in their order, so that ``phi_wire.formats.otel_genai.codec.dumps`` writes them
back as they were; a model built in code writes its set and non-null fields, declared order.

``UnknownSystemInstructionPartBase`` holds the one rule of the newest schemas that the generated
code cannot say: a system instruction part of any type *but* ``text`` (JSON Schema's ``not``).

This module must never import the generated code: the generated code imports it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from pydantic import (
    ConfigDict,
    PrivateAttr,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    model_validator,
)

from phi_wire.serde import InterruptibleModel

__all__ = ["READING", "Layout", "OtelModel", "UnknownSystemInstructionPartBase"]

READING = {"otel-genai": "reading"}
"""The validation context ``loads`` reads a document in: a part's ``type`` is required there
(the generated class gives a one-value tag a default, for models built in code)."""


class Layout(NamedTuple):
    """How a document's text was written: separators, escaping, wrapping."""

    item_separator: str = ","
    key_separator: str = ":"
    ensure_ascii: bool = False
    wrapped: bool = False
    """The document was a JSON string holding the document's JSON (a span attribute's value)."""
    wrapping_ascii: bool = True
    """The JSON string escaped non-ASCII characters (``json.dumps``'s default)."""


class OtelModel(InterruptibleModel):
    """Base of every generated OpenTelemetry GenAI model: strict types (what JSON Schema says:
    ``1`` is not a string), unknown keys kept, the read keys' order recorded."""

    model_config = ConfigDict(extra="allow", strict=True, defer_build=True, protected_namespaces=())

    _wire_keys: tuple[str, ...] | None = PrivateAttr(default=None)
    _wire_layout: Layout | None = PrivateAttr(default=None)

    @model_validator(mode="wrap")
    @classmethod
    def _record_keys(
        cls, data: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
    ) -> Any:
        if (
            info.context is READING
            and isinstance(data, dict)
            and "type" in cls.model_fields
            and "type" not in data
        ):
            raise ValueError("missing required key 'type'")
        model = handler(data)
        if info.context is READING and isinstance(data, dict) and isinstance(model, OtelModel):
            model._wire_keys = tuple(data)
        return model

    def wire_keys(self) -> tuple[str, ...] | None:
        """The keys the object had when read, in their order (None: built in code)."""
        return self._wire_keys

    def wire_layout(self) -> Layout | None:
        """How the document this object heads was written (None: not read, or not its head)."""
        return self._wire_layout

    def set_wire_layout(self, layout: Layout | None) -> None:
        self._wire_layout = layout


class UnknownSystemInstructionPartBase(OtelModel):
    """A system instruction part whose ``type`` is anything but ``text`` (a text part must have
    its ``content``: it is a ``TextPart`` or nothing)."""

    @model_validator(mode="after")
    def _not_text(self) -> UnknownSystemInstructionPartBase:
        if getattr(self, "type", None) == "text":
            raise ValueError("a part of type 'text' must be a TextPart (a string content)")
        return self
