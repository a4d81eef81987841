"""An S3 object read by offsets costs the store one GET per request (moto, for one, reads the
whole object for each ranged GET) and the reader its HTTP stack's CPU per MB: this module reads
an ``s3://`` object from an offset as one GET of up to 64 MB streamed in chunks (``obstore``,
Rust's object_store: the bytes arrive outside the GIL), so that a Dask part's block is one
request (a gzip object one per 64 MB), in memory of a chunk or two, whatever its size; a reader
that says where its reads end (a part's) gets GETs that end there, but for the line across it.

It is ``phi_wire.remote``'s fast reader for ``s3://``, used when ``obstore`` is installed (the
``remote`` extra installs it) and s3fs is configured by the usual AWS environment only; else, and
for any failure that is not the object's own (a server that cannot be reached, a refused
request, a missing object), ``remote`` reads through s3fs, whose errors are the words a run
reports. Credentials, region and endpoint are what botocore (s3fs's own library) resolves from
``AWS_*`` variables, ``AWS_PROFILE`` and ``~/.aws`` (read from the variables directly when they
name all three: botocore would take them first); nothing comes from phi-wire's arguments.
A read is pinned to the ETag the listing gave (or, unlisted, the one its first GET met) with
``If-Match``: an object rewritten since is ``ObjectChanged``.
"""

from __future__ import annotations

import datetime
import errno
import importlib
import logging
import os
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from obstore.store import S3Config, S3Credential, S3Store

__all__ = [
    "CHUNK_BYTES",
    "SPAN_BYTES",
    "TAIL_BYTES",
    "ObjectChanged",
    "S3Stream",
    "Unavailable",
    "open_stream",
    "sought",
    "usable",
]

SPAN_BYTES = 64 * 1024 * 1024
"""A GET asks this much at most (a Dask part's block): reading on past it starts the next GET
there (on the same ETag), and a reader that stops early leaves no larger request unread."""
TAIL_BYTES = 64 * 1024
"""What a GET asks past the end its reader said it needs (``until``: a Dask part's end), for
the line that runs across that end: one request when the line is that short (a phi-core line is
a few KB), else GETs from there of twice as much each. A part's reader
(``phi_wire.validate``'s) first asks this much past the end too, local file or object: were it
to ask more, each part would cost a second GET."""
CHUNK_BYTES = 1024 * 1024
"""The least a stream hands over at a time: what a look at an object's first lines fetches,
and what a stream holds besides what its reader asked for."""
_RETRIES = {"max_retries": 2, "retry_timeout": timedelta(seconds=20)}
"""Few retries: a store that cannot be reached is then asked again through s3fs, which retries
as it always has (two rounds of many retries would keep a run waiting minutes)."""
_CLIENT = {
    "allow_http": True,
    "timeout": timedelta(minutes=10),
    "read_timeout": timedelta(minutes=1),
}
"""``allow_http``: an endpoint's scheme is the user's (``AWS_ENDPOINT_URL=http://...``, as s3fs
takes it). A stream lasts as long as its reader judges, hence the long total timeout; a stream
cut by it is opened again where it stopped."""
_CREDENTIALS_KEPT_S = 300
"""How long a store uses credentials before asking botocore again (which refreshes expiring
ones itself)."""

_log = logging.getLogger(__name__)


class Unavailable(Exception):
    """This reader cannot read the object (not configured, not installed, a request failed for a
    reason that is not the object's): the caller reads it through s3fs instead."""


class ObjectChanged(Exception):
    """The object's ETag is no longer the one its reads are pinned to."""


_STORES: dict[str, S3Store | None] = {}
"""Per bucket, its store (None: this reader is not used for it in this process)."""
_FIRST_USED_IN: int | None = None
"""The process that made the first store: obstore's Rust runtime (its threads) does not survive
a fork, and a forked copy that asks it waits forever (``--jobs``' workers are forked copies)."""


def usable() -> bool:
    """Whether this reader may serve ``s3://`` in this process: obstore installed, not turned
    off (``PHI_WIRE_S3_READER=s3fs``), and s3fs given no settings of fsspec's own
    (``FSSPEC_S3_*``, fsspec's configuration files) that this reader would not follow."""
    if os.environ.get("PHI_WIRE_S3_READER", "").lower() == "s3fs":
        return False
    if _FIRST_USED_IN not in (None, os.getpid()):
        return False  # a forked copy of a process that used it: its runtime did not come along
    try:
        importlib.import_module("obstore")
        conf = importlib.import_module("fsspec.config").conf
    except ImportError:
        return False
    return not any(conf.get(name) for name in ("s3", "s3a"))


