"""Transcript archives live where they were written, often in object storage: a path may be an
fsspec URL (``s3://bucket/prefix/``, ``gs://``, ``az://``, ``https://``...) as well as a local file.
This module is the one place that reads or writes one: it opens a URL as a byte stream (by offset
too), reads one whole, sizes it, lists a prefix or a glob, puts a file at a URL whole or not at
all, and says which optional extra is missing.

The validator and the converter read through it (``phi_wire.validate``'s walking and reading;
``phi_wire.dask``); local paths never touch fsspec. URLs need the ``remote`` extra
(``pip install 'phi-wire[remote]'``: fsspec, and s3fs for ``s3://``; another protocol's own
package, gcsfs or adlfs, is named when missing). Credentials come from the storage library's usual
environment and configuration (for S3: ``AWS_ACCESS_KEY_ID``, ``AWS_PROFILE``,
``AWS_ENDPOINT_URL``, ``~/.aws/config``...), never from phi-wire's arguments.

Whatever the storage library raises while listing or reading (a botocore error, a timeout) comes
out as ``OSError`` with the library's words: the callers report an unreadable object as an input
error, never a traceback. Listings are read afresh for each call (no cached listing from an
earlier run in the same process). An object a listing has sized is opened without asking its size
again (no HEAD request before the reads), in this process or, given what the listing said
(``listed``, then ``remember`` there), in a worker on another machine; its reads are pinned to
the listing's ETag, so an object rewritten since is an ``OSError`` saying so, never a read that
mixes its old and new bytes.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any, BinaryIO, NamedTuple

from phi_wire import remote_s3
from phi_wire.remote_s3 import S3Stream

FileSystem = Any
"""An fsspec ``AbstractFileSystem``: fsspec ships no type information, and it is imported by name
at run time only (so that a user's ``mypy --strict`` never analyses it)."""

__all__ = [
    "DASK_EXTRA",
    "FIRST_READ_AHEAD_BYTES",
    "READ_AHEAD_BYTES",
    "REMOTE_EXTRA",
    "Entry",
    "Listed",
    "MissingExtra",
    "RemoteFile",
    "children",
    "entry",
    "files_under",
    "glob",
    "has_glob",
    "is_temporary",
    "is_url",
    "listed",
    "open_path",
    "open_url",
    "path_size",
    "read_whole",
    "remember",
    "remove",
    "require",
    "size",
    "staging_prefix",
    "temporary_name",
    "upload_atomically",
]

REMOTE_EXTRA = "pip install 'phi-wire[remote]'"
"""What installs URL support (fsspec and s3fs)."""
DASK_EXTRA = "pip install 'phi-wire[dask]'"
"""What installs ``phi_wire.dask`` (dask, distributed, and the remote extra)."""

READ_AHEAD_BYTES = 8 * 1024 * 1024
"""Bytes fetched ahead of a read from an object (one ranged request) at most: large enough that
requests cost little against the transfer, small enough to bound the memory of an open object."""
FIRST_READ_AHEAD_BYTES = 1024 * 1024
"""The first request's read-ahead (and after a seek elsewhere), doubled by each request that
continues the last, up to ``READ_AHEAD_BYTES``: a reader that wants an object's first lines only
(its layout, a folder's look at it) or a short range fetches little more than it reads."""

_URL = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]+)://")
_GLOB_CHARACTERS = re.compile(r"[*?\[]")


class MissingExtra(RuntimeError):
    """An optional part of phi-wire is used and its packages are not installed; the message is
    one line naming the ``pip install`` command."""


def is_url(name: str) -> bool:
    """Whether ``name`` is a URL (``s3://...``, ``file://...``): a scheme of two letters or more
    before ``://`` (``C:\\`` is a Windows path)."""
    return _URL.match(name) is not None


def has_glob(url: str) -> bool:
    """Whether a URL's path holds glob characters (``*``, ``?``, ``[``)."""
    return _GLOB_CHARACTERS.search(url.partition("://")[2]) is not None


_PINNED_READS: dict[str, dict[str, bool]] = {"s3": {"local_expiry_check": True}}
"""Per protocol, the options that make its files' reads check the ETag they were opened with
(``details``): s3fs compares each ranged GET's ETag with it (``FileExpired`` when they differ)."""


