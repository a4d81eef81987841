"""AgentEvents over Server-Sent Events (WHATWG HTML, "Server-sent events") with httpx.

Wire form: one SSE message per event: ``event:`` the event's ``type``, an optional ``id:``, then
``data:`` its canonical compact JSON (exactly what ``dumps`` writes, which never holds a raw CR
or LF, the only SSE line breaks; U+2028 and U+0085 pass through unescaped, as serde writes them).

Client: ``events()`` / ``aevents()`` (twins, same options, same behaviour) deliver each event of
the stream exactly once, typed and validated as strictly as ``loads``.

* The stream ends only when (a) the server answers a (re)connect with ``204 No Content``, (b) the
  ``until`` rule says the event just delivered was the last one: by default ``RunEnd``, the
  event that completes the run (the ``AgentEnd`` closing the outermost loop, see ``RunEnd``);
  ``until=None`` for a stream of several runs; any ``callable(event) -> bool`` for other types,
  or (c) the caller stops iterating (the connection is closed at once).
* Any other end of a response is a drop, resumed by reconnecting with ``Last-Event-ID`` (the last
  id seen, sent as UTF-8): a connection reset or refused, a body cut inside a message or inside a
  chunk, a short Content-Length, and a clean close between two messages (what a proxy restart, an
  idle timeout or a crashed worker look like). It waits the server's ``retry:`` delay (default
  ``retry_ms``), doubled for each further failure in a row and capped at ``max_retry_delay``
  (default 30 s); ``max_retries`` connections in a row that bring no new event raise the last
  error (``SSEConnectionClosed`` for a clean close).
* ``5xx`` and ``429`` answers are retried the same way, waiting at least their ``Retry-After``
  (seconds or an HTTP-date) within the cap, then raise ``SSEStatusError``; any other status but
  200 raises ``SSEStatusError`` at once, a 200 that is not ``text/event-stream``
  ``SSEContentTypeError``.
* No repeats: after a reconnect, events whose decimal id (as ``sse_body`` writes them) is at most
  the highest one handled are skipped, until the first higher id; from there on everything is
  new. An event that cannot be compared (no id, a NUL id the spec ignores, a non-decimal id)
  raises ``SSEResumeError`` there, unless ``trust_resume=True`` (the server honours
  ``Last-Event-ID``). Without a reconnect any ids are fine.
* Bounded memory: a message (or line) over ``max_event_bytes`` (default 64 MiB) is not kept; it
  raises ``SSEEventTooLarge``, or, with ``on_error``, is reported and skipped to its end.
* A message that is not a valid event raises ``SSEDecodeError`` naming the event id and the JSON
  pointer, or, with ``on_error=callback``, is reported to the callback and skipped; an ``event:``
  name that differs from the data's ``type`` is such an error too. Messages with no data
  (keep-alives, ``retry:``/``id:``-only) carry no event.

Server: ``sse_body()`` / ``asse_body()`` turn a (sync / async) iterable of events into the bytes
of a ``text/event-stream`` body for any framework's streaming response; event *n* gets ``id: n``
and a reconnect resumes after the client's ``Last-Event-ID``; the async form sends a comment
keep-alive while the source is idle. ``sse_response()`` / ``asse_response()`` add the status:
``204`` when nothing follows the client's ``Last-Event-ID`` (the stream is over), which tells the
client to stop. ``sse_app()`` is a complete ASGI app that does all of it.
"""

from __future__ import annotations

from ._client import (
    DEFAULT_MAX_EVENT_BYTES,
    DEFAULT_MAX_RETRY_DELAY,
    DEFAULT_RETRY_MS,
    ErrorHandler,
    RunEnd,
    aevents,
    events,
)
from ._errors import (
    SSEConnectionClosed,
    SSEContentTypeError,
    SSEDecodeError,
    SSEEventTooLarge,
    SSEResumeError,
    SSEStatusError,
)
from ._server import (
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

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "DEFAULT_MAX_RETRY_DELAY",
    "DEFAULT_RETRY_MS",
    "KEEP_ALIVE",
    "MEDIA_TYPE",
    "AsyncSSEResponse",
    "ErrorHandler",
    "RunEnd",
    "SSEConnectionClosed",
    "SSEContentTypeError",
    "SSEDecodeError",
    "SSEEventTooLarge",
    "SSEResponse",
    "SSEResumeError",
    "SSEStatusError",
    "aevents",
    "asse_body",
    "asse_response",
    "encode",
    "events",
    "sse_app",
    "sse_body",
    "sse_response",
]
