"""Real HTTP servers on 127.0.0.1 for the SSE tests, started and stopped by the tests.

``serve()``: a plain HTTP/1.1 server that streams ``text/event-stream`` with chunked transfer
encoding, so a connection it drops mid-stream is a transport error for the client (not a clean
end). Routes:

* ``/events``: the configured events through ``phi_wire.sse.sse_body`` (honours Last-Event-ID).
  On a first connection (no Last-Event-ID), ``?drop_after=N`` closes the socket after N events
  and ``?truncate_after=N`` sends N events and half of the next, then ends the response cleanly;
  ``?reconnect=204`` answers any reconnect with 204 No Content.
* ``/raw/<name>``: a configured raw body, byte for byte (malformed frames, CRLF, comments...),
  with ``?type=`` for another Content-Type.

``serve_asgi(app)``: uvicorn serving an ASGI app (``phi_wire.sse.sse_app``) in a thread.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import uvicorn

from phi_wire.sse import sse_body


class SSEServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, events: list[Any], raw: dict[str, bytes], retry_ms: int | None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.events = events
        self.raw = raw
        self.retry_ms = retry_ms
        self.requests: list[dict[str, str]] = []
        """Each request: its method and headers (names lower-cased)."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (drops, refused content types) is part of the tests."""

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: SSEServer

    def log_message(self, format: str, *args: Any) -> None:
        del format, args

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    def _start(self, status: int = 200, content_type: str = "text/event-stream") -> None:
        self.send_response(status)
        if status == 204:
            self.end_headers()
            return
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._serve()

    def _serve(self) -> None:
        split = urlsplit(self.path)
        query = {key: values[0] for key, values in parse_qs(split.query).items()}
        headers = {name.lower(): value for name, value in self.headers.items()}
        self.server.requests.append({"method": self.command, **headers})
        if split.path.startswith("/raw/"):
            self._start(content_type=query.get("type", "text/event-stream"))
            self._chunk(self.server.raw[split.path.removeprefix("/raw/")])
            self.wfile.write(b"0\r\n\r\n")
            return
        last = self.headers.get("Last-Event-ID")
        if last is not None and query.get("reconnect") == "204":
            self._start(204)
            return
        self._start()
        first = last is None
        drop_after = int(query.get("drop_after", -1)) if first else -1
        truncate_after = int(query.get("truncate_after", -1)) if first else -1
        sent = 0
        for piece in sse_body(
            self.server.events, last_event_id=last, retry_ms=self.server.retry_ms
        ):
            if piece.startswith(b"retry:"):
                self._chunk(piece)
                continue
            if sent == drop_after:
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)  # drop: no terminating chunk
                return
            if sent == truncate_after:
                self._chunk(piece[: len(piece) // 2])  # half a message, then a clean end
                break
            self._chunk(piece)
            sent += 1
        self.wfile.write(b"0\r\n\r\n")


@contextmanager
def serve(
    events: list[Any] | None = None, raw: dict[str, bytes] | None = None, retry_ms: int | None = 10
) -> Iterator[SSEServer]:
    server = SSEServer(events or [], raw or {}, retry_ms)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def serve_asgi(app: Any) -> Iterator[str]:
    """uvicorn on 127.0.0.1 (a free port) in a thread; yields the base URL."""
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
