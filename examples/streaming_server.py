"""Serve examples/events.jsonl as Server-Sent Events with Starlette.

    .venv/bin/uvicorn examples.streaming_server:app --port 8765
    # or: .venv/bin/python examples/streaming_client.py   (starts this server itself)

Each event is one SSE message (``event:`` its type, ``id:`` its position, ``data:`` the exact JSON
phi-core writes); a client that reconnects with ``Last-Event-ID`` resumes after that event.
"""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from phi_wire import AgentEvent, loads
from phi_wire.sse import MEDIA_TYPE, sse_body

EVENTS = Path(__file__).resolve().parent / "events.jsonl"


def recorded_events() -> list[AgentEvent]:
    return [loads(AgentEvent, line) for line in EVENTS.read_text(encoding="utf-8").splitlines()]


async def stream(request: Request) -> StreamingResponse:
    body = sse_body(recorded_events(), last_event_id=request.headers.get("last-event-id"))
    return StreamingResponse(body, media_type=MEDIA_TYPE, headers={"Cache-Control": "no-cache"})


app = Starlette(routes=[Route("/events", stream)])