def _filesystem(url: str, pinned: bool = False) -> tuple[FileSystem, str]:
    """The fsspec filesystem of a URL and the path in it (``pinned``: one whose reads check the
    ETag a file was opened with, where the protocol can); ``MissingExtra`` when fsspec or the
    protocol's own package is not installed."""
    try:
        url_to_fs = importlib.import_module("fsspec.core").url_to_fs
    except ImportError:
        raise MissingExtra(f"{url}: reading URLs needs the remote extra: {REMOTE_EXTRA}") from None
    scheme = url.partition("://")[0].lower()
    options = _PINNED_READS.get("s3" if scheme == "s3a" else scheme, {}) if pinned else {}
    try:
        return url_to_fs(url, **options)  # type: ignore[no-any-return]
    except ImportError as error:  # fsspec knows the protocol, its package is missing
        scheme = url.partition("://")[0]
        extra = f"{REMOTE_EXTRA}" if scheme in ("s3", "s3a") else f"{error}"
        raise MissingExtra(f"{url}: {scheme}:// needs a package not installed: {extra}") from None
    except ValueError as error:  # an unknown protocol
        raise MissingExtra(f"{url}: {error}") from None


def require(url: str) -> None:
    """Raise ``MissingExtra`` unless the packages that read ``url`` are installed."""
    _filesystem(url)


@contextmanager
def _as_os_errors(url: str) -> Iterator[None]:
    """The storage library's exceptions as ``OSError`` (``KeyboardInterrupt`` passes)."""
    try:
        yield
    except (OSError, MissingExtra):
        raise
    except Exception as error:  # botocore, aiohttp...: their own classes, not OSError
        raise OSError(f"{type(error).__name__}: {error}") from None


class Entry(NamedTuple):
    """An object found under a URL: its full URL and its size in bytes (as stored)."""

    url: str
    size: int


class Listed(NamedTuple):
    """What a listing said of an object, small enough to travel with a task: a process given
    it (``remember``) opens the object without a HEAD request and reads that version only."""

    url: str
    size: int
    etag: str | None


_SIZES: dict[str, int] = {}
"""The sizes listings gave, so that sizing the files a walk found asks the store nothing more."""
_LISTED: dict[str, dict[str, Any]] = {}
"""What listings said of each object (size, ETag...): an object opened with it is read without a
HEAD request first (s3fs asks one for the ETag it pins the reads to, unless told)."""


def _entries(fs: FileSystem, found: dict[str, dict[str, Any]]) -> list[Entry]:
    files = {
        fs.unstrip_protocol(path): info
        for path, info in found.items()
        if info.get("type", "file") == "file"
    }
    entries = sorted(Entry(url, int(info.get("size") or 0)) for url, info in files.items())
    _SIZES.update(entries)
    _LISTED.update(files)
    return entries


def listed(url: str) -> Listed | None:
    """What the listing (or the ``entry``) that found ``url`` in this process said of it; None
    when none did."""
    info = _LISTED.get(url)
    if info is None:
        return None
    etag = info.get("ETag")
    return Listed(url, int(info.get("size") or 0), None if etag is None else str(etag))


def remember(found: Listed) -> None:
    """What a listing in another process said of an object, as if this process had listed it:
    it is then opened without a HEAD request, its reads pinned to that ETag."""
    info: dict[str, Any] = {"name": found.url.partition("://")[2], "size": found.size}
    info["type"] = "file"
    if found.etag is not None:
        info["ETag"] = found.etag
    _LISTED[found.url] = info
    _SIZES[found.url] = found.size


def size(url: str) -> int:
    """The size of the object at ``url`` as stored (from the listing that found it, else asked);
    ``OSError`` when it cannot be asked."""
    known = _SIZES.get(url)
    if known is None:
        kind, known = entry(url)
        if kind != "file":
            raise IsADirectoryError(21, "Is a folder", url)
    return known


def entry(url: str) -> tuple[str, int]:
    """(kind, size) of a URL: ``file`` with its size, ``folder`` (a prefix holding objects,
    size 0); ``FileNotFoundError`` when there is nothing at it, another ``OSError`` when the
    store cannot be asked."""
    fs, path = _filesystem(url)
    with _as_os_errors(url):
        fs.invalidate_cache()
        info = fs.info(path)
    if info.get("type") == "directory":
        return "folder", 0
    _LISTED[url] = info
    found = _SIZES[url] = int(info.get("size") or 0)
    return "file", found


def files_under(url: str) -> list[Entry]:
    """Every object under a prefix (a folder), at any depth, sorted by URL."""
    fs, path = _filesystem(url)
    with _as_os_errors(url):
        fs.invalidate_cache()
        return _entries(fs, fs.find(path, withdirs=False, detail=True))


def children(url: str) -> list[Entry]:
    """The objects directly under a prefix (not in its sub-folders), sorted by URL."""
    fs, path = _filesystem(url)
    with _as_os_errors(url):
        fs.invalidate_cache()
        listed = fs.ls(path, detail=True)
    return _entries(fs, {info["name"]: info for info in listed})


