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
keep-alive while the source is idle. ``sse_response()`` / ``asse_response()`` add the status:
``204`` when nothing follows the client's ``Last-Event-ID`` (the stream is over), which tells the
client to stop. ``sse_app()`` is a complete ASGI app that does all of it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import (
    AsyncIterator,
    Callable,
    Iterator,
)
from typing import Any, cast

import httpx
from httpx_sse import EventSource, ServerSentEvent, SSEError

from ._codec import loads
from ._sse_server import (
    KEEP_ALIVE,
    MEDIA_TYPE,
    AsyncSSEResponse,
    SSEResponse,
    asse_body,
    asse_response,
    encode,
    sse_app,
    sse_body,
    sse_response,
)
from .errors import WireError

__all__ = [
    "DEFAULT_RETRY_MS",
    "KEEP_ALIVE",
    "MEDIA_TYPE",
    "AsyncSSEResponse",
    "SSEDecodeError",
    "SSEResponse",
    "aevents",
    "asse_body",
    "asse_response",
    "encode",
    "events",
    "sse_app",
    "sse_body",
    "sse_response",
]

DEFAULT_RETRY_MS = 1000
"""Reconnection delay until the server sends ``retry:`` (the spec leaves it to the client)."""

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
