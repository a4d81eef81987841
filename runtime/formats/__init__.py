"""The registry of the wire formats and versions phi-wire speaks: the one list that the package,
the command line, tools/codegen and the tests read.

Each format phi-wire knows has a folder here (``FOLDERS``: ``phi_wire.formats.<format>``) holding
everything phi-wire knows of that implementation beyond its schemas and generated models: its
recogniser (``recognise``: ``claim(document)``, and what else ``phi_wire.recognise`` asks of it),
for a format phi-wire speaks other than phi-core its converter to and from phi-core, the hub
(``convert``: ``to_phi_core``, ``from_phi_core``), its serde or pydantic facts and its public API
module's template (``api.py.tmpl``, read by ``tools/codegen``). ``RECOGNITION_ORDER`` is the
order their claims are weighed in. ``recogniser(format)`` and ``converter(format)`` import a
folder's module on first use.

Each entry is one version of one implementation's JSON. From it follow its schema folder
(``schemas/<format>/<version>/``), its generated Python package
(``generated/python/<format>/<version>/``, which *is* the public module, e.g. ``phi_wire.v0_8``:
pyproject's ``package-dir`` maps one to the other) and its TypeScript folder
(``generated/typescript/<format>/<version>/``). Adding a version is one line here, one in
pyproject's ``package-dir``/``packages`` (a test checks both agree), a schema folder and
``tools/codegen``.

This module must stay cheap to import: the command line reads it before it knows whether any
model is needed.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, NamedTuple

__all__ = [
    "FOLDERS",
    "FORMATS",
    "HUB",
    "RECOGNITION_ORDER",
    "VERSIONS",
    "UnknownVersion",
    "WireVersion",
    "converter",
    "find",
    "newest",
    "recogniser",
    "version_elsewhere",
    "version_of",
    "versions",
]


class WireVersion(NamedTuple):
    """One version of one wire format."""

    format: str
    """The implementation whose JSON this is: ``"phi-core"``."""
    version: str
    """``<major>.<minor>``: wire formats change only with minor releases; or, for an
    implementation without releases (Operator-Use), the short hash of the commit whose code
    wrote the layout (``d0da87a6``)."""
    module: str
    """The public module that speaks it (types, ``loads``, ``dumps``, ``schema``)."""

    @property
    def folder(self) -> str:
        """``<format>/<version>``: under ``schemas/``, ``generated/python/`` and
        ``generated/typescript/``."""
        return f"{self.format}/{self.version}"

    @property
    def label(self) -> str:
        """How messages name it: ``phi-core 0.10``."""
        return f"{self.format} {self.version}"

    def load(self) -> ModuleType:
        """The public module (importing it builds no validator: that happens on first use)."""
        return importlib.import_module(self.module)


VERSIONS: tuple[WireVersion, ...] = (
    WireVersion("phi-core", "0.8", "phi_wire.v0_8"),
    WireVersion("phi-core", "0.10", "phi_wire.v0_10"),
    WireVersion("clark-agent", "0.4", "phi_wire.clark_agent"),
    # Operator-Use has no releases: a layout is named by the commit whose code wrote it. Its
    # public module phi_wire.operator_use writes d0da87a6 and reads both (docs/operator-use.md).
    WireVersion("operator-use", "d0da87a6", "phi_wire.operator_use"),
    WireVersion("operator-use", "d1cdaad8", "phi_wire.operator_use_d1cdaad8"),
    # OpenTelemetry GenAI's message documents: the conventions' schemas as of 2026-05 (the last
    # before they moved to semantic-conventions-genai) and the newest stored there, named by the
    # commit of its message schemas; phi_wire.otel_genai is the newest (docs/otel-genai.md).
    WireVersion("otel-genai", "2026-05", "phi_wire.otel_genai_2026_05"),
    WireVersion("otel-genai", "2b902ce1", "phi_wire.otel_genai_2b902ce1"),
    # pi's two lines: @mariozechner/pi-* 0.73 and @earendil-works/pi-* 1.5; phi_wire.pi is the
    # newest (docs/pi.md)
    WireVersion("pi", "0.73", "phi_wire.pi_0_73"),
    WireVersion("pi", "1.5", "phi_wire.pi_1_5"),
)
"""Every supported version, oldest first within each format."""

FORMATS: tuple[str, ...] = tuple(dict.fromkeys(entry.format for entry in VERSIONS))
"""The formats phi-wire speaks (reads, writes, converts), in the order of ``VERSIONS``."""

FOLDERS: dict[str, str] = {
    "phi-core": "phi_wire.formats.phi_core",
    "operator-use": "phi_wire.formats.operator_use",
    "clark-agent": "phi_wire.formats.clark_agent",
    "otel-genai": "phi_wire.formats.otel_genai",
    "pi": "phi_wire.formats.pi",
    # named only (recognised, so that its files are not judged as another format's)
    "yoagent": "phi_wire.formats.yoagent",
}
"""Every format's folder: the formats spoken (``FORMATS``) and those only recognised."""

