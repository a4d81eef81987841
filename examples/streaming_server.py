"""Serve AgentEvents as Server-Sent Events with Starlette.

    .venv/bin/uvicorn examples.streaming_server:app --port 8765
    # or: .venv/bin/python examples/streaming_client.py   (starts this server itself)

Needs Starlette and uvicorn (``pip install "phi-wire[examples]"``, beside the wheel).

``/events`` replays examples/events.jsonl; ``/live`` translates a (simulated) provider stream into
AgentEvents as it arrives. Each event is one SSE message (``event:`` its type, ``id:`` its
position, ``data:`` the exact JSON phi-core writes); a client that reconnects with
``Last-Event-ID`` resumes after that event, and is answered 204 once it has them all.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
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
from phi_wire.sse import asse_response, sse_response

EVENTS = Path(__file__).resolve().parent / "events.jsonl"


def recorded_events() -> list[AgentEvent]:
    return [loads(AgentEvent, line) for line in EVENTS.read_text(encoding="utf-8").splitlines()]


async def replay(request: Request) -> Response:
    reply = sse_response(recorded_events(), last_event_id=request.headers.get("last-event-id"))
    if reply.status == 204:  # the client has every event: tell it to stop reconnecting
        return Response(status_code=204)
    return StreamingResponse(reply.body, headers=reply.headers)


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


async def live(request: Request) -> Response:
    agent_events = atranslate_stream(provider(), loop_id="demo.1", model="demo-model")
    last_event_id = request.headers.get("last-event-id")
    reply = await asse_response(agent_events, last_event_id=last_event_id)
    if reply.status == 204:
        return Response(status_code=204)
    return StreamingResponse(reply.body, headers=reply.headers)


app = Starlette(routes=[Route("/events", replay), Route("/live", live)])
