"""The fast path's compiled expression, cached on disk between runs, where no content can change a
verdict.

Compiling the expression (200-500 kB) takes the re module about a second; CPython's engine
(``_sre``) accepts the code it compiles to as it is, so a later run loads that code in
milliseconds. What keeps this safe:

- Where: a private folder (``_private``): 0700, this user's, checked on its open descriptor, its
  entries opened without following links and checked likewise. Another user can neither write an
  entry nor put a folder of theirs in its place; such a folder is refused, never trusted.
- What: an entry carries its key (see below), the expression's flags, group count, code word size
  and code length, the code, and a SHA-256 over all of that. The digest catches corruption,
  partial writes and edits by tools that do not recompute it; the key catches an entry moved to
  another's name. The header's values are bounded before anything is allocated (one group, as an
  is not read) and ``_sre.compile`` checks the code's structure itself.
- What it does: before use, a loaded expression must match a few real documents of its types and
  no byte of texts that are no document of them: texts no JSON document starts with, and
  near-misses of real documents (an unknown tag, a value of the wrong kind in a variant, a key
  left out, ``{"type":"TurnStarx","nonsense":1}``): see ``_probes``. That stops a gross or near
  replacement, such as ``(?s).*``, ``\\{(?s:.)*`` or a variant whose fields take anything, and the
  expression of other types, even with a recomputed digest; not a forger who knows the probes.
- Anything wrong: the entry is ignored and the expression rebuilt (when the input is worth it),
  never trusted, never an error.
- Not CPython, or an engine without ``MAGIC``/``CODESIZE``/``compile``, or a re module without
  its parser and compiler or with other signatures: ``re.compile``, and no cache.

What the digest and the probes do not do: stop whoever can write a 0700 folder this user owns
and means to. That is this user (or root), who could as well edit phi_wire's sources; a keyed
digest (HMAC) would not stop them either, its key lying in the same folder. Hence a plain
SHA-256, and the folder's checks as the protection against everyone else.

The key digests everything the expression is made from: phi_wire's sources, the version's
generated models, pydantic's and pydantic-core's files, the types, the interpreter and its engine.
It cannot digest the expression itself: making it imports pydantic and the models (a third of a
second), which a cached run exists to avoid.
"""

from __future__ import annotations

import array
import hashlib
import importlib
import importlib.util
import os
import re
import struct
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from ._private import PrivateFolder
from ._probes import HOME_FORMAT, probes_for, sound
from ._sources import sources_digest

__all__ = [
    "MAX_CODE_BYTES",
    "MAX_ENTRY_BYTES",
    "CompiledCode",
    "Engine",
    "cache_path",
    "checked_entry",
    "compile_cached",
    "compiled_code",
    "encode_entry",
    "inexpressible",
    "load_cached",
    "mark_inexpressible",
    "sources_digest",
]

MAX_CODE_BYTES = 16 * 1024 * 1024
"""The largest code an entry may hold (the biggest expression today, pi 1.5's for event files,
with the RPC responses, compiles to 8.4 MB; phi-core 0.10's Session to 1.9 MB). A bigger one is
compiled each run, never cached."""

_MAGIC = b"phi-wire fast path 2\n"
_HEADER = struct.Struct("<32sIIBQ")  # key, flags, groups, code word size, code length in bytes
_DIGEST_BYTES = 32
MAX_ENTRY_BYTES = len(_MAGIC) + _HEADER.size + MAX_CODE_BYTES + _DIGEST_BYTES
_FLAGS_LIMIT = 1 << 9  # re's flags all lie below (ASCII is 256)


class Engine(NamedTuple):
    """What the cache needs of CPython's regular-expression engine and of the re module."""

    compile: Callable[..., re.Pattern[bytes]]
    """``_sre.compile(pattern, flags, code, groups - 1, groupindex, indexgroup)``"""
    parse: Callable[[bytes, int], Any]
    """``re._parser.parse``"""
    code: Callable[[Any, int], list[int]]
    """``re._compiler._code``"""
    magic: int
    codesize: int
    typecode: str
    """The array type code of a code word."""


