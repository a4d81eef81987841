"""The server side of ``phi_wire.sse``: events as a numbered ``text/event-stream`` body that
resumes after the client's ``Last-Event-ID``, and the status to answer with: ``204 No Content``
once the stream holds nothing more, which tells the client not to reconnect (WHATWG HTML,
"Server-sent events", "Processing model").
"""

from __future__ import annotations

import asyncio
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    Awaitable,
    Callable,
    Generator,
    Iterable,
    MutableMapping,
)
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

from phi_wire.serde import dumps

__all__ = [
    "KEEP_ALIVE",
    "MEDIA_TYPE",
    "AsyncSSEResponse",
    "SSEResponse",
    "asse_body",
    "asse_response",
    "encode",
    "sse_app",
    "sse_body",
    "sse_response",
]

MEDIA_TYPE = "text/event-stream"
KEEP_ALIVE = b": keep-alive\n\n"
"""A comment message: keeps proxies from closing an idle stream; clients ignore it."""
_STREAM_HEADERS = {"Content-Type": MEDIA_TYPE, "Cache-Control": "no-cache"}


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
        # No id made here has 19 digits; int() of a 5000-digit header would raise.
        return int(last_event_id) if len(last_event_id) < 19 else -1
    return -1


def _retry(retry_ms: int | None) -> list[bytes]:
    return [] if retry_ms is None else [f"retry: {int(retry_ms)}\n\n".encode()]


def sse_body(
    stream: Iterable[Any], *, last_event_id: str | None = None, retry_ms: int | None = None
) -> Generator[bytes, None, None]:
    """The body of a ``text/event-stream`` response: event *n* (from 0) gets ``id: n``; with the
    client's ``Last-Event-ID`` the events up to that id are skipped, so a reconnect resumes.
    ``sse_response`` also says whether to answer ``204`` instead (the stream is over)."""
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
) -> AsyncGenerator[bytes, None]:
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


@dataclass(frozen=True)
class SSEResponse:
    """What to answer a request for an event stream with: ``status`` 200 with ``headers`` and
    ``body``, or 204 (no headers, an empty body) when nothing follows the client's
    ``Last-Event-ID``: the stream is over, and a client that reconnects learns so."""

    status: int
    headers: dict[str, str]
    body: Generator[bytes, None, None]


@dataclass(frozen=True)
class AsyncSSEResponse:
    """``SSEResponse`` with an async body."""

    status: int
    headers: dict[str, str]
    body: AsyncGenerator[bytes, None]


def sse_response(
    stream: Iterable[Any], *, last_event_id: str | None = None, retry_ms: int | None = None
) -> SSEResponse:
    """``sse_body`` with its status: the first event after ``last_event_id`` is read before
    returning (waiting for it, if the source is live); none at all means ``204``."""
    body = sse_body(stream, last_event_id=last_event_id)
    first = next(body, None)
    if first is None:
        return SSEResponse(204, {}, _chain([], body))
    return SSEResponse(200, dict(_STREAM_HEADERS), _chain([*_retry(retry_ms), first], body))


async def asse_response(
    stream: AsyncIterable[Any] | Iterable[Any],
    *,
    last_event_id: str | None = None,
    retry_ms: int | None = None,
    keep_alive: float | None = 15.0,
) -> AsyncSSEResponse:
    """``asse_body`` with its status: waits for the first event after ``last_event_id`` or, if
    the source stays idle, at most ``keep_alive`` seconds (a live stream: ``200``); a source that
    ends first gives ``204``."""
    body = asse_body(stream, last_event_id=last_event_id, keep_alive=keep_alive)
    try:
        first = await anext(body)
    except StopAsyncIteration:
        return AsyncSSEResponse(204, {}, _achain([], body))
    return AsyncSSEResponse(200, dict(_STREAM_HEADERS), _achain([*_retry(retry_ms), first], body))


def _chain(head: list[bytes], rest: Generator[bytes, None, None]) -> Generator[bytes, None, None]:
    try:
        yield from head
        yield from rest
    finally:  # closing the response's body closes the source's generator too
        rest.close()


async def _achain(
    head: list[bytes], rest: AsyncGenerator[bytes, None]
) -> AsyncGenerator[bytes, None]:
    async with aclosing(rest):
        for chunk in head:
            yield chunk
        async for chunk in rest:
            yield chunk


def sse_app(
    make_stream: Callable[[], AsyncIterable[Any] | Iterable[Any]],
    *,
    retry_ms: int | None = None,
    keep_alive: float | None = 15.0,
) -> Callable[[MutableMapping[str, Any], Any, Any], Awaitable[None]]:
    """A minimal ASGI app serving ``make_stream()`` as SSE, honouring ``Last-Event-ID`` and
    answering ``204`` once nothing follows it; it stops reading the stream when the client
    disconnects."""

    async def app(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        headers = dict(scope.get("headers") or [])
        # Clients send the id as UTF-8 (the spec's encoding for the header).
        last = headers.get(b"last-event-id", b"").decode("utf-8", "replace") or None

        async def respond() -> None:
            reply = await asse_response(
                make_stream(), last_event_id=last, retry_ms=retry_ms, keep_alive=keep_alive
            )
            fields = [(key.lower().encode(), text.encode()) for key, text in reply.headers.items()]
            await send({"type": "http.response.start", "status": reply.status, "headers": fields})
            async with aclosing(reply.body) as body:
                async for chunk in body:
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})

        async def disconnected() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass

        tasks = {asyncio.ensure_future(respond()), asyncio.ensure_future(disconnected())}
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        for task in done:
            task.result()  # re-raise a failure of the stream

    return app
