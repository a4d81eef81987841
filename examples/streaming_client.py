"""Consume AgentEvents over SSE from the example Starlette server, started here on 127.0.0.1.

.venv/bin/python examples/streaming_client.py   (serves examples.streaming_server on a free port)

The server needs Starlette and uvicorn, which phi-wire does not: with phi-wire installed from its
wheel, install the ``examples`` extra too (``pip install "phi-wire[examples]"``).
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
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning")
    server = uvicorn.Server(config)
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    for event in events(f"{url}/events"):  # typed AgentEvents, strictly validated
        print(f"{event.type:20s} {dumps(event)[:60]}...")
    accumulator = MessageAccumulator()
    # A single reply, not a whole run: it is over at its MessageEnd (without this rule the
    # client would reconnect after the server's close and learn so from the server's 204).
    for event in events(f"{url}/live", until=lambda event: event.type == "MessageEnd"):
        accumulator.feed(event)  # the live partial message, then exactly the final one
        print(f"{event.type:20s} {accumulator.message.text!r}")
    server.should_exit = True


if __name__ == "__main__":
    main()
