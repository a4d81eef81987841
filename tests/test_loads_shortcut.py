"""``loads``' own fast path (runtime/serde/_shortcut.py) never changes a verdict, a value or a byte.

A document the fast path's expression vouches for goes straight to pydantic-core; every other one
takes ``loads``' exact path. These tests judge documents both ways, with the fast path on (its
expression built up front) and with ``_shortcut.ENABLED`` off, and compare everything: the verdict,
the error and its problems, the bytes ``dumps`` writes (compact and pretty), and the value down to
the type of each leaf (a ``Timestamp``, not a ``str``; ``-0.0``, not ``0``). Over every document of
the phi-core 0.8 and 0.10 corpora, the corruptions of ``test_validate_fastpath``, every byte of a
few events replaced, and derandomized property tests (documents generated from the schemas,
numbers, timestamps). Then the policy: which types have a fast path, when it is built, and that no
build ever makes a caller wait or changes a verdict.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from corpus import fixtures_root, manifest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from schema_strategies import from_schema
from test_ignored import _MARK as _MARK_TEXT
from test_ignored import BUFFERED, DIRECT, FACTS, PHI_CORE, marked, with_payload
from test_validate_fastpath import corpus_documents, mutations

import phi_wire.clark_agent
import phi_wire.v0_8
import phi_wire.v0_10
from phi_wire.fastpath import _pattern
from phi_wire.serde import _shortcut
from phi_wire.serde._numbers import needs_rewrite, serde_number
from phi_wire.serde._timestamp import CANONICAL, Timestamp, normalize_timestamp

MODULES: dict[str, ModuleType] = {"0.8": phi_wire.v0_8, "0.10": phi_wire.v0_10}
RELEASES = {"0.8.0": "0.8", "0.10.0": "0.10"}


def shape(value: Any) -> Any:
    """Everything about a value that could differ: types at every level, float signs."""
    if isinstance(value, BaseModel):
        fields = {name: shape(getattr(value, name)) for name in type(value).model_fields}
        return (type(value).__qualname__, fields, sorted(value.model_fields_set))
    if isinstance(value, list):
        return ["list", *(shape(item) for item in value)]
    if isinstance(value, dict):
        return ["dict", *((key, shape(item)) for key, item in value.items())]
    return (type(value).__qualname__, repr(value))


def exactly(wire: ModuleType, tp: Any, document: bytes | str) -> Any:
    """``loads``' verdict on the exact path: the value's shape and bytes, or the error."""
    enabled = _shortcut.ENABLED
    _shortcut.ENABLED = False
    try:
        value = wire.loads(tp, document)
    except wire.WireError as error:
        return ("rejected", str(error), error.problems, error.omitted)
    except Exception as error:  # a defect of the exact path: the fast path must not hide it
        return ("raised", type(error).__name__, str(error))
    finally:
        _shortcut.ENABLED = enabled
    return ("accepted", shape(value), wire.dumps(value), wire.dumps(value, pretty=True))


def with_shortcut(wire: ModuleType, tp: Any, document: bytes | str) -> tuple[Any, bool]:
    """The same through ``loads`` with the fast path on; and whether it vouched."""
    assert _shortcut.prepare(tp), f"no fast path for {tp}"
    fast = _shortcut.vouched(tp, document)
    try:
        value = wire.loads(tp, document)
    except wire.WireError as error:
        assert fast is _shortcut.NOT_VOUCHED, "vouched for a document loads rejects"
        return ("rejected", str(error), error.problems, error.omitted), False
    except Exception as error:
        assert fast is _shortcut.NOT_VOUCHED, "vouched for a document loads fails on"
        return ("raised", type(error).__name__, str(error)), False
    if fast is not _shortcut.NOT_VOUCHED:
        assert shape(fast) == shape(value)
    return ("accepted", shape(value), wire.dumps(value), wire.dumps(value, pretty=True)), (
        fast is not _shortcut.NOT_VOUCHED
    )


def assert_same(version: str, type_name: str, document: bytes | str, label: str) -> bool:
    """Both ways give the same result; returns whether the fast path vouched."""
    wire = MODULES[version]
    tp = getattr(wire, type_name)
    fast, vouched = with_shortcut(wire, tp, document)
    assert fast == exactly(wire, tp, document), label
    return vouched


# --- the corpus ---------------------------------------------------------------------------------


@pytest.mark.parametrize("release", RELEASES)
def test_every_corpus_document_is_judged_alike_both_ways(release: str) -> None:
    version = RELEASES[release]
    vouched = total = 0
    for label, type_name, document in corpus_documents(release):
        vouched += assert_same(version, type_name, document, label)
        total += 1
    assert total > 500 and vouched > 300  # the fast path is taken, not merely harmless


@pytest.mark.parametrize("release", RELEASES)
def test_phi_cores_event_stream_takes_the_fast_path_whole(release: str) -> None:
    version = RELEASES[release]
    wire = MODULES[version]
    stream = fixtures_root() / "phi-core" / release / "streams" / "events.main_session.jsonl"
    lines = stream.read_bytes().splitlines()
    assert _shortcut.prepare(wire.AgentEvent)
    assert all(
        _shortcut.vouched(wire.AgentEvent, line) is not _shortcut.NOT_VOUCHED for line in lines
    )
    text = [line.decode("utf-8") for line in lines]  # str input (what an SSE client has)
    assert all(
        _shortcut.vouched(wire.AgentEvent, line) is not _shortcut.NOT_VOUCHED for line in text
    )


def test_clark_agent_types_never_take_it() -> None:
    """clark-agent's serde facts (borrowed strings, preserve_order, timestamps filled in) are not
    ones the expression covers: its types always take the exact path."""
    names = {fixture.type_name for fixture in manifest("0.4.0", "clark-agent")}
    assert names
    for name in names:
        tp = getattr(phi_wire.clark_agent, name)
        assert not _shortcut.prepare(tp)
        assert _shortcut.shortcut_for(tp).version is None


# --- corruptions ----------------------------------------------------------------------------------


def vouched_corpus_documents() -> Iterator[tuple[str, str, str, bytes]]:
    for release, version in RELEASES.items():
        for label, type_name, document in corpus_documents(release):
            tp = getattr(MODULES[version], type_name)
            if (
                _shortcut.prepare(tp)
                and _shortcut.vouched(tp, document) is not _shortcut.NOT_VOUCHED
            ):
                yield version, label, type_name, document


def test_corruptions_of_vouched_documents_are_judged_alike() -> None:
    rng = random.Random(20261124)
    checked = 0
    for version, label, type_name, document in vouched_corpus_documents():
        for mutated in mutations(document, rng):
            assert_same(version, type_name, mutated, f"mutation of {label}: {mutated[:200]!r}")
            checked += 1
    assert checked > 5000


def test_every_byte_of_an_event_replaced() -> None:
    stream = fixtures_root() / "phi-core" / "0.8.0" / "streams" / "events.main_session.jsonl"
    lines = stream.read_bytes().splitlines()
    for line in (lines[0], min(lines, key=len), lines[59]):  # 59: i64::MIN and a u64 in a Value
        for index in range(len(line)):
            for byte in b'"\\-019.}Z\xc3':
                if line[index] != byte:
                    mutated = line[:index] + bytes([byte]) + line[index + 1 :]
                    assert_same("0.8", "AgentEvent", mutated, f"byte {index} of {line[:60]!r}")


@pytest.mark.parametrize(
    "document",
    [
        b"",
        b"\n",
        b'{"type":"TurnEnd"}\n{"type":"TurnEnd"}',
        b"\xef\xbb\xbf",
        '{"type":"AgentEnd","loop_id":"\ud800"}',  # a lone surrogate in a str
        bytearray(b'{"type":"AgentEnd","loop_id":"l"}'),
        memoryview(b'{"type":"AgentEnd","loop_id":"l"}\r\n'),
        b'{"type":"AgentEnd","loop_id":"l"}\r',
        b'{"type":"AgentEnd","loop_id":"\xed\xa0\x80"}',  # an encoded surrogate: not UTF-8
        b'{"type":"AgentEnd","loop_id":"\xc3\xa9"}',
    ],
)
def test_odd_inputs(document: Any) -> None:
    assert_same("0.8", "AgentEvent", document, repr(document))


def test_one_document_and_nothing_after_it_but_a_line_ending() -> None:
    """The expression matches one document: two on two lines (which ``loads`` rejects) are never
    vouched, whatever the line endings; a line ending after the one is."""
    line = min(event_lines(), key=len)
    tp = phi_wire.v0_8.AgentEvent
    assert _shortcut.prepare(tp)
    for ending in (b"", b"\n", b"\r\n", b"\r"):
        assert _shortcut.vouched(tp, line + ending) is not _shortcut.NOT_VOUCHED, ending
        assert_same("0.8", "AgentEvent", line + ending, repr(ending))
    for tail in (b"\n" + line, b"\r\n" + line + b"\n", b"\r" + line, b"\n\n", b" ", b"\n\r", line):
        assert _shortcut.vouched(tp, line + tail) is _shortcut.NOT_VOUCHED, tail
        assert_same("0.8", "AgentEvent", line + tail, repr(tail))


# --- property tests -------------------------------------------------------------------------------

PROPERTY_TYPES = ["AgentEvent", "AgentMessage", "Message", "Content", "LlmMessage", "StreamDelta"]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("version", MODULES)
@pytest.mark.parametrize("name", PROPERTY_TYPES)
def test_generated_documents_are_judged_alike(version: str, name: str) -> None:
    """Documents generated from the schema, as generated and as ``dumps`` writes them back (the
    canonical form, which the fast path vouches for)."""
    wire = MODULES[version]
    tp = getattr(wire, name)

    @SETTINGS
    @given(from_schema(wire.schema(tp)))
    def check(document: Any) -> None:
        text = json.dumps(document, ensure_ascii=False)
        assert_same(version, name, text, text)
        verdict = exactly(wire, tp, text)
        if verdict[0] == "accepted":
            assert_same(version, name, verdict[2], verdict[2])

    check()


_INTEGER = st.integers(min_value=-(2**70), max_value=2**70).map(str)
_DECIMAL = st.from_regex(r"\A-?(0|[1-9][0-9]{0,21})\.[0-9]{1,22}\Z")
_LEXEME = st.one_of(_INTEGER, _DECIMAL, st.sampled_from(["-0", "-0.0", "0.0", "1e5", "-1E-5"]))


@settings(max_examples=500, deadline=None)
@given(_LEXEME)
def test_the_numbers_the_fast_path_takes_are_read_alike_by_serde_and_python(lexeme: str) -> None:
    import re

    if re.fullmatch(_pattern._EXACT_NUMBER.decode(), lexeme) is None:
        return
    assert not needs_rewrite(lexeme)
    python = float(lexeme) if "." in lexeme else int(lexeme)
    assert repr(serde_number(lexeme)) == repr(python)


@settings(max_examples=200, deadline=None)
@given(st.lists(_LEXEME, min_size=1, max_size=6))
def test_numbers_in_a_value_are_judged_alike(lexemes: list[str]) -> None:
    """Numbers in a serde_json::Value (an extension message's data), in every form."""
    data = "[" + ",".join(lexemes) + "]"
    document = (
        '{"type":"MessageStart","loop_id":"l","message":{"role":"extension","kind":"k","data":'
        + data
        + "}}"
    )
    assert_same("0.8", "AgentEvent", document, document)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(min_value=-62_135_596_800 * 10**9, max_value=253_402_300_799 * 10**9 + 10**9 - 1)
)
def test_timestamps_chrono_writes_are_canonical_and_judged_alike(nanos: int) -> None:
    import re

    text = Timestamp.from_unix_nanos(nanos)
    if "-02-29T" not in text:  # February 29th takes the general path
        assert re.fullmatch(CANONICAL, text)
    if re.fullmatch(CANONICAL, text):
        assert normalize_timestamp(text) == text
    document = (
        f'{{"type":"TurnStart","loop_id":"l","turn_index":0,"timestamp":"{text}",'
        '"triggered_by":"user"}'
    )
    assert_same("0.8", "AgentEvent", document, document)
    assert_same("0.8", "AgentEvent", document.replace("Z", ".000Z"), document)


