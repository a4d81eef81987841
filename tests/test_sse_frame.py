"""The SSE client's framer (runtime/sse/_frame.py) gives out the same bytes whether it passes plain
whole messages through in one piece or reads every line on its own.

The line-by-line reading is the reference (its rules are tested through the client in
``test_sse.py``); the pass-through is an optimisation that must never change a byte, a
``TooLarge`` or where it stands, however the stream is cut into chunks.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phi_wire.sse._frame import Framer, TooLarge


def framed(chunks: list[bytes], limit: int, whole: bool) -> list[Any]:
    """Everything the framer gives out for ``chunks``, its bytes joined between ``TooLarge``s."""
    framer = Framer(limit)
    if not whole:
        framer._whole_messages = lambda chunk, start, out: 0  # type: ignore[method-assign]
    items: list[Any] = []
    for chunk in chunks:
        for item in framer.feed(chunk):
            if isinstance(item, TooLarge) or not items or isinstance(items[-1], TooLarge):
                items.append(item)
            else:
                items[-1] += item
    return [*items, framer.inside_message]


_LINES = st.sampled_from(
    [
        b"data: {}",
        b'data: {"type":"AgentEnd","loop_id":"l"}',
        b"event: AgentEnd",
        b"id: 7",
        b"id",
        b"retry: 10",
        b": keep-alive",
        b":",
        b"",
        b"data:" + b"x" * 40,
        b"\xef\xbb\xbfdata: bom",
    ]
)
_ENDINGS = st.sampled_from([b"\n", b"\r\n", b"\r"])


@st.composite
def streams(draw: st.DrawFn) -> tuple[bytes, list[int]]:
    lines = draw(st.lists(st.tuples(_LINES, _ENDINGS), max_size=40))
    body = b"".join(line + ending for line, ending in lines)
    if draw(st.booleans()):
        body = b"\xef\xbb\xbf" + body
    cuts = sorted(draw(st.lists(st.integers(0, max(len(body), 1)), max_size=8)))
    return body, cuts


@settings(max_examples=400, deadline=None)
@given(streams(), st.sampled_from([8, 60, 1 << 20]))
def test_passing_whole_messages_through_changes_nothing(
    stream: tuple[bytes, list[int]], limit: int
) -> None:
    body, cuts = stream
    bounds = [0, *cuts, len(body)]
    chunks = [body[start:end] for start, end in itertools.pairwise(bounds)]
    assert framed(chunks, limit, whole=True) == framed(chunks, limit, whole=False)


def test_a_stream_of_plain_messages_goes_through_in_one_piece_per_chunk() -> None:
    """What the pass-through is for: an event stream costs no Python per line."""
    message = b'event: AgentEnd\nid: 1\ndata: {"type":"AgentEnd","loop_id":"l"}\n\n'
    framer = Framer(1 << 20)
    calls = 0
    keep = framer._keep

    def counted(piece: bytes, out: list[Any]) -> None:
        nonlocal calls
        calls += 1
        keep(piece, out)

    framer._keep = counted  # type: ignore[method-assign]
    out = framer.feed(message * 100)
    assert out == [message * 100] and calls == 0
    out = framer.feed(message * 3 + message[:10])  # the cut message: line by line
    assert out == [message * 3] and calls == 1
    out = framer.feed(message[10:] + message)
    assert b"".join(item for item in out if isinstance(item, bytes)) == message * 2


@pytest.mark.parametrize(
    "chunks",
    [
        [b"data: a\n", b"\ndata: b\n\n"],  # the blank line that ends a message opens a chunk
        [b"data: a", b"\n\ndata: b\n\n"],  # so does the end of its last line
        [b"data: a", b"\ndata: b\n\n"],  # a line's end opens a chunk: the message goes on
        [b"data: a\n", b"\n", b"\ndata: b\n\n"],  # a blank line that ends nothing
        [b": ping\n\ndata: a\n\n"],
        [b"data: a\n\n\n\ndata: b\n\n"],
        [b"data: " + b"x" * 100 + b"\n\ndata: b\n\n"],  # past the limit, then a plain one
    ],
)
def test_edges(chunks: list[bytes]) -> None:
    assert framed(chunks, 64, whole=True) == framed(chunks, 64, whole=False)
