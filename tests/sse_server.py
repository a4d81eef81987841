"""Real HTTP servers on 127.0.0.1 for the SSE tests, started and stopped by the tests.

``serve()``: a plain HTTP/1.1 server (``http.server``) whose answers the tests script. Routes:

* ``/events``: the configured events through ``phi_wire.sse.sse_response`` (honours
  Last-Event-ID, answers 204 once nothing follows it). On a first connection (no
  Last-Event-ID), ``?drop_after=N`` cuts the connection after N events (chunked encoding, so the
  client sees an incomplete body), ``?truncate_after=N`` sends N events and half of the next, then
  ends the response cleanly, and ``?close_after=N`` sends N events in a ``Connection: close``
  response without a length and closes it cleanly; ``?reconnect=204`` answers any reconnect with
  204 No Content.
* ``/raw/<name>``: a configured raw body, byte for byte (malformed frames, CRLF, comments...), with
  ``?type=`` for another Content-Type; served once, any later request gets 204.
* ``routes={path: handler}``: ``handler(exchange)`` writes the whole answer itself with
  ``Exchange``'s methods (any status, framing, cut, reset, trickle).

Every request is recorded: ``server.requests`` (method and headers, names lower-cased) and
``server.times`` (``time.monotonic()`` on arrival).

``serve_asgi(app)``: uvicorn serving an ASGI app (``phi_wire.sse.sse_app``) in a thread.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

import uvicorn

from phi_wire.sse import MEDIA_TYPE, sse_response

Framing = Literal["chunked", "close", "length"]
Handler = Callable[["Exchange"], None]


class SSEServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self,
        events: list[Any],
        raw: dict[str, bytes],
        retry_ms: int | None,
        routes: dict[str, Handler],
    ) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.events = events
        self.raw = raw
        self.retry_ms = retry_ms
        self.routes = routes
        self.requests: list[dict[str, str]] = []
        """Each request: its method and headers (names lower-cased)."""
        self.times: list[float] = []
        self.raw_served: set[str] = set()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (drops, refused content types) is part of the tests."""

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


class Exchange:
    """One request, and the means to answer it in any shape."""

    def __init__(self, handler: _Handler, number: int, query: dict[str, str]) -> None:
        self._handler = handler
        self.number = number
        """The request's position among all requests to this server, from 0."""
        self.query = query
        raw = handler.headers.get("Last-Event-ID")
        # http.server reads header bytes as Latin-1: recover the bytes the client sent.
        self.last_event_id_bytes = None if raw is None else raw.encode("latin-1")
        self.last_event_id = None if raw is None else raw.encode("latin-1").decode("utf-8")
        self._framing: Framing = "chunked"

    @property
    def server(self) -> SSEServer:
        return self._handler.server

    def start(
        self,
        status: int = 200,
        *,
        content_type: str = MEDIA_TYPE,
        framing: Framing = "chunked",
        length: int = 0,
        headers: dict[str, str] | None = None,
    ) -> None:
        """The status line and headers; ``framing`` says how the body's end is marked."""
        handler = self._handler
        handler.send_response(status)
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        self._framing = framing
        if status == 204:
            handler.end_headers()
            return
        handler.send_header("Content-Type", content_type)
        if framing == "chunked":
            handler.send_header("Transfer-Encoding", "chunked")
        elif framing == "length":
            handler.send_header("Content-Length", str(length))
        else:
            handler.send_header("Connection", "close")
            handler.close_connection = True
        handler.end_headers()

    def send(self, data: bytes) -> None:
        """Body bytes: one chunk, or as they are."""
        if self._framing == "chunked":
            data = f"{len(data):x}\r\n".encode() + data + b"\r\n"
        self._handler.wfile.write(data)

    def finish(self) -> None:
        """End the body properly (the terminating chunk, or the close that ends it)."""
        if self._framing == "chunked":
            self._handler.wfile.write(b"0\r\n\r\n")
        elif self._framing == "close":
            self._handler.connection.shutdown(socket.SHUT_WR)

    def cut_chunk(self, data: bytes, announced: int) -> None:
        """A chunk that announces more bytes than it carries, then a drop."""
        self._handler.wfile.write(f"{announced:x}\r\n".encode() + data)
        self.drop()

    def drop(self) -> None:
        """Cut the connection where the body stands."""
        self._handler.close_connection = True
        self._handler.connection.shutdown(socket.SHUT_RDWR)

    def reset(self) -> None:
        """Abort the connection with a TCP RST (SO_LINGER 0, then close)."""
        connection = self._handler.connection
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self._handler.close_connection = True
        connection.close()

    def wait_closed(self, timeout: float) -> bool:
        """Wait until the client closes the connection; False if it has not within ``timeout``."""
        connection = self._handler.connection
        connection.settimeout(timeout)
        try:
            while connection.recv(65536):
                pass
        except TimeoutError:
            return False
        except OSError:
            return True
        finally:
            self._handler.close_connection = True
        return True


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: SSEServer

    def setup(self) -> None:
        super().setup()
        # Each write goes out at once: trickled bytes arrive one by one.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        del format, args

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
        self.server.times.append(time.monotonic())
        exchange = Exchange(self, len(self.server.requests) - 1, query)
        route = self.server.routes.get(split.path)
        if route is not None:
            route(exchange)
        elif split.path.startswith("/raw/"):
            self._raw(exchange, split.path.removeprefix("/raw/"))
        else:
            self._events(exchange)

    def _raw(self, exchange: Exchange, name: str) -> None:
        if name in self.server.raw_served:
            exchange.start(204)
            return
        self.server.raw_served.add(name)
        exchange.start(content_type=exchange.query.get("type", MEDIA_TYPE))
        exchange.send(self.server.raw[name])
        exchange.finish()

    def _events(self, exchange: Exchange) -> None:
        last = exchange.last_event_id
        if last is not None and exchange.query.get("reconnect") == "204":
            exchange.start(204)
            return
        reply = sse_response(self.server.events, last_event_id=last, retry_ms=self.server.retry_ms)
        first = last is None
        drop_after, truncate_after, close_after = (
            int(exchange.query.get(name, -1)) if first else -1
            for name in ("drop_after", "truncate_after", "close_after")
        )
        if reply.status == 204:
            exchange.start(204)
            return
        exchange.start(framing="close" if close_after >= 0 else "chunked")
        sent = 0
        for piece in reply.body:
            if piece.startswith(b"retry:"):
                exchange.send(piece)
                continue
            if sent == drop_after:
                exchange.drop()  # no terminating chunk
                return
            if sent == truncate_after:
                exchange.send(piece[: len(piece) // 2])  # half a message, then a clean end
                break
            if sent == close_after:
                break
            exchange.send(piece)
            sent += 1
        exchange.finish()


@contextmanager
def serve(
    events: list[Any] | None = None,
    raw: dict[str, bytes] | None = None,
    retry_ms: int | None = 10,
    routes: dict[str, Handler] | None = None,
) -> Iterator[SSEServer]:
    server = SSEServer(events or [], raw or {}, retry_ms, routes or {})
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
