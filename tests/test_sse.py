"""Server-Sent Events (phi_wire.sse) against real servers on 127.0.0.1 (tests/sse_server.py).

Tests named ``test_<n>_...`` cover item n of issue 13, section 1 ("Streaming that never loses or
repeats an event"); the sync and async clients are twins, and most cases run on both.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import queue
import signal
import threading
import time
import tracemalloc
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from corpus import fixtures_root
from httpx_sse import SSEError
from sse_server import Exchange, Handler, serve, serve_asgi

import phi_wire.v0_8 as wire
from phi_wire.sse import (
    DEFAULT_MAX_EVENT_BYTES,
    KEEP_ALIVE,
    MEDIA_TYPE,
    RunEnd,
    SSEConnectionClosed,
    SSEContentTypeError,
    SSEDecodeError,
    SSEEventTooLarge,
    SSEResumeError,
    SSEStatusError,
    aevents,
    asse_body,
    asse_response,
    encode,
    events,
    sse_app,
    sse_body,
    sse_response,
)

STREAM = fixtures_root() / "phi-core" / "0.8.0" / "streams" / "events.main_session.jsonl"
LINES = STREAM.read_text(encoding="utf-8").split("\n")[:-1]
EVENTS = [wire.loads(wire.AgentEvent, line) for line in LINES]
# The fixture is a whole session: several runs. Slices of it:
RUN = EVENTS[:49]  # the first run: AgentStart of loop 1 ... its AgentEnd
NESTED_RUN = EVENTS[57:99]  # a continuation loop (it has a parent) with a sub-agent inside
PART = EVENTS[1:21]  # 20 events inside a run: no AgentStart/AgentEnd, so only a 204 ends them
MIB = 1024 * 1024

TWINS = pytest.mark.parametrize("twin", ["sync", "async"])


def texts(received: list[Any]) -> list[str]:
    return [wire.dumps(event) for event in received]


def frame(index: int, id: str, newline: str = "\n") -> str:
    """The SSE message of fixture event ``index``, with any line ending."""
    lines = [f"event: {EVENTS[index].type}", f"id: {id}", f"data: {LINES[index]}", ""]
    return newline.join(lines) + newline


def message(event: Any, id: str | None) -> bytes:
    """An SSE message with any id (even one ``encode`` refuses), or none."""
    id_line = "" if id is None else f"id: {id}\n"
    return f"event: {event.type}\n{id_line}data: {wire.dumps(event)}\n\n".encode()


def last_ids(server: Any) -> list[str | None]:
    return [request.get("last-event-id") for request in server.requests]


def gaps(server: Any) -> list[float]:
    return [later - earlier for earlier, later in zip(server.times, server.times[1:], strict=False)]


def answer(exchange: Exchange, stream: list[Any]) -> None:
    """What a well-behaved server does: resume after Last-Event-ID, 204 once nothing follows."""
    reply = sse_response(stream, last_event_id=exchange.last_event_id)
    exchange.start(reply.status)
    for piece in reply.body:
        exchange.send(piece)
    if reply.status == 200:
        exchange.finish()


def read(
    twin: str,
    source: str,
    event_type: Any = wire.AgentEvent,
    *,
    deadline: float | None = None,
    **options: Any,
) -> tuple[list[Any], Exception | None]:
    """Every event delivered, and the error that ended the stream (None for a normal end).
    With ``deadline``, a client still reading after that many seconds fails the test."""
    received: list[Any] = []

    def sync() -> None:
        for event in events(source, event_type, **options):
            received.append(event)

    async def asynchronous() -> None:
        async for event in aevents(source, event_type, **options):
            received.append(event)

    try:
        if twin == "async":
            asyncio.run(asyncio.wait_for(asynchronous(), deadline))
        elif deadline is None:
            sync()
        else:
            _within(deadline, sync)
    except Exception as error:
        return received, error
    return received, None


def _within(seconds: float, function: Callable[[], None]) -> None:
    failure: list[BaseException] = []

    def run() -> None:
        try:
            function()
        except BaseException as error:
            failure.append(error)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise TimeoutError(f"the client was still reading after {seconds} s")
    if failure:
        raise failure[0]


# --- what worked before, and still does ----------------------------------------------------------


def test_encode_is_one_message_per_event() -> None:
    event = EVENTS[1]
    assert encode(event, id="7") == f"event: {event.type}\nid: 7\ndata: {LINES[1]}\n\n".encode()
    assert encode(event) == f"event: {event.type}\ndata: {LINES[1]}\n\n".encode()
    for bad in ("a\nb", "a\rb", "a\0b"):
        with pytest.raises(ValueError):
            encode(event, id=bad)


def test_a_whole_session_arrives_once_and_byte_exact_until_the_204() -> None:
    with serve(EVENTS) as server:
        received = list(events(f"{server.url}/events", wire.AgentEvent, until=None))
    assert texts(received) == LINES
    assert server.requests[0]["accept"] == "text/event-stream"
    assert last_ids(server) == [None, str(len(LINES) - 1)]  # the reconnect gets 204


def test_a_dropped_connection_resumes_from_the_last_event_id() -> None:
    half = len(EVENTS) // 2
    with serve(EVENTS, retry_ms=150) as server:
        url = f"{server.url}/events?drop_after={half}"
        received = list(events(url, wire.AgentEvent, until=None))
    assert texts(received) == LINES  # nothing lost, nothing repeated
    assert last_ids(server)[:2] == [None, str(half - 1)]
    assert gaps(server)[0] >= 0.15, "the reconnect waits for the server's retry: delay"


def test_async_twin_resumes_too() -> None:
    with serve(EVENTS) as server:
        received, error = read("async", f"{server.url}/events?drop_after=40", until=None)
    assert error is None and texts(received) == LINES
    assert last_ids(server)[1] == "39"


def test_a_body_ending_inside_a_message_is_resumed() -> None:
    with serve(EVENTS) as server:
        url = f"{server.url}/events?truncate_after=10"
        received = list(events(url, wire.AgentEvent, until=None))
    assert texts(received) == LINES
    assert last_ids(server) == [None, "9", str(len(LINES) - 1)]


def test_an_open_response_is_accepted_and_its_request_reused_on_reconnect() -> None:
    with (
        serve(EVENTS[:20]) as server,
        httpx.Client(headers={"Authorization": "Bearer t"}) as client,
    ):
        request = client.build_request("POST", f"{server.url}/events?drop_after=5", content=b"{}")
        response = client.send(request, stream=True)
        received = list(events(response, wire.AgentEvent, retry_ms=1))
    assert texts(received) == LINES[:20]
    again = server.requests[1]
    assert again["method"] == "POST" and again["authorization"] == "Bearer t"
    assert again["last-event-id"] == "4" and response.is_closed


def test_retries_are_bounded() -> None:
    with serve(EVENTS, retry_ms=1) as server, pytest.raises(httpx.RemoteProtocolError) as caught:
        list(events(f"{server.url}/events?drop_after=0", wire.AgentEvent, max_retries=2))
    assert len(server.requests) == 3
    assert "3 connections in a row brought no new event" in "".join(caught.value.__notes__)


def test_a_204_answer_to_a_reconnect_ends_the_stream() -> None:
    with serve(EVENTS) as server:
        url = f"{server.url}/events?drop_after=3&reconnect=204"
        received = list(events(url, wire.AgentEvent))
    assert texts(received) == LINES[:3] and len(server.requests) == 2


BAD = 'event: TurnStart\nid: 2\ndata: {"type":"TurnStart","loop_id":1}\n\n'


def test_a_malformed_event_raises_with_its_id_and_pointer() -> None:
    with serve(raw={"bad": (frame(1, "1") + BAD + frame(2, "3")).encode()}) as server:
        stream = events(f"{server.url}/raw/bad", wire.AgentEvent, retry_ms=1)
        assert wire.dumps(next(stream)) == LINES[1]
        with pytest.raises(SSEDecodeError) as caught:
            next(stream)
    assert caught.value.event_id == "2" and caught.value.pointer == "/loop_id"
    assert str(caught.value).startswith("SSE event id 2: AgentEvent TurnStart /loop_id:")
    assert caught.value.data == '{"type":"TurnStart","loop_id":1}'


def test_a_malformed_event_can_be_reported_and_skipped() -> None:
    reported: list[SSEDecodeError] = []
    body = frame(1, "1") + BAD + "data: [DONE]\n\n" + frame(2, "3")
    with serve(raw={"bad": body.encode()}) as server:
        url = f"{server.url}/raw/bad"
        received = list(events(url, wire.AgentEvent, on_error=reported.append, retry_ms=1))
    assert texts(received) == [LINES[1], LINES[2]]
    assert [(error.event_id, error.pointer) for error in reported] == [("2", "/loop_id"), ("2", "")]


def test_an_event_name_that_contradicts_the_data_is_an_error() -> None:
    body = f"event: TurnEnd\nid: 5\ndata: {LINES[1]}\n\n"
    with serve(raw={"mismatch": body.encode()}) as server, pytest.raises(SSEDecodeError) as caught:
        list(events(f"{server.url}/raw/mismatch", wire.AgentEvent, retry_ms=1))
    assert caught.value.event_id == "5" and caught.value.pointer == "/type"
    assert "'TurnEnd'" in str(caught.value)


def test_comments_keepalives_retry_bom_and_line_endings() -> None:
    body = (
        "\ufeff: keep-alive\r\n\r\nretry: 25\r\n\r\n"
        + frame(1, "1", "\r\n")
        + ":\r\n\r\n"
        + frame(2, "2", "\r")
        + frame(3, "3", "\n")
        + "\n\n\n"
    )
    with serve(raw={"mixed": body.encode()}) as server:
        received = list(events(f"{server.url}/raw/mixed", wire.AgentEvent))
    assert texts(received) == LINES[1:4]
    assert last_ids(server) == [None, "3"] and gaps(server)[0] >= 0.025


def test_id_only_messages_move_the_resume_point_and_bad_retry_values_are_ignored() -> None:
    # A negative retry: taken, it would crash sleep(); "12x" is not a number.
    body = frame(1, "1") + "retry: -5\n\n" + "id: 6\n\n" + "retry: 12x\n\n"
    cut = "retry: -5\n\n" + "id: 6\n\n" + "data: {"  # cut inside a message after the id-only one
    with serve(raw={"ids": body.encode(), "cut": cut.encode()}) as server:
        received = list(events(f"{server.url}/raw/ids", wire.AgentEvent, retry_ms=5))
        assert texts(received) == [LINES[1]]
        assert list(events(f"{server.url}/raw/cut", wire.AgentEvent, retry_ms=5)) == []
    assert last_ids(server) == [None, "6", None, "6"]  # each reconnect resumes from id 6


def test_a_response_that_is_not_an_event_stream_is_refused() -> None:
    with serve(raw={"json": b"{}"}) as server, pytest.raises(SSEContentTypeError) as caught:
        list(events(f"{server.url}/raw/json?type=application/json", wire.AgentEvent))
    assert len(server.requests) == 1  # not a drop: no reconnect
    assert isinstance(caught.value, SSEError)  # httpx-sse's class for it, as before
    assert "'application/json'" in str(caught.value) and server.url in str(caught.value)


def test_a_one_megabyte_event_and_unicode_line_separators() -> None:
    text = "x" * 1_000_000 + "\u2028é🦀\u2029\u0085\u000b"
    big = wire.MessageStart(loop_id="l", message=wire.ExtensionMessage.new("blob", {"text": text}))
    content = wire.TextContent(text="line\u2028separator \u00a0 \u0085 — 🦀")
    small = wire.MessageEnd(
        loop_id="l", message=wire.llm_message(wire.UserMessage(content=[content], timestamp=1))
    )
    with serve([big, small, big]) as server:
        received = list(events(f"{server.url}/events?drop_after=1", wire.AgentEvent))
    assert texts(received) == [wire.dumps(big), wire.dumps(small), wire.dumps(big)]
    assert len(wire.dumps(big)) > 1_000_000 and "\u2028" in wire.dumps(small)


def test_the_options_are_checked() -> None:
    for options in (
        {"max_retry_delay": float("nan")},
        {"max_retry_delay": -1},
        {"max_retries": -1},
        {"max_event_bytes": 0},
        {"retry_ms": -5},
        {"until": "never"},
    ):
        with pytest.raises(ValueError):
            next(events("http://127.0.0.1:9/", wire.AgentEvent, **options))


def test_sse_body_resumes_only_from_its_own_ids() -> None:
    everything = b"".join(sse_body(EVENTS[:5]))
    assert b"".join(sse_body(EVENTS[:5], last_event_id="2")) == b"".join(
        encode(event, id=str(number)) for number, event in enumerate(EVENTS[:5]) if number > 2
    )
    for foreign in ("x", "²", "-1", "", "9" * 5000):  # not an id sse_body made: replay all
        assert b"".join(sse_body(EVENTS[:5], last_event_id=foreign)) == everything


def test_asse_body_sends_keep_alives_while_the_source_is_idle() -> None:
    async def slow() -> AsyncIterator[Any]:
        yield EVENTS[1]
        await asyncio.sleep(0.25)
        yield EVENTS[2]

    async def collect() -> list[bytes]:
        return [chunk async for chunk in asse_body(slow(), keep_alive=0.05, last_event_id="0")]

    chunks = asyncio.run(collect())
    assert chunks[-1] == encode(EVENTS[2], id="1")
    assert chunks[:-1] == [KEEP_ALIVE] * len(chunks[:-1]) and len(chunks) >= 3


def test_sse_app_over_uvicorn_with_an_async_source() -> None:
    finished = threading.Event()

    async def source() -> AsyncIterator[Any]:
        try:
            for event in EVENTS:
                await asyncio.sleep(0)
                yield event
        finally:
            finished.set()

    async def endless() -> AsyncIterator[Any]:
        try:
            while True:
                await asyncio.sleep(0.01)
                yield EVENTS[1]
        finally:
            finished.set()

    with serve_asgi(sse_app(source, retry_ms=5)) as url:
        received = list(events(url, wire.AgentEvent, until=None))
    assert texts(received) == LINES
    finished.clear()

    with serve_asgi(sse_app(endless, keep_alive=None)) as url:
        stream = events(url, wire.AgentEvent)
        assert [wire.dumps(next(stream)) for _ in range(3)] == [LINES[1]] * 3
        stream.close()  # the client goes away: the server stops reading its source
        assert finished.wait(5)


def test_the_starlette_example_streams_a_live_translation() -> None:
    from examples.streaming_server import app
    from phi_wire import MessageAccumulator

    accumulator = MessageAccumulator()
    texts_seen = []
    with serve_asgi(app) as url:
        for event in events(f"{url}/live", retry_ms=1):  # ends with the 204 to the reconnect
            accumulator.feed(event)
            texts_seen.append(accumulator.message.text)
    assert texts_seen[0] == "" and texts_seen[-1] == "Hello from a streamed reply."
    assert accumulator.finished and texts_seen == sorted(texts_seen, key=len)


# --- 1. a clean close between events is a drop; what ends a stream -----------------------------


@TWINS
def test_1_a_clean_close_between_events_is_a_drop_not_the_end(twin: str) -> None:
    with serve(PART) as server:  # Connection: close, no length, closed after event 10 of 20
        received, error = read(twin, f"{server.url}/events?close_after=10")
    assert error is None and texts(received) == texts(PART)
    assert last_ids(server) == [None, "9", "19"]  # the last reconnect is answered 204


@TWINS
def test_1_a_server_that_never_says_204_runs_out_of_retries(twin: str) -> None:
    def no_204(exchange: Exchange) -> None:  # every answer ends cleanly; only the first has news
        exchange.start(framing="close")
        if exchange.number == 0:
            exchange.send(encode(PART[0], "0"))
        exchange.finish()

    with serve(routes={"/s": no_204}) as server:
        received, error = read(twin, f"{server.url}/s", max_retries=2, retry_ms=1)
    assert texts(received) == texts(PART[:1])
    assert isinstance(error, SSEConnectionClosed) and error.last_event_id == "0"
    assert "closed the response between messages, after event id '0'" in str(error)
    assert last_ids(server) == [None, "0", "0"]


@TWINS
def test_1_drops_that_bring_new_events_do_not_spend_the_retry_budget(twin: str) -> None:
    def one_at_a_time(exchange: Exchange) -> None:  # each answer: the next event, a clean close
        reply = sse_response(PART[:6], last_event_id=exchange.last_event_id)
        exchange.start(reply.status, framing="close")
        if reply.status == 200:
            exchange.send(next(reply.body))
            exchange.finish()

    with serve(routes={"/s": one_at_a_time}) as server:
        received, error = read(twin, f"{server.url}/s", max_retries=1, retry_ms=1)
    assert error is None and texts(received) == texts(PART[:6])
    assert last_ids(server) == [None, "0", "1", "2", "3", "4", "5"]


@TWINS
def test_1_the_run_end_ends_the_stream_without_a_204(twin: str) -> None:
    """NESTED_RUN's root loop continues another (parent_loop_id is set) and holds a sub-agent
    loop; the stream ends at the root's AgentEnd, not the sub-agent's, with no reconnect."""
    closed: queue.Queue[bool] = queue.Queue()

    def holds_on(exchange: Exchange) -> None:  # sends the run, then keeps the connection open
        if exchange.number:
            exchange.start(204)
            return
        exchange.start()
        for number, event in enumerate(NESTED_RUN):
            exchange.send(encode(event, str(number)))
        closed.put(exchange.wait_closed(timeout=5))

    with serve(routes={"/s": holds_on}) as server:
        received, error = read(twin, f"{server.url}/s")
        assert closed.get(timeout=10), "the client closed the connection after the run's end"
    assert error is None and texts(received) == texts(NESTED_RUN)
    assert len(server.requests) == 1


def test_1_run_end_closes_the_outermost_bracket() -> None:
    start, end = json.loads(LINES[0]), json.loads(LINES[48])

    def event(**fields: Any) -> Any:
        return wire.loads(wire.AgentEvent, json.dumps(fields))

    def loop(kind: dict[str, Any], loop_id: str) -> Any:
        return event(**{**kind, "loop_id": loop_id})

    parallel_start = event(
        type="ParallelLoopStart", session_id="s", loop_ids=["a", "b"], timestamp=start["timestamp"]
    )
    parallel_end = event(
        type="ParallelLoopEnd",
        session_id="s",
        selected_loop_id="a",
        selected_config_index=0,
        evaluation_usage=end["usage"],
        timestamp=start["timestamp"],
    )
    stream = [
        (loop(end, "unseen"), False),  # an end whose start was not seen ends nothing
        (parallel_start, False),
        (loop(start, "a"), False),
        (loop(start, "b"), False),
        (loop(start, "sub"), False),
        (EVENTS[1], False),
        (loop(end, "sub"), False),
        (loop(end, "a"), False),
        (loop(end, "b"), False),  # the branches are done, the parallel bracket is still open
        (parallel_end, True),
    ]
    rule = RunEnd()
    assert [rule(item) for item, _ in stream] == [last for _, last in stream]
    assert not RunEnd()(wire.StreamStart())  # other event types never end a stream


def test_1_sse_response_answers_204_once_nothing_follows() -> None:
    assert sse_response(EVENTS[:5], last_event_id="4").status == 204
    assert sse_response([]).status == 204
    reply = sse_response(EVENTS[:5], last_event_id="3", retry_ms=7)
    assert reply.status == 200 and reply.headers["Content-Type"] == MEDIA_TYPE
    assert b"".join(reply.body) == b"retry: 7\n\n" + encode(EVENTS[4], id="4")

    async def idle() -> AsyncIterator[Any]:
        await asyncio.sleep(60)
        yield EVENTS[1]

    async def check() -> None:
        over = await asse_response(EVENTS[:5], last_event_id="4")
        assert over.status == 204 and [chunk async for chunk in over.body] == []
        more = await asse_response(EVENTS[:5], last_event_id="3", retry_ms=7)
        assert more.status == 200 and more.headers["Cache-Control"] == "no-cache"
        assert [chunk async for chunk in more.body] == [b"retry: 7\n\n", encode(EVENTS[4], "4")]
        live = await asse_response(idle(), keep_alive=0.01)  # idle, not over: 200
        assert live.status == 200 and await anext(live.body) == KEEP_ALIVE
        await live.body.aclose()

    asyncio.run(check())


def test_1_sse_app_answers_204_to_a_reconnect_past_the_end() -> None:
    with serve_asgi(sse_app(lambda: EVENTS[:5])) as url:
        over = httpx.get(url, headers={"Last-Event-ID": "4"})
        more = httpx.get(url, headers={"Last-Event-ID": "3"})
        huge = httpx.get(url, headers={"Last-Event-ID": "9" * 5000})  # not an id made here
    assert over.status_code == 204 and over.content == b""
    assert more.status_code == 200 and more.content == encode(EVENTS[4], id="4")
    assert huge.status_code == 200 and huge.content == b"".join(sse_body(EVENTS[:5]))


# --- 2. no event twice -------------------------------------------------------------------------


def replaying(stream: list[Any], cut_after: Callable[[int], int]) -> Handler:
    """A server that ignores Last-Event-ID: every connection replays from event 0; connection k
    stops after ``cut_after(k)`` events, by a clean close (k even) or a drop (k odd)."""

    def handler(exchange: Exchange) -> None:
        clean = exchange.number % 2 == 0
        exchange.start(framing="close" if clean else "chunked")
        for number, event in enumerate(stream[: cut_after(exchange.number)]):
            exchange.send(encode(event, str(number)))
        exchange.finish() if clean else exchange.drop()

    return handler


@TWINS
def test_2_a_server_that_ignores_last_event_id_delivers_each_event_once(twin: str) -> None:
    handler = replaying(RUN, lambda number: 10 * (number + 1))  # 149 events sent, 100 repeats
    with serve(routes={"/s": handler}) as server:
        received, error = read(twin, f"{server.url}/s", retry_ms=1)
    assert error is None and texts(received) == texts(RUN)  # ended by the run's AgentEnd
    assert last_ids(server) == [None, "9", "19", "29", "39"]


@TWINS
@pytest.mark.parametrize("ids", ["with NUL", "missing", "not decimal"])
def test_2_ids_that_cannot_be_compared_raise_after_a_reconnect(twin: str, ids: str) -> None:
    def id_of(number: int) -> str | None:
        return {"with NUL": f"{number}\0", "missing": None, "not decimal": f"e{number}"}[ids]

    def handler(exchange: Exchange) -> None:  # ignores Last-Event-ID; the first answer is cut
        exchange.start()
        for number in range(6 if exchange.number else 3):
            exchange.send(message(PART[number], id_of(number)))
        exchange.finish() if exchange.number else exchange.drop()

    with serve(routes={"/s": handler}) as server:
        received, error = read(twin, f"{server.url}/s", retry_ms=1)
    assert texts(received) == texts(PART[:3])  # what came before the reconnect, once
    assert isinstance(error, SSEResumeError) and len(server.requests) == 2
    assert "cannot be compared" in str(error) and server.url in str(error)


@TWINS
def test_2_any_ids_are_fine_without_a_reconnect(twin: str) -> None:
    ids = ["e0", "1\0", None, "é3", "4"]

    def handler(exchange: Exchange) -> None:
        if exchange.number:
            exchange.start(204)
            return
        exchange.start()
        for number, id in enumerate(ids):
            exchange.send(message(PART[number], id))
        exchange.finish()

    with serve(routes={"/s": handler}) as server:
        received, error = read(twin, f"{server.url}/s", retry_ms=1)
    assert error is None and texts(received) == texts(PART[:5])


@TWINS
def test_2_after_a_higher_id_the_rest_of_the_connection_is_new(twin: str) -> None:
    def handler(exchange: Exchange) -> None:
        if exchange.number == 2:
            exchange.start(204)
            return
        exchange.start()
        if exchange.number == 0:
            for number in range(3):
                exchange.send(message(PART[number], str(number)))
            exchange.drop()
            return
        for number in range(4):  # 0-2 again, then 3: the server has caught up
            exchange.send(message(PART[number], str(number)))
        exchange.send(message(PART[4], None))  # no id of its own, but after a new one: new
        exchange.finish()

    with serve(routes={"/s": handler}) as server:
        received, error = read(twin, f"{server.url}/s", retry_ms=1)
    assert error is None and texts(received) == texts(PART[:5])
    assert last_ids(server) == [None, "2", "3"]


@TWINS
def test_2_a_last_event_id_from_the_caller_is_where_the_stream_resumes(twin: str) -> None:
    def handler(exchange: Exchange) -> None:  # ignores Last-Event-ID: replays 0-5, then 204
        if exchange.number:
            exchange.start(204)
            return
        exchange.start()
        for number in range(6):
            exchange.send(encode(PART[number], str(number)))
        exchange.finish()

    with serve(routes={"/s": handler}) as server:
        url = f"{server.url}/s"
        received, error = read(twin, url, headers={"Last-Event-ID": "2"}, retry_ms=1)
    assert error is None and texts(received) == texts(PART[3:6])
    assert last_ids(server) == ["2", "5"]


# --- 3. non-ASCII ids --------------------------------------------------------------------------


def resuming_by_id(ids: list[str], stream: list[Any]) -> Handler:
    """A server with opaque ids that honours Last-Event-ID; its first answer is cut after one."""

    def handler(exchange: Exchange) -> None:
        after = ids.index(exchange.last_event_id) + 1 if exchange.last_event_id else 0
        if after == len(ids):
            exchange.start(204)
            return
        exchange.start()
        for number in range(after, len(ids)):
            exchange.send(message(stream[number], ids[number]))
            if exchange.number == 0:
                exchange.drop()
                return
        exchange.finish()

    return handler


@TWINS
def test_3_a_non_ascii_id_is_sent_as_utf8(twin: str) -> None:
    ids = [f"é{number}" for number in range(5)]
    with serve(routes={"/s": resuming_by_id(ids, PART)}) as server:
        received, error = read(twin, f"{server.url}/s", retry_ms=1, trust_resume=True)
        sent = server.requests[1]["last-event-id"].encode("latin-1")  # the bytes on the wire
    assert error is None and texts(received) == texts(PART[:5])
    assert sent == "é0".encode()
    # Without trust_resume, ids that are not numbers cannot be checked after a reconnect:
    with serve(routes={"/s": resuming_by_id(ids, PART)}) as server:
        received, error = read(twin, f"{server.url}/s", retry_ms=1)
    assert texts(received) == texts(PART[:1]) and isinstance(error, SSEResumeError)


@TWINS
def test_3_an_id_with_surrounding_spaces_is_sent_trimmed(twin: str) -> None:
    def handler(exchange: Exchange) -> None:
        if exchange.number:
            exchange.start(204)
            return
        exchange.start()
        exchange.send(b"id:  7 \t\n" + message(PART[0], None))  # the id is " 7 \t"
        exchange.drop()

    with serve(routes={"/s": handler}) as server:
        received, error = read(twin, f"{server.url}/s", retry_ms=1)
    assert error is None and texts(received) == texts(PART[:1])
    assert last_ids(server) == [None, "7"]


# --- 4. the reconnection delay -----------------------------------------------------------------


@TWINS
@pytest.mark.parametrize("retry", ["100000000000000000000", "3600000"])
def test_4_a_huge_retry_is_capped(twin: str, retry: str) -> None:
    def handler(exchange: Exchange) -> None:
        if exchange.number:
            exchange.start(204)
            return
        exchange.start()
        exchange.send(f"retry: {retry}\n\n".encode() + encode(PART[0], "0"))
        exchange.drop()

    with serve(routes={"/s": handler}) as server:
        received, error = read(twin, f"{server.url}/s", max_retry_delay=0.05, deadline=5)
    assert error is None and texts(received) == texts(PART[:1])
    assert 0.05 <= gaps(server)[0] < 3


def test_4_failures_in_a_row_back_off_exponentially_up_to_the_cap() -> None:
    def handler(exchange: Exchange) -> None:  # "retry: 50", then a cut: never an event
        exchange.start()
        exchange.send(b"retry: 50\n\n")
        exchange.drop()

    with serve(routes={"/s": handler}) as server:
        _, error = read("sync", f"{server.url}/s", max_retry_delay=0.1, max_retries=6)
    assert isinstance(error, httpx.RemoteProtocolError) and len(server.requests) == 7
    waits = gaps(server)
    assert waits[0] >= 0.05 and all(wait >= 0.1 for wait in waits[1:])  # 50 ms, then doubled
    assert waits[-1] < 1.2  # capped: uncapped, the sixth wait would be 1.6 s


# --- 5. statuses on (re)connect ----------------------------------------------------------------


def http_date(delta: timedelta) -> str:
    return email.utils.format_datetime(datetime.now(UTC) + delta, usegmt=True)


@TWINS
def test_5_5xx_and_429_on_reconnect_are_retried(twin: str) -> None:
    def handler(exchange: Exchange) -> None:
        number = exchange.number
        if number == 0:
            exchange.start()
            for index in range(3):
                exchange.send(encode(PART[index], str(index)))
            exchange.drop()
        elif number in (1, 2, 3):
            status, after = [(500, {}), (503, {"Retry-After": "0"}), (429, {})][number - 1]
            if number == 3:
                after = {"Retry-After": http_date(timedelta(hours=-1))}  # in the past: now
            exchange.start(status, headers=after)
            exchange.finish()
        else:
            answer(exchange, PART)

    with serve(routes={"/s": handler}) as server:
        received, error = read(twin, f"{server.url}/s", retry_ms=1)
    assert error is None and texts(received) == texts(PART)
    assert last_ids(server) == [None, "2", "2", "2", "2", "19"]


def test_5_retry_after_is_honoured_within_the_cap() -> None:
    def unavailable(after: str) -> Handler:
        def handler(exchange: Exchange) -> None:
            if exchange.number:
                answer(exchange, PART[:1])
                return
            exchange.start(503, headers={"Retry-After": after})
            exchange.finish()

        return handler

    with serve(routes={"/s": unavailable("1")}) as server:
        received, error = read("sync", f"{server.url}/s", retry_ms=1, max_retry_delay=5)
    assert error is None and texts(received) == texts(PART[:1])
    assert gaps(server)[0] >= 0.95  # the server's 1 s, not the 1 ms backoff
    for far in ("3600", http_date(timedelta(hours=1)), "9" * 5000):
        with serve(routes={"/s": unavailable(far)}) as server:
            url = f"{server.url}/s"
            received, error = read("sync", url, retry_ms=1, max_retry_delay=0.1, deadline=10)
        assert error is None and texts(received) == texts(PART[:1])
        assert 0.1 <= gaps(server)[0] < 3  # capped


@TWINS
def test_5_a_5xx_that_persists_raises_after_max_retries(twin: str) -> None:
    def handler(exchange: Exchange) -> None:
        exchange.start(503)
        exchange.finish()

    with serve(routes={"/s": handler}) as server:
        received, error = read(twin, f"{server.url}/s", retry_ms=1, max_retries=2)
    assert received == [] and len(server.requests) == 3
    assert isinstance(error, SSEStatusError) and isinstance(error, httpx.HTTPStatusError)
    assert error.status_code == 503 and f"{server.url}/s" in str(error) and "503" in str(error)


@TWINS
@pytest.mark.parametrize("status", [404, 401, 206])
def test_5_other_statuses_end_at_once_naming_the_status(twin: str, status: int) -> None:
    def handler(exchange: Exchange) -> None:
        if exchange.number:
            exchange.start(status)
            exchange.finish()
            return
        exchange.start()
        for index in range(2):
            exchange.send(encode(PART[index], str(index)))
        exchange.drop()

    with serve(routes={"/s": handler}) as server:
        received, error = read(twin, f"{server.url}/s", retry_ms=1)
    assert texts(received) == texts(PART[:2]) and len(server.requests) == 2
    assert isinstance(error, SSEStatusError) and error.status_code == status
    assert f"{server.url}/s: the server answered {status}" in str(error)


# --- 6. bounded memory -------------------------------------------------------------------------


def endless(head: bytes, piece: bytes, sent: queue.Queue[int]) -> Handler:
    """A first answer that never ends its message: ``head``, then ``piece`` again and again until
    the client goes away (96 MiB at most); any later request gets 204."""

    def handler(exchange: Exchange) -> None:
        if exchange.number:
            exchange.start(204)
            return
        exchange.start()
        exchange.send(head)
        total = 0
        try:
            while total < 96 * MIB:
                exchange.send(piece)
                total += len(piece)
            exchange.drop()
        except OSError:
            pass
        finally:
            sent.put(total)

    return handler


def traced_peak(function: Callable[[], Any]) -> tuple[Any, int]:
    """``function()`` and the peak of Python's heap above its start, while it ran."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        result = function()
        return result, tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


