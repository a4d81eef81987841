"""AgentEvents over Server-Sent Events (the WHATWG HTML "server-sent events" format) with httpx.

One SSE message per event: ``event:`` the event's ``type``, ``data:`` its canonical compact JSON
(exactly what ``dumps`` writes, which never holds a raw CR or LF), and an optional ``id:``.

Client side, ``events()`` / ``aevents()`` parse the stream with httpx-sse (a small, well-kept
decoder that follows the spec's line rules: CRLF, CR or LF; comments; ``retry:``) and validate
each message as strictly as ``loads``. When the connection drops before the server ends the
response, they reconnect with ``Last-Event-ID`` after the server's ``retry:`` delay, a bounded
number of times in a row, so no event is lost or repeated (the server must honour the header, as
``sse_body`` does). A message that is not a valid event raises ``SSEDecodeError`` naming the event
id and the JSON pointer, or, with ``on_error=callback``, is reported to the callback and skipped.

Server side, ``sse_body()`` turns an iterable of events into the bytes of a ``text/event-stream``
body for any framework's streaming response; ``sse_app()`` is a complete ASGI app.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from typing import Any

import httpx
from httpx_sse import EventSource, ServerSentEvent

from ._codec import dumps, loads
from ._errors import WireError

__all__ = [
    "MEDIA_TYPE",
    "SSEDecodeError",
    "aevents",
    "encode",
    "events",
    "sse_app",
    "sse_body",
]

MEDIA_TYPE = "text/event-stream"
DEFAULT_RETRY_MS = 1000
"""Reconnection delay until the server sends ``retry:`` (the spec leaves it to the client)."""

# Transport failures after which the stream resumes from the last event id.
_DROPS = (httpx.TransportError, httpx.RemoteProtocolError)

ErrorHandler = Callable[["SSEDecodeError"], None]


class SSEDecodeError(ValueError):
    """An SSE message that is not a valid event: the event id, and the ``WireError`` inside."""

    def __init__(self, event_id: str, error: WireError, data: str) -> None:
        self.event_id = event_id
        self.error = error
        self.data = data
        super().__init__(f"SSE event id {event_id or '(none)'}: {error}")

    @property
    def pointer(self) -> str:
        return self.error.pointer


def encode(event: Any, id: str | None = None) -> bytes:
    """One SSE message for ``event``: ``event: <type>``, optional ``id:``, ``data: <json>``."""
    lines = [f"event: {event.type}"]
    if id is not None:
        if "\n" in id or "\r" in id or "\0" in id:
            raise ValueError("an SSE id cannot hold CR, LF or NUL")
        lines.append(f"id: {id}")
    lines.append(f"data: {dumps(event)}")
    return ("\n".join(lines) + "\n\n").encode("utf-8")


def sse_body(
    stream: Iterable[Any], *, last_event_id: str | None = None, retry_ms: int | None = None
) -> Iterator[bytes]:
    """The body of a ``text/event-stream`` response: event *n* (from 0) gets ``id: n``; with the
    client's ``Last-Event-ID`` the events up to that id are skipped, so a reconnect resumes."""
    resume_after = int(last_event_id) if last_event_id and last_event_id.isdigit() else -1
    if retry_ms is not None:
        yield f"retry: {retry_ms}\n\n".encode()
    for number, event in enumerate(stream):
        if number > resume_after:
            yield encode(event, id=str(number))


