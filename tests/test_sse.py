"""Server-Sent Events (runtime/sse.py) against a real server on 127.0.0.1 (tests/sse_server.py)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from corpus import fixtures_root
from sse_server import serve

import phi_wire.v0_8 as wire
from phi_wire.sse import SSEDecodeError, aevents, encode, events

STREAM = fixtures_root() / "phi-core" / "0.8.0" / "streams" / "events.main_session.jsonl"
LINES = STREAM.read_text(encoding="utf-8").split("\n")[:-1]
EVENTS = [wire.loads(wire.AgentEvent, line) for line in LINES]


def received_text(received: list[Any]) -> list[str]:
    return [wire.dumps(event) for event in received]


def test_encode_is_one_message_per_event() -> None:
    event = EVENTS[1]
    assert encode(event, id="7") == f"event: {event.type}\nid: 7\ndata: {LINES[1]}\n\n".encode()
    assert encode(event).startswith(f"event: {event.type}\ndata: ".encode())
    with pytest.raises(ValueError):
        encode(event, id="a\nb")


def test_the_whole_fixture_stream_arrives_once_and_byte_exact() -> None:
    with serve(EVENTS) as server:
        received = list(events(f"{server.url}/events", wire.AgentEvent))
    assert received_text(received) == LINES


def test_a_dropped_connection_resumes_from_the_last_event_id() -> None:
    half = len(EVENTS) // 2
    with serve(EVENTS, retry_ms=150) as server:
        started = time.perf_counter()
        received = list(events(f"{server.url}/events?drop_after={half}", wire.AgentEvent))
        elapsed = time.perf_counter() - started
    assert received_text(received) == LINES  # nothing lost, nothing repeated
    assert len(server.requests) == 2
    assert "Last-Event-ID" not in server.requests[0]
    assert server.requests[1]["Last-Event-ID"] == str(half - 1)
    assert elapsed >= 0.15, "the reconnect waits for the server's retry: delay"


def test_async_twin_resumes_too() -> None:
    async def collect(url: str) -> list[Any]:
        return [event async for event in aevents(url, wire.AgentEvent)]

    with serve(EVENTS) as server:
        received = asyncio.run(collect(f"{server.url}/events?drop_after=40"))
    assert received_text(received) == LINES


def test_an_open_response_is_accepted_as_source() -> None:
    with (
        serve(EVENTS[:5]) as server,
        httpx.Client() as client,
        client.stream("GET", f"{server.url}/events") as response,
    ):
        received = list(events(response, wire.AgentEvent))
    assert received_text(received) == LINES[:5]


def test_retries_are_bounded() -> None:
    with serve(EVENTS, retry_ms=1) as server, pytest.raises(httpx.RemoteProtocolError):
        list(events(f"{server.url}/events?drop_after=0", wire.AgentEvent, max_retries=2))
    assert len(server.requests) == 3


MALFORMED = (
    f"event: TurnStart\nid: 1\ndata: {LINES[1]}\n\n"
    'event: TurnStart\nid: 2\ndata: {"type":"TurnStart","loop_id":1}\n\n'
    f"event: TurnStart\nid: 3\ndata: {LINES[2]}\n\n"
).encode()


def test_a_malformed_event_raises_with_its_id_and_pointer() -> None:
    with serve(raw={"bad": MALFORMED}) as server:
        stream = events(f"{server.url}/raw/bad", wire.AgentEvent)
        assert wire.dumps(next(stream)) == LINES[1]
        with pytest.raises(SSEDecodeError) as caught:
            next(stream)
    assert caught.value.event_id == "2" and caught.value.pointer == "/loop_id"
    assert "SSE event id 2" in str(caught.value)


def test_a_malformed_event_can_be_reported_and_skipped() -> None:
    reported: list[SSEDecodeError] = []
    with serve(raw={"bad": MALFORMED}) as server:
        received = list(events(f"{server.url}/raw/bad", wire.AgentEvent, on_error=reported.append))
    assert received_text(received) == [LINES[1], LINES[2]]
    assert [error.event_id for error in reported] == ["2"]


def test_comments_keepalives_retry_and_crlf() -> None:
    body = (
        ": keep-alive\r\n\r\nretry: 250\r\n\r\n"
        f"event: TurnStart\r\nid: 1\r\ndata: {LINES[1]}\r\n\r\n"
        ":\r\n\r\n"
        f"event: TurnStart\rid: 2\rdata: {LINES[2]}\r\r"
    ).encode()
    with serve(raw={"crlf": body}) as server:
        received = list(events(f"{server.url}/raw/crlf", wire.AgentEvent))
    assert received_text(received) == [LINES[1], LINES[2]]


def test_a_one_megabyte_event_and_unicode_line_separators() -> None:
    big = wire.MessageStart(
        loop_id="l",
        message=wire.ExtensionMessage.new("blob", {"text": "x" * 1_000_000 + "\u2028é🦀\u2029"}),
    )
    text = wire.TextContent(text="line\u2028separator \u00a0 — 🦀")
    small = wire.MessageEnd(
        loop_id="l", message=wire.LlmMessage.new(wire.UserMessage(content=[text], timestamp=1))
    )
    with serve([big, small]) as server:
        received = list(events(f"{server.url}/events?drop_after=1", wire.AgentEvent))
    assert received_text(received) == [wire.dumps(big), wire.dumps(small)]
    assert len(wire.dumps(big)) > 1_000_000