RECOGNITION_ORDER: tuple[str, ...] = tuple(FOLDERS)
"""The order recognition weighs the formats' claims in (``phi_wire.recognise`` says why)."""


class UnknownVersion(ValueError):
    """A format or version phi-wire does not speak; the message lists what it does."""


def versions(format: str = "phi-core") -> tuple[WireVersion, ...]:
    """The versions of ``format``, oldest first."""
    found = tuple(entry for entry in VERSIONS if entry.format == format)
    if not found:
        raise UnknownVersion(f"unknown format {format!r}; choose one of {', '.join(FORMATS)}")
    return found


def newest(format: str = "phi-core") -> WireVersion:
    return versions(format)[-1]


def find(version: str, format: str = "phi-core") -> WireVersion:
    """The entry for ``version`` as people write it: ``0.10``, ``0.10.0``, ``0.10.3`` or ``v0.10``
    (a release's wire format is its minor version's); a layout named by a commit: its short hash
    or any longer prefix (``d1cdaad8``, ``d1cdaad8b6``). ``UnknownVersion`` otherwise, naming the
    format the version belongs to when it is another's."""
    found = _matching(version, versions(format))
    if found is not None:
        return found
    choices = ", ".join(entry.version for entry in versions(format))
    message = f"unknown {format} version {version!r}; choose one of {choices}"
    elsewhere = version_elsewhere(version, format)
    if elsewhere is not None:
        message += f" ({version!r} is a version of {elsewhere.format}, not of {format})"
    raise UnknownVersion(message)


def version_elsewhere(version: str, format: str) -> WireVersion | None:
    """The entry of a format other than ``format`` that ``version`` names (None: none does), to
    say whose version a misplaced ``--version`` is."""
    return _matching(version, tuple(entry for entry in VERSIONS if entry.format != format))


def _matching(version: str, known: tuple[WireVersion, ...]) -> WireVersion | None:
    commit = version.strip().lower()
    for entry in known:
        if "." not in entry.version and len(commit) <= 40 and commit.startswith(entry.version):
            return entry
    parts = version.strip().removeprefix("v").split(".")
    if len(parts) in (2, 3) and all(part.isascii() and part.isdecimal() for part in parts):
        minor = f"{int(parts[0])}.{int(parts[1])}"
        for entry in known:
            if entry.version == minor:
                return entry
    return None


def recogniser(format: str) -> ModuleType:
    """The recogniser of ``format`` (its folder's ``recognise`` module)."""
    return importlib.import_module(f"{_folder(format)}.recognise")


def converter(format: str) -> ModuleType:
    """The converter between ``format`` and phi-core (its folder's ``convert`` module);
    ``UnknownVersion`` for a format phi-wire does not speak, or phi-core itself."""
    if format not in FORMATS or format == HUB:
        raise UnknownVersion(f"{format!r} has no converter to and from {HUB}")
    return importlib.import_module(f"{_folder(format)}.convert")


HUB = "phi-core"
"""The format every conversion goes through."""


def _folder(format: str) -> str:
    folder = FOLDERS.get(format)
    if folder is None:
        raise UnknownVersion(f"unknown format {format!r}; known: {', '.join(FOLDERS)}")
    return folder


def version_of(tp: Any) -> WireVersion | None:
    """The version whose generated module defines the class ``tp`` (or the class of ``tp``)."""
    cls = tp if isinstance(tp, type) else type(tp)
    module = getattr(cls, "__module__", "")
    for entry in VERSIONS:
        if module == entry.module or module.startswith(entry.module + "."):
            return entry
    return None