def _engine() -> Engine | None:
    """CPython's engine and the re module's parser and compiler; None on another interpreter or
    when any of them is missing."""
    if sys.implementation.name != "cpython":
        return None
    try:
        sre = importlib.import_module("_sre")
        parser = importlib.import_module("re._parser")
        compiler = importlib.import_module("re._compiler")
        magic, codesize = int(sre.MAGIC), int(sre.CODESIZE)
        typecode = next(code for code in "HIL" if array.array(code).itemsize == codesize)
        return Engine(sre.compile, parser.parse, compiler._code, magic, codesize, typecode)
    except (ImportError, AttributeError, TypeError, ValueError, StopIteration):
        return None


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


def _fingerprint(
    version: str,
    types: Sequence[str],
    detect: bool,
    exact_values: bool,
    engine: Engine,
    format: str = HOME_FORMAT,
) -> bytes:
    """The key of the expression for these types: the digest of all it is made from."""
    digest = hashlib.sha256()
    for part in (
        sys.version,
        sys.implementation.cache_tag,
        sys.platform,
        sys.byteorder,
        engine.magic,
        engine.codesize,
        _installed("pydantic"),
        _installed("pydantic_core"),
    ):
        digest.update(f"{part}\0".encode())
    digest.update(f"{version}\0{','.join(types)}\0{detect}\0".encode())
    if exact_values:  # (absent for the validator's expressions: their keys stay as they were)
        digest.update(b"exact values\0")
    if format != HOME_FORMAT:  # (absent for phi-core's: their keys stay as they were)
        digest.update(f"format {format}\0".encode())
    digest.update(sources_digest(version, format))
    return digest.digest()


def cache_path(
    version: str,
    types: Sequence[str],
    detect: bool,
    exact_values: bool = False,
    format: str = HOME_FORMAT,
) -> Path | None:
    """Where the expression for these types is kept (None: no cache, for want of a folder or of
    CPython's engine)."""
    folder = _cache_dir()
    engine = _engine()
    if folder is None or engine is None:
        return None
    key = _fingerprint(version, types, detect, exact_values, engine, format)
    return folder / f"fast-{key.hex()}.bin"


def _key_of(path: Path) -> bytes | None:
    try:
        return bytes.fromhex(path.stem.removeprefix("fast-"))
    except ValueError:
        return None


def encode_entry(path: Path, flags: int, groups: int, code: bytes) -> bytes:
    """The content of the entry at ``path`` for this compiled code (of native code words)."""
    key = _key_of(path)
    engine = _engine()
    if key is None or engine is None:
        raise ValueError(f"not an entry of the cache: {path}")
    body = _MAGIC + _HEADER.pack(key, flags, groups, engine.codesize, len(code)) + code
    return body + hashlib.sha256(body).digest()


def _decode(
    data: bytes, key: bytes, engine: Engine, recorded: bool = False
) -> tuple[int, array.array[int]] | None:
    """The flags and code of an entry, or None when anything about it is wrong (``recorded``:
    its digest is not computed, see ``checked_entry``)."""
    head = len(_MAGIC) + _HEADER.size
    if len(data) < head + _DIGEST_BYTES or not data.startswith(_MAGIC):
        return None
    view = memoryview(data)
    body = view[: len(data) - _DIGEST_BYTES]
    if not recorded and hashlib.sha256(body).digest() != data[len(body) :]:
        return None
    stored_key, flags, groups, codesize, length = _HEADER.unpack_from(data, len(_MAGIC))
    if (
        stored_key != key
        or groups != 1
        or not 0 <= flags < _FLAGS_LIMIT
        or codesize != engine.codesize
        or length != len(body) - head
        or length > MAX_CODE_BYTES
        or length % codesize
    ):
        return None
    code = array.array(engine.typecode)
    code.frombytes(body[head:])
    return flags, code