def sse_app(
    make_stream: Callable[[], Iterable[Any]], *, retry_ms: int | None = None
) -> Callable[[dict[str, Any], Any, Any], Awaitable[None]]:
    """A minimal ASGI app serving ``make_stream()`` as SSE, honouring ``Last-Event-ID``."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        headers = dict(scope.get("headers") or [])
        last = headers.get(b"last-event-id", b"").decode("latin-1") or None
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
        for chunk in sse_body(make_stream(), last_event_id=last, retry_ms=retry_ms):
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


class _Resume:
    """What a reconnect needs: the last event id seen, the retry delay, the drop count."""

    def __init__(self, max_retries: int) -> None:
        self.last_event_id = ""
        self.retry_ms = DEFAULT_RETRY_MS
        self.max_retries = max_retries
        self.failures = 0

    def headers(self, base: dict[str, str]) -> dict[str, str]:
        headers = {**base, "Accept": MEDIA_TYPE}
        if self.last_event_id:
            headers["Last-Event-ID"] = self.last_event_id
        return headers

    def dropped(self, error: Exception) -> float:
        """Count a drop; the delay before reconnecting, or re-raise past the limit."""
        self.failures += 1
        if self.failures > self.max_retries:
            raise error
        return self.retry_ms / 1000

    def parse(
        self, sse: ServerSentEvent, event_type: Any, on_error: ErrorHandler | None
    ) -> Any | None:
        """The event in ``sse`` (None for keep-alives); remembers its id and ``retry:``."""
        if sse.retry is not None:
            self.retry_ms = sse.retry
        if not sse.data:
            return None  # retry-only or id-only message, or an empty keep-alive
        try:
            event = loads(event_type, sse.data)
        except WireError as error:
            failure = SSEDecodeError(sse.id, error, sse.data)
            if on_error is None:
                raise failure from None
            on_error(failure)
            event = None
        self.last_event_id = sse.id
        self.failures = 0  # progress: the next drop starts a fresh count
        return event


def _default_type() -> Any:
    """The newest version's AgentEvent (imported late: phi_wire imports this module's siblings)."""
    import phi_wire

    return getattr(phi_wire, "AgentEvent")  # noqa: B009 - resolved at run time, not import time


def _plan(
    source: str | httpx.Response,
    event_type: Any,
    headers: dict[str, str] | None,
    max_retries: int,
) -> tuple[Any, _Resume, str, httpx.Response | None, dict[str, str]]:
    """What both twins start from: the type, the resume state, the URL, an already open
    response to read first (if the caller gave one) and the caller's headers."""
    response = source if isinstance(source, httpx.Response) else None
    url = str(response.request.url) if response is not None else str(source)
    return event_type or _default_type(), _Resume(max_retries), url, response, dict(headers or {})


def events(
    source: str | httpx.Response,
    event_type: Any = None,
    *,
    client: httpx.Client | None = None,
    headers: dict[str, str] | None = None,
    max_retries: int = 5,
    on_error: ErrorHandler | None = None,
) -> Iterator[Any]:
    """Typed events from an SSE URL or an open ``httpx.Response``, resuming after drops."""
    event_type, resume, url, response, base_headers = _plan(
        source, event_type, headers, max_retries
    )
    own_client = client is None
    http = client or httpx.Client(timeout=httpx.Timeout(30.0, read=None))
    try:
        while True:
            try:
                if response is None:
                    with http.stream("GET", url, headers=resume.headers(base_headers)) as opened:
                        opened.raise_for_status()
                        yield from _consume(opened, event_type, resume, on_error)
                else:
                    first, response = response, None
                    yield from _consume(first, event_type, resume, on_error)
                return  # the server ended the response: the stream is complete
            except _DROPS as error:
                time.sleep(resume.dropped(error))
    finally:
        if own_client:
            http.close()


def _consume(
    response: httpx.Response, event_type: Any, resume: _Resume, on_error: ErrorHandler | None
) -> Iterator[Any]:
    for sse in EventSource(response).iter_sse():
        event = resume.parse(sse, event_type, on_error)
        if event is not None:
            yield event


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
    event_type, resume, url, response, base_headers = _plan(
        source, event_type, headers, max_retries
    )
    own_client = client is None
    http = client or httpx.AsyncClient(timeout=httpx.Timeout(30.0, read=None))
    try:
        while True:
            try:
                if response is None:
                    async with http.stream(
                        "GET", url, headers=resume.headers(base_headers)
                    ) as opened:
                        opened.raise_for_status()
                        async for event in _aconsume(opened, event_type, resume, on_error):
                            yield event
                else:
                    first, response = response, None
                    async for event in _aconsume(first, event_type, resume, on_error):
                        yield event
                return
            except _DROPS as error:
                await asyncio.sleep(resume.dropped(error))
    finally:
        if own_client:
            await http.aclose()


async def _aconsume(
    response: httpx.Response, event_type: Any, resume: _Resume, on_error: ErrorHandler | None
) -> AsyncIterator[Any]:
    async for sse in EventSource(response).aiter_sse():
        event = resume.parse(sse, event_type, on_error)
        if event is not None:
            yield event
