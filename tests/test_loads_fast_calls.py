"""``loads``' fast path runs inline (runtime/serde/_codec.py, issue 21, goal 2's steady state): a
document the expression vouches for enters no Python function but ``loads`` itself and what the
vouched validator runs of its own (an enum's lookup, say). Before, each event also entered
``vouched`` and the fast path's ``judge``, and a non-ASCII one ``is_utf8`` too: some 5% of an
event's time. Counted, not timed (``python_calls``), over phi-core's event streams, as bytes and as
``str`` (encoded by one call more).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from corpus import fixtures_root
from python_calls import python_calls

import phi_wire.v0_8
import phi_wire.v0_10
from phi_wire.serde import _shortcut

MODULES = {"0.8.0": phi_wire.v0_8, "0.10.0": phi_wire.v0_10}


@pytest.mark.parametrize("release", sorted(MODULES))
def test_a_vouched_event_enters_loads_alone(release: str) -> None:
    wire = MODULES[release]
    tp = wire.AgentEvent
    assert _shortcut.prepare(tp)
    fast = _shortcut.shortcut_for(tp).fast
    assert fast is not None
    validate: Callable[[bytes], Any] = fast[1]
    stream = fixtures_root() / "phi-core" / release / "streams" / "events.main_session.jsonl"
    lines = stream.read_bytes().splitlines()
    assert any(not line.isascii() for line in lines)  # (the UTF-8 check ran on those)
    for line in lines:
        own = python_calls(lambda line=line: validate(line))[1:]  # the validator's own
        names = python_calls(lambda line=line: wire.loads(tp, line))
        assert names == ["<lambda>", "loads", *own], line[:80]
        text = line.decode("utf-8")  # (a str is encoded by one call more)
        names = python_calls(lambda text=text: wire.loads(tp, text))
        assert names == ["<lambda>", "loads", "document_bytes", *own], line[:80]
