"""The events whole SSE messages dispatch: WHATWG HTML, "Server-sent events", section "Interpreting
an event stream", applied to the bytes ``Framer`` (``_frame``) gives out.

The rules: a line is a field; its name runs up to the first colon and its value follows it, less
one leading space (a line without a colon is all name, its value empty). ``data`` values are
joined by LF; ``event`` names the event; ``id`` sets the last event ID, which carries over from
message to message, unless its value holds NUL; ``retry`` sets the reconnection time; other names
are ignored. A blank line dispatches the message (its type ``message`` unless an ``event`` named
another). Text is UTF-8, what is not UTF-8 read as U+FFFD (CR, LF and the colon are ASCII, so
decoding each value on its own reads what decoding the whole stream would).

Two choices are httpx-sse 0.4's, whose decoder ``events()`` went through before, kept so that
nothing ``events()`` did changes (the tests compare both on generated streams): a message is
dispatched even without data when it names an event or a retry, or once any id has been seen
(``events()`` delivers no event for it, but counts its id and retry); and ``retry`` is what
Python's ``int`` reads from the value (``events()`` then ignores a negative one).

Why not httpx-sse itself: ``Framer`` has already cut the stream into lines (by the same rules,
to bound memory); httpx-sse decoded the framed bytes to text and cut them into lines again, in
Python line by line, which cost more than the rest of the SSE work and a third as much as
validating the event. Here a message's data stays
bytes, sliced once out of the framed block, since ``loads`` reads UTF-8 bytes as they are.
"""

from __future__ import annotations

import contextlib
import re
from typing import NamedTuple

__all__ = ["Fields", "Message"]

# The messages sse_body writes: an event name, an id, one data line. One match reads all three
# (a value is what follows the colon less one space: " ?" takes it, greedily); an id with NUL,
# any other field, line order or count is read line by line.
_PLAIN = re.compile(rb"event: ?([^\n]*)\nid: ?([^\n\0]*)\ndata: ?([^\n]*)\n\n")


class Message(NamedTuple):
    """One dispatched message."""

    event: str
    """The event type: the ``event`` field, or ``message`` when it is absent or empty."""
    data: bytes
    """The ``data`` values joined by LF, as sent: possibly not UTF-8 (see ``text``)."""
    last_event_id: str
    """The last event ID so far (this message's own ``id``, or an earlier message's)."""
    retry: int | None

    def text(self) -> str:
        """``data`` as the spec reads it: UTF-8, U+FFFD for what is not."""
        return self.data.decode("utf-8", "replace")


def _text(value: bytes) -> str:
    return value.decode("utf-8", "replace")


class Fields:
    """Reads the messages of one response; it holds the last event ID between them."""

    def __init__(self) -> None:
        self.last_event_id = ""

    def messages(self, block: bytes) -> list[Message]:
        """The messages ``block`` dispatches: whole messages as ``Framer`` gives them out, each
        line ended by LF, each message by a blank line (so no line is empty but those)."""
        out: list[Message] = []
        match = _PLAIN.match
        position, size = 0, len(block)
        while position < size:
            found = match(block, position)
            if found is None:
                position = self._one(block, position, out)
                continue
            event, event_id, data = found.groups()
            self.last_event_id = _text(event_id)
            out.append(Message(_text(event) or "message", data, self.last_event_id, None))
            position = found.end()
        return out

    def _one(self, block: bytes, position: int, out: list[Message]) -> int:
        """Reads the message at ``position`` line by line; returns where the next one starts."""
        find = block.find
        event = ""
        data: list[bytes] = []
        retry: int | None = None
        while True:
            end = find(b"\n", position)
            if end < 0:  # not whole: Framer never gives out such a block
                raise ValueError("an SSE block that does not end with a blank line")
            if end == position:  # the blank line
                if data or event or retry is not None or self.last_event_id:
                    joined = data[0] if len(data) == 1 else b"\n".join(data)
                    out.append(Message(event or "message", joined, self.last_event_id, retry))
                return position + 1
            colon = find(b":", position, end)
            if colon < 0:
                name, value = block[position:end], b""
            else:
                name = block[position:colon]
                colon += 1
                if colon < end and block[colon] == 32:  # one space after the colon
                    colon += 1
                value = block[colon:end]
            position = end + 1
            if name == b"data":
                data.append(value)
            elif name == b"event":
                event = _text(value)
            elif name == b"id":
                if b"\0" not in value:
                    self.last_event_id = _text(value)
            elif name == b"retry":
                with contextlib.suppress(ValueError):
                    retry = int(_text(value))