# --- the policy -----------------------------------------------------------------------------------


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No fast path known to this process (the cache on disk stays)."""
    monkeypatch.setattr(_shortcut, "SHORTCUTS", {})
    yield


def event_lines() -> list[bytes]:
    stream = fixtures_root() / "phi-core" / "0.8.0" / "streams" / "events.main_session.jsonl"
    return stream.read_bytes().splitlines()


def test_one_loads_never_builds(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program that reads a few documents pays no compiling: with nothing cached, the first
    document only looks at the cache."""
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", str(tmp_path / "empty"))
    built: list[object] = []
    monkeypatch.setattr(_pattern, "build_pattern", lambda *args: built.append(args) or b"")
    wire = phi_wire.v0_8
    for line in event_lines()[:50]:
        wire.loads(wire.AgentEvent, line)
    entry = _shortcut.shortcut_for(wire.AgentEvent)
    assert entry.looked and entry.fast is None and entry.builder is None and not built


def test_the_cached_expression_is_used_from_the_first_document(fresh: None) -> None:
    wire = phi_wire.v0_8
    assert _shortcut.prepare(wire.AgentEvent)  # now cached on disk
    _shortcut.SHORTCUTS.clear()  # a new process, as far as this module knows
    first = event_lines()[0]
    assert _shortcut.vouched(wire.AgentEvent, first) is not _shortcut.NOT_VOUCHED  # looked, used


