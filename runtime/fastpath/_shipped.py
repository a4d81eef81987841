"""Compiled expressions shipped inside the package, made when the wheel is built, so that a fresh
installation's first ``loads`` has its fast path without compiling (a second of pure-Python ``re``
per type).

CPython's engine runs the code it compiled as it is, for the interpreter whose ``_sre.MAGIC`` and
code word size made it. The wheel is built once (``tools/stage_package.py --ship``, which
``make wheel`` runs) for the build's interpreter, so an entry serves that Python only: on any other
one its key differs and the expression is compiled as before (``_cache``).

An entry here is the cache's own form (``_cache.encode_entry``) and is judged by the cache's own
check (``_cache.checked_entry``: form, SHA-256, key, the engine's acceptance, the probes): a
forged, damaged or mismatched entry is ignored. One that the installer's ``RECORD`` vouches for
(listed with its SHA-256 and size, that size still, not written since the record: ``_sources``'
rule for the sources themselves) is trusted as phi_wire's own code is, being as much part of the
wheel: its SHA-256 and probes are not run (they guard what another hand wrote, which a partial
write or an edit after the installation would be, and the record's rule catches both), its form,
key and the engine's acceptance are. Its key must hold on another
machine, so it digests what the expression is made from without anything of the installation
(no file times, no paths): the interpreter's version and engine, pydantic's and pydantic-core's
versions, the types, and the sources of ``phi_wire`` and of the version's models by their names
inside the package (``_sources``: the same in a source tree and in a wheel; in a wheel, read
from the installer's ``RECORD`` rather than from the files, while that still describes them).

``PHI_WIRE_SHIPPED_EXPRESSIONS=0`` leaves the shipped entries unused (the tests of building do).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import sys
from collections.abc import Sequence
from pathlib import Path

from ._cache import (
    MAX_CODE_BYTES,
    MAX_ENTRY_BYTES,
    Engine,
    _engine,
    checked_entry,
    compiled_code,
    encode_entry,
)
from ._probes import HOME_FORMAT
from ._sources import recorded_unchanged, sources_digest

__all__ = ["FOLDER", "SHIPPED", "enabled", "load_shipped", "shipped_name", "write_shipped"]

FOLDER = Path(__file__).resolve().parent / "shipped-expressions"
"""Where the entries lie (package data; a folder that no code imports)."""

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)

SHIPPED: tuple[tuple[str, str], ...] = (("0.8", "AgentEvent"), ("0.10", "AgentEvent"))
"""The ``loads`` expressions (phi-core, exact values) a wheel ships: (version, type)."""


def enabled() -> bool:
    return os.environ.get("PHI_WIRE_SHIPPED_EXPRESSIONS", "1") != "0"


def shipped_key(
    version: str,
    types: Sequence[str],
    detect: bool,
    exact_values: bool,
    engine: Engine,
    format: str = HOME_FORMAT,
) -> bytes:
    """The key of a shipped entry: all the expression and its code are made from."""
    import pydantic
    import pydantic_core

    digest = hashlib.sha256(b"phi-wire shipped expression 1\0")
    for part in (
        sys.implementation.name,
        sys.implementation.cache_tag,
        ".".join(map(str, sys.version_info[:3])),
        sys.byteorder,
        engine.magic,
        engine.codesize,
        pydantic.VERSION,
        pydantic_core.__version__,
        version,
        ",".join(types),
        detect,
        exact_values,
        format,
    ):
        digest.update(f"{part}\0".encode())
    digest.update(sources_digest(version, format))
    return digest.digest()


def shipped_name(
    version: str, types: Sequence[str], detect: bool, exact_values: bool, format: str = HOME_FORMAT
) -> str | None:
    """The file name of the entry for these types on this interpreter (None: no engine)."""
    engine = _engine()
    if engine is None:
        return None
    key = shipped_key(version, types, detect, exact_values, engine, format)
    return f"fast-{key.hex()}.bin"


def load_shipped(
    version: str, types: Sequence[str], detect: bool, exact_values: bool, format: str = HOME_FORMAT
) -> re.Pattern[bytes] | None:
    """The shipped expression for these types, when one is there for this interpreter and passes
    every check of a cached one; else None."""
    if not enabled() or exact_values is not True or detect or format != HOME_FORMAT:
        return None
    if len(types) != 1 or (version, types[0]) not in SHIPPED:
        return None  # (none shipped: no need to import pydantic for its version)
    try:
        if not FOLDER.is_dir():  # a source tree, or a wheel made without: nothing to read
            return None
        name = shipped_name(version, types, detect, exact_values, format)
        if name is None:
            return None
        path = FOLDER / name
        data = _read(path)
    except OSError:  # none for this interpreter, or unreadable: compile as before
        return None
    if data is None:
        return None
    recorded = recorded_unchanged(path)
    return checked_entry(data, bytes.fromhex(name[5:-4]), version, types, format, recorded)


def _read(path: Path) -> bytes | None:
    """The entry's bytes; None when it is no regular file (never waiting on a FIFO) or is bigger
    than an entry can be (refused before anything is allocated)."""
    descriptor = os.open(path, os.O_RDONLY | _NONBLOCK | _CLOEXEC)
    with open(descriptor, "rb", closefd=True) as entry:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_ENTRY_BYTES:
            return None
        data = entry.read(status.st_size + 1)  # (not a bigger buffer: 16 MB, then shrunk)
    return data if len(data) <= MAX_ENTRY_BYTES else None


def write_shipped(folder: Path) -> list[Path]:
    """Build every ``SHIPPED`` expression for this interpreter into ``folder`` (replacing what it
    held); the files written."""
    from ._pattern import build_pattern  # imports pydantic and the models

    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("fast-*.bin"):
        old.unlink()
    written: list[Path] = []
    for version, name in SHIPPED:
        pattern = build_pattern(version, [name], None, True, HOME_FORMAT)
        made = compiled_code(pattern) if pattern else None
        entry_name = shipped_name(version, [name], False, True)
        if made is None or entry_name is None or len(made.code) > MAX_CODE_BYTES:
            continue  # this interpreter cannot keep code: nothing shipped for it
        path = folder / entry_name
        path.write_bytes(encode_entry(path, made.flags, made.groups, made.code))
        written.append(path)
    return written
