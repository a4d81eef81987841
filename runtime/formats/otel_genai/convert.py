"""The converters between OpenTelemetry GenAI's documents and phi-core, the hub: not written yet
(issue 23's second half, after the converters' redesign of issue 19). Until then each says so,
as ``phi_wire.convert`` says of a pair it has no converter for."""

from __future__ import annotations

from typing import Any, NoReturn

from phi_wire.convert import UnsupportedConversion

__all__ = ["from_phi_core", "to_phi_core"]


def to_phi_core(value: Any, *, name: str = "") -> NoReturn:
    raise UnsupportedConversion("no converter from otel-genai to phi-core yet (issue 23)")


def from_phi_core(value: Any, *, name: str = "") -> NoReturn:
    raise UnsupportedConversion("no converter from phi-core to otel-genai yet (issue 23)")