def load_cached(
    path: Path, version: str, types: Sequence[str], format: str = HOME_FORMAT
) -> re.Pattern[bytes] | None:
    """The compiled expression kept in ``path`` for ``types`` of ``format``'s ``version``, or None
    (then it must be built)."""
    engine = _engine()
    key = _key_of(path)
    if engine is None or key is None:
        return None
    folder = PrivateFolder.open(path.parent, create=False)
    if folder is None:
        return None
    with folder:
        data = folder.read(path.name, MAX_ENTRY_BYTES)
    return None if data is None else checked_entry(data, key, version, types, format)


def checked_entry(
    data: bytes,
    key: bytes,
    version: str,
    types: Sequence[str],
    format: str = HOME_FORMAT,
    recorded: bool = False,
) -> re.Pattern[bytes] | None:
    """The expression an entry's bytes hold, when its form, digest and ``key`` are right, the
    engine takes its code and it passes the probes for ``types``; else None. Every entry, cached
    or shipped with the package (``_shipped``), is judged by this alone. ``recorded``: a shipped
    entry that the installation's ``RECORD`` vouches for as the installer wrote it (``_sources.
    recorded_unchanged``), as it vouches for phi_wire's own code: its digest and probes, which
    guard what another hand may have written, are not run (3-4 ms of a first ``loads``)."""
    engine = _engine()
    if engine is None:
        return None
    decoded = _decode(data, key, engine, recorded)
    if decoded is None:
        return None
    flags, code = decoded
    try:
        compiled = engine.compile(None, flags, code.tolist(), 0, {}, (None,))
    except Exception:  # the engine refuses the code (RuntimeError), or differs: rebuild
        return None
    if recorded:
        return compiled
    return compiled if sound(compiled, probes_for(version, types, format)) else None


class CompiledCode(NamedTuple):
    """An expression compiled the cache's way: the pattern, and what an entry keeps of it."""

    pattern: re.Pattern[bytes]
    flags: int
    groups: int
    code: bytes
    """The code words, native size and order."""


def compiled_code(pattern: bytes) -> CompiledCode | None:
    """``pattern`` compiled by the re module's parser and compiler, with the code an entry keeps;
    None where that cannot be done (another re module or engine), or the expression captures
    (it never does; if it ever did, no entry)."""
    engine = _engine()
    if engine is None:
        return None
    try:
        tree = engine.parse(pattern, 0)
        code = engine.code(tree, 0)
        flags, groups = int(tree.state.flags), int(tree.state.groups)
        if groups != 1:
            return None
        compiled = engine.compile(pattern, flags, code, 0, {}, (None,))
        body = array.array(engine.typecode, code).tobytes()
    except Exception:  # another re module or engine (other names or signatures): no cache
        return None
    return CompiledCode(compiled, flags, groups, body)


def compile_cached(pattern: bytes, path: Path | None) -> re.Pattern[bytes]:
    """``re.compile(pattern)``, keeping the compiled code in ``path`` for later runs."""
    made = compiled_code(pattern)
    if made is None:
        return re.compile(pattern)
    if path is not None and len(made.code) <= MAX_CODE_BYTES:
        folder = PrivateFolder.open(path.parent, create=True)
        if folder is not None:
            with folder:
                folder.write(path.name, encode_entry(path, made.flags, made.groups, made.code))
    return made.pattern


def _marker(path: Path) -> str:
    return path.with_suffix(".none").name


def inexpressible(path: Path) -> bool:
    """Whether an earlier run found that no type can be expressed (so no expression exists)."""
    folder = PrivateFolder.open(path.parent, create=False)
    if folder is None:
        return False
    with folder:
        return folder.read(_marker(path), 0) is not None


def mark_inexpressible(path: Path) -> None:
    folder = PrivateFolder.open(path.parent, create=True)
    if folder is not None:
        with folder:
            folder.write(_marker(path), b"")
