"""AgentEvents over Server-Sent Events (WHATWG HTML, "Server-sent events") with httpx.

Wire form: one SSE message per event: ``event:`` the event's ``type``, an optional ``id:``, then
``data:`` its canonical compact JSON (exactly what ``dumps`` writes, which never holds a raw CR
or LF, the only SSE line breaks; U+2028 and U+0085 pass through unescaped, as serde writes them).

Client: ``events()`` / ``aevents()`` read the stream with httpx-sse, a small, maintained decoder
that follows the spec's line rules (CRLF, CR or LF only; comments; ``retry:``; ``id:`` kept until
changed), and validate each message as strictly as ``loads``. When the connection drops before the
response ends, or the body ends inside an unterminated message, they reconnect with
``Last-Event-ID`` after the server's ``retry:`` delay, at most ``max_retries`` times in a row (any
event read resets the count), so no event is lost or repeated (the server must honour the header,
as ``sse_body`` does). A ``204`` answer to a reconnect ends the stream, as the spec says. A
message that is not a valid event raises ``SSEDecodeError`` naming the event id and the JSON
pointer, or, with ``on_error=callback``, is reported to the callback and skipped; a message whose
``event:`` name differs from the data's ``type`` is such an error too. Messages with no data
(keep-alives, ``retry:``/``id:``-only) carry no event.

Server: ``sse_body()`` / ``asse_body()`` turn a (sync / async) iterable of events into the bytes
of a ``text/event-stream`` body for any framework's streaming response; event *n* gets ``id: n``
and a reconnect resumes after the client's ``Last-Event-ID``; the async form sends a comment
keep-alive while the source is idle. ``sse_app()`` is a complete ASGI app.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    MutableMapping,
)
from typing import Any, cast

import httpx
from httpx_sse import EventSource, ServerSentEvent, SSEError

from ._codec import dumps, loads
from .errors import WireError

__all__ = [
    "DEFAULT_RETRY_MS",
    "KEEP_ALIVE",
    "MEDIA_TYPE",
    "SSEDecodeError",
    "aevents",
    "asse_body",
    "encode",
    "events",
    "sse_app",
    "sse_body",
]

MEDIA_TYPE = "text/event-stream"
DEFAULT_RETRY_MS = 1000
"""Reconnection delay until the server sends ``retry:`` (the spec leaves it to the client)."""
KEEP_ALIVE = b": keep-alive\n\n"
"""A comment message: keeps proxies from closing an idle stream; clients ignore it."""

_TIMEOUT = httpx.Timeout(30.0, read=None)  # an SSE stream may stay quiet for long
_DROPS = (httpx.TransportError,)  # connection refused, reset, read timeout, incomplete body...
_UNSENT_HEADERS = {"host", "content-length", "transfer-encoding", "last-event-id"}

ErrorHandler = Callable[["SSEDecodeError"], None]


class SSEDecodeError(ValueError):
    """An SSE message that is not a valid event: its id, and the ``WireError`` inside."""

    def __init__(self, event_id: str, error: WireError, data: str) -> None:
        self.event_id = event_id
        self.error = error
        self.data = data
        super().__init__(f"SSE event id {event_id or '(none)'}: {error}")

    @property
    def pointer(self) -> str:
        """JSON pointer of the (first) problem inside the message's data."""
        return self.error.pointer


# --- server side ---------------------------------------------------------------------------------


def encode(event: Any, id: str | None = None) -> bytes:
    """One SSE message for ``event``: ``event: <type>``, optional ``id:``, ``data: <json>``."""
    lines = [f"event: {event.type}"]
    if id is not None:
        if "\n" in id or "\r" in id or "\0" in id:
            raise ValueError("an SSE id cannot hold CR, LF or NUL")
        lines.append(f"id: {id}")
    lines.append(f"data: {dumps(event)}")
    return ("\n".join(lines) + "\n\n").encode("utf-8")


def _resume_after(last_event_id: str | None) -> int:
    """The number of the last event the client has; -1 for none (or an id not made here)."""
    if last_event_id and last_event_id.isascii() and last_event_id.isdecimal():
        return int(last_event_id)
    return -1


def _retry(retry_ms: int | None) -> list[bytes]:
    return [] if retry_ms is None else [f"retry: {int(retry_ms)}\n\n".encode()]


def sse_body(
    stream: Iterable[Any], *, last_event_id: str | None = None, retry_ms: int | None = None
) -> Iterator[bytes]:
    """The body of a ``text/event-stream`` response: event *n* (from 0) gets ``id: n``; with the
    client's ``Last-Event-ID`` the events up to that id are skipped, so a reconnect resumes."""
    skip = _resume_after(last_event_id)
    yield from _retry(retry_ms)
    for number, event in enumerate(stream):
        if number > skip:
            yield encode(event, id=str(number))


