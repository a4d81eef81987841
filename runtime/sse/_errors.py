"""The exceptions of ``phi_wire.sse``: each names what went wrong with an SSE stream, and where.

Their bases are chosen so that existing ``except`` clauses keep meaning what they meant: a status
error is an ``httpx.HTTPStatusError``, a refused content type an ``httpx_sse.SSEError``, a closed
connection an ``httpx.TransportError``, and a bad message a ``ValueError``.
"""

from __future__ import annotations

import httpx
from httpx_sse import SSEError

from phi_wire.errors import WireError

__all__ = [
    "SSEConnectionClosed",
    "SSEContentTypeError",
    "SSEDecodeError",
    "SSEEventTooLarge",
    "SSEResumeError",
    "SSEStatusError",
]


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


class SSEEventTooLarge(SSEDecodeError):
    """An SSE message (or a single line) longer than ``max_event_bytes``; its data is not kept.

    ``event_id`` is the message's own ``id:`` when that line came before the limit was reached.
    """

    def __init__(self, event_id: str, limit: int) -> None:
        self.limit = limit
        message = f"the SSE message is larger than max_event_bytes ({limit} bytes)"
        super().__init__(event_id, WireError("SSE message", "", message), "")


class SSEResumeError(RuntimeError):
    """After a reconnect, the server sent an event that cannot be told apart from the events
    already delivered (its id is missing, inherited or not a decimal number): delivering it
    could repeat an event, so the stream stops instead."""

    def __init__(self, url: str, last_event_id: str, event_id: str, delivered: int | None) -> None:
        self.url = url
        self.last_event_id = last_event_id
        self.event_id = event_id
        self.delivered = delivered
        sent = repr(last_event_id) if last_event_id else "no Last-Event-ID"
        got = f"id {event_id!r}" if event_id else "no id"
        upto = "no numbered event" if delivered is None else f"events up to id {delivered}"
        super().__init__(
            f"SSE stream {url}: reconnected with {sent}, the server sent an event with {got}, "
            f"which cannot be compared with what was delivered ({upto}); stopping rather than "
            "risk a repeat (trust_resume=True delivers it, if the server honours Last-Event-ID)"
        )


class SSEStatusError(httpx.HTTPStatusError):
    """A (re)connection answered with a status other than 200 or 204, or a retried ``5xx`` or
    ``429`` that still failed after ``max_retries``; names the status and the URL."""

    def __init__(self, response: httpx.Response, retry_after: float | None = None) -> None:
        self.status_code = response.status_code
        self.retry_after = retry_after
        """The ``Retry-After`` delay in seconds the server asked for, when it did."""
        phrase = f" {response.reason_phrase}" if response.reason_phrase else ""
        super().__init__(
            f"SSE stream {response.request.url}: the server answered {self.status_code}{phrase}",
            request=response.request,
            response=response,
        )


class SSEContentTypeError(SSEError):
    """A ``200`` answer that is not ``text/event-stream`` (the spec fails such a connection)."""

    def __init__(self, url: str, content_type: str) -> None:
        self.url = url
        self.content_type = content_type
        super().__init__(
            f"SSE stream {url}: expected Content-Type text/event-stream, got {content_type!r}"
        )


class SSEConnectionClosed(httpx.TransportError):
    """The server ended a response without ending the stream (no ``204``, no end event): a drop
    like any other, resumed with ``Last-Event-ID``; raised only once the retries run out."""

    def __init__(self, url: str, last_event_id: str, inside_message: bool) -> None:
        self.url = url
        self.last_event_id = last_event_id
        self.inside_message = inside_message
        where = "inside a message" if inside_message else "between messages"
        after = f"after event id {last_event_id!r}" if last_event_id else "before any event id"
        super().__init__(f"SSE stream {url}: the server closed the response {where}, {after}")
