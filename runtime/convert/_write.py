"""A converted file is written whole or not at all, where its name says, as the name says.

* Whole or not at all: the bytes go to a temporary file beside the target, flushed to disk, then
  renamed over it; a failure or an interrupt on the way removes the temporary file and leaves
  the target as it was. Every write's count is checked (``phi_wire.output.write_all``): a short
  write (a full disk, a file-size limit) is written again and fails, never taken for success.
* Where the name says: a symbolic link is written through, as a shell's ``>`` does (the
  temporary file goes beside the file the link points to, which is replaced; the link stays); a
  loop of links is an ``OSError`` (``ELOOP``), never a link silently replaced by a file.
* Its mode: a new file's permissions follow the umask (as any program's do: ``0644`` under
  ``umask 022``), not ``mkstemp``'s ``0600``; a file written over keeps its permission bits.
* As the name says: a name ending ``.gz`` is written gzip-compressed (a fixed header, no time
  or name in it: the same text gives the same bytes).
* A URL (``s3://bucket/out.jsonl``; the ``remote`` extra): the same bytes are written to a local
  temporary file, then uploaded whole or not at all (``phi_wire.remote.upload_atomically``: under
  a temporary key, copied to the final one, the temporary key deleted): no partial object is ever
  under the final name.
* A process killed mid-write leaves its temporary (never a partial file under the final name);
  a run given a ``tag`` puts it in every temporary's name, so that it can sweep its own
  (``phi_wire.dask``'s conversion does, when it ends), never a user's file.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
import zlib
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path
from types import TracebackType

from phi_wire import remote
from phi_wire.output import write_all

__all__ = ["AtomicFile", "resolved", "write_atomically"]

CHUNK_BYTES = 1024 * 1024
"""Bytes gathered before one write (fewer system calls for many small pieces of text)."""
_NEW_FILE_MODE = 0o666
"""What ``open`` asks for a new file; the umask takes its bits away (``0644`` under ``022``)."""
_GZIP = 31
"""zlib's ``wbits`` for a gzip stream (16 + the 15-bit window): header and trailer included."""


def resolved(path: str | os.PathLike[str]) -> Path:
    """The file ``path`` names, its symbolic links followed (a dangling link: the file it would
    create); ``OSError`` (``ELOOP``) for a loop of links, which no write can go through."""
    try:
        os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, "a loop of symbolic links", os.fspath(path)) from None
    return Path(os.path.realpath(path))


class AtomicFile:
    """A file written piece by piece, in place only once complete (``commit``); ``abort`` (or
    leaving the ``with`` block by an exception) removes what was written and leaves the target
    as it was. Text is written UTF-8, gzip-compressed when the name ends ``.gz``. A URL's file
    is written locally, then uploaded by ``commit`` (``path``: the URL, a ``str``)."""

    def __init__(self, path: str | os.PathLike[str], tag: str = "") -> None:
        self.path: Path | str = Path(path)
        self._tag = tag
        """The run's tag in the temporaries' names (``remote.temporary_name``): a run that
        sweeps what a killed process left finds its own by it."""
        self._url: str | None = None
        self._staging: str | None = None
        if remote.is_url(os.fspath(path)):
            self.path = self._url = os.fspath(path)
            remote.require(self._url)  # MissingExtra before anything is written
            self._staging = tempfile.mkdtemp(prefix=remote.staging_prefix(tag))
            self.target = Path(self._staging) / self._url.rpartition("/")[2]
        else:
            self.target = resolved(path)
        gzipped = _gzipped(Path(os.fspath(path).rpartition("/")[2]))
        self._packer = zlib.compressobj(6, zlib.DEFLATED, _GZIP) if gzipped else None
        self._pending: list[bytes] = []
        self._pending_bytes = 0
        self._descriptor, self._temporary = _open_beside(self.target, tag)
        self._open = True

    def write(self, text: str) -> None:
        self.write_bytes(text.encode("utf-8"))

    def write_bytes(self, data: bytes) -> None:
        """UTF-8 text already encoded (a writer that makes bytes: no decode and encode again)."""
        if self._packer is not None:
            data = self._packer.compress(data)
        self._pending.append(data)
        self._pending_bytes += len(data)
        if self._pending_bytes >= CHUNK_BYTES:
            self._drain()

    def commit(self) -> None:
        """The file complete: flushed to disk and renamed over the target."""
        if self._packer is not None:
            self._pending.append(self._packer.flush())
        self._drain()
        os.fsync(self._descriptor)
        os.close(self._descriptor)
        self._open = False
        os.replace(self._temporary, self.target)
        if self._url is None:
            _sync_folder(self.target.parent)
            return
        try:
            remote.upload_atomically(self.target, self._url, self._tag)
        finally:
            self._unstage()

    def abort(self) -> None:
        """Nothing written: the temporary file removed, the target as it was."""
        if self._open:
            with suppress(OSError):
                os.close(self._descriptor)
            self._open = False
        with suppress(OSError):
            os.unlink(self._temporary)
        self._unstage()

    def _unstage(self) -> None:
        """The local copy of a URL's file removed (uploaded, or given up)."""
        if self._staging is not None:
            shutil.rmtree(self._staging, ignore_errors=True)
            self._staging = None

    def _drain(self) -> None:
        data = b"".join(self._pending)
        self._pending.clear()
        self._pending_bytes = 0
        write_all(lambda view: os.write(self._descriptor, view), data)

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if kind is not None or self._open:  # an exception, or left without a commit
            self.abort()


def write_atomically(path: str | os.PathLike[str], chunks: Iterable[str], tag: str = "") -> None:
    """Write ``chunks`` to ``path`` as ``AtomicFile`` does: whole or not at all (``OSError`` or
    whatever the chunks raised goes to the caller, the target untouched, no temporary file
    left), through a symbolic link, with the umask's mode (a file written over: its own), gzip
    for a ``.gz`` name; a URL uploaded once complete. ``tag``: the run's, in the temporaries'
    names."""
    with AtomicFile(path, tag) as out:
        for chunk in chunks:
            out.write(chunk)
        out.commit()


def _gzipped(path: Path) -> bool:
    return path.name.lower().endswith(".gz")


def _open_beside(target: Path, tag: str = "") -> tuple[int, Path]:
    """A new temporary file in ``target``'s folder (a rename within one file system is atomic):
    its descriptor and path. Created with ``0666`` (the umask applies); given ``target``'s
    permission bits when ``target`` exists."""
    kept: int | None = None
    with suppress(FileNotFoundError):
        kept = stat.S_IMODE(os.stat(target).st_mode) & 0o777
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        temporary = target.parent / remote.temporary_name(target.name, tag)
        try:
            descriptor = os.open(temporary, flags, _NEW_FILE_MODE)
        except FileExistsError:
            continue
        if kept is not None:
            try:
                os.fchmod(descriptor, kept)
            except OSError:
                os.close(descriptor)
                os.unlink(temporary)
                raise
        return descriptor, temporary
    raise FileExistsError(errno.EEXIST, "no free temporary name", os.fspath(target.parent))


def _sync_folder(folder: Path) -> None:
    """The rename itself on disk (where the platform lets a folder be opened and synced)."""
    with suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