async def asse_body(
    stream: AsyncIterable[Any] | Iterable[Any],
    *,
    last_event_id: str | None = None,
    retry_ms: int | None = None,
    keep_alive: float | None = 15.0,
) -> AsyncIterator[bytes]:
    """``sse_body`` for async (or sync) sources; a ``KEEP_ALIVE`` comment goes out whenever the
    source has been idle for ``keep_alive`` seconds (None: never)."""
    skip = _resume_after(last_event_id)
    for chunk in _retry(retry_ms):
        yield chunk
    source = _aiterate(stream)
    number = 0
    pending: asyncio.Task[Any] | None = None
    try:
        while True:
            pending = pending or asyncio.ensure_future(anext(source))
            done, _ = await asyncio.wait({pending}, timeout=keep_alive)
            if not done:  # idle: the pending read goes on, untouched
                yield KEEP_ALIVE
                continue
            try:
                event = pending.result()
            except StopAsyncIteration:
                return
            finally:
                pending = None
            if number > skip:
                yield encode(event, id=str(number))
            number += 1
    finally:  # the response was closed early: stop reading the source too
        if pending is not None:
            pending.cancel()  # its cancellation finalises the source
        else:
            await source.aclose()


async def _aiterate(stream: AsyncIterable[Any] | Iterable[Any]) -> AsyncGenerator[Any, None]:
    if isinstance(stream, AsyncIterable):
        async for item in stream:
            yield item
    else:
        for item in stream:
            yield item


def sse_app(
    make_stream: Callable[[], AsyncIterable[Any] | Iterable[Any]],
    *,
    retry_ms: int | None = None,
    keep_alive: float | None = 15.0,
) -> Callable[[MutableMapping[str, Any], Any, Any], Awaitable[None]]:
    """A minimal ASGI app serving ``make_stream()`` as SSE, honouring ``Last-Event-ID``; it
    stops reading the stream when the client disconnects."""

    async def app(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        headers = dict(scope.get("headers") or [])
        last = headers.get(b"last-event-id", b"").decode("latin-1") or None

        async def stream() -> None:
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", MEDIA_TYPE.encode()),
                        (b"cache-control", b"no-cache"),
                    ],
                }
            )
            body = asse_body(
                make_stream(), last_event_id=last, retry_ms=retry_ms, keep_alive=keep_alive
            )
            async for chunk in body:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})

        async def disconnected() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass

        tasks = {asyncio.ensure_future(stream()), asyncio.ensure_future(disconnected())}
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        for task in done:
            task.result()  # re-raise a failure of the stream

    return app


# --- client side ---------------------------------------------------------------------------------


class _Boundary:
    """Watches the text of one response for a message left unterminated when it ends.

    httpx-sse drops such a message, as the spec says; phi-wire treats it as a drop and resumes
    from the last complete event instead.
    """

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.headers = response.headers
        self.open = False  # some non-blank text after the last blank line
        self._edge = ""

    def _see(self, text: str) -> str:
        joined = (self._edge + text).replace("\r\n", "\n").replace("\r", "\n")
        end = joined.rfind("\n\n")
        self.open = (
            bool(joined[end + 2 :].strip()) if end >= 0 else self.open or bool(joined.strip())
        )
        self._edge = (self._edge + text)[-3:]
        return text

    def iter_text(self) -> Iterator[str]:
        for text in self.response.iter_text():
            yield self._see(text)

    async def aiter_text(self) -> AsyncIterator[str]:
        async for text in self.response.aiter_text():
            yield self._see(text)


class _Resume:
    """What reconnecting needs: the request, the last event id, the retry delay, the drop count."""

    def __init__(
        self,
        source: str | httpx.Response,
        event_type: Any,
        headers: dict[str, str] | None,
        max_retries: int,
        on_error: ErrorHandler | None,
    ) -> None:
        self.first = source if isinstance(source, httpx.Response) else None
        self.method, self.content, base = "GET", b"", {}
        if self.first is not None:
            request = self.first.request
            self.url = str(request.url)
            self.method = request.method
            base = {k: v for k, v in request.headers.items() if k.lower() not in _UNSENT_HEADERS}
            try:
                self.content = request.content
            except httpx.RequestNotRead:
                self.content = b""
        else:
            self.url = str(source)
        self.base_headers = {**base, **(headers or {})}
        self.event_type = event_type or _default_type()
        self.max_retries = max_retries
        self.on_error = on_error
        self.last_event_id = ""
        self.retry_ms = DEFAULT_RETRY_MS
        self.failures = 0

    def request(self) -> dict[str, Any]:
        """Keyword arguments of ``client.stream`` for the next connection."""
        headers = {**self.base_headers, "Accept": MEDIA_TYPE, "Cache-Control": "no-store"}
        if self.last_event_id:
            headers["Last-Event-ID"] = self.last_event_id
        return {
            "method": self.method,
            "url": self.url,
            "headers": headers,
            "content": self.content or None,
        }

    def dropped(self, error: Exception) -> float:
        """Count a drop; the delay before reconnecting, or re-raise past the limit (at once for
        a response that is not an event stream: httpx-sse's SSEError is a TransportError too)."""
        self.failures += 1
        if self.failures > self.max_retries or isinstance(error, SSEError):
            raise error
        return self.retry_ms / 1000

    def parse(self, sse: ServerSentEvent) -> Any | None:
        """The event in ``sse``; None for a keep-alive or a skipped malformed message."""
        if sse.retry is not None and sse.retry >= 0:
            self.retry_ms = sse.retry
        self.last_event_id = sse.id  # an id-only message moves the resume point too
        if not sse.data:
            return None
        self.failures = 0  # progress: the next drop starts a fresh count
        try:
            event = loads(self.event_type, sse.data)
            _check_name(sse, event)
        except WireError as error:
            failure = SSEDecodeError(sse.id, error, sse.data)
            if self.on_error is None:
                raise failure from None
            self.on_error(failure)
            return None
        return event


