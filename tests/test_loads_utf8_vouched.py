"""``loads``' fast path needs no UTF-8 check of its own (runtime/serde/_shortcut.py; issue 21,
goal 2: the check cost some 0.6 us on each non-ASCII event): pydantic-core's JSON parser, inside
the vouched validator the fast path hands a document to, refuses every document whose bytes are
not UTF-8, wherever those bytes lie, as serde_json does. Such a document then takes the exact path,
which reports it.

The oracle is the check the fast path made before, ``phi_wire.fastpath.is_utf8`` (Python's strict
decoder). Whether bytes are UTF-8 depends only on which of 14 classes each byte lies in (the
ranges of Unicode's table of well-formed sequences, ``CLASSES``); ``test_the_classes_are_the_
oracles`` checks that the oracle sees them so. Tried, at every position kind (``POSITIONS``): every
sequence of one and two bytes, and every sequence of three bytes made of the classes' first and
last bytes (``EDGES``, both edges of each range); every such sequence of four bytes at the two
positions of the two kinds of string (a struct's value, a ``serde_json::Value`` map's key). The
claim: a document the oracle refuses, the validator refuses. And so that the claim is not
vacuous, where the bytes are UTF-8 inside a string (and hold nothing JSON forbids raw there), the
validator accepts the document. Then ``loads`` both ways over one byte of each value and the
class edges, and a property test over longer runs of bytes.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError
from test_loads_shortcut import assert_same

import phi_wire.v0_8
import phi_wire.v0_10
from phi_wire.fastpath import is_utf8
from phi_wire.serde import _shortcut

CLASSES = [
    (0x00, 0x7F),  # ASCII
    (0x80, 0x8F),  # continuation bytes: after F0 only 90-BF may come, after F4 only 80-8F,
    (0x90, 0x9F),  # after E0 only A0-BF, after ED only 80-9F
    (0xA0, 0xBF),
    (0xC0, 0xC1),  # never (overlong two-byte forms)
    (0xC2, 0xDF),  # lead of two bytes
    (0xE0, 0xE0),  # lead of three bytes
    (0xE1, 0xEC),
    (0xED, 0xED),  # (ED A0-BF would be a surrogate)
    (0xEE, 0xEF),
    (0xF0, 0xF0),  # lead of four bytes
    (0xF1, 0xF3),
    (0xF4, 0xF4),  # (F4 90-BF would be past U+10FFFF)
    (0xF5, 0xFF),  # never
]
EDGES = sorted({0x41} | {edge for low, high in CLASSES[1:] for edge in (low, high)} | {0x7F})
"""Both edges of each class (of ASCII: ``A`` and DEL, which a string may hold raw; the
exhaustive one- and two-byte sequences try NUL, the quote and the backslash)."""


def event(name: bytes = b"r", args: bytes = b'{"path":"p"}', first: bytes = b"") -> bytes:
    """A ``ToolExecutionStart`` event, with ``first`` as its first member after the tag."""
    return (
        b'{"type":"ToolExecutionStart",' + first + b'"loop_id":"l","tool_call_id":"t",'
        b'"tool_name":"' + name + b'","args":' + args + b"}"
    )


POSITIONS: dict[str, Callable[[bytes], bytes]] = {
    # a string: pydantic-core's parser takes a string without escapes in place...
    "end of a string": lambda run: event(name=b"r" + run),
    # ...and copies one with escapes, piece by piece (a run after or before an escape)
    "after an escape": lambda run: event(name=b"\\n" + run),
    "before an escape": lambda run: event(name=run + b"\\n"),
    # serde_json::Value (pydantic-core's any): a map's key, a string in it
    "key of a Value": lambda run: event(args=b'{"' + run + b'":1,"path":"p"}'),
    "string in a Value": lambda run: event(args=b'{"path":"' + run + b'"}'),
    # a struct's unknown key (serde would skip its value; the key is still read)
    "key of a struct": lambda run: event(first=b'"' + run + b'":1,'),
    # outside any string
    "between tokens": lambda run: event(args=b'{"path":"p"' + run + b"}"),
}
IN_A_STRING = {name for name in POSITIONS if name != "between tokens"}
FOUR_BYTES_AT = ("end of a string", "key of a Value")

MODULES = {"0.8": phi_wire.v0_8, "0.10": phi_wire.v0_10}


def validator(version: str) -> Callable[[bytes], Any]:
    """The validator ``loads``' fast path hands ``version``'s events to."""
    tp = MODULES[version].AgentEvent
    assert _shortcut.prepare(tp)
    fast = _shortcut.shortcut_for(tp).fast
    assert fast is not None
    return fast[1]


def accepts(validate: Callable[[bytes], Any], document: bytes) -> bool:
    try:
        validate(document)
    except ValidationError:
        return False
    return True


def raw_in_a_string(run: bytes) -> bool:
    """Whether JSON lets a string hold ``run`` as it is (no control byte, quote or backslash)."""
    return not any(byte < 0x20 or byte in b'"\\' for byte in run)


def sequences(lengths: Iterable[int], alphabet: Iterable[int]) -> Iterator[bytes]:
    letters = list(alphabet)
    for length in lengths:
        for letters_of in itertools.product(letters, repeat=length):
            yield bytes(letters_of)


def check(validate: Callable[[bytes], Any], runs: Iterable[bytes], positions: Iterable[str]) -> int:
    """The claim over every run at every position; returns how many runs were not UTF-8."""
    refused = 0
    places = [(name, POSITIONS[name]) for name in positions]
    for run in runs:
        for name, place in places:
            document = place(run)
            if not is_utf8(document):
                refused += 1
                assert not accepts(validate, document), f"{run.hex(' ')} {name}: accepted"
            elif name in IN_A_STRING and raw_in_a_string(run):
                assert accepts(validate, document), f"{run.hex(' ')} {name}: refused"
    return refused


def test_the_classes_are_the_oracles() -> None:
    """Any byte of a class may stand for its edges where only edges are tried (a sequence's third
    and fourth bytes; its first two are tried exhaustively): the oracle's verdict on every
    three-byte sequence of edges stays the same with its third byte replaced by any other of its
    class. (A fourth byte matters only after the first three of a four-byte form, where it must be
    80-BF as a third byte must.)"""
    class_of = {byte: (low, high) for low, high in CLASSES for byte in range(low, high + 1)}
    assert sorted(class_of) == list(range(256))
    for run in sequences([3], EDGES):
        low, high = class_of[run[2]]
        verdicts = {is_utf8(run[:2] + bytes([other])) for other in range(low, high + 1)}
        assert verdicts == {is_utf8(run)}, run.hex(" ")


def test_every_short_sequence_at_every_position() -> None:
    validate = validator("0.8")
    refused = check(validate, sequences([1, 2], range(256)), POSITIONS)
    refused += check(validate, sequences([3], EDGES), POSITIONS)
    assert refused > 7 * 40_000  # (most of them: a lone byte >= 0x80 is never UTF-8)


def test_every_four_byte_sequence_of_edges_in_a_string() -> None:
    validate = validator("0.8")
    assert check(validate, sequences([4], EDGES), FOUR_BYTES_AT) > 2 * 300_000


def test_phi_core_0_10_alike() -> None:
    validate = validator("0.10")
    refused = check(validate, sequences([1, 2], EDGES), POSITIONS)
    assert refused + check(validate, sequences([3], EDGES), ["end of a string"]) > 7 * 400


@pytest.mark.parametrize("position", sorted(POSITIONS))
def test_loads_judges_alike_both_ways(position: str) -> None:
    """The whole of ``loads``, fast path on and off (value, or error and problems): one byte of
    each value, and two-byte sequences of edges."""
    place = POSITIONS[position]
    runs = [bytes([byte]) for byte in range(0x80, 0x100)] + list(sequences([2], EDGES))
    vouched = 0
    for run in runs:
        vouched += assert_same("0.8", "AgentEvent", place(run), f"{run.hex(' ')} {position}")
    assert vouched > 0 if position in IN_A_STRING - {"key of a struct"} else vouched == 0


@given(st.binary(min_size=1, max_size=12), st.sampled_from(sorted(POSITIONS)))
def test_longer_runs(run: bytes, position: str) -> None:
    check(validator("0.8"), [run], [position])
