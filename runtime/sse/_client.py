"""The SSE client of ``phi_wire.sse``: typed events from a URL or an open response, resumed after
every kind of disconnect without losing or repeating an event (WHATWG HTML, "Server-sent events",
"Processing model": reconnection, the last event ID string sent as ``Last-Event-ID``, the
reconnection time set by ``retry:``, ``204 No Content`` ending the stream).

Each response's bytes go through ``Framer`` (whole messages, bounded in size), then ``Fields`` (the
events they dispatch); ``_Resume`` holds what outlives one connection: the resume point, what was
delivered, the retry delays.

Why one module of some 600 lines: the sync and the async client are twins kept side by side (as
httpx-sse keeps them), so that a change to one is seen beside the other.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import time
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Callable,
    Iterator,
)
from contextlib import aclosing
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast, overload

import httpx
from httpx_sse import SSEError

from phi_wire.errors import WireError
from phi_wire.serde import loads

from ._errors import (
    SSEConnectionClosed,
    SSEContentTypeError,
    SSEDecodeError,
    SSEEventTooLarge,
    SSEResumeError,
    SSEStatusError,
)
from ._fields import Fields, Message
from ._frame import Framer, TooLarge
from ._server import MEDIA_TYPE

if TYPE_CHECKING:  # the default event type; imported late at run time (see _default_type)
    from typing_extensions import TypeForm

    from phi_wire.v0_10 import AgentEvent

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "DEFAULT_MAX_RETRY_DELAY",
    "DEFAULT_RETRY_MS",
    "RunEnd",
    "aevents",
    "events",
]

DEFAULT_RETRY_MS = 1000
"""Reconnection delay until the server sends ``retry:`` (the spec leaves it to the client)."""
DEFAULT_MAX_RETRY_DELAY = 30.0
"""Longest wait before a reconnect, whatever ``retry:``, ``Retry-After`` or the backoff say."""
DEFAULT_MAX_EVENT_BYTES = 64 * 1024 * 1024
"""Largest SSE message read: twice the largest request a provider takes (Anthropic's Messages
API: 32 MB), so any message a model can be sent, base64 images included, fits in one event."""

ErrorHandler = Callable[[SSEDecodeError], None]
EndRule = Callable[[Any], bool]
Event = TypeVar("Event")

_TIMEOUT = httpx.Timeout(30.0, read=None)  # an SSE stream may stay quiet for long
_DROPS = (httpx.TransportError, SSEStatusError)  # what may be retried; see _Resume.dropped
_UNSENT_HEADERS = {b"host", b"content-length", b"transfer-encoding"}
_SET_HEADERS = {b"accept", b"cache-control", b"last-event-id"}
_MAX_RETRY_MS = 2**31  # ~25 days: any larger retry: value is capped before it becomes a float
_MAX_DELAY_CAP = 86400.0


class RunEnd:
    """The default end of an AgentEvent stream: true for the event that completes the run.

    An ``AgentEnd`` names only its loop; whether that loop is the root is known from its
    ``AgentStart``, and not by ``parent_loop_id`` (set for a sub-agent's loop, nested in its
    parent's, and for every ``agent_loop_continue`` run, which is the root of its own stream). So
    the rule is nesting: ``AgentStart``/``AgentEnd`` (by ``loop_id``) and ``ParallelLoopStart``/
    ``ParallelLoopEnd`` (by ``session_id``, around parallel branches) open and close brackets, and
    the run is complete when an event closes the last open one. An end whose start was not seen
    ends nothing. Events of other types never end the stream.
    """

    def __init__(self) -> None:
        self._open: set[tuple[str, str]] = set()

    def __call__(self, event: Any) -> bool:
        kind = getattr(event, "type", None)
        if kind == "AgentStart":
            self._open.add(("loop", event.loop_id))
        elif kind == "ParallelLoopStart":
            self._open.add(("parallel", event.session_id))
        elif kind in ("AgentEnd", "ParallelLoopEnd"):
            key = ("loop", event.loop_id) if kind == "AgentEnd" else ("parallel", event.session_id)
            if key in self._open:
                self._open.remove(key)
                return not self._open
        return False


class _Resume:
    """What outlives one connection: the request, the resume point, what was delivered (to skip
    repeats), the retry delays and budget, and whether the stream has ended."""

    def __init__(
        self,
        source: str | httpx.Response,
        event_type: Any,
        *,
        headers: dict[str, str] | None,
        max_retries: int,
        on_error: ErrorHandler | None,
        until: EndRule | Literal["run"] | None,
        retry_ms: int,
        max_retry_delay: float,
        max_event_bytes: int,
        trust_resume: bool,
    ) -> None:
        _check_options(max_retries, retry_ms, max_retry_delay, max_event_bytes)
        self.first = source if isinstance(source, httpx.Response) else None
        self.method, self.content, self.url = "GET", b"", str(source)
        self.base_headers = httpx.Headers()
        if self.first is not None:
            self._reuse(self.first.request)
        self.base_headers.update(headers or {})
        self.event_type = event_type or _default_type()
        self.max_retries = max_retries
        self.on_error = on_error
        self.until = _end_rule(until)
        self.retry_ms = retry_ms
        self.max_retry_delay = max_retry_delay
        self.max_event_bytes = max_event_bytes
        self.trust_resume = trust_resume
        self.last_event_id = ""  # the spec's "last event ID string"
        self.highest: int | None = None  # the highest decimal own id of a handled message
        self.handled = False  # a message with data was delivered or reported
        self.catching_up = False  # after a reconnect, until an event proves to be new
        self.previous_id: str | None = None  # the id of this connection's previous message
        self.failures = 0  # connections in a row that brought no new message
        self.finished = False
        self._resume_from(self.base_headers.get("last-event-id"))

    def _resume_from(self, given: str | None) -> None:
        """A ``Last-Event-ID`` from the caller (resuming a stream read before) is the first resume
        point; a decimal one also counts the events up to it as handled, so repeats are skipped."""
        if given:
            self.last_event_id = given
            self.highest = _decimal(given)
            self.handled = self.highest is not None

    def _reuse(self, request: httpx.Request) -> None:
        """Reconnect with the open response's request: method, URL, headers (bytes), body."""
        self.url, self.method = str(request.url), request.method
        raw = [(k, v) for k, v in request.headers.raw if k.lower() not in _UNSENT_HEADERS]
        self.base_headers = httpx.Headers(raw)
        try:
            self.content = request.content
        except httpx.RequestNotRead:
            self.content = b""

    def request(self) -> dict[str, Any]:
        """Keyword arguments of ``client.stream`` for the next connection."""
        headers = [(k, v) for k, v in self.base_headers.raw if k.lower() not in _SET_HEADERS]
        headers += [(b"Accept", MEDIA_TYPE.encode()), (b"Cache-Control", b"no-store")]
        # UTF-8, as the spec says; surrounding spaces and tabs go, as Fetch's header
        # normalisation removes them (and h11 refuses them).
        resume_at = self.last_event_id.strip(" \t")
        if resume_at:
            headers.append((b"Last-Event-ID", resume_at.encode("utf-8")))
        return {
            "method": self.method,
            "url": self.url,
            "headers": headers,
            "content": self.content or None,
        }

    # --- one connection --------------------------------------------------------------------

    def accept(self, response: httpx.Response) -> bool:
        """Whether ``response`` carries the stream on: False for a ``204`` (the end); raises for
        any other status but ``200`` and for a content type other than ``text/event-stream``."""
        if response.status_code == 204:
            self.finished = True
            return False
        if response.status_code != 200:
            raise SSEStatusError(response, _retry_after(response.headers.get("retry-after")))
        content_type = response.headers.get("content-type", "")
        if content_type.partition(";")[0].strip().lower() != MEDIA_TYPE:
            raise SSEContentTypeError(str(response.request.url), content_type)
        self.previous_id = None
        self.catching_up = self.handled  # something was handled: the server may repeat it
        return True

    def messages(self, framer: Framer, fields: Fields, chunk: bytes) -> Iterator[Message]:
        """The messages ``chunk`` completes; a too large one is reported in its turn (once all
        before it are delivered). Each framed piece is let go once read, so a big message is
        never held twice."""
        items = framer.feed(chunk)
        items.reverse()
        run: list[bytes] = []
        while items:
            item = items.pop()
            if isinstance(item, TooLarge):
                if run:
                    yield from fields.messages(_joined(run))
                self.too_large(item)
            else:
                run.append(item)
        if run:
            yield from fields.messages(_joined(run))

    def parse(self, message: Message) -> Any | None:
        """The event in ``message``; None for a keep-alive, a repeat or a reported bad message."""
        if message.retry is not None and message.retry >= 0:
            self.retry_ms = min(message.retry, _MAX_RETRY_MS)
        # Each message carries the current id; a message has its own id only when that differs
        # from the previous message's (a message without an id: line inherits it).
        current_id = message.last_event_id
        own_id = current_id if current_id != (self.previous_id or "") else None
        self.previous_id = current_id
        data = message.data
        if not self._admit(own_id, current_id, bool(data)) or not data:
            return None
        try:
            # UTF-8 bytes as they are; other bytes as the spec reads them (U+FFFD)
            event = loads(self.event_type, data if data.isascii() else message.text())
            _check_name(message.event, event)
        except WireError as error:
            self._report(SSEDecodeError(current_id, error, message.text()))
            return None
        return event

    def too_large(self, item: TooLarge) -> None:
        """A message past ``max_event_bytes``: a repeat is skipped, any other is an error."""
        current = item.event_id if item.event_id is not None else self.previous_id or ""
        if self._admit(item.event_id, current, True):
            self._report(SSEEventTooLarge(current, self.max_event_bytes))

    def _admit(self, own_id: str | None, current_id: str, has_data: bool) -> bool:
        """Whether a message is new (False: a repeat, skipped); a new one moves the resume point
        and, with data, counts as progress."""
        number = _decimal(own_id)
        if self.catching_up and not self._is_new(number, own_id or current_id, has_data):
            return False
        self.last_event_id = current_id  # an id-only message moves the resume point too
        if has_data:
            self.handled, self.failures = True, 0
            if number is not None:
                self.highest = number if self.highest is None else max(self.highest, number)
        return True

    def _is_new(self, number: int | None, event_id: str, has_data: bool) -> bool:
        """After a reconnect: an id up to the highest handled one is a repeat; the first higher
        one shows the server has caught up; a message that cannot be compared is an error."""
        if number is not None and self.highest is not None:
            if number <= self.highest:
                return False
            self.catching_up = False
            return True
        if not has_data:
            return True  # an id-only message repeats no event
        if not self.trust_resume:
            raise SSEResumeError(self.url, self.last_event_id, event_id, self.highest)
        self.catching_up = False
        return True

    def _report(self, error: SSEDecodeError) -> None:
        if self.on_error is None:
            raise error from None
        self.on_error(error)

    def ends(self, event: Any) -> bool:
        """Whether ``event``, just delivered, is the stream's last (the ``until`` rule)."""
        self.finished = self.until is not None and self.until(event)
        return self.finished

    def closed(self, framer: Framer) -> SSEConnectionClosed:
        """A response that ended while the stream did not: a drop like any other."""
        return SSEConnectionClosed(self.url, self.last_event_id, framer.inside_message)

    # --- between connections ---------------------------------------------------------------

    def dropped(self, error: Exception) -> float:
        """Count a failed connection; the delay before the next, or re-raise ``error`` when it
        cannot be retried or the budget is spent."""
        self.failures += 1
        if not _retryable(error):
            raise error
        if self.failures > self.max_retries:
            error.add_note(
                f"phi_wire.sse: {self.failures} connections in a row brought no new event "
                f"(max_retries={self.max_retries})"
            )
            raise error
        # The server's reconnection time, doubled for each further failure in a row.
        delay = self.retry_ms / 1000 * 2.0 ** min(self.failures - 1, 32)
        if isinstance(error, SSEStatusError) and error.retry_after is not None:
            delay = max(delay, error.retry_after)
        return min(delay, self.max_retry_delay)


def _joined(run: list[bytes]) -> bytes:
    """The pieces of whole messages in one block; ``run`` is emptied (its pieces let go)."""
    block = run[0] if len(run) == 1 else b"".join(run)
    run.clear()
    return block


def _check_options(
    max_retries: int, retry_ms: int, max_retry_delay: float, max_event_bytes: int
) -> None:
    if max_retries < 0:
        raise ValueError(f"max_retries must be 0 or more, not {max_retries}")
    if not 0 <= retry_ms <= _MAX_RETRY_MS:
        raise ValueError(f"retry_ms must be between 0 and {_MAX_RETRY_MS}, not {retry_ms}")
    if not 0 <= max_retry_delay <= _MAX_DELAY_CAP:  # also refuses NaN
        raise ValueError(f"max_retry_delay must be 0 to {_MAX_DELAY_CAP:.0f} s: {max_retry_delay}")
    if max_event_bytes < 1:
        raise ValueError(f"max_event_bytes must be positive, not {max_event_bytes}")


def _end_rule(until: EndRule | Literal["run"] | None) -> EndRule | None:
    if not isinstance(until, str):
        return until
    if until != "run":
        raise ValueError(f"until must be 'run', None or a callable, not {until!r}")
    return RunEnd()  # a fresh one: it remembers the loops this stream opened


def _retryable(error: Exception) -> bool:
    """5xx and 429 answers, and transport failures: not a refused content type (httpx-sse's
    SSEError is a TransportError) nor a request httpx itself refuses to send."""
    if isinstance(error, SSEStatusError):
        return error.status_code == 429 or error.status_code >= 500
    return not isinstance(error, SSEError | httpx.LocalProtocolError)


def _retry_after(value: str | None) -> float | None:
    """A ``Retry-After`` header (RFC 9110 section 10.2.3: delay-seconds or an HTTP-date) in
    seconds from now; None when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        return float(value) if len(value) < 12 else _MAX_DELAY_CAP  # no 4300-digit int()
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seconds = (when - datetime.now(UTC)).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _decimal(event_id: str | None) -> int | None:
    """The number in an id written by ``sse_body`` (ASCII digits only), else None."""
    if event_id and event_id.isascii() and event_id.isdecimal() and len(event_id) < 4300:
        return int(event_id)
    return None


def _article(word: str) -> str:
    """English's indefinite article before ``word`` (by its first letter: "an 'AgentStart'")."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def _check_name(sent: str, event: Any) -> None:
    """The ``event:`` field, when the server set one, must name the data's ``type``."""
    name = getattr(event, "type", None)
    if sent not in {"", "message"} and isinstance(name, str) and sent != name:
        data = f"{_article(name)} {name!r} event"
        message = f"the SSE event name is {sent!r} but the data is {data}"
        raise WireError(type(event).__name__, "/type", message)


def _default_type() -> Any:
    """The newest version's AgentEvent (imported late: phi_wire imports this module's siblings)."""
    import phi_wire

    return getattr(phi_wire, "AgentEvent")  # noqa: B009 - mypy cannot see the star re-export


def _new_client() -> httpx.Client:
    return httpx.Client(timeout=_TIMEOUT, follow_redirects=True)  # fetch follows redirects


def _new_async_client() -> httpx.AsyncClient:
    return httpx.AsyncClient(timeout=_TIMEOUT, follow_redirects=True)


# --- the sync and async twins --------------------------------------------------------------------


@overload
def events(
    source: str | httpx.Response,
    event_type: None = None,
    *,
    client: httpx.Client | None = None,
    headers: dict[str, str] | None = None,
    max_retries: int = 5,
    on_error: ErrorHandler | None = None,
    until: Callable[[AgentEvent], bool] | Literal["run"] | None = "run",
    retry_ms: int = DEFAULT_RETRY_MS,
    max_retry_delay: float = DEFAULT_MAX_RETRY_DELAY,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    trust_resume: bool = False,
) -> Iterator[AgentEvent]: ...
@overload
def events(
    source: str | httpx.Response,
    event_type: TypeForm[Event],
    *,
    client: httpx.Client | None = None,
    headers: dict[str, str] | None = None,
    max_retries: int = 5,
    on_error: ErrorHandler | None = None,
    until: Callable[[Event], bool] | Literal["run"] | None = "run",
    retry_ms: int = DEFAULT_RETRY_MS,
    max_retry_delay: float = DEFAULT_MAX_RETRY_DELAY,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    trust_resume: bool = False,
) -> Iterator[Event]: ...
def events(
    source: str | httpx.Response,
    event_type: Any = None,
    *,
    client: httpx.Client | None = None,
    headers: dict[str, str] | None = None,
    max_retries: int = 5,
    on_error: ErrorHandler | None = None,
    until: EndRule | Literal["run"] | None = "run",
    retry_ms: int = DEFAULT_RETRY_MS,
    max_retry_delay: float = DEFAULT_MAX_RETRY_DELAY,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    trust_resume: bool = False,
) -> Iterator[Any]:
    """Typed events (``event_type``, default the newest ``AgentEvent``) from an SSE URL or an
    open ``httpx.Response``, resumed after every disconnect (see ``phi_wire.sse``). A type
    checker gives the events that type (``event_type`` is a type expression, as ``loads``'s)."""
    stream = _Resume(
        source,
        event_type,
        headers=headers,
        max_retries=max_retries,
        on_error=on_error,
        until=until,
        retry_ms=retry_ms,
        max_retry_delay=max_retry_delay,
        max_event_bytes=max_event_bytes,
        trust_resume=trust_resume,
    )
    own: httpx.Client | None = None  # made on the first (re)connect: building one costs ~50 ms
    try:
        while not stream.finished:
            try:
                if stream.first is not None:
                    first, stream.first = stream.first, None
                    try:
                        yield from _read(first, stream)
                    finally:
                        first.close()
                else:
                    http = client or (own := own or _new_client())
                    with http.stream(**stream.request()) as response:
                        yield from _read(response, stream)
            except _DROPS as error:
                time.sleep(stream.dropped(error))
    finally:
        if own is not None:
            own.close()


def _read(response: httpx.Response, stream: _Resume) -> Iterator[Any]:
    """One response's events; it ends the stream (204, ``until``) or raises a drop."""
    if not stream.accept(response):
        return
    framer, fields = Framer(stream.max_event_bytes), Fields()
    for chunk in response.iter_bytes():
        for message in stream.messages(framer, fields, chunk):
            event = stream.parse(message)
            if event is not None:
                yield event
                if stream.ends(event):
                    return
    raise stream.closed(framer)


@overload
def aevents(
    source: str | httpx.Response,
    event_type: None = None,
    *,
    client: httpx.AsyncClient | None = None,
    headers: dict[str, str] | None = None,
    max_retries: int = 5,
    on_error: ErrorHandler | None = None,
    until: Callable[[AgentEvent], bool] | Literal["run"] | None = "run",
    retry_ms: int = DEFAULT_RETRY_MS,
    max_retry_delay: float = DEFAULT_MAX_RETRY_DELAY,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    trust_resume: bool = False,
) -> AsyncIterator[AgentEvent]: ...
@overload
def aevents(
    source: str | httpx.Response,
    event_type: TypeForm[Event],
    *,
    client: httpx.AsyncClient | None = None,
    headers: dict[str, str] | None = None,
    max_retries: int = 5,
    on_error: ErrorHandler | None = None,
    until: Callable[[Event], bool] | Literal["run"] | None = "run",
    retry_ms: int = DEFAULT_RETRY_MS,
    max_retry_delay: float = DEFAULT_MAX_RETRY_DELAY,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    trust_resume: bool = False,
) -> AsyncIterator[Event]: ...
async def aevents(
    source: str | httpx.Response,
    event_type: Any = None,
    *,
    client: httpx.AsyncClient | None = None,
    headers: dict[str, str] | None = None,
    max_retries: int = 5,
    on_error: ErrorHandler | None = None,
    until: EndRule | Literal["run"] | None = "run",
    retry_ms: int = DEFAULT_RETRY_MS,
    max_retry_delay: float = DEFAULT_MAX_RETRY_DELAY,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    trust_resume: bool = False,
) -> AsyncIterator[Any]:
    """The async twin of ``events``."""
    stream = _Resume(
        source,
        event_type,
        headers=headers,
        max_retries=max_retries,
        on_error=on_error,
        until=until,
        retry_ms=retry_ms,
        max_retry_delay=max_retry_delay,
        max_event_bytes=max_event_bytes,
        trust_resume=trust_resume,
    )
    own: httpx.AsyncClient | None = None
    try:
        while not stream.finished:
            try:
                if stream.first is not None:
                    first, stream.first = stream.first, None
                    try:
                        async with aclosing(_aread(first, stream)) as read:
                            async for event in read:
                                yield event
                    finally:
                        await first.aclose()
                else:
                    http = client or (own := own or _new_async_client())
                    async with (
                        http.stream(**stream.request()) as response,
                        aclosing(_aread(response, stream)) as read,
                    ):
                        async for event in read:
                            yield event
            except _DROPS as error:
                await asyncio.sleep(stream.dropped(error))
    finally:
        if own is not None:
            await own.aclose()


async def _aread(response: httpx.Response, stream: _Resume) -> AsyncGenerator[Any, None]:
    """The async twin of ``_read``."""
    if not stream.accept(response):
        return
    framer, fields = Framer(stream.max_event_bytes), Fields()
    chunks = cast(AsyncGenerator[bytes, None], response.aiter_bytes())  # an async generator
    async with aclosing(chunks):
        async for chunk in chunks:
            for message in stream.messages(framer, fields, chunk):
                event = stream.parse(message)
                if event is not None:
                    yield event
                    if stream.ends(event):
                        return
    raise stream.closed(framer)
