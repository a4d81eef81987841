"""The digest of the sources a fast-path expression is made from (phi_wire's own Python files and
the version's models), part of every cached and shipped entry's key; read from the installer's
record when that record still describes the files, so that a wheel's first ``loads`` reads no
source file.

Wire fact it rests on: an installed wheel has a ``RECORD`` (PEP 376/627) that the installer writes
last, naming each file it wrote with the SHA-256 and size of what it wrote. The digest is a
SHA-256 over each source's name inside its package and its content's SHA-256, so it can be made
two ways that give the same bytes:

- from ``RECORD`` (``_recorded``), when every source it lists still has its recorded size and
  has not been written since ``RECORD`` was (its mtime is not later than ``RECORD``'s), and
  every folder holding a source has not been written since either, or still holds just the
  names ``RECORD`` lists in it (a ``__pycache__`` aside: made by the first import when the
  installer wrote no bytecode). Writing a file sets its mtime to the time of writing, so
  a source edited after the installation, or a source added to or removed from a folder, makes
  this way refuse. What it cannot see (a file rewritten at the same size with its old mtime put
  back by hand) is what CPython's own bytecode check cannot see either: the installer's ``.pyc``,
  validated by the source's mtime and size, would then still run the recorded code;
- by reading every source (``_read``): in a source tree, an editable install, an installer that
  left no ``RECORD``, or whenever the first way refuses. It never gives a different digest for
  the same files: the record's way gives up rather than guess.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib.util
import io
import os
import stat
from pathlib import Path
from typing import NamedTuple

from phi_wire import __version__
from phi_wire.formats import VERSIONS, find

from ._probes import HOME_FORMAT

__all__ = ["recorded_unchanged", "sources_digest"]

_PACKAGE = "phi_wire"
_DISTRIBUTION = f"{_PACKAGE}-{__version__}.dist-info"
_RECORD_LIMIT = 4 * 1024 * 1024
"""The largest ``RECORD`` read (the wheel's is about 50 kB): a bigger one is not looked at."""

_READ: dict[tuple[str, str], tuple[tuple[tuple[str, int, int], ...], bytes]] = {}


def _package_folder(name: str) -> Path:
    spec = importlib.util.find_spec(name)  # finds, does not import
    if spec is None or spec.origin is None:
        raise ImportError(name)
    return Path(spec.origin).parent


def _skipped() -> frozenset[str]:
    """The folders of phi_wire that are not its own sources: the version packages and schemas a
    wheel puts inside it."""
    return frozenset(
        entry.module.split(".")[1] for entry in VERSIONS if entry.module.startswith(_PACKAGE + ".")
    ) | {"schemas"}


def _roots(version: str, format: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """(package, its top-level folders left out) of the sources: phi_wire's own, the models."""
    return ((_PACKAGE, _skipped()), (find(version, format).module, frozenset()))


def _digest(named: list[tuple[str, bytes]]) -> bytes:
    """The sources' digest from (name inside its package, SHA-256 of its content), in any order."""
    digest = hashlib.sha256(b"phi-wire sources 2\0")
    for name, content_digest in sorted(named):
        digest.update(f"{name}\0".encode())
        digest.update(content_digest)
    return digest.digest()


def sources_digest(version: str, format: str = HOME_FORMAT) -> bytes:
    """The digest of phi_wire's sources and of the version's models, each file named by its place
    in its package (so that an entry made in a source tree holds in the wheel built from it)."""
    recorded = _recorded(version, format)
    return recorded if recorded is not None else _read(version, format)


def _sources(version: str, format: str) -> list[tuple[str, Path]]:
    """(name inside its package, path) of every source, found by listing the folders."""
    found: list[tuple[str, Path]] = []
    for package, skipped in _roots(version, format):
        folder = _package_folder(package)
        for path in sorted(folder.rglob("*.py")):
            name = path.relative_to(folder).as_posix()
            if name.split("/", 1)[0] not in skipped:
                found.append((f"{package}/{name}", path))
    return found


def _read(version: str, format: str) -> bytes:
    """The digest made by reading every source, read again only when a file's name, size or time
    changed (``loads`` asks once per wire type it meets)."""
    sources = _sources(version, format)
    identity = tuple(
        (str(path), status.st_size, status.st_mtime_ns)
        for _, path in sources
        for status in [path.stat()]
    )
    known = _READ.get((format, version))
    if known is not None and known[0] == identity:
        return known[1]
    digest = _digest([(name, hashlib.sha256(path.read_bytes()).digest()) for name, path in sources])
    _READ[format, version] = (identity, digest)
    return digest


class _Record(NamedTuple):
    """The installation's ``RECORD``, read once per process (while the file stays the same)."""

    base: Path
    """The folder its paths are relative to (site-packages)."""
    written: int
    """Its mtime: no file it vouches for was written after."""
    rows: tuple[tuple[str, str, str], ...]
    """(path, hash, size) of each file it lists."""


_RECORDS: dict[tuple[str, int, int, int], _Record] = {}


def _record() -> _Record | None:
    """The ``RECORD`` of the installed ``phi_wire``; None when there is none (a source tree, an
    editable install) or it is no regular file of a sane size."""
    own = _package_folder(_PACKAGE)
    record = own.parent / _DISTRIBUTION / "RECORD"
    status = os.stat(record)
    if not stat.S_ISREG(status.st_mode) or status.st_size > _RECORD_LIMIT:
        return None
    identity = (str(record), status.st_ino, status.st_size, status.st_mtime_ns)
    known = _RECORDS.get(identity)
    if known is None:
        with open(record, "rb") as stream:
            text = stream.read(_RECORD_LIMIT + 1).decode("utf-8")
        rows = _rows(text)
        known = _RECORDS[identity] = _Record(own.parent, status.st_mtime_ns, rows)
    return known


def _rows(text: str) -> tuple[tuple[str, str, str], ...]:
    """The (path, hash, size) rows of a ``RECORD``'s text, as the csv module reads them. Without
    a quote, a carriage return or a NUL (an installer quotes a path holding a comma or a line
    break), its lines split at commas are those rows: half the time of a first ``loads``' parse
    (0.3 of 0.6 ms)."""
    if '"' in text or "\r" in text or "\0" in text:
        reader = csv.reader(io.StringIO(text))
        return tuple((row[0], row[1], row[2]) for row in reader if len(row) == 3)
    split = (line.split(",") for line in text.split("\n"))
    return tuple((row[0], row[1], row[2]) for row in split if len(row) == 3)


def recorded_unchanged(path: Path) -> bool:
    """Whether the installation's ``RECORD`` lists ``path`` with its SHA-256 and size, and the
    file is still as the installer wrote it: a regular file of that size, not written since the
    record was (the rule ``_recorded`` holds the sources to, with its one blind spot)."""
    try:
        record = _record()
        if record is None:
            return False
        relative = path.relative_to(record.base).as_posix()
        listed = next((row for row in record.rows if row[0] == relative), None)
        if listed is None or not listed[1].startswith("sha256="):
            return False
        status = os.stat(path, follow_symlinks=False)
    except (OSError, ImportError, ValueError, UnicodeDecodeError, csv.Error):
        return False
    return (
        stat.S_ISREG(status.st_mode)
        and str(status.st_size) == listed[2]
        and status.st_mtime_ns <= record.written
    )


def _recorded(version: str, format: str) -> bytes | None:
    """The digest from the installation's ``RECORD``, or None when there is none, or it does not
    vouch for every source as it is now (then the sources are read)."""
    try:
        record = _record()
        if record is None:
            return None
        own = _package_folder(_PACKAGE)
        prefixes: list[tuple[str, str, frozenset[str]]] = []
        for package, skipped in _roots(version, format):
            folder = _package_folder(package)
            if folder != own and own not in folder.parents:
                return None  # models installed elsewhere: not this RECORD's to vouch for
            place = folder.relative_to(record.base).as_posix() + "/"
            prefixes.append((place, package, skipped))
        return _from_record(record, prefixes)
    except (OSError, ImportError, ValueError, UnicodeDecodeError, csv.Error):
        return None


def _from_record(record: _Record, prefixes: list[tuple[str, str, frozenset[str]]]) -> bytes | None:
    """The digest of the sources ``record`` lists, when each one is as the record left it and no
    file was added to or removed from their folders since."""
    base = os.fspath(record.base)
    named: list[tuple[str, bytes]] = []
    folders: set[str] = set()
    for path, hashed, size in record.rows:
        for place, package, skipped in prefixes:
            if not path.startswith(place):
                continue
            name = path[len(place) :]
            if name.split("/", 1)[0] in skipped:
                continue
            if not name.endswith(".py"):
                break
            if not hashed.startswith("sha256="):
                return None
            content_digest = base64.urlsafe_b64decode(hashed[7:] + "=" * (-len(hashed[7:]) % 4))
            status = os.stat(os.path.join(base, path), follow_symlinks=False)
            if (
                len(content_digest) != 32
                or not stat.S_ISREG(status.st_mode)
                or status.st_size != int(size)
                or status.st_mtime_ns > record.written
            ):
                return None
            named.append((f"{package}/{name}", content_digest))
            folders.add(path.rpartition("/")[0])
    if not named:
        return None
    for folder in folders:
        if not _as_recorded(record, folder):
            return None
    return _digest(named)


def _as_recorded(record: _Record, folder: str) -> bool:
    """Whether ``folder`` holds what the record lists in it: unchanged since (its mtime), or
    changed only by a ``__pycache__`` made after (an installation without bytecode)."""
    place = os.path.join(os.fspath(record.base), folder)
    if os.stat(place, follow_symlinks=False).st_mtime_ns <= record.written:
        return True
    inside = folder + "/"
    listed = {
        path[len(inside) :].split("/", 1)[0]
        for path, _, _ in record.rows
        if path.startswith(inside)
    }
    return set(os.listdir(place)) - {"__pycache__"} == listed - {"__pycache__"}
