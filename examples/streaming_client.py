"""Consume AgentEvents over SSE from the example Starlette server, started here on 127.0.0.1.

.venv/bin/python examples/streaming_client.py
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from examples.streaming_server import app
from phi_wire import MessageAccumulator, dumps
from phi_wire.sse import events


def main() -> None:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=8765, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    accumulator = MessageAccumulator()
    for event in events("http://127.0.0.1:8765/events"):
        accumulator.feed(event)
        print(f"{event.type:20s} {dumps(event)[:60]}...")
    print("last message:", accumulator.message.text)
    server.should_exit = True


if __name__ == "__main__":
    main()