@TWINS
@pytest.mark.parametrize("shape", ["one line", "data lines"])
def test_6_an_endless_message_fails_with_bounded_memory(twin: str, shape: str) -> None:
    head = encode(PART[0], "0") + b"event: MessageStart\nid: 1\n"
    if shape == "one line":
        head, piece = head + b"data: ", b"x" * 65536
    else:
        piece = (b"data: " + b"x" * 1017 + b"\n") * 64
    sent: queue.Queue[int] = queue.Queue()
    with serve(routes={"/s": endless(head, piece, sent)}) as server:
        url = f"{server.url}/s"
        (received, error), peak = traced_peak(
            lambda: read(twin, url, max_event_bytes=MIB, retry_ms=1)
        )
        assert sent.get(timeout=10) < 32 * MIB, "the client stopped reading"
    assert texts(received) == texts(PART[:1])
    assert isinstance(error, SSEEventTooLarge) and error.event_id == "1"
    assert "max_event_bytes (1048576 bytes)" in str(error)
    assert peak < 8 * MIB, f"peak {peak / MIB:.1f} MiB"


@TWINS
def test_6_a_too_large_event_is_reported_and_skipped_with_on_error(twin: str) -> None:
    text = "x" * (2 * MIB)
    big = wire.MessageStart(loop_id="l", message=wire.ExtensionMessage.new("blob", {"text": text}))
    body = encode(PART[0], "0") + encode(big, "1") + encode(PART[1], "2")
    reported: list[SSEDecodeError] = []
    with serve(raw={"big": body}) as server:
        url = f"{server.url}/raw/big"
        received, error = read(twin, url, max_event_bytes=MIB, on_error=reported.append, retry_ms=1)
    assert error is None and texts(received) == texts(PART[:2])
    assert [type(report) for report in reported] == [SSEEventTooLarge]
    assert reported[0].event_id == "1" and reported[0].data == ""