def test_it_is_built_in_the_background_after_enough_documents(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", str(tmp_path / "empty"))
    monkeypatch.setattr(_shortcut, "BUILD_AFTER", 20)
    started = threading.Event()
    release = threading.Event()
    build = _pattern.build_pattern

    def slow_build(*args: Any) -> bytes:
        started.set()
        assert release.wait(30)  # the build takes long: callers must not wait for it
        return build(*args)

    monkeypatch.setattr(_pattern, "build_pattern", slow_build)
    wire = phi_wire.v0_8
    lines = event_lines()
    exact = [exactly(wire, wire.AgentEvent, line) for line in lines]
    for line in lines[:20]:  # the first looks at the cache too; the 20th starts the build
        wire.loads(wire.AgentEvent, line)
    entry = _shortcut.shortcut_for(wire.AgentEvent)
    assert started.wait(30) and entry.builder is not None
    for line, verdict in zip(lines, exact, strict=True):  # meanwhile: the exact path, no waiting
        assert _shortcut.vouched(wire.AgentEvent, line) is _shortcut.NOT_VOUCHED
        value = wire.loads(wire.AgentEvent, line)
        assert ("accepted", shape(value), wire.dumps(value), wire.dumps(value, pretty=True)) == (
            verdict
        )
    release.set()
    entry.builder.join(60)
    assert entry.fast is not None and entry.failure is None
    assert all(
        _shortcut.vouched(wire.AgentEvent, line) is not _shortcut.NOT_VOUCHED for line in lines
    )


def test_rejected_documents_do_not_count_towards_a_build(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream of invalid documents (or the lines a validator's own fast path left) would gain
    nothing from the expression: only documents accepted the exact way count."""
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", str(tmp_path / "empty"))
    monkeypatch.setattr(_shortcut, "BUILD_AFTER", 3)
    started: list[object] = []
    monkeypatch.setattr(_shortcut.Shortcut, "start_building", lambda self: started.append(self))
    wire = phi_wire.v0_8
    lines = event_lines()
    for line in lines[:20]:
        with pytest.raises(wire.WireError):
            wire.loads(wire.AgentEvent, line.replace(b'"loop_id":"', b'"loop_id":5,"x":"', 1))
    assert not started
    for line in lines[:3]:
        wire.loads(wire.AgentEvent, line)
    assert started == [_shortcut.shortcut_for(wire.AgentEvent)]


def test_a_failed_build_leaves_the_exact_path(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", str(tmp_path / "empty"))
    monkeypatch.setattr(_shortcut, "BUILD_AFTER", 1)

    def broken(*args: Any) -> bytes:
        raise MemoryError("no room")

    monkeypatch.setattr(_pattern, "build_pattern", broken)
    wire = phi_wire.v0_8
    line = event_lines()[0]
    for _ in range(3):
        wire.loads(wire.AgentEvent, line)
    entry = _shortcut.shortcut_for(wire.AgentEvent)
    assert entry.builder is not None
    entry.builder.join(60)
    assert isinstance(entry.failure, MemoryError) and entry.version is None
    assert shape(wire.loads(wire.AgentEvent, line)) == exactly(wire, wire.AgentEvent, line)[1]


def test_a_wrong_vouch_never_changes_the_verdict(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should the expression vouch for a document pydantic-core rejects, the exact path judges
    it (with its own error message)."""
    wire = phi_wire.v0_8
    assert _shortcut.prepare(wire.AgentEvent)
    entry = _shortcut.shortcut_for(wire.AgentEvent)
    monkeypatch.setattr(entry, "fast", (lambda raw: True, entry_validator(wire.AgentEvent)))
    bad = b'{"type":"TurnEnd","loop_id":5}'
    assert _shortcut.vouched(wire.AgentEvent, bad) is _shortcut.NOT_VOUCHED
    with pytest.raises(wire.WireError) as caught:
        wire.loads(wire.AgentEvent, bad)
    assert (str(caught.value), caught.value.problems) == exactly(wire, wire.AgentEvent, bad)[1:3]


def entry_validator(tp: Any) -> Any:
    from phi_wire.base import adapter

    validator = _shortcut._vouched_validator(adapter(tp).validator)
    assert validator is not None
    return validator.validate_json


def test_switched_off_nothing_is_vouched(monkeypatch: pytest.MonkeyPatch) -> None:
    wire = phi_wire.v0_8
    assert _shortcut.prepare(wire.AgentEvent)
    monkeypatch.setattr(_shortcut, "ENABLED", False)
    assert _shortcut.vouched(wire.AgentEvent, event_lines()[0]) is _shortcut.NOT_VOUCHED


def test_a_forked_child_starts_its_own_count(fresh: None) -> None:
    entry = _shortcut.shortcut_for(phi_wire.v0_8.AgentEvent)
    entry.builder, entry.seen = threading.Thread(target=lambda: None), 500
    assert entry.lock.acquire()  # held by the (uncopied) building thread
    entry.forked()
    assert entry.builder is None and entry.seen == 0 and entry.lock.acquire(blocking=False)


def test_only_phi_cores_public_types_have_one() -> None:
    wire = phi_wire.v0_8
    assert _shortcut.shortcut_for(wire.AgentEvent).version == "0.8"
    assert _shortcut.shortcut_for(phi_wire.v0_10.Session).version == "0.10"
    assert _shortcut.shortcut_for(list[wire.AgentEvent]).version is None

    class Mine(wire.Usage):
        pass

    assert _shortcut.shortcut_for(Mine).version is None
    assert _shortcut.shortcut_for(phi_wire.clark_agent.AgentEvent).version is None


def test_the_vouched_validator_runs_no_python_for_timestamps_values_and_metadata() -> None:
    """The replacements ``vouched_form`` declares are made (and only Rust validates them)."""
    from phi_wire.base import adapter

    validator = _shortcut._vouched_validator(adapter(phi_wire.v0_8.AgentEvent).validator)
    assert validator is not None
    functions: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if str(node.get("type", "")).startswith("function-") and "schema" in node:
                function = node["function"]["function"]
                functions.append(getattr(function, "__qualname__", type(function).__name__))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(validator.__reduce__()[1][0])
    assert set(functions) == {"partial", "_to_f32"}  # Timestamp's C constructor; f32 rounding


# --- serde's leniency for unknown keys (runtime/serde/_ignored.py) -------------------------------

UNKNOWN_VALUES: dict[str, bytes] = {
    "a number": b"1",
    "an object": b'{"a":[1,"x",null]}',
    **{fact: payload for fact, (payload, _) in FACTS.items()},
}


@pytest.mark.parametrize("release", PHI_CORE)
@pytest.mark.parametrize(
    "position",
    [*DIRECT, *(buffered for buffered, _ in BUFFERED)],
    ids=lambda position: position.label,
)
def test_an_unknown_key_is_never_vouched_and_is_judged_alike(release: str, position: Any) -> None:
    """The expression matches the documents phi-core writes, which hold no unknown key: a
    document with one takes the exact path, which skips or parses its value as serde does (a value
    serde only skips may hold what serde's full reading rejects)."""
    wire, corpus_release = PHI_CORE[release]
    tp = getattr(wire, position.type_name)
    base = position.document(corpus_release)
    canonical = wire.dumps(wire.loads(tp, json.dumps(base)))
    assert _shortcut.prepare(tp)
    assert _shortcut.vouched(tp, canonical) is not _shortcut.NOT_VOUCHED  # without it: vouched
    for label, payload in UNKNOWN_VALUES.items():
        for first in (False, True):  # after the fields, or before them
            document = with_unknown_key(json.loads(canonical), position.path, payload, first)
            assert _shortcut.vouched(tp, document) is _shortcut.NOT_VOUCHED, (label, first)
            assert_same(release, position.type_name, document, f"{label}, first: {first}")


def with_unknown_key(document: Any, path: tuple[Any, ...], payload: bytes, first: bool) -> bytes:
    """The compact ``document`` with key ``zz_unknown`` holding ``payload`` (raw JSON text) in
    the object at ``path``, as its first or last key."""
    if not first:
        return with_payload(document, path, "zz_unknown", payload)
    root: Any = {"": document}
    steps = ("", *path)
    holder = root
    for step in steps[:-1]:
        holder = holder[step]
    holder[steps[-1]] = {"zz_unknown": _MARK_TEXT, **holder[steps[-1]]}
    text = json.dumps(root[""], separators=(",", ":"), ensure_ascii=False).encode()
    return marked(text, payload)


# --- threads, processes and the end of the interpreter --------------------------------------------


def test_without_threads_the_exact_path_stays(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An interpreter built without threads, or one shutting down, refuses to start one: the type
    keeps the exact path, and no caller sees the refusal."""
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", str(tmp_path / "empty"))
    monkeypatch.setattr(_shortcut, "BUILD_AFTER", 1)

    class NoThread(threading.Thread):
        def start(self) -> None:
            raise RuntimeError("can't start new thread")

    monkeypatch.setattr(_shortcut.threading, "Thread", NoThread)
    wire = phi_wire.v0_8
    lines = event_lines()[:5]
    verdicts = [exactly(wire, wire.AgentEvent, line) for line in lines]
    for line, verdict in zip(lines, verdicts, strict=True):
        value = wire.loads(wire.AgentEvent, line)
        assert ("accepted", shape(value), wire.dumps(value), wire.dumps(value, pretty=True)) == (
            verdict
        )
    entry = _shortcut.shortcut_for(wire.AgentEvent)
    assert isinstance(entry.failure, RuntimeError) and entry.version is None


def test_one_builder_however_often_the_threshold_is_passed(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", str(tmp_path / "empty"))
    release = threading.Event()
    build = _pattern.build_pattern

    def slow_build(*args: Any) -> bytes:
        assert release.wait(60)
        return build(*args)

    monkeypatch.setattr(_pattern, "build_pattern", slow_build)
    entry = _shortcut.shortcut_for(phi_wire.v0_8.AgentEvent)
    entry.looked, entry.seen = True, _shortcut.BUILD_AFTER
    before = set(threading.enumerate())
    starters = [threading.Thread(target=entry.count) for _ in range(8)]
    for starter in starters:
        starter.start()
    for starter in starters:
        starter.join(60)
    builder = entry.builder
    assert builder is not None
    started = [
        thread for thread in set(threading.enumerate()) - before if thread.name == builder.name
    ]
    assert started == [builder]
    release.set()
    builder.join(60)
    assert entry.fast is not None


def fork_child_verdicts(lines: list[bytes]) -> list[Any]:
    """In a forked child: ``loads``' verdicts (the parent's build of the expression is under way,
    holding the type's lock, on a thread the child does not have)."""
    wire = phi_wire.v0_8
    return [exactly(wire, wire.AgentEvent, line)[:2] for line in lines] + [
        ("accepted", shape(wire.loads(wire.AgentEvent, line))) for line in lines
    ]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # 3.12+: fork with threads running
def test_a_process_forked_during_a_build_judges_alike(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the validator's ``--jobs`` does (it forks) while ``loads`` builds in the background:
    the child neither deadlocks on the builder's lock nor judges differently."""
    import multiprocessing

    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", str(tmp_path / "empty"))
    monkeypatch.setattr(_shortcut, "BUILD_AFTER", 1)
    inside, release = threading.Event(), threading.Event()
    build = _pattern.build_pattern

    def slow_build(*args: Any) -> bytes:
        inside.set()
        assert release.wait(60)  # never set in the child: its own builder waits, a daemon
        return build(*args)

    monkeypatch.setattr(_pattern, "build_pattern", slow_build)
    wire = phi_wire.v0_8
    lines = event_lines()[:40]
    for line in lines[:3]:
        wire.loads(wire.AgentEvent, line)
    assert inside.wait(60)  # the parent's builder holds the type's lock now
    pool = multiprocessing.get_context("fork").Pool(1)
    try:
        verdicts = pool.apply_async(fork_child_verdicts, (lines,)).get(timeout=120)
    finally:
        pool.terminate()
        release.set()
    half = len(lines)
    assert verdicts[:half] == [("accepted", verdict[1]) for verdict in verdicts[half:]]
    entry = _shortcut.shortcut_for(wire.AgentEvent)
    assert entry.builder is not None
    entry.builder.join(60)
    assert entry.fast is not None


_EXIT_DURING_A_CACHE_WRITE = r"""
import os, sys, threading, time
import phi_wire.v0_8 as wire
from phi_wire.serde import _shortcut
from phi_wire.fastpath import _pattern, _private  # _private checks os.rename on import

writing = threading.Event()
rename = os.rename

def slow_rename(*args, **kwargs):  # the cache write's last step: its temporary file exists
    writing.set()
    time.sleep(2)
    return rename(*args, **kwargs)

os.rename = slow_rename
_pattern.build_pattern = lambda *args: rb'\{"type":"AgentEnd"[^\n]*\}'  # quick to build
_shortcut.BUILD_AFTER = 1
for _ in range(3):
    wire.loads(wire.AgentEvent, sys.argv[1])
assert writing.wait(60)
print("exiting", flush=True)
"""

_EXIT_DURING_A_BUILD = r"""
import sys, threading
import phi_wire.v0_8 as wire
from phi_wire.serde import _shortcut
from phi_wire.fastpath import _pattern

building, never = threading.Event(), threading.Event()

def endless_build(*args):
    building.set()
    never.wait()

_pattern.build_pattern = endless_build
_shortcut.BUILD_AFTER = 1
for _ in range(3):
    wire.loads(wire.AgentEvent, sys.argv[1])
assert building.wait(60)
print("exiting", flush=True)
"""

_EXIT_DURING_A_VALIDATOR_BUILD = r"""
import sys, threading, time
import phi_wire.v0_8 as wire
from phi_wire.serde import _shortcut
from phi_wire.fastpath import _pattern

inside = threading.Event()
real = _shortcut._validator_for

def slow_validator_for(*args):  # stands for pydantic-core building it: Rust frames
    inside.set()
    time.sleep(1)
    built = real(*args)
    sys.stdout.write("built\n")
    sys.stdout.flush()
    return built

_shortcut._validator_for = slow_validator_for
_pattern.build_pattern = lambda *args: rb'\{"type":"AgentEnd"[^\n]*\}'  # quick to build
_shortcut.BUILD_AFTER = 1
for _ in range(3):
    wire.loads(wire.AgentEvent, sys.argv[1])
assert inside.wait(60)
print("exiting", flush=True)
"""


def test_the_exit_waits_for_a_validator_being_built(tmp_path: Path) -> None:
    """A daemon builder inside pydantic-core when the interpreter exits would be frozen inside
    Rust code, which aborts the process (SIGABRT, exit -6: seen under load in 4 of 100 runs of the
    cache-write script below); the exit waits for that step to end instead, and the builder starts
    none after (regression: the exit did not wait, so "built" was never printed)."""
    import os
    import subprocess
    import sys

    environment = {**os.environ, "PHI_WIRE_CACHE_DIR": str(tmp_path / "cache")}
    finished = subprocess.run(
        [sys.executable, "-c", _EXIT_DURING_A_VALIDATOR_BUILD, event_lines()[-1].decode()],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (finished.returncode, finished.stdout, finished.stderr) == (0, "exiting\nbuilt\n", "")


@pytest.mark.parametrize(
    "script", [_EXIT_DURING_A_BUILD, _EXIT_DURING_A_CACHE_WRITE], ids=["build", "cache write"]
)
def test_the_interpreter_exits_cleanly_during_a_background_build(
    script: str, tmp_path: Path
) -> None:
    """The builder never keeps the program alive (a build that never ends), and the exit lets a
    cache write under way finish: no temporary file is left behind (regression: the daemon thread
    was frozen between its temporary file and the rename)."""
    import os
    import subprocess
    import sys

    folder = tmp_path / "cache"
    environment = {**os.environ, "PHI_WIRE_CACHE_DIR": str(folder)}
    line = event_lines()[-1].decode()
    finished = subprocess.run(
        [sys.executable, "-c", script, line],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (finished.returncode, finished.stdout, finished.stderr) == (0, "exiting\n", "")
    left = sorted(path.name for path in folder.iterdir()) if folder.exists() else []
    assert not [name for name in left if name.startswith(".tmp")], left
    if script is _EXIT_DURING_A_CACHE_WRITE:
        assert [name for name in left if name.endswith(".bin")], left  # the write finished


def test_prepare_is_public() -> None:
    assert phi_wire.v0_8.prepare is phi_wire.v0_10.prepare is _shortcut.prepare
    assert "prepare" in phi_wire.v0_10.__all__
    assert not phi_wire.v0_8.prepare(phi_wire.clark_agent.AgentEvent)