def glob(url: str) -> list[tuple[str, str]]:
    """What a glob URL matches, sorted: (kind, URL) pairs, kind ``file`` or ``folder``."""
    fs, path = _filesystem(url)
    with _as_os_errors(url):
        fs.invalidate_cache()
        found = fs.glob(path, detail=True)
    files = {name: info for name, info in found.items() if info.get("type") != "directory"}
    matched = [("file", entry.url) for entry in _entries(fs, files)]  # their sizes noted
    folders = [fs.unstrip_protocol(name) for name in found if name not in files]
    return sorted(matched + [("folder", url) for url in folders])


class RemoteFile:
    """An object opened for reading: ``read(size)``, ``seek(offset)``, ``size``; the storage
    library's exceptions come out as ``OSError``. Reads are served from one buffer, filled by one
    ranged request at a time that fetches ahead of what is read: ``FIRST_READ_AHEAD_BYTES``, then
    twice as much for each request that continues the last, up to ``READ_AHEAD_BYTES``."""

    def __init__(self, url: str, size: int | None = None) -> None:
        fs, path = _filesystem(url, pinned=True)
        self.url = url
        self.etag: str | None = None
        """The ETag the reads are pinned to (the listing's), if any."""
        known = _SIZES.get(url) if size is None else size
        # fsspec's own cache off: each of our requests is one ranged GET of what we ask
        options: dict[str, Any] = {"block_size": READ_AHEAD_BYTES, "cache_type": "none"}
        with _as_os_errors(url):
            fs.invalidate_cache()
            try:  # a size known from the listing: no HEAD request to ask it again
                sized = {} if known is None else {"size": known}
                self._file = fs.open(path, "rb", compression=None, **options, **sized)
            except TypeError:  # a file system whose files take no size (file://)
                self._file = fs.open(path, "rb", compression=None, **options)
            listed = _LISTED.get(url)
            if listed is not None and int(listed.get("size") or 0) == known:
                with suppress(AttributeError):  # fsspec's buffered files take what is known
                    self._file.details = listed
                    self.etag = listed.get("ETag")
            self.size = int(self._file.size)
        self._position = 0
        self._buffer = b""
        self._buffer_start = 0
        self._ahead = FIRST_READ_AHEAD_BYTES

    def read(self, size: int = -1) -> bytes:
        end = self.size if size < 0 else min(self.size, self._position + size)
        if end <= self._position:
            return b""
        buffered_end = self._buffer_start + len(self._buffer)
        if not self._buffer_start <= self._position < buffered_end or end > buffered_end:
            self._fill(end)
        offset = self._position - self._buffer_start
        data = self._buffer[offset : offset + end - self._position]
        self._position += len(data)
        return data

    def _fill(self, end: int) -> None:
        """The buffer from the position to ``end`` at least, and the read-ahead past it: the
        buffered bytes from the position kept, the rest fetched in one request."""
        buffered_end = self._buffer_start + len(self._buffer)
        kept = b""
        start = self._position
        if self._buffer_start <= self._position < buffered_end:
            kept = self._buffer[self._position - self._buffer_start :]
            start = buffered_end
        elif self._position != buffered_end:  # a seek elsewhere: start small again
            self._ahead = FIRST_READ_AHEAD_BYTES
        stop = min(self.size, max(end, start + self._ahead))
        self._ahead = min(2 * self._ahead, READ_AHEAD_BYTES)
        with self._changed(), _as_os_errors(self.url):
            self._file.seek(start)
            fetched = bytes(self._file.read(stop - start))
        self._buffer = kept + fetched
        self._buffer_start = self._position

    @contextmanager
    def _changed(self) -> Iterator[None]:
        """s3fs's ``FileExpired`` (a read's ETag is not the listing's) in words of this run."""
        try:
            yield
        except OSError as error:
            if type(error).__name__ != "FileExpired":
                raise
            raise remote_s3.changed(self.etag) from None

    def seek(self, offset: int, whence: int = 0) -> int:
        self._position = remote_s3.sought(self.url, self._position, self.size, offset, whence)
        return self._position

    def close(self) -> None:
        # a close that fails loses nothing: the object was only read
        with _as_os_errors(self.url):
            self._file.close()

    def __enter__(self) -> RemoteFile:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def open_url(url: str, size: int | None = None, until: int | None = None) -> RemoteFile | S3Stream:
    """The object at ``url`` opened for reading (``OSError`` when it cannot be); ``size``: its
    size when known (else the listing's, else asked); ``until``: where the reads will end but
    for the line running on past it (a part's end), so that no request asks much more. An
    ``s3://`` object is read by ``phi_wire.remote_s3``'s streamed GETs when it can (one request
    per run of reads in order), else, and for whatever that reader cannot do, by s3fs
    (``RemoteFile``)."""
    scheme = url.partition("://")[0].lower()
    if scheme not in ("s3", "s3a") or not remote_s3.usable():
        return RemoteFile(url, size)
    _installed(url)  # MissingExtra without s3fs, as for any URL
    known = _SIZES.get(url) if size is None else size
    if known is None:
        known = path_size(url)  # asked (a HEAD request), as s3fs would
    info = _LISTED.get(url)
    etag = info.get("ETag") if info is not None and int(info.get("size") or 0) == known else None
    return remote_s3.S3Stream(
        "s3://" + url.partition("://")[2], known, etag, lambda: RemoteFile(url, known), until
    )