def _store(bucket: str) -> S3Store:
    """The bucket's store in this process (``Unavailable`` when botocore resolves no
    credentials: s3fs decides then what an unsigned or failing request does)."""
    global _FIRST_USED_IN
    if bucket not in _STORES:
        _FIRST_USED_IN = _FIRST_USED_IN or os.getpid()
        _STORES[bucket] = _new_store(bucket)
    found = _STORES[bucket]
    if found is None:
        raise Unavailable(f"s3://{bucket}: read through s3fs")
    return found


_ENDPOINTS = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
"""botocore's endpoint variables for S3, the first set wins (over any configuration file)."""


def _from_environment() -> S3Config | None:
    """The store's settings when the environment alone decides them as botocore would: keys,
    region and endpoint in ``AWS_*`` variables (which botocore puts before any ``~/.aws`` file),
    no profile named; None otherwise (botocore resolves them). Saves a process botocore's
    session and client (about 0.1 s of CPU) where a cluster's workers are given the store that
    way."""
    environ = os.environ
    if environ.get("AWS_PROFILE") or environ.get("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"):
        return None
    endpoint = next((environ[name] for name in _ENDPOINTS if environ.get(name)), None)
    access, secret = environ.get("AWS_ACCESS_KEY_ID"), environ.get("AWS_SECRET_ACCESS_KEY")
    region = environ.get("AWS_DEFAULT_REGION")
    if not (endpoint and access and secret and region):
        return None
    settings: S3Config = {
        "access_key_id": access,
        "secret_access_key": secret,
        "region": region,
        "endpoint": endpoint,
    }
    token = environ.get("AWS_SESSION_TOKEN") or environ.get("AWS_SECURITY_TOKEN")
    if token:  # botocore's two names for it
        settings["session_token"] = token
    return settings


def _new_store(bucket: str) -> S3Store | None:
    try:
        from obstore.store import S3Store

        settings = _from_environment()
        if settings is not None:
            _log.debug("s3://%s: keys, region and endpoint from the environment", bucket)
            return S3Store(
                bucket,
                config=settings,
                client_options=_CLIENT,  # type: ignore[arg-type]
                retry_config=_RETRIES,  # type: ignore[arg-type]
            )
        botocore_session = importlib.import_module("botocore.session")
        session = botocore_session.Session()
        if session.get_credentials() is None:
            return None
        client = session.create_client("s3")  # region and endpoint as s3fs's client has them
        endpoint = str(client.meta.endpoint_url)
        options: dict[str, Any] = {"region": str(client.meta.region_name or "us-east-1")}
        if not endpoint.endswith(".amazonaws.com"):  # AWS's own: object_store's regional one
            options["endpoint"] = endpoint
        return S3Store(
            bucket,
            credential_provider=_Credentials(session),
            client_options=_CLIENT,  # type: ignore[arg-type]
            retry_config=_RETRIES,  # type: ignore[arg-type]
            **options,
        )
    except Exception as error:
        _log.debug("s3://%s: obstore not used (%s)", bucket, error)
        return None


