"""Serve AgentEvents as Server-Sent Events with Starlette.

    .venv/bin/uvicorn examples.streaming_server:app --port 8765
    # or: .venv/bin/python examples/streaming_client.py   (starts this server itself)

``/events`` replays examples/events.jsonl; ``/live`` translates a (simulated) provider stream into
AgentEvents as it arrives. Each event is one SSE message (``event:`` its type, ``id:`` its
position, ``data:`` the exact JSON phi-core writes); a client that reconnects with
``Last-Event-ID`` resumes after that event.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from phi_wire import (
    AgentEvent,
    AssistantMessage,
    StreamDone,
    StreamEvent,
    StreamStart,
    StreamTextDelta,
    TextContent,
    Usage,
    atranslate_stream,
    loads,
)
from phi_wire.sse import MEDIA_TYPE, asse_body, sse_body

EVENTS = Path(__file__).resolve().parent / "events.jsonl"
HEADERS = {"Cache-Control": "no-cache"}


def recorded_events() -> list[AgentEvent]:
    return [loads(AgentEvent, line) for line in EVENTS.read_text(encoding="utf-8").splitlines()]


async def replay(request: Request) -> StreamingResponse:
    body = sse_body(recorded_events(), last_event_id=request.headers.get("last-event-id"))
    return StreamingResponse(body, media_type=MEDIA_TYPE, headers=HEADERS)


async def provider() -> AsyncIterator[StreamEvent]:
    """Stands in for an LLM provider's stream."""
    words = ["Hello", " from", " a", " streamed", " reply."]
    yield StreamStart()
    for word in words:
        await asyncio.sleep(0.01)
        yield StreamTextDelta(content_index=0, delta=word)
    reply = AssistantMessage(
        content=[TextContent(text="".join(words))],
        stop_reason="stop",
        model="demo-model",
        provider="demo",
        usage=Usage(input=3, output=5, total_tokens=8),
        timestamp=0,
    )
    yield StreamDone(message=reply)


async def live(request: Request) -> StreamingResponse:
    agent_events = atranslate_stream(provider(), loop_id="demo.1", model="demo-model")
    body = asse_body(agent_events, last_event_id=request.headers.get("last-event-id"))
    return StreamingResponse(body, media_type=MEDIA_TYPE, headers=HEADERS)


app = Starlette(routes=[Route("/events", replay), Route("/live", live)])