def _installed(url: str) -> None:
    """``MissingExtra`` unless s3fs is installed, without importing it (its import and
    botocore's take a worker about 0.4 s of CPU, and the streamed reader needs neither)."""
    if importlib.util.find_spec("s3fs") is None:
        _filesystem(url)  # says which extra, in the words of any URL's


def read_whole(url: str, limit: int, size: int | None = None) -> bytes:
    """The bytes of the object at ``url``, at most ``limit + 1`` of them (more than ``limit``:
    the caller's "too big"): one ranged GET when its size is known (``size``, else the
    listing's), else read through ``open_url``. ``OSError`` when it cannot be read."""
    known = _SIZES.get(url) if size is None else size
    if known:  # listed, not empty (a range of an empty object is refused)
        fs, path = _filesystem(url)
        with _as_os_errors(url):  # a range: no HEAD first (an object grown since: read too)
            return bytes(fs.cat_file(path, start=0, end=limit + 1))
    with open_url(url, size) as opened:
        return opened.read(limit + 1)


def temporary_name(name: str, tag: str = "") -> str:
    """A new name for a temporary beside the file or object ``name`` (its last part):
    ``.NAME.RANDOM.tmp``, or ``.NAME.TAG.RANDOM.tmp`` for a run that sweeps its own (``tag``:
    the run's, ``is_temporary`` recognises them)."""
    return f".{name}.{tag + '.' if tag else ''}{os.urandom(6).hex()}.tmp"


def staging_prefix(tag: str = "") -> str:
    """How the local folder a file for a URL is written in before its upload (in the system's
    temporary folder) is named: its start, with the run's tag when it has one."""
    return f"phi-wire-upload-{tag + '-' if tag else ''}"


def is_temporary(name: str, tag: str) -> bool:
    """Whether ``name`` (a file's or object's last part) is a temporary of the run tagged
    ``tag``: only ``temporary_name(..., tag)`` makes such names (a user's file would have to
    carry the run's random tag)."""
    return re.fullmatch(rf"\..+\.{re.escape(tag)}\.[0-9a-f]{{12}}\.tmp", name) is not None


def remove(url: str) -> None:
    """The object at ``url`` deleted (``OSError`` when it cannot be)."""
    fs, path = _filesystem(url)
    with _as_os_errors(url):
        fs.rm_file(path)
        fs.invalidate_cache()


def upload_atomically(local: str | os.PathLike[str], url: str, tag: str = "") -> None:
    """The local file ``local`` put at ``url`` whole or not at all: uploaded under a temporary
    key beside it (``temporary_name``, tagged ``tag``), copied to ``url`` (an object store's
    copy is whole or nothing), and the temporary key deleted whatever happened (unless the
    process dies first: a run that tags its temporaries sweeps them). An upload cut short
    leaves no object under ``url``, nor an old one changed; ``OSError`` says why."""
    fs, path = _filesystem(url)
    folder, _, name = path.rpartition("/")
    temporary = f"{folder}/{temporary_name(name, tag)}"
    with _as_os_errors(url):
        try:
            fs.put_file(os.fspath(local), temporary)
            fs.copy(temporary, path)
        finally:
            with suppress(Exception):  # nothing left under the temporary key (best effort)
                fs.rm_file(temporary)
        fs.invalidate_cache()


def open_path(name: str, until: int | None = None) -> RemoteFile | S3Stream | BinaryIO:
    """A local path or a URL opened for reading bytes (``read``, ``seek``, ``close``; ``OSError``
    when it cannot be): what a reader of either calls (``until``: as for ``open_url``)."""
    return open_url(name, until=until) if is_url(name) else open(name, "rb")


def path_size(name: str) -> int:
    """The size of a local file or of the object at a URL, as stored (``OSError`` when it cannot
    be asked)."""
    return size(name) if is_url(name) else os.path.getsize(name)
