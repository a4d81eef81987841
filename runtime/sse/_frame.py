"""Cuts an SSE byte stream into whole messages of bounded size, by the line rules of WHATWG HTML,
"Server-sent events", sections "Parsing an event stream" and "Interpreting an event stream".

The rules, applied to bytes (CR and LF never occur inside a multi-byte UTF-8 sequence, so bytes
and decoded text split alike): a line ends at CRLF, a lone CR or a lone LF, and a CR that ends one
chunk may find its LF at the start of the next; one leading BOM is dropped; a line that starts
with a colon is a comment (ignored, so never kept here); a blank line ends a message. Each whole
message goes out as its field lines joined by LF, then a blank line: exactly what any conforming
decoder reads as that message.

Nothing is kept beyond ``limit`` bytes per message: past it the message is reported once as
``TooLarge`` and the rest of it, up to its blank line, is read and thrown away as it comes.

Per line in Python, that costs more than decoding the message (a typed event stream is four lines
a message). So whole messages that need nothing of it go out as they came, in one piece: from a
message boundary up to the chunk's last blank line, when that span is no bigger than ``limit``
(then neither is any message in it), holds no comment line and no blank line beyond the one that
ends each message: exactly the bytes the line-by-line reading would give out.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Framer", "TooLarge"]

_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class TooLarge:
    """A message past the limit; ``event_id`` is its own ``id:`` if that line came first."""

    event_id: str | None


class Framer:
    """Feed it the chunks of one response; it returns the messages each chunk completes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._head = b""  # the stream's first bytes while they may still be a BOM
        self._started = False
        self._cr = False  # the last chunk ended with a CR: an LF first in the next one is its pair
        # The message being read: the pieces of its kept lines, each line followed by an LF.
        # They go out as they are (never joined here: a 50 MB message is not copied whole).
        self._message: list[bytes] = []
        self._size = 0  # the bytes in _message
        self._line_size = 0  # the bytes of the line being read, counted even when not kept
        self._keep_line = True  # False for a comment line, and inside a dropped message
        self._dropping = False  # inside a message past the limit, until its blank line

    @property
    def inside_message(self) -> bool:
        """The bytes so far end inside a message (as a response cut short leaves them)."""
        return bool(self._head or self._message or self._line_size or self._dropping)

    def feed(self, chunk: bytes) -> list[bytes | TooLarge]:
        """The pieces of the messages ``chunk`` completes, in order, each message's last piece
        its blank line; a ``TooLarge`` where a message passed the limit."""
        chunk = self._without_bom(chunk)
        if self._cr and chunk[:1] == b"\n":
            chunk = chunk[1:]  # the LF of a CRLF split across two chunks
        self._cr = chunk[-1:] == b"\r"
        if b"\r" in chunk:
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        out: list[bytes | TooLarge] = []
        start = 0
        if not self._at_boundary():  # first the end of the message being read, line by line
            if self._line_size == 0 and chunk[:1] == b"\n":
                start = 1
            else:
                start = chunk.find(b"\n\n") + 2
                if start == 1:  # not in this chunk
                    self._lines(chunk, out)
                    return out
            self._lines(chunk[:start], out)
        start += self._whole_messages(chunk, start, out)
        if start < len(chunk):
            self._lines(chunk[start:] if start else chunk, out)
        return out

    def _at_boundary(self) -> bool:
        """Between two messages, at the start of a line."""
        return not (self._message or self._line_size or self._dropping)

    def _whole_messages(self, chunk: bytes, start: int, out: list[bytes | TooLarge]) -> int:
        """At a message boundary at ``start``: the plain whole messages from there go out in one
        piece; returns their length (0: none)."""
        end = chunk.rfind(b"\n\n", start) + 2
        if end < start + 2 or end - start > self.limit:
            return 0
        span = chunk[start:end] if start or end < len(chunk) else chunk
        if span[:1] in (b":", b"\n") or b"\n:" in span or b"\n\n\n" in span:
            return 0  # a comment, or a blank line that ends no message: line by line
        out.append(span)
        return end - start

    def _lines(self, chunk: bytes, out: list[bytes | TooLarge]) -> None:
        *lines, rest = chunk.split(b"\n")
        for piece in lines:
            self._add(piece, out)
            self._end_line(out)
        if rest:
            self._add(rest, out)

    def _without_bom(self, chunk: bytes) -> bytes:
        if self._started:
            return chunk
        head = self._head + chunk
        if len(head) < len(_BOM) and _BOM.startswith(head):
            self._head = head  # too short to tell yet (a stream read byte by byte)
            return b""
        self._started, self._head = True, b""
        return head.removeprefix(_BOM)

    def _add(self, piece: bytes, out: list[bytes | TooLarge]) -> None:
        """A piece of the line being read."""
        if self._line_size == 0 and piece[:1] == b":":
            self._keep_line = False  # a comment: a flood of them costs no memory
        self._line_size += len(piece)
        if self._keep_line and piece:
            self._keep(piece, out)

    def _end_line(self, out: list[bytes | TooLarge]) -> None:
        if self._line_size == 0:  # a blank line: the message is complete
            if self._message and not self._dropping:
                self._message.append(b"\n")
                out.extend(self._message)
            self._message, self._size, self._dropping = [], 0, False
        elif self._keep_line:
            self._keep(b"\n", out)
        self._line_size, self._keep_line = 0, not self._dropping

    def _keep(self, piece: bytes, out: list[bytes | TooLarge]) -> None:
        self._message.append(piece)
        self._size += len(piece)
        if self._size > self.limit:
            out.append(TooLarge(self._own_id()))
            self._message, self._size = [], 0
            self._keep_line, self._dropping = False, True

    def _own_id(self) -> str | None:
        """The message's last ``id`` field among its complete lines; one with NUL is ignored."""
        found = None
        for line in b"".join(self._message).split(b"\n")[:-1]:  # the last one is incomplete
            name, _, value = line.partition(b":")
            if name == b"id" and b"\0" not in value:
                found = value.removeprefix(b" ").decode("utf-8", "replace")
        return found
