"""Unknown keys of a struct read directly (runtime/serde/_ignored.py): serde_json skips their values
with ``ignore_value``, which checks the JSON grammar only; a known field, and everything below an
internally tagged or untagged enum or a ``serde_json::Value``, is parsed in full.

Each fact (a number out of range, a 5,000-digit number, nesting past 127 levels, a lone surrogate
escape, bytes that are not UTF-8) is skipped under an unknown key of a struct read directly, at the
top and nested (Session -> LoopRecord -> Turn -> Usage...), and rejected in a buffered position
and in a known field, for phi-core 0.8 and 0.10 and clark-agent.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
from corpus import fixtures_root
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import phi_wire.clark_agent as clark
import phi_wire.serde._codec
from phi_wire import WireError, v0_8, v0_10
from phi_wire.base import WireModel
from phi_wire.serde._ignored import blank_ignored, skip_ignored_value
from phi_wire.serde._scan import SERDE_MAX_DEPTH

PHI_CORE = {"0.8": (v0_8, "0.8.0"), "0.10": (v0_10, "0.10.0")}

FACTS: dict[str, tuple[bytes, str]] = {
    # a value that serde_json's ignore_value skips and its full reading rejects, and its complaint
    "number_out_of_range": (b"1e400", "number out of range"),
    "long_number": (b"1" + b"0" * 5000, "number out of range"),
    "deep_nesting": (b"[" * 200 + b"]" * 200, "nested deeper than serde_json's 127 levels"),
    "lone_surrogate": (b'"\\ud800"', "unexpected end of hex escape"),
    "lone_trailing_surrogate": (b'["a\\udc00b"]', "lone leading surrogate in hex escape"),
    "not_utf8": (b'{"text":"caf\xe9"}', "invalid unicode code point"),
}

_MARK = "\u2603payload\u2603"


def serialized(document: Any, pretty: bool) -> bytes:
    if pretty:
        return json.dumps(document, indent=2, ensure_ascii=False).encode()
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()


def with_payload(
    document: Any, path: tuple[str | int, ...], key: str, payload: bytes, pretty: bool = False
) -> bytes:
    """``document`` with ``payload`` (raw JSON text) under ``key`` of the object at ``path``."""
    changed = copy.deepcopy(document)
    node = changed
    for step in path:
        node = node[step]
    node[key] = _MARK
    return marked(serialized(changed, pretty), payload)


def marked(text: bytes, payload: bytes) -> bytes:
    """``text`` with the string ``_MARK`` replaced by ``payload``."""
    mark = json.dumps(_MARK, ensure_ascii=False).encode()
    assert text.count(mark) == 1
    return text.replace(mark, payload)


@cache
def session_bytes(release: str) -> bytes:
    path = fixtures_root() / "phi-core" / release / "sessions" / "session.subagent_child.json"
    return path.read_bytes()


def session(release: str) -> Any:
    return json.loads(session_bytes(release))


def line_of(document: bytes, payload: bytes) -> int:
    return document[: document.index(payload)].count(b"\n") + 1


@dataclass(frozen=True)
class Position:
    label: str
    type_name: str
    path: tuple[str | int, ...]
    pretty: bool = True

    def document(self, release: str) -> Any:
        if self.type_name == "Session":
            return session(release)
        if self.type_name == "Usage":
            return {"input": 1, "output": 2}
        loop = session(release)["loops"][0]
        return {"LoopEvent": loop["events"][0], "AgentEvent": loop["events"][0]["event"]}[
            self.type_name
        ]


DIRECT = [
    Position("Usage", "Usage", (), pretty=False),
    Position("Session", "Session", ()),
    Position("Session.loops[0]", "Session", ("loops", 0)),
    Position("LoopRecord.turns[0]", "Session", ("loops", 0, "turns", 0)),
    Position("Turn.usage", "Session", ("loops", 0, "turns", 0, "usage")),
    Position("Turn.turn_id", "Session", ("loops", 0, "turns", 0, "turn_id")),
    Position("LoopRecord.usage", "Session", ("loops", 0, "usage")),
    Position("LoopRecord.events[0]", "Session", ("loops", 0, "events", 0)),
    Position("LoopEvent", "LoopEvent", (), pretty=False),
]

# each buffered position, and the struct read directly nearest to it (where the payload is skipped)
BUFFERED = [
    (Position("AgentEvent", "AgentEvent", (), pretty=False), Position("", "LoopEvent", (), False)),
    (
        Position("LoopEvent.event", "Session", ("loops", 0, "events", 0, "event")),
        Position("", "Session", ("loops", 0, "events", 0)),
    ),
    (
        Position("AgentEnd.usage", "Session", ("loops", 0, "events", -1, "event", "usage")),
        Position("", "Session", ("loops", 0, "usage")),
    ),
    (
        Position("LoopRecord.messages[0]", "Session", ("loops", 0, "messages", 0)),
        Position("", "Session", ("loops", 0)),
    ),
    (
        Position("Turn.output_message", "Session", ("loops", 0, "turns", 0, "output_message")),
        Position("", "Session", ("loops", 0, "turns", 0)),
    ),
    (
        Position("a message's content block", "Session", ("loops", 0, "messages", 0, "content", 0)),
        Position("", "Session", ("loops", 0, "turns", 0)),
    ),
]


def read_with_payload(release: str, position: Position, payload: bytes) -> tuple[Any, Any]:
    """(loads of the document with ``payload`` under an unknown key at ``position``, loads of the
    document without it)."""
    wire, _ = PHI_CORE[release]
    tp = getattr(wire, position.type_name)
    base = position.document(PHI_CORE[release][1])
    document = with_payload(base, position.path, "zz_unknown", payload, position.pretty)
    return wire.loads(tp, document), wire.loads(tp, serialized(base, position.pretty))


@pytest.mark.parametrize("fact", FACTS)
@pytest.mark.parametrize("release", PHI_CORE)
@pytest.mark.parametrize("position", DIRECT, ids=lambda position: position.label)
def test_an_unknown_key_of_a_struct_read_directly_skips_its_value(
    release: str, fact: str, position: Position
) -> None:
    value, expected = read_with_payload(release, position, FACTS[fact][0])
    assert value == expected
    wire, _ = PHI_CORE[release]
    assert wire.dumps(value, pretty=position.pretty) == wire.dumps(expected, pretty=position.pretty)


@pytest.mark.parametrize("release", PHI_CORE)
def test_the_session_read_back_is_written_as_phi_core_writes_it(release: str) -> None:
    wire, corpus_release = PHI_CORE[release]
    document = session(corpus_release)
    for index in range(len(FACTS)):
        document[f"zz_{index}"] = f"{_MARK}{index}"
        document["loops"][0]["turns"][0]["usage"][f"zz_{index}"] = f"{_MARK}{index}"
    text = serialized(document, pretty=True)
    for index, (payload, _) in enumerate(FACTS.values()):
        text = text.replace(json.dumps(f"{_MARK}{index}", ensure_ascii=False).encode(), payload)
    assert wire.dumps(wire.loads(wire.Session, text), pretty=True).encode() == session_bytes(
        corpus_release
    )


@pytest.mark.parametrize("fact", FACTS)
@pytest.mark.parametrize("release", PHI_CORE)
@pytest.mark.parametrize(
    ("buffered", "direct"), BUFFERED, ids=lambda position: position.label or "direct"
)
def test_a_buffered_position_parses_in_full_what_a_direct_one_skips(
    release: str, fact: str, buffered: Position, direct: Position
) -> None:
    payload, complaint = FACTS[fact]
    value, expected = read_with_payload(release, direct, payload)
    assert value == expected
    wire, corpus_release = PHI_CORE[release]
    base = buffered.document(corpus_release)
    document = with_payload(base, buffered.path, "zz_unknown", payload, buffered.pretty)
    with pytest.raises(WireError, match=complaint) as error:
        wire.loads(getattr(wire, buffered.type_name), document)
    if error.value.line is not None:
        assert error.value.line == line_of(document, payload)


@pytest.mark.parametrize("fact", FACTS)
@pytest.mark.parametrize("release", PHI_CORE)
def test_a_known_field_parses_in_full_what_an_unknown_key_beside_it_skips(
    release: str, fact: str
) -> None:
    payload, complaint = FACTS[fact]
    wire, corpus_release = PHI_CORE[release]
    assert wire.loads(wire.Usage, b'{"input":1,"output":2,"zz":' + payload + b"}") == wire.Usage(
        input=1, output=2
    )
    with pytest.raises(WireError, match=complaint):
        wire.loads(wire.Usage, b'{"input":' + payload + b',"output":2}')
    base = session(corpus_release)
    accepted = with_payload(base, ("loops", 0), "zz_unknown", payload, pretty=True)
    assert wire.loads(wire.Session, accepted) == wire.loads(
        wire.Session, session_bytes(corpus_release)
    )
    rejected = with_payload(base, ("loops", 0), "metadata", payload, pretty=True)  # a Value
    with pytest.raises(WireError, match=complaint) as error:
        wire.loads(wire.Session, rejected)
    if error.value.line is not None:
        assert error.value.line == line_of(rejected, payload)


@pytest.mark.parametrize("fact", FACTS)
def test_clark_agent_skips_and_parses_as_phi_core_does(fact: str) -> None:
    payload, complaint = FACTS[fact]
    root = fixtures_root() / "clark-agent" / "0.4.0" / "valid"
    usage = json.loads((root / "Usage" / "Usage.full.json").read_bytes())
    assert clark.loads(clark.Usage, with_payload(usage, (), "zz", payload)) == clark.loads(
        clark.Usage, serialized(usage, False)
    )
    record_path = root / "TrajectoryRecord" / "TrajectoryRecord.turn_ended.basic.json"
    record = json.loads(record_path.read_bytes())
    value = clark.loads(clark.TrajectoryRecord, with_payload(record, (), "zz", payload))
    assert clark.dumps(value).encode() == record_path.read_bytes()
    # TrajectoryPayload and AgentEvent are internally tagged, AgentMessage too: buffered
    for path in [("payload",), ("payload", "assistant"), ("payload", "assistant", "usage")]:
        with pytest.raises(WireError, match=complaint):
            clark.loads(clark.TrajectoryRecord, with_payload(record, path, "zz", payload))
    event = json.loads((root / "AgentEvent" / "AgentEvent.turn_start.basic.json").read_bytes())
    with pytest.raises(WireError, match=complaint):
        clark.loads(clark.AgentEvent, with_payload(event, (), "zz", payload))


@pytest.mark.parametrize("release", PHI_CORE)
def test_an_externally_tagged_variant_body_is_read_directly(release: str) -> None:
    wire, corpus_release = PHI_CORE[release]
    rerun = wire.loads(wire.ContinuationKind, '{"Rerun":{"tag":"t"}}')
    assert wire.loads(wire.ContinuationKind, '{"Rerun":{"tag":"t","zz":1e400}}') == rerun
    with pytest.raises(WireError):  # the enum's own object holds the variant key alone
        wire.loads(wire.ContinuationKind, '{"Rerun":{"tag":"t"},"zz":1e400}')
    text = wire.loads(wire.StreamDelta, '{"Text":{"delta":"d"}}')
    assert wire.loads(wire.StreamDelta, '{"Text":{"delta":"d","zz":"\\ud800"}}') == text
    base = session(corpus_release)
    base["loops"][0]["continuation_kind"] = {"Rerun": {"tag": "t"}}
    expected = wire.loads(wire.Session, serialized(base, True))
    document = with_payload(base, ("loops", 0, "continuation_kind", "Rerun"), "zz", b"1e400", True)
    assert wire.loads(wire.Session, document) == expected
    # inside an event (internally tagged) the same body was buffered first
    event = {"type": "AgentStart", **base["loops"][0]["events"][0]["event"]}
    event["continuation_kind"] = {"Rerun": {"tag": "t"}}
    with pytest.raises(WireError, match="number out of range"):
        wire.loads(
            wire.AgentEvent, with_payload(event, ("continuation_kind", "Rerun"), "zz", b"1e400")
        )


@pytest.mark.parametrize("release", PHI_CORE)
def test_the_sequence_form_of_a_struct_has_no_unknown_element(release: str) -> None:
    wire, corpus_release = PHI_CORE[release]
    turn = session(corpus_release)["loops"][0]["turns"][0]
    fields = list(turn.values())  # the fixture writes them in declaration order
    expected = wire.loads(wire.Turn, serialized(fields, False))
    fields[2] = {**fields[2], "zz": _MARK}  # usage, in object form, with an unknown key
    assert wire.loads(wire.Turn, marked(serialized(fields, False), b"1e400")) == expected
    with pytest.raises(WireError):  # visit_seq: an extra element is an error, whatever it holds
        wire.loads(wire.Turn, marked(serialized([*turn.values(), _MARK], False), b"1e400"))
    with pytest.raises(WireError):
        wire.loads(wire.Usage, "[1,2,0,0,0,0,1e400]")


def test_an_unknown_key_may_repeat_but_a_field_may_not() -> None:
    usage = v0_10.Usage(input=1, output=2)
    assert v0_10.loads(v0_10.Usage, '{"input":1,"zz":1e400,"output":2,"zz":"\\ud800"}') == usage
    with pytest.raises(WireError, match="duplicate field `input`"):
        v0_10.loads(v0_10.Usage, '{"input":1,"zz":1e400,"output":2,"input":3}')


def test_what_is_left_is_reported_where_it_stands() -> None:
    with pytest.raises(WireError, match="number out of range at line 1 column 25"):
        v0_10.loads(v0_10.Usage, '{"zz":1e400,"input":1e400,"output":2}')
    # blanking keeps line breaks: the known field's error is on its own line
    document = b'{\n  "zz": [\n' + b"[\n" * 300 + b"]\n" * 300 + b'],\n  "input": 1e400\n}'
    with pytest.raises(WireError, match="number out of range at line 604 column 16"):
        v0_10.loads(v0_10.Usage, document)
    with pytest.raises(WireError, match="unexpected end of hex escape at line 1 column 39"):
        v0_10.loads(v0_10.Usage, b'{"zz":1e400,"input":1,"output":"\\ud800"}')


def test_an_ignored_value_nests_without_limit() -> None:
    deep = b'{"k":[' * 50_000 + b"]}" * 50_000
    assert v0_10.loads(v0_10.Usage, b'{"input":1,"output":2,"zz":' + deep + b"}") == v0_10.Usage(
        input=1, output=2
    )
    with pytest.raises(WireError, match="nested deeper"):  # a Value parses it in full
        v0_10.loads(v0_10.ToolResult, b'{"content":[],"details":' + deep + b"}")


def test_an_ignored_value_is_still_json() -> None:
    start = b'{"zz":1e400,"input":1,"output":2,"yy":'
    assert v0_10.loads(v0_10.Usage, start + b'[-0.5e-7,"\\u00e9\\/\\n",{},[],true]}')
    for bad in [b"NaN", b"[1,]", b'"\\x"', b'"\\u12"', b'"a\x01"', b"01", b"1.", b"{1:2}"]:
        with pytest.raises(WireError):
            v0_10.loads(v0_10.Usage, start + bad + b"}")


class Node(WireModel):
    """A struct that holds itself: a direct position as deep as a document likes."""

    child: Node | None = None


Node.model_rebuild()


def test_a_struct_read_directly_keeps_serde_depth_limit() -> None:
    def nested(levels: int) -> str:
        return '{"child":' * (levels - 1) + '{"zz":1e400}' + "}" * (levels - 1)

    assert phi_wire.loads(Node, nested(SERDE_MAX_DEPTH)).child is not None
    with pytest.raises(WireError, match="nested deeper"):
        phi_wire.loads(Node, nested(SERDE_MAX_DEPTH + 1))


class Counter(WireModel):
    count: int


class Bag(WireModel):
    """A ``HashMap<String, Counter>`` field: every value is a struct read directly."""

    by_name: dict[str, Counter]


def test_a_map_read_directly_holds_structs_read_directly() -> None:
    expected = Bag(by_name={"a": Counter(count=1)})
    assert phi_wire.loads(Bag, '{"by_name":{"a":{"count":1,"zz":1e400}}}') == expected
    with pytest.raises(WireError, match="number out of range"):  # a map has no unknown key
        phi_wire.loads(Bag, '{"by_name":{"a":{"count":1},"b":1e400}}')


def test_the_walk_runs_only_after_serde_would_reject_something(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[bytes] = []

    def recording(tp: Any, raw: bytes) -> bytes | None:
        calls.append(raw)
        return blank_ignored(tp, raw)

    monkeypatch.setattr(phi_wire.serde._codec, "blank_ignored", recording)
    v0_10.loads(v0_10.Session, session_bytes("0.10.0"))
    v0_10.loads(v0_10.Usage, '{"input":1,"output":2,"zz":[1,{"a":"\\u00e9"}]}')
    for invalid in ['{"input":"1","output":2}', '{"input":1,', '{"input":-0,"output":2}']:
        with pytest.raises(WireError):
            v0_10.loads(v0_10.Usage, invalid)
    assert calls == []
    v0_10.loads(v0_10.Usage, '{"input":1,"output":2,"zz":1e400}')
    assert len(calls) == 1


# --- properties -----------------------------------------------------------------------------------

_FINDINGS = [
    b"1e400",
    b"-1e999",
    b"9" * 400,
    b'"\\ud800"',
    b'"x\\udc00"',
    b'"\\ud800\\u0041"',
    b'"\xff"',
    b'"\xed\xa0\x80"',
]


@dataclass(frozen=True)
class Payload:
    text: bytes
    depth: int  # brackets nested
    rejected: bool  # holds a number, string or byte that serde's full reading rejects

    def rejected_at(self, enclosing: int) -> bool:
        """Rejected when parsed in full inside ``enclosing`` arrays/objects."""
        return self.rejected or enclosing + self.depth > SERDE_MAX_DEPTH


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300),
    st.text(max_size=8),
).map(lambda value: Payload(json.dumps(value, ensure_ascii=False).encode(), 0, False))
_leaves = st.one_of(_scalars, st.sampled_from(_FINDINGS).map(lambda text: Payload(text, 0, True)))


def _array(items: list[Payload]) -> Payload:
    return Payload(
        b"[" + b",".join(item.text for item in items) + b"]",
        1 + max((item.depth for item in items), default=0),
        any(item.rejected for item in items),
    )


def _object(items: list[tuple[str, Payload]]) -> Payload:
    members = [
        json.dumps(key, ensure_ascii=False).encode() + b":" + item.text for key, item in items
    ]
    return Payload(
        b"{" + b",".join(members) + b"}",
        1 + max((item.depth for _, item in items), default=0),
        any(item.rejected for _, item in items),
    )


def _nested(payload: Payload, levels: int) -> Payload:
    return Payload(
        b"[" * levels + payload.text + b"]" * levels, payload.depth + levels, payload.rejected
    )


payloads = st.recursive(
    _leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=4).map(_array),
        st.lists(st.tuples(st.text(max_size=4), children), max_size=4).map(_object),
        st.tuples(children, st.sampled_from([1, 40, 200])).map(lambda pair: _nested(*pair)),
    ),
    max_leaves=8,
)

# (type, path to the object the key goes in, arrays/objects enclosing the payload there)
_PROPERTY_DIRECT = [("Usage", (), 1), ("Session", ("loops", 0, "turns", 0, "usage"), 5)]
_PROPERTY_BUFFERED = [("AgentEvent", (), 1), ("Session", ("loops", 0, "events", 0, "event"), 6)]


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(payload=payloads, release=st.sampled_from(sorted(PHI_CORE)))
def test_unknown_key_payloads_never_change_a_direct_verdict_and_are_parsed_when_buffered(
    payload: Payload, release: str
) -> None:
    wire, corpus_release = PHI_CORE[release]
    for type_name, path, _ in _PROPERTY_DIRECT:
        position = Position("", type_name, path, pretty=type_name == "Session")
        value, expected = read_with_payload(release, position, payload.text)
        assert value == expected
    for type_name, path, enclosing in _PROPERTY_BUFFERED:
        position = Position("", type_name, path, pretty=type_name == "Session")
        base = position.document(corpus_release)
        document = with_payload(base, path, "zz_unknown", payload.text, position.pretty)
        tp = getattr(wire, type_name)
        if payload.rejected_at(enclosing):
            with pytest.raises(WireError):
                wire.loads(tp, document)
        else:
            assert wire.loads(tp, document) == wire.loads(tp, serialized(base, position.pretty))


def _python_end(raw: bytes) -> int | None:
    """Where Python's JSON parser ends the value at 0: it checks the grammar ignore_value checks
    (JSON's) and, on Latin-1 text, never the UTF-8, the surrogates or the range."""

    def no_constant(name: str) -> None:
        raise ValueError(name)

    decoder = json.JSONDecoder(parse_constant=no_constant, parse_int=str, parse_float=str)
    try:
        return int(decoder.raw_decode(raw.decode("latin-1"), 0)[1])
    except ValueError:
        return None


_JSON_BYTES = b' \t\n\r,:[]{}"\\/0123456789.eE+-truefalsenullNaNubx\x00\x1f\x7f\xc3\xa9\xff'


@given(
    payload=payloads,
    edits=st.lists(
        st.tuples(
            st.integers(min_value=0), st.sampled_from(sorted(set(_JSON_BYTES))), st.booleans()
        ),
        max_size=3,
    ),
)
def test_the_ignore_value_grammar_is_json(
    payload: Payload, edits: list[tuple[int, int, bool]]
) -> None:
    text = bytearray(payload.text)
    for position, byte, insert in edits:  # random corruptions: the two must still agree
        position %= len(text) + 1
        if insert or position == len(text):
            text[position:position] = bytes([byte])
        else:
            text[position] = byte
    raw = bytes(text)
    if raw[:1] in (b" ", b"\t", b"\n", b"\r"):
        raw = raw.lstrip(b" \t\n\r")
    if payload.depth > 500:  # beyond Python's recursion: only the skip goes there
        return
    expected = _python_end(raw) if raw else None
    try:
        end: int | None = skip_ignored_value(raw, 0)
    except ValueError:
        end = None
    assert end == expected
