"""A folder only this user can write, for the fast path's cache: nobody else may put there an
expression that would vouch for documents.

The folder is opened without following a link at its last component and checked on the open
descriptor, never by path: a directory, owned by this user, neither group- nor world-writable
(one that is, or that another user owns, is refused, never repaired or trusted; one of the user's
own that others may only read is made 0700). Created, it is 0700 whatever the umask. Its files are
opened relative to that descriptor, again without following links and without waiting on a FIFO,
and checked the same way on their descriptor (a regular file of this user's that others cannot
write, no bigger than the reader allows) before a byte is read. Writes go to a fresh temporary
file renamed into place. This needs POSIX's ``*at`` calls, ``O_NOFOLLOW`` and ``getuid``;
without them there is no private folder (and no cache).

At interpreter exit (``stop_writes``, registered with ``atexit``), a write under way on another
thread is waited for (a bounded time) and none starts after: a daemon thread that builds an
expression (``loads`` does, in the background) is frozen wherever it stands when the interpreter
goes, and one frozen between its temporary file and the rename would leave that file behind.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import stat
import threading
from pathlib import Path
from types import TracebackType

__all__ = ["PrivateFolder", "stop_writes"]

_SUPPORTED = (
    hasattr(os, "getuid")
    and hasattr(os, "O_NOFOLLOW")
    and hasattr(os, "O_DIRECTORY")
    and {os.open, os.rename, os.unlink} <= os.supports_dir_fd
)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


_writes = threading.Lock()  # held for the whole of a write
_stopped = False
STOP_WAIT = 10.0
"""Seconds ``stop_writes`` waits for a write under way (one writes a few hundred kB to a local
folder: milliseconds; a stalled file system must not stall the exit)."""


def stop_writes() -> None:
    """From now on no write starts, and a write under way has ended once this returns (or
    ``STOP_WAIT`` seconds have passed)."""
    global _stopped
    held = _writes.acquire(timeout=STOP_WAIT)
    _stopped = True
    if held:
        _writes.release()


def _after_fork_in_child() -> None:
    global _writes
    _writes = threading.Lock()  # the thread that may have held it was not copied


atexit.register(stop_writes)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _private(status: os.stat_result) -> bool:
    """Owned by this user, and nobody else can write it."""
    return status.st_uid == os.getuid() and not status.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


class PrivateFolder:
    """An open folder that passed the checks; use it in a ``with`` block (it holds a descriptor)."""

    def __init__(self, descriptor: int) -> None:
        self._fd = descriptor

    @classmethod
    def open(cls, path: Path, create: bool) -> PrivateFolder | None:
        """The folder at ``path`` (made, with its parents, when ``create``), or None when it is
        missing, not private, or cannot be opened."""
        if not _SUPPORTED:
            return None
        try:
            created = False
            if create:
                path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                try:
                    os.mkdir(path, 0o700)  # the umask can only take bits away
                    created = True
                except FileExistsError:
                    pass
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
            try:
                descriptor = os.open(path, flags)
            except PermissionError:
                if not created:
                    raise
                os.chmod(path, 0o700)  # a umask that took the owner's bits: give them back
                descriptor = os.open(path, flags)
        except OSError:
            return None
        try:
            status = os.fstat(descriptor)
            if not stat.S_ISDIR(status.st_mode) or not _private(status):
                os.close(descriptor)
                return None
            if stat.S_IMODE(status.st_mode) != 0o700:
                os.fchmod(descriptor, 0o700)
        except OSError:
            os.close(descriptor)
            return None
        return cls(descriptor)

    def read(self, name: str, limit: int) -> bytes | None:
        """The content of file ``name``, or None when it is missing, not a private regular file,
        larger than ``limit`` bytes, or cannot be read."""
        try:
            descriptor = os.open(
                name, os.O_RDONLY | os.O_NOFOLLOW | _NONBLOCK | _CLOEXEC, dir_fd=self._fd
            )
        except OSError:
            return None
        try:
            status = os.fstat(descriptor)
            if not stat.S_ISREG(status.st_mode) or not _private(status):
                return None
            if status.st_size > limit:
                return None  # refused before anything is allocated
            chunks = []
            left = limit + 1  # one more than allowed: a file that grew is refused too
            while left > 0:
                chunk = os.read(descriptor, min(left, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
        except OSError:
            return None
        finally:
            os.close(descriptor)
        data = b"".join(chunks)
        return data if len(data) <= limit else None

    def write(self, name: str, data: bytes) -> None:
        """Replace file ``name`` with ``data`` (mode 0600) through a temporary file and a rename;
        a file that cannot be written is skipped, and so is every file after ``stop_writes``."""
        with _writes:
            if not _stopped:
                self._write(name, data)

    def _write(self, name: str, data: bytes) -> None:
        temporary = f".tmp-{os.getpid()}-{os.urandom(8).hex()}"
        try:
            descriptor = os.open(
                temporary,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC,
                0o600,
                dir_fd=self._fd,
            )
        except OSError:
            return
        try:
            with open(descriptor, "wb", closefd=True) as out:
                os.fchmod(descriptor, 0o600)  # the umask may have taken the owner's bits
                out.write(data)
            # POSIX rename replaces the target atomically
            os.rename(temporary, name, src_dir_fd=self._fd, dst_dir_fd=self._fd)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> PrivateFolder:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
