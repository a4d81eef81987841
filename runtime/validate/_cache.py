"""The fast path's compiled expression, cached on disk between runs.

Compiling the expression (some 100 kB) takes the re module about a second; the code it compiles
to is cached per Python build, so later runs load it in milliseconds. The cache key covers
everything the expression is made from: phi_wire's sources, the generated models of the version,
pydantic's version and the interpreter's regular-expression engine.
"""

from __future__ import annotations

import array
import hashlib
import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from phi_wire.formats import find

__all__ = ["cache_path", "compile_cached", "inexpressible", "load_cached", "mark_inexpressible"]


def _engine() -> Any:
    """CPython's regular-expression engine (``re.compile`` is its parser and compiler)."""
    return importlib.import_module("_sre")


def _cache_dir() -> Path | None:
    configured = os.environ.get("PHI_WIRE_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None  # empty: no cache
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except (RuntimeError, KeyError):  # no home folder: no cache
            return None
    return Path(base) / "phi-wire"


def _package_folder(name: str) -> Path:
    spec = importlib.util.find_spec(name)  # finds, does not import
    if spec is None or spec.origin is None:
        raise ImportError(name)
    return Path(spec.origin).parent


def _installed(name: str) -> str:
    """An installed package's identity without importing it (importing pydantic costs start-up
    time that a cached run would otherwise not pay): its top-level files, sizes and times."""
    return ",".join(
        f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}"
        for path in sorted(_package_folder(name).iterdir())
        if path.is_file()
        for stat in [path.stat()]
    )


def _fingerprint(version: str, types: Sequence[str], detect: bool) -> str:
    _sre = _engine()
    digest = hashlib.sha256()
    for part in (
        sys.version,
        _sre.MAGIC,
        _sre.CODESIZE,
        _installed("pydantic"),
        _installed("pydantic_core"),
    ):
        digest.update(f"{part}\0".encode())
    digest.update(f"{version}\0{','.join(types)}\0{detect}\0".encode())
    sources = sorted(_package_folder("phi_wire").rglob("*.py"))
    sources += sorted(_package_folder(find(version).module).glob("*.py"))
    for source in sources:
        digest.update(source.read_bytes())
    return digest.hexdigest()[:32]


_MAGIC = b"phi-wire fast path 1\n"


def load_cached(path: Path) -> re.Pattern[bytes] | None:
    """The compiled expression kept in ``path``, or None."""
    _sre = _engine()

    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(_MAGIC):
        return None
    header, _, body = data[len(_MAGIC) :].partition(b"\n")
    try:
        flags, groups = (int(item) for item in header.split())
        code = array.array("I" if _sre.CODESIZE == 4 else "H")
        code.frombytes(body)
        compiled: re.Pattern[bytes] = _sre.compile(
            None, flags, code.tolist(), groups - 1, {}, (None,) * groups
        )
    except (ValueError, TypeError, RuntimeError, OverflowError):
        return None  # another layout: compile afresh
    return compiled


def compile_cached(pattern: bytes, path: Path | None) -> re.Pattern[bytes]:
    """``re.compile(pattern)``, keeping the compiled code in ``path`` for later runs."""
    _sre = _engine()

    try:
        from re import _compiler, _parser  # type: ignore[attr-defined]

        tree = _parser.parse(pattern, 0)
        code = _compiler._code(tree, 0)
        groups = tree.state.groups
        compiled: re.Pattern[bytes] = _sre.compile(
            pattern, tree.state.flags, code, groups - 1, {}, (None,) * groups
        )
    except (ImportError, AttributeError, TypeError):  # another interpreter: no cache
        return re.compile(pattern)
    if path is not None:
        body = array.array("I" if _sre.CODESIZE == 4 else "H", code).tobytes()
        _write(path, _MAGIC + f"{tree.state.flags} {groups}\n".encode() + body)
    return compiled


def _write(path: Path, data: bytes) -> None:
    """Write through a temporary file and a rename; a cache that cannot be written is skipped."""
    import tempfile  # only here: a run that loads the cache does not pay for its import

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".tmp-", delete=False) as out:
            out.write(data)
        os.replace(out.name, path)
    except OSError:
        pass


def cache_path(version: str, types: Sequence[str], detect: bool) -> Path | None:
    """Where the expression for these types is kept (None: no cache)."""
    folder = _cache_dir()
    if folder is None:
        return None
    return folder / f"fast-{_fingerprint(version, types, detect)}.bin"


def inexpressible(path: Path) -> bool:
    """Whether an earlier run found that no type can be expressed (so no expression exists)."""
    return path.with_suffix(".none").exists()


def mark_inexpressible(path: Path) -> None:
    _write(path.with_suffix(".none"), b"")
