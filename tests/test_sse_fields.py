"""The SSE client reads the fields of whole messages itself (runtime/sse/_fields.py) and gets
exactly what it got when httpx-sse's ``EventSource`` read the same framed bytes: the same
messages, with the same event names, data, ids and retry values, whatever the stream holds and
however it is cut into chunks.
"""

from __future__ import annotations

import itertools
from typing import Any

import httpx
import pytest
from httpx_sse import EventSource
from hypothesis import given, settings
from hypothesis import strategies as st

from phi_wire.sse._fields import _PLAIN, Fields
from phi_wire.sse._frame import Framer, TooLarge


def framed_runs(chunks: list[bytes], limit: int) -> list[bytes | TooLarge]:
    """What the framer gives out for ``chunks``: its bytes joined between ``TooLarge``s."""
    framer = Framer(limit)
    runs: list[bytes | TooLarge] = []
    for chunk in chunks:
        for item in framer.feed(chunk):
            if isinstance(item, TooLarge) or not runs or isinstance(runs[-1], TooLarge):
                runs.append(item)
            else:
                runs[-1] = runs[-1] + item
    return runs


def old_reading(runs: list[bytes | TooLarge]) -> list[Any]:
    """httpx-sse's messages, the TooLarges left where they stand in the framed bytes."""
    text = b"".join(run for run in runs if isinstance(run, bytes))
    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=text)
    return [(sse.event, sse.data, sse.id, sse.retry) for sse in EventSource(response).iter_sse()]


def new_reading(runs: list[bytes | TooLarge]) -> list[Any]:
    fields = Fields()
    return [
        (message.event, message.text(), message.last_event_id, message.retry)
        for run in runs
        if isinstance(run, bytes)
        for message in fields.messages(run)
    ]


_LINES = st.sampled_from(
    [
        b"data: {}",
        b'data: {"type":"AgentEnd","loop_id":"l"}',
        b"data:no space",
        b"data:  two spaces",
        b"data",
        b"data:",
        b"event: AgentEnd",
        b"event:AgentEnd",
        b"event",
        b"id: 7",
        b"id:8",
        b"id",
        b"id: ",
        b"id: 9\x00",
        b"id: \xc3\xa91",
        b"retry: 10",
        b"retry:-5",
        b"retry: +5",
        b"retry: 1_0",
        b"retry: 12x",
        b"retry: \xd9\xa3",  # an Arabic-Indic digit: Python's int reads it
        b"retry",
        b"other: field",
        b": comment",
        b"",
        b"data: caf\xe9 \xf0\x9f",  # not UTF-8
        b"\xff\xfe: value",
        b"data: a:b: c",
    ]
)
_ENDINGS = st.sampled_from([b"\n", b"\r\n", b"\r"])


@st.composite
def streams(draw: st.DrawFn) -> tuple[bytes, list[int]]:
    plain = b"event: MessageEnd\nid: 41\ndata: {}\n\n"
    parts = draw(
        st.lists(
            st.one_of(
                st.tuples(_LINES, _ENDINGS).map(lambda pair: pair[0] + pair[1]),
                st.just(plain),
            ),
            max_size=40,
        )
    )
    body = b"".join(parts)
    if draw(st.booleans()):
        body = b"\xef\xbb\xbf" + body
    cuts = sorted(draw(st.lists(st.integers(0, max(len(body), 1)), max_size=8)))
    return body, cuts


@settings(max_examples=500, deadline=None)
@given(streams(), st.sampled_from([16, 60, 1 << 20]))
def test_the_fields_read_what_httpx_sse_read(stream: tuple[bytes, list[int]], limit: int) -> None:
    body, cuts = stream
    bounds = [0, *cuts, len(body)]
    chunks = [body[start:end] for start, end in itertools.pairwise(bounds)]
    runs = framed_runs(chunks, limit)
    assert new_reading(runs) == old_reading(runs)


@pytest.mark.parametrize(
    "message",
    [
        b"event: AgentEnd\nid: 5\ndata: {}\n\n",
        b"event:AgentEnd\nid:5\ndata:{}\n\n",
        b"event:  AgentEnd\nid:  5\ndata:  {}\n\n",
        b"event: \nid: \ndata: \n\n",
        b"event: a:b\nid: 1:2\ndata: x:y\n\n",
    ],
)
def test_the_plain_form_reads_as_line_by_line(message: bytes) -> None:
    """The messages ``sse_body`` writes are read by one match; it must read what the line rules
    read (a value less one space after the colon)."""
    assert _PLAIN.match(message) is not None
    fast = Fields().messages(message * 3)
    slow: list[Any] = []
    fields = Fields()
    position = 0
    while position < len(message * 3):
        position = fields._one(message * 3, position, slow)
    assert fast == slow
    assert [tuple(item) for item in fast] == [
        (event, data.encode(), id, retry) for event, data, id, retry in old_reading([message * 3])
    ]


def test_what_the_plain_form_leaves_to_the_line_rules() -> None:
    for message in (
        b"id: 5\nevent: AgentEnd\ndata: {}\n\n",  # another order
        b"event: AgentEnd\nid: 5\0\ndata: {}\n\n",  # an id with NUL is ignored
        b"event: AgentEnd\nid: 5\ndata: {}\ndata: {}\n\n",  # two data lines
        b"event: AgentEnd\nid: 5\ndata: {}\nretry: 3\n\n",
    ):
        assert _PLAIN.match(message) is None
        assert new_reading([message]) == old_reading([message])
