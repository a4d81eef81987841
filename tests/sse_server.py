"""A real HTTP/1.1 server on 127.0.0.1 for the SSE tests, started and stopped by the tests.

It serves ``text/event-stream`` with chunked transfer encoding, so a connection the server drops
mid-stream is a transport error for the client (not a clean end). Routes:

* ``/events``: the configured events through ``phi_wire.sse.sse_body`` (honours Last-Event-ID);
  ``?drop_after=N`` closes the socket after N events on a first connection (no Last-Event-ID);
* ``/raw/<name>``: a configured raw body, byte for byte (malformed frames, CRLF, comments...).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from phi_wire.sse import sse_body


class SSEServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, events: list[Any], raw: dict[str, bytes], retry_ms: int | None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.events = events
        self.raw = raw
        self.retry_ms = retry_ms
        self.requests: list[dict[str, str]] = []

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

    def do_GET(self) -> None:
        split = urlsplit(self.path)
        query = parse_qs(split.query)
        self.server.requests.append(dict(self.headers.items()))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if split.path.startswith("/raw/"):
            self._chunk(self.server.raw[split.path.removeprefix("/raw/")])
        else:
            last = self.headers.get("Last-Event-ID")
            drop_after = int(query.get("drop_after", ["-1"])[0]) if last is None else -1
            body = sse_body(self.server.events, last_event_id=last, retry_ms=self.server.retry_ms)
            sent = 0
            for piece in body:
                if piece.startswith(b"retry:"):
                    self._chunk(piece)
                    continue
                if sent == drop_after:
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)  # drop: no terminating chunk
                    return
                self._chunk(piece)
                sent += 1
        self.wfile.write(b"0\r\n\r\n")


@contextmanager
def serve(
    events: list[Any] | None = None, raw: dict[str, bytes] | None = None, retry_ms: int | None = 10
) -> Iterator[SSEServer]:
    server = SSEServer(events or [], raw or {}, retry_ms)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
