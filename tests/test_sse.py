"""Server-Sent Events (runtime/sse.py) against real servers on 127.0.0.1 (tests/sse_server.py)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from corpus import fixtures_root
from httpx_sse import SSEError
from sse_server import serve, serve_asgi

import phi_wire.v0_8 as wire
from phi_wire.sse import (
    KEEP_ALIVE,
    MEDIA_TYPE,
    SSEDecodeError,
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


def texts(received: list[Any]) -> list[str]:
    return [wire.dumps(event) for event in received]


def frame(index: int, id: str, newline: str = "\n") -> str:
    """The SSE message of fixture event ``index``, with any line ending."""
    lines = [f"event: {EVENTS[index].type}", f"id: {id}", f"data: {LINES[index]}", ""]
    return newline.join(lines) + newline


def test_encode_is_one_message_per_event() -> None:
    event = EVENTS[1]
    assert encode(event, id="7") == f"event: {event.type}\nid: 7\ndata: {LINES[1]}\n\n".encode()
    assert encode(event) == f"event: {event.type}\ndata: {LINES[1]}\n\n".encode()
    for bad in ("a\nb", "a\rb", "a\0b"):
        with pytest.raises(ValueError):
            encode(event, id=bad)


def test_the_whole_fixture_stream_arrives_once_and_byte_exact() -> None:
    with serve(EVENTS) as server:
        received = list(events(f"{server.url}/events", wire.AgentEvent))
    assert texts(received) == LINES
    assert server.requests[0]["accept"] == "text/event-stream"


def test_a_dropped_connection_resumes_from_the_last_event_id() -> None:
    half = len(EVENTS) // 2
    with serve(EVENTS, retry_ms=150) as server:
        started = time.perf_counter()
        received = list(events(f"{server.url}/events?drop_after={half}", wire.AgentEvent))
        elapsed = time.perf_counter() - started
    assert texts(received) == LINES  # nothing lost, nothing repeated
    assert len(server.requests) == 2
    assert "last-event-id" not in server.requests[0]
    assert server.requests[1]["last-event-id"] == str(half - 1)
    assert elapsed >= 0.15, "the reconnect waits for the server's retry: delay"


def test_async_twin_resumes_too() -> None:
    async def collect(url: str) -> list[Any]:
        return [event async for event in aevents(url, wire.AgentEvent)]

    with serve(EVENTS) as server:
        received = asyncio.run(collect(f"{server.url}/events?drop_after=40"))
    assert texts(received) == LINES
    assert server.requests[1]["last-event-id"] == "39"


def test_a_body_ending_inside_a_message_is_resumed() -> None:
    with serve(EVENTS) as server:
        received = list(events(f"{server.url}/events?truncate_after=10", wire.AgentEvent))
    assert texts(received) == LINES
    assert [request.get("last-event-id") for request in server.requests] == [None, "9"]


def test_an_open_response_is_accepted_and_its_request_reused_on_reconnect() -> None:
    with (
        serve(EVENTS[:20]) as server,
        httpx.Client(headers={"Authorization": "Bearer t"}) as client,
    ):
        request = client.build_request("POST", f"{server.url}/events?drop_after=5", content=b"{}")
        response = client.send(request, stream=True)
        try:
            received = list(events(response, wire.AgentEvent))
        finally:
            response.close()
    assert texts(received) == LINES[:20]
    again = server.requests[1]
    assert again["method"] == "POST" and again["authorization"] == "Bearer t"
    assert again["last-event-id"] == "4"


def test_retries_are_bounded() -> None:
    with serve(EVENTS, retry_ms=1) as server, pytest.raises(httpx.RemoteProtocolError):
        list(events(f"{server.url}/events?drop_after=0", wire.AgentEvent, max_retries=2))
    assert len(server.requests) == 3


def test_a_204_answer_to_a_reconnect_ends_the_stream() -> None:
    with serve(EVENTS) as server:
        url = f"{server.url}/events?drop_after=3&reconnect=204"
        received = list(events(url, wire.AgentEvent))
    assert texts(received) == LINES[:3] and len(server.requests) == 2


BAD = 'event: TurnStart\nid: 2\ndata: {"type":"TurnStart","loop_id":1}\n\n'


def test_a_malformed_event_raises_with_its_id_and_pointer() -> None:
    with serve(raw={"bad": (frame(1, "1") + BAD + frame(2, "3")).encode()}) as server:
        stream = events(f"{server.url}/raw/bad", wire.AgentEvent)
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
        received = list(events(url, wire.AgentEvent, on_error=reported.append))
    assert texts(received) == [LINES[1], LINES[2]]
    assert [(error.event_id, error.pointer) for error in reported] == [("2", "/loop_id"), ("2", "")]


def test_an_event_name_that_contradicts_the_data_is_an_error() -> None:
    body = f"event: TurnEnd\nid: 5\ndata: {LINES[1]}\n\n"
    with serve(raw={"mismatch": body.encode()}) as server, pytest.raises(SSEDecodeError) as caught:
        list(events(f"{server.url}/raw/mismatch", wire.AgentEvent))
    assert caught.value.event_id == "5" and caught.value.pointer == "/type"
    assert "'TurnEnd'" in str(caught.value)


def test_comments_keepalives_retry_and_line_endings() -> None:
    body = (
        ": keep-alive\r\n\r\nretry: 250\r\n\r\n"
        + frame(1, "1", "\r\n")
        + ":\r\n\r\n"
        + frame(2, "2", "\r")
        + frame(3, "3", "\n")
        + "\n\n\n"
    )
    with serve(raw={"mixed": body.encode()}) as server:
        received = list(events(f"{server.url}/raw/mixed", wire.AgentEvent))
    assert texts(received) == LINES[1:4]


def test_id_only_messages_move_the_resume_point_and_bad_retry_values_are_ignored() -> None:
    body = frame(1, "1") + "retry: -5\n\n" + "id: 6\n\n" + "retry: 12x\n\n"
    reconnects: list[str | None] = []

    def record(request: httpx.Request) -> None:
        reconnects.append(request.headers.get("Last-Event-ID"))

    with (
        serve(raw={"ids": body.encode()}) as server,
        httpx.Client(event_hooks={"request": [record]}) as client,
    ):
        # The body ends inside no message: one clean response, no reconnect.
        received = list(events(f"{server.url}/raw/ids", wire.AgentEvent, client=client))
        assert texts(received) == [LINES[1]] and reconnects == [None]
        # Cut after the id-only message: the reconnect resumes from id 6 (and gets 204).
        cut = "retry: 20\n\nretry: -5\n\n" + "id: 6\n\n" + "data: {"  # no event: no progress either
        server.raw["cut"] = cut.encode()
        assert list(events(f"{server.url}/raw/cut", wire.AgentEvent, client=client)) == []
    assert reconnects[1:] == [None, "6"]


def test_a_response_that_is_not_an_event_stream_is_refused() -> None:
    with serve(raw={"json": b"{}"}) as server, pytest.raises(SSEError, match="text/event-stream"):
        list(events(f"{server.url}/raw/json?type=application/json", wire.AgentEvent))
    assert len(server.requests) == 1  # not a drop: no reconnect


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


def test_sse_body_resumes_only_from_its_own_ids() -> None:
    everything = b"".join(sse_body(EVENTS[:5]))
    assert b"".join(sse_body(EVENTS[:5], last_event_id="2")) == b"".join(
        encode(event, id=str(number)) for number, event in enumerate(EVENTS[:5]) if number > 2
    )
    for foreign in ("x", "²", "-1", ""):  # not an id sse_body made: replay everything
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


def test_sse_response_answers_204_once_nothing_follows() -> None:
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


def test_sse_app_answers_204_to_a_reconnect_past_the_end() -> None:
    with serve_asgi(sse_app(lambda: EVENTS[:5])) as url:
        over = httpx.get(url, headers={"Last-Event-ID": "4"})
        more = httpx.get(url, headers={"Last-Event-ID": "3"})
        huge = httpx.get(url, headers={"Last-Event-ID": "9" * 5000})  # not an id made here
    assert over.status_code == 204 and over.content == b""
    assert more.status_code == 200 and more.content == encode(EVENTS[4], id="4")
    assert huge.status_code == 200 and huge.content == b"".join(sse_body(EVENTS[:5]))


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
        received = list(events(url, wire.AgentEvent))
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
        for event in events(f"{url}/live"):
            accumulator.feed(event)
            texts_seen.append(accumulator.message.text)
    assert texts_seen[0] == "" and texts_seen[-1] == "Hello from a streamed reply."
    assert accumulator.finished and texts_seen == sorted(texts_seen, key=len)