# --- 7. what already worked keeps working ------------------------------------------------------


@TWINS
@pytest.mark.parametrize(
    "cut", ["inside an event", "inside a chunk", "by a TCP reset", "short of its Content-Length"]
)
def test_7_a_cut_connection_is_resumed(twin: str, cut: str) -> None:
    before = b"".join(encode(PART[index], str(index)) for index in range(3))
    following = encode(PART[3], "3")

    def handler(exchange: Exchange) -> None:
        if exchange.number:
            answer(exchange, PART)
            return
        if cut == "short of its Content-Length":
            exchange.start(framing="length", length=len(before) + len(following))
            exchange.send(before + following[:10])
            exchange.drop()
            return
        exchange.start()
        if cut == "inside an event":
            exchange.send(before + following[: len(following) // 2])
            exchange.drop()
        elif cut == "inside a chunk":
            exchange.send(before)
            exchange.cut_chunk(following[:10], announced=len(following))
        else:
            exchange.send(before)
            exchange.reset()

    with serve(routes={"/s": handler}) as server:
        received, error = read(twin, f"{server.url}/s", retry_ms=1)
    assert error is None and texts(received) == texts(PART)
    if cut != "by a TCP reset":  # a reset may discard bytes the client had not read yet
        assert last_ids(server)[:2] == [None, "2"]


def test_7_one_byte_every_50_ms() -> None:
    # A BOM, then LF, CRLF and CR line ends, each byte in a TCP segment of its own.
    body = "\ufeffid:0\ndata:7\n\nid:1\r\ndata:8\r\n\r\n".encode()

    def handler(exchange: Exchange) -> None:
        if exchange.number:
            exchange.start(204)
            return
        exchange.start()
        for byte in body:
            exchange.send(bytes([byte]))
            time.sleep(0.05)
        exchange.finish()

    with serve(routes={"/s": handler}) as server:
        received, error = read("sync", f"{server.url}/s", int, retry_ms=1)
    assert error is None and received == [7, 8]


def test_7_a_50_mb_event_arrives_whole_with_bounded_memory() -> None:
    big = wire.MessageStart(
        loop_id="l", message=wire.ExtensionMessage.new("blob", {"text": "x" * 50_000_000})
    )
    expected = wire.dumps(big)
    body = encode(big, "0")
    assert DEFAULT_MAX_EVENT_BYTES == 64 * MIB > len(body)

    def handler(exchange: Exchange) -> None:
        if exchange.number:
            exchange.start(204)
            return
        exchange.start()
        view = memoryview(body)
        for start in range(0, len(body), MIB):
            exchange.send(bytes(view[start : start + MIB]))
        exchange.finish()

    with serve(routes={"/s": handler}) as server:
        url = f"{server.url}/s"
        (received, error), peak = traced_peak(lambda: read("sync", url, retry_ms=1))
    assert error is None and len(received) == 1 and wire.dumps(received[0]) == expected
    assert peak < 6 * len(body), f"peak {peak / MIB:.0f} MiB for a {len(body) / MIB:.0f} MiB event"


@TWINS
def test_7_keep_alive_floods_cost_nothing(twin: str) -> None:
    # Keep-alive messages, 256 KiB of comment lines without a blank line, blank lines.
    flood = KEEP_ALIVE * 20_000 + b":\n" * (MIB // 8) + b"\n" * 20_000
    body = encode(PART[0], "0") + flood + encode(PART[1], "1") + flood + encode(PART[2], "2")
    with serve(raw={"flood": body}) as server:
        url = f"{server.url}/raw/flood"
        # Comments are not kept: they count for nothing against max_event_bytes.
        received, error = read(twin, url, max_event_bytes=64 * 1024, retry_ms=1)
    assert error is None and texts(received) == texts(PART[:3])


@TWINS
def test_7_sigint_propagates_at_once_and_closes_the_connection(twin: str) -> None:
    closed: queue.Queue[bool] = queue.Queue()
    reached = threading.Event()
    signalled: list[float] = []

    def handler(exchange: Exchange) -> None:  # three events, then silence: the client waits
        exchange.start()
        for index in range(3):
            exchange.send(encode(PART[index], str(index)))
        closed.put(exchange.wait_closed(timeout=10))

    def interrupt() -> None:  # SIGINT to the main thread while it waits on the socket
        if reached.wait(10):
            time.sleep(0.1)
            signalled.append(time.monotonic())
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    received: list[Any] = []

    def take(event: Any) -> None:
        received.append(event)
        if len(received) == 3:
            reached.set()

    async def consume(url: str) -> None:
        async for event in aevents(url, wire.AgentEvent):
            take(event)

    with serve(routes={"/s": handler}) as server:
        threading.Thread(target=interrupt, daemon=True).start()
        with pytest.raises(KeyboardInterrupt):
            if twin == "sync":
                for event in events(f"{server.url}/s", wire.AgentEvent):
                    take(event)
            else:
                asyncio.run(consume(f"{server.url}/s"))
        interrupted = time.monotonic()
        assert closed.get(timeout=5), "the connection was closed"
    assert texts(received) == texts(PART[:3])
    assert interrupted - signalled[0] < 2.0


def test_a_mismatched_event_name_is_reported_in_plain_english() -> None:
    """Issue 10 item 19: "an 'AgentStart' event", not "a 'AgentStart' event"."""
    from phi_wire.errors import WireError
    from phi_wire.sse import _client as _sse_client

    start = next(event for event in EVENTS if event.type == "AgentStart")
    with pytest.raises(WireError, match="the data is an 'AgentStart' event"):
        _sse_client._check_name("TurnStart", start)
    turn = next(event for event in EVENTS if event.type == "TurnStart")
    with pytest.raises(WireError, match="the data is a 'TurnStart' event"):
        _sse_client._check_name("AgentStart", turn)