def _check_name(sse: ServerSentEvent, event: Any) -> None:
    """The ``event:`` field, when the server set one, must name the data's ``type``."""
    name = getattr(event, "type", None)
    if sse.event not in {"", "message"} and isinstance(name, str) and sse.event != name:
        message = f"the SSE event name is {sse.event!r} but the data is a {name!r} event"
        raise WireError(type(event).__name__, "/type", message)


def _default_type() -> Any:
    """The newest version's AgentEvent (imported late: phi_wire imports this module's siblings)."""
    import phi_wire

    return getattr(phi_wire, "AgentEvent")  # noqa: B009 - mypy cannot see the star re-export


class _TruncatedBody(httpx.TransportError):
    """The response ended inside an SSE message: resumed like a dropped connection."""


def _ended(boundary: _Boundary) -> None:
    if boundary.open:
        raise _TruncatedBody("the response ended inside an SSE message")


def events(
    source: str | httpx.Response,
    event_type: Any = None,
    *,
    client: httpx.Client | None = None,
    headers: dict[str, str] | None = None,
    max_retries: int = 5,
    on_error: ErrorHandler | None = None,
) -> Iterator[Any]:
    """Typed events (``event_type``, default the newest ``AgentEvent``) from an SSE URL or an
    open ``httpx.Response``, reconnecting after drops (see the module docstring)."""
    resume = _Resume(source, event_type, headers, max_retries, on_error)
    own: httpx.Client | None = None  # made on the first (re)connect: building one costs ~50 ms
    try:
        while True:
            try:
                if resume.first is not None:
                    first, resume.first = resume.first, None
                    yield from _consume(first, resume)
                    return
                http = client or (own := own or httpx.Client(timeout=_TIMEOUT))
                with http.stream(**resume.request()) as response:
                    if response.status_code == 204:
                        return  # the server says: do not reconnect
                    response.raise_for_status()
                    yield from _consume(response, resume)
                return  # the server ended the response after a complete message
            except _DROPS as error:
                time.sleep(resume.dropped(error))
    finally:
        if own is not None:
            own.close()


def _consume(response: httpx.Response, resume: _Resume) -> Iterator[Any]:
    boundary = _Boundary(response)
    for sse in EventSource(cast(httpx.Response, boundary)).iter_sse():
        event = resume.parse(sse)
        if event is not None:
            yield event
    _ended(boundary)


async def aevents(
    source: str | httpx.Response,
    event_type: Any = None,
    *,
    client: httpx.AsyncClient | None = None,
    headers: dict[str, str] | None = None,
    max_retries: int = 5,
    on_error: ErrorHandler | None = None,
) -> AsyncIterator[Any]:
    """The async twin of ``events``."""
    resume = _Resume(source, event_type, headers, max_retries, on_error)
    own: httpx.AsyncClient | None = None
    try:
        while True:
            try:
                if resume.first is not None:
                    first, resume.first = resume.first, None
                    async for event in _aconsume(first, resume):
                        yield event
                    return
                http = client or (own := own or httpx.AsyncClient(timeout=_TIMEOUT))
                async with http.stream(**resume.request()) as response:
                    if response.status_code == 204:
                        return
                    response.raise_for_status()
                    async for event in _aconsume(response, resume):
                        yield event
                return
            except _DROPS as error:
                await asyncio.sleep(resume.dropped(error))
    finally:
        if own is not None:
            await own.aclose()


async def _aconsume(response: httpx.Response, resume: _Resume) -> AsyncIterator[Any]:
    boundary = _Boundary(response)
    async for sse in EventSource(cast(httpx.Response, boundary)).aiter_sse():
        event = resume.parse(sse)
        if event is not None:
            yield event
    _ended(boundary)