class _Credentials:
    """obstore's credential provider: what botocore's session resolves, asked again every few
    minutes."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def __call__(self) -> S3Credential:
        frozen = self.session.get_credentials().get_frozen_credentials()
        expires = datetime.datetime.now(datetime.UTC) + datetime.timedelta(
            seconds=_CREDENTIALS_KEPT_S
        )
        return {
            "access_key_id": frozen.access_key,
            "secret_access_key": frozen.secret_key,
            "token": frozen.token,
            "expires_at": expires,
        }


def _disable(bucket: str) -> None:
    _STORES[bucket] = None


def open_stream(
    url: str, start: int, end: int, etag: str | None
) -> tuple[Iterator[bytes], str | None]:
    """The bytes ``start`` to ``end`` (or the object's end, if sooner) of the ``s3://`` object
    at ``url``, as chunks of at least ``CHUNK_BYTES`` (the last may be shorter), and the ETag
    they are of; ``etag``: the version they must be of. ``ObjectChanged`` when it is no
    longer; ``Unavailable`` for any other failure to start (the caller asks s3fs, whose errors
    say it as before)."""
    import obstore
    from obstore.exceptions import PreconditionError

    bucket, _, key = url.partition("://")[2].partition("/")
    store = _store(bucket)
    options: dict[str, Any] = {"range": (start, end)}
    if etag is not None:
        options["if_match"] = etag
    _log.debug("GET: %s, %d-%d", url, start, end)
    try:
        result = obstore.get(store, key, options=options)  # type: ignore[arg-type]
    except PreconditionError:
        raise ObjectChanged(url) from None
    except Exception as error:
        if not isinstance(error, (FileNotFoundError, obstore.exceptions.NotFoundError)):
            _disable(bucket)  # the store, not the object: s3fs from now on in this process
        raise Unavailable(f"{url}: {type(error).__name__}") from None
    found = result.meta.get("e_tag")
    return _logged(url, start, iter(result.stream(min_chunk_size=CHUNK_BYTES))), found


def _logged(url: str, offset: int, chunks: Iterator[bytes]) -> Iterator[bytes]:
    """The chunks, each logged at DEBUG (``Fetched: URL, START-END``) as it arrives."""
    position = offset
    for chunk in chunks:
        if _log.isEnabledFor(logging.DEBUG):
            _log.debug("Fetched: %s, %d-%d", url, position, position + len(chunk))
        position += len(chunk)
        yield chunk


class Seekable(Protocol):
    """What the reader falls back on (``phi_wire.remote``'s s3fs reader)."""

    def read(self, size: int = -1, /) -> bytes: ...

    def seek(self, offset: int, whence: int = 0, /) -> int: ...

    def close(self) -> None: ...


def sought(url: str, position: int, size: int, offset: int, whence: int) -> int:
    """The position a ``seek(offset, whence)`` of a read-only object of ``size`` bytes, at
    ``position``, moves to (``io``'s rules; EINVAL before its start)."""
    base = {os.SEEK_SET: 0, os.SEEK_CUR: position, os.SEEK_END: size}.get(whence)
    if base is None or base + offset < 0:
        raise OSError(errno.EINVAL, f"cannot seek to {offset} from {whence}", url)
    return base + offset


def changed(etag: str | None) -> OSError:
    """The error of a read whose object's ETag is no longer ``etag``, in words of the run."""
    return OSError(errno.EBUSY, f"the object changed after it was listed (ETag no longer {etag})")


class S3Stream:
    """An ``s3://`` object opened for reading: ``read(size)``, ``seek(offset)``, ``size``,
    ``close()``, as ``phi_wire.remote.RemoteFile``. Reads in order are served by one GET of
    ``SPAN_BYTES`` from where the first began (then the next), or up to where its reader said
    its reads end (``until``, and ``TAIL_BYTES`` past it), consumed in chunks as they are
    read (never more than the read asked plus a chunk held); a seek back before what is held,
    or further ahead than a chunk, starts another GET there. A GET that cannot start, or
    breaks before it has given anything, hands the object to ``fallback`` (s3fs's reader) from
    where reading is; one that breaks after giving something is started again where it
    stopped, on the same ETag."""

    def __init__(
        self,
        url: str,
        size: int,
        etag: str | None,
        fallback: Callable[[], Seekable],
        until: int | None = None,
    ) -> None:
        self.url = url
        self.size = size
        self.etag = etag
        """The ETag the reads are pinned to (the listing's, else the first GET's)."""
        self.until = until
        """Where the reader said its reads end, but for a line running on past it (a Dask
        part's end): a GET before it asks up to it and ``TAIL_BYTES`` more, one past it asks
        ``TAIL_BYTES`` and then twice as much each (None: ``SPAN_BYTES`` a GET)."""
        self._fallback = fallback
        self._other: Seekable | None = None
        self._position = 0
        self._buffer = b""
        self._buffer_start = 0
        self._spare = memoryview(b"")
        """Bytes received past the buffer's end (the rest of the last chunk), read next."""
        self._chunks: Iterator[bytes] | None = None
        """The GET under way, at ``_buffer_start + len(_buffer)``."""
        self._span_end = 0
        """Where the GET under way ends."""

    def read(self, size: int = -1) -> bytes:
        if self._other is not None:
            self._other.seek(self._position)
            data = self._other.read(size)
            self._position += len(data)
            return data
        end = self.size if size < 0 else min(self.size, self._position + size)
        if end <= self._position:
            return b""
        received_end = self._buffer_start + len(self._buffer) + len(self._spare)
        if not self._buffer_start <= self._position <= received_end + CHUNK_BYTES:
            self._restart()  # a seek back, or far ahead: a new GET from the position
        elif self._position > received_end and self._chunks is None:
            self._restart()
        if end > self._buffer_start + len(self._buffer) and not self._fill(end):
            return self.read(size)  # handed over to s3fs
        offset = self._position - self._buffer_start
        # a read that continues the last: the whole buffer, not a copy of it
        data = self._buffer[offset : offset + end - self._position]
        self._position += len(data)
        return data

    def _restart(self) -> None:
        self._chunks = None
        self._buffer = b""
        self._spare = memoryview(b"")
        self._buffer_start = self._position

    def _fill(self, end: int) -> bool:
        """The buffer from the position to ``end``, or to the object's end if sooner, in one
        copy (what the last chunk holds past ``end`` is kept apart, for the next read); False
        when the object went to the fallback reader."""
        start = self._position  # never before the buffer's start (``read`` restarts then)
        reached = self._buffer_start + len(self._buffer)
        pieces: list[bytes | memoryview] = []
        if start < reached:
            pieces.append(memoryview(self._buffer)[start - self._buffer_start :])
        spare, self._spare = self._spare, memoryview(b"")
        progressed = False
        while reached < end:
            if spare:  # received by the last fill, past its end
                chunk, spare = spare, memoryview(b"")
            else:
                if self._chunks is None and not self._open(reached):
                    return False
                assert self._chunks is not None
                try:
                    chunk = memoryview(next(self._chunks))
                except StopIteration:
                    self._chunks = None
                    if reached == self._span_end < self.size:
                        continue  # the next GET from there
                    break  # the object ends early: a short read says so
                except Exception as error:
                    self._chunks = None
                    if type(error).__name__ == "PreconditionError":
                        raise changed(self.etag) from None
                    if not progressed:
                        self._hand_over(type(error).__name__)
                        return False
                    progressed = False  # started again where it stopped, once per progress
                    continue
                progressed = True
            if reached < start:  # a skip ahead of less than a chunk: what lies before, dropped
                if start - reached >= len(chunk):
                    reached += len(chunk)
                    continue
                chunk, reached = chunk[start - reached :], start
            if reached + len(chunk) > end:
                chunk, self._spare = chunk[: end - reached], chunk[end - reached :]
            pieces.append(chunk)
            reached += len(chunk)
        self._buffer = b"".join(pieces)
        self._buffer_start = min(start, reached)
        return True

    def _open(self, offset: int) -> bool:
        self._span_end = min(self.size, self._span_from(offset))
        try:
            self._chunks, found = open_stream(self.url, offset, self._span_end, self.etag)
        except ObjectChanged:
            raise changed(self.etag) from None
        except Unavailable as error:
            self._hand_over(error)
            return False
        if self.etag is None:
            self.etag = found
        return True

    def _span_from(self, offset: int) -> int:
        """Where a GET from ``offset`` ends (before the object's end)."""
        if self.until is None:
            return offset + SPAN_BYTES
        if offset < self.until:  # the reader's promise: no stream left unread past it
            return self.until + TAIL_BYTES
        return offset + min(SPAN_BYTES, max(TAIL_BYTES, offset - self.until))  # doubling

    def _hand_over(self, why: object) -> None:
        _log.debug("%s: read through s3fs from byte %d (%s)", self.url, self._position, why)
        self._chunks = None
        self._buffer = b""
        self._spare = memoryview(b"")
        self._other = self._fallback()

    def seek(self, offset: int, whence: int = 0) -> int:
        self._position = sought(self.url, self._position, self.size, offset, whence)
        return self._position

    def close(self) -> None:
        self._chunks = None  # the GET is dropped with its stream
        self._buffer = b""
        self._spare = memoryview(b"")
        if self._other is not None:
            self._other.close()

    def __enter__(self) -> S3Stream:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
