"""pi's fast path (issue 21, goal 1) never changes a verdict of ``phi-wire validate``.

pi reads with ``JSON.parse`` (numbers as doubles, a repeated key's last value, lone surrogates),
then validates the result with its models (no coercion; ``null`` refused for an optional key whose
type has none). The expression, compiled from the same models (``phi_wire.fastpath._js``), matches
a subset of what that reader accepts: integers of at most 15 digits, any finite number form for
floats, no ``null`` where pi's type has none, required keys in their declared order and optional
ones where pi writes them. It is used for JSONL files of one type (a line is read as the file's
type, then as the wider types, then as its shape's: ``_fastpath_pi``) and for session files read
whole (the header a version 3 one, every line an entry, no line ``SessionManager.open()`` skips).

These tests run over both lines' corpora (0.73.1, 1.5.2): every document and corruptions of
them, and the validator forced on and off over generated files of messages, of stream events
and over every session file and its corruptions, with and without ``--format pi --type``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import fixtures_root
from test_fastpath_cache import forge_with_digest
from test_validate_fastpath import mutations

from phi_wire.fastpath import _cache, fast_path
from phi_wire.formats import find
from phi_wire.validate import _fastpath, _judge, validate
from phi_wire.validate._fastpath import session_file_path
from phi_wire.validate._fastpath_pi import also_read_as, always_claimed
from phi_wire.validate._formats import reader

FORMAT = "pi"
RELEASES = {"0.73": "0.73.1", "1.5": "1.5.2"}
LINE_TYPES = ("AgentMessage", "AgentEvent", "AssistantMessageEvent", "SessionEntry")
"""The types a pi JSONL file's first lines may be whose lines the tests vouch for."""


def path_for(version: str, type_name: str, shaped: bool = True) -> _fastpath.FastPath:
    """The expression for a file whose first lines are ``type_name`` (``shaped``), or for
    ``--type type_name``: its lines are then read as that type only (and the wider ones)."""
    found = _fastpath.fast_path_for(version, type_name, build=True, format=FORMAT, shaped=shaped)
    assert found is not None, (version, type_name)
    return found


def whole_path(version: str) -> _fastpath.SessionFilePath:
    found = session_file_path(FORMAT, version, build=True)
    assert found is not None, version
    return found


def valid_in_a_file_of(version: str, type_name: str, line: bytes, shaped: bool = True) -> bool:
    """Whether validate judges ``line`` valid in a file of ``type_name`` lines: read as that type
    (and the wider ones), else (``shaped``: not with --type) as the type its shape is."""
    own = reader(FORMAT, version)
    for name in (type_name, own.type_name(line)) if shaped else (type_name,):
        try:
            own.load(name, line, 10)
        except own.module.WireError:
            continue
        return True
    return False


def corpus_lines(version: str) -> Iterator[tuple[str, bytes]]:
    """(label, document) of every JSON document of a release's corpus, JSONL files line by line."""
    base = fixtures_root() / FORMAT / RELEASES[version]
    for path in sorted(base.glob("*/**/*.json*")):
        if path.name == "manifest.json" or "pi-schemas" in path.parts:
            continue
        raw = path.read_bytes()
        if path.suffix == ".jsonl":
            for number, line in enumerate(raw.split(b"\n"), 1):
                if line.strip():
                    yield f"{path.name}:{number}", line
        elif b"\n" not in raw.strip():
            yield path.name, raw


def session_files(version: str) -> list[Path]:
    return sorted((fixtures_root() / FORMAT / RELEASES[version] / "sessions").glob("*.jsonl"))


def session_messages(version: str) -> list[bytes]:
    """The messages of the corpus' session files, one JSONL line each, as pi writes them."""
    found = []
    for session in session_files(version):
        for line in session.read_bytes().split(b"\n"):
            entry = json.loads(line) if line.strip() else None
            if isinstance(entry, dict) and entry.get("type") == "message":
                text = json.dumps(entry["message"], ensure_ascii=False, separators=(",", ":"))
                found.append(text.encode())
    return found


def stream_lines(version: str) -> list[bytes]:
    folder = fixtures_root() / FORMAT / RELEASES[version] / "streams"
    return [
        line
        for path in sorted(folder.glob("*.jsonl"))
        for line in path.read_bytes().split(b"\n")
        if line.strip()
    ]


def pi_mutations(document: bytes) -> Iterator[bytes]:
    """Corruptions pi's reader treats specially: null for an optional key, a day no month has,
    a migrated header's version, a number past a double, a float where an integer is wanted."""
    text = document.decode("utf-8")
    for needle, replacement in (
        ('"errorMessage":"', '"errorMessage":null,"x":"'),
        ('"responseId":"', '"responseId":null,"x":"'),
        ('"thinkingSignature":"', '"thinkingSignature":null,"x":"'),
        ('"parentSession":"', '"parentSession":null,"x":"'),
        ('"totalTokens":', '"totalTokens":null,"x":'),
        ('"version":3', '"version":2'),
        ('"version":3,', ""),
        ("-02-", "-02-3"),
        ('"timestamp":"2', '"timestamp":"\\u0032'),
        (":0,", ":1e400,"),
        (":1", ":1.5"),
        (":1", ":12345678901234567890"),
        ('"arguments":{', '"arguments":{"a":1e999,'),
        ('"type":"', '"type":"x'),
        ('"role":"', '"role":"x'),
        (',"', ',"x":1,"'),
    ):
        if needle in text:
            yield text.replace(needle, replacement, 1).encode()


@pytest.mark.parametrize("version", RELEASES)
def test_it_vouches_only_for_what_pi_reads_over_the_corpus(version: str) -> None:
    vouched = 0
    for label, document in corpus_lines(version):
        for type_name in LINE_TYPES:
            for shaped in (True, False):
                if path_for(version, type_name, shaped).vouches_line(document):
                    valid = valid_in_a_file_of(version, type_name, document, shaped)
                    assert valid, (label, type_name, shaped)
                    vouched += 1
    assert vouched > 900


@pytest.mark.parametrize("version", RELEASES)
def test_the_lines_pi_writes_take_the_fast_path(version: str) -> None:
    """Coverage: every message of the sessions in a file of messages, every stream line of the
    agent loop's, the coding agent's and pi-ai's in a file of events, every session entry."""
    messages = session_messages(version)
    assert messages and all(path_for(version, "AgentMessage").vouches_line(m) for m in messages)
    events = path_for(version, "AgentEvent")
    lines = stream_lines(version)
    vouched = [line for line in lines if events.vouches_line(line)]
    responses = [line for line in lines if line.startswith(b'{"id":')]  # RPC: all but get_state
    assert len(lines) - len(vouched) <= len(responses) // 5
    assert sum(whole_path(version).vouches(s.read_bytes()) for s in session_files(version)) >= 8


@pytest.mark.parametrize("version", RELEASES)
def test_no_corruption_is_vouched_for_when_pi_rejects_it(version: str) -> None:
    rng = random.Random(20261127)
    checked = 0
    documents = [document for _, document in corpus_lines(version)]
    for document in rng.sample(documents, 120):
        for type_name in LINE_TYPES:
            path = path_for(version, type_name)
            if not path.vouches_line(document):
                continue
            corrupted = [*list(mutations(document, rng))[::4], *pi_mutations(document)]
            for mutated in corrupted:
                for shaped in (True, False):
                    if path_for(version, type_name, shaped).vouches_line(mutated):
                        valid = valid_in_a_file_of(version, type_name, mutated, shaped)
                        assert valid, (mutated, shaped)
                checked += 1
    assert checked > 500


def test_a_null_for_an_optional_key_is_never_vouched_for() -> None:
    """pi refuses null where its type has none; the model's field is ``X | None``, so the
    expression must say so itself (``_js.nullable_keys``); where null is allowed, it takes it."""
    for version in RELEASES:
        path = path_for(version, "AgentMessage")
        for message in session_messages(version):
            for mutated in pi_mutations(message):
                if b":null" in mutated and b'"x"' in mutated:
                    assert not path.vouches_line(mutated.replace(b',"x":', b',"errorMessage":'))
                    assert not path.vouches_line(mutated), mutated
    entry = path_for("1.5", "SessionEntry")
    root = next(line for _, line in corpus_lines("1.5") if b'"parentId":null' in line)
    assert entry.vouches_line(root)  # a root entry's parentId is null in pi's type


def generated_files(folder: Path, version: str) -> list[Path]:
    """A JSONL file of the sessions' messages and corruptions of some; one of every stream line
    and corruptions of some; every session file of the corpus (read whole) and corruptions of
    each: lines swapped, a blank line, a second header, a migrated header, a line corrupted, the
    file cut short."""
    rng = random.Random(20261128)
    files = []
    for name, lines in (("messages", session_messages(version)), ("events", stream_lines(version))):
        corrupted = [*lines]
        for line in rng.sample(lines, min(40, len(lines))):
            found = [*list(mutations(line, rng))[::9], *pi_mutations(line)]
            corrupted += [m.replace(b"\n", b" ").replace(b"\r", b" ") for m in found if m.strip()]
        path = folder / f"{name}.{version}.jsonl"
        path.write_bytes(b"\n".join(corrupted) + b"\n")
        files.append(path)
    sessions = session_files(version)
    files += sessions
    for number, session in enumerate(sessions[:6]):
        entries = session.read_bytes().split(b"\n")
        header = entries[0]
        variants = [
            [entries[1], entries[0], *entries[2:]],
            [*entries[:2], b"", *entries[2:]],
            [*entries[:2], header, *entries[2:]],
            [header.replace(b'"version":3', b'"version":2'), *entries[1:]],
            [header, *entries[1:-1], entries[-1] + b"  "],
        ]
        at = rng.randrange(1, len(entries) - 1)
        for mutated in [*list(mutations(entries[at], rng))[::11], *pi_mutations(entries[at])]:
            variants.append([*entries[:at], mutated.replace(b"\n", b" "), *entries[at + 1 :]])
        for index, variant in enumerate(variants):
            path = folder / f"session.{version}.{number}.{index}.jsonl"
            path.write_bytes(b"\n".join(variant))
            files.append(path)
        whole = session.read_bytes()
        cut = folder / f"session.{version}.{number}.cut.jsonl"
        cut.write_bytes(whole[: rng.randrange(1, len(whole))])
        files.append(cut)
    return files


def report(path: Path, **options: Any) -> tuple[list[str], tuple[int, ...], list[Any]]:
    run = validate([str(path)], jobs=1, **options)
    records = [record.text() for record in run]
    tally = run.tally
    counts = (tally.documents, tally.invalid, tally.unjudged, tally.problems, tally.omitted)
    return records, counts, list(run.files)


GIVEN = {"messages": "AgentMessage", "events": "AgentEvent"}


@pytest.mark.parametrize("version", RELEASES)
def test_the_verdicts_are_the_same_with_the_fast_path_forced_on_and_off(
    version: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same records, tallies and formats judged, without options and with ``--format pi
    --version V --type T``; on, fewer documents are judged exactly (counted)."""
    files = generated_files(tmp_path, version)
    exact = {"documents": 0}
    judge_exactly = _judge._judge

    def counted(*arguments: Any) -> Any:
        exact["documents"] += 1
        return judge_exactly(*arguments)

    monkeypatch.setattr(_judge, "_judge", counted)
    reports = {}
    judged_exactly: dict[tuple[str, Path, tuple[str, ...]], int] = {}
    for mode in ("off", "on"):
        monkeypatch.setattr(_fastpath, "_FAST", {})
        if mode == "on":
            for type_name in ("AgentMessage", "AgentEvent"):
                path_for(version, type_name, shaped=True)
                path_for(version, type_name, shaped=False)
            whole_path(version)
        else:
            monkeypatch.setenv("PHI_WIRE_CACHE_DIR", "")
        for file in files:
            kind = file.name.split(".")[0]
            given = {"format": FORMAT, "version": version, "type": GIVEN.get(kind, "Session")}
            for options, arguments in (((), {}), (("given",), given)):
                exact["documents"] = 0
                reports[mode, file, options] = report(file, **arguments)
                judged_exactly[mode, file, options] = exact["documents"]
    for file in files:
        for options in ((), ("given",)):
            on, off = reports["on", file, options], reports["off", file, options]
            assert on == off, (file.name, options, set(on[0]) ^ set(off[0]), on[1:], off[1:])
    for file, type_name in zip(files[:2], GIVEN.values(), strict=True):  # the JSONL files
        data = file.read_bytes()
        lines = data.count(b"\n")
        assert reports["on", file, ()][1][:2] == (lines, reports["off", file, ()][1][1])
        assert reports["on", file, ()][1][1] > 10  # some lines invalid, most vouched for
        for options, shaped in (((), True), (("given",), False)):
            unmatched = len(path_for(version, type_name, shaped).unmatched(data))
            assert judged_exactly["off", file, options] == lines
            assert judged_exactly["on", file, options] == unmatched, (file.name, options)
            assert lines - unmatched > 100, (file.name, options, unmatched, lines)
    vouched = 0
    for file in files[2:]:  # the session files, read whole without options and as Session
        whole = whole_path(version).vouches(file.read_bytes())
        vouched += whole
        # without options (--type Session reads it line by line, each judged exactly)
        assert judged_exactly["on", file, ()] == (0 if whole else 1), file.name
        assert not whole or reports["off", file, ()][1][1:] == (0, 0, 0, 0), file.name
    assert vouched >= 8


@pytest.mark.parametrize("version", RELEASES)
def test_a_session_file_pi_would_change_or_skip_lines_of_is_judged_exactly(version: str) -> None:
    """Vouched for whole only as ``SessionManager.open()`` reads it unchanged: a version 3
    header first, every line an entry, no second header, no blank line."""
    whole = whole_path(version)
    session = next(s.read_bytes() for s in session_files(version) if whole.vouches(s.read_bytes()))
    header, _, rest = session.partition(b"\n")
    assert not whole.vouches(header.replace(b'"version":3', b'"version":2') + b"\n" + rest)
    assert not whole.vouches(header + b"\n\n" + rest)
    assert not whole.vouches(header + b"\n" + header + b"\n" + rest)
    assert not whole.vouches(rest)


def test_only_types_the_recogniser_names_join_a_file_of_events() -> None:
    """An ``AgentEvent`` file's expression takes pi-ai's ``AssistantMessageEvent``, the CLI's
    session header and RPC responses (its lines are read as that, their shape's type: the
    expression requires the tag ``type`` and a tagged union's own tag, ``command``), not the
    CLI's delta-only events (read as another type); ``--type AgentEvent``'s takes none (its
    lines are read as that type only)."""
    for version in RELEASES:
        found = also_read_as(find(version, FORMAT).load(), "AgentEvent")
        rpc = ["RpcResponse"] if version == "1.5" else []  # 0.73 has no RPC mode
        assert found == ["AssistantMessageEvent", "SessionHeader", *rpc]
    module = find("1.5", FORMAT).load()
    assert also_read_as(module, "AgentMessage") == []
    assert always_claimed(module.AssistantMessageEvent, "AssistantMessageEvent")
    assert not always_claimed(module.JsonAssistantMessageEvent, "AssistantMessageEvent")
    assert always_claimed(module.RpcResponse, "RpcResponse")
    assert not always_claimed(module.RpcResponse, "AgentEvent")
    events = path_for("1.5", "AgentEvent")
    cli = next(line for line in stream_lines("1.5") if b'"assistantMessageEvent":{' in line)
    delta = json.loads(cli)["assistantMessageEvent"]
    delta.pop("partial", None)
    text = json.dumps(delta, ensure_ascii=False, separators=(",", ":")).encode()
    if delta["type"] not in ("start", "done", "error"):
        assert not events.vouches_line(text)  # a JsonAssistantMessageEvent's shape
    provider = next(line for line in stream_lines("1.5") if line.startswith(b'{"type":"start"'))
    assert events.vouches_line(provider)
    assert not path_for("1.5", "AgentEvent", shaped=False).vouches_line(provider)


@pytest.mark.parametrize("version", RELEASES)
def test_a_genuine_entry_is_loaded_back(version: str) -> None:
    built = fast_path(version, ["AgentMessage"], None, True, FORMAT)
    again = fast_path(version, ["AgentMessage"], None, False, FORMAT)
    assert built is not None and again is not None and again is not built


@pytest.mark.parametrize("version", RELEASES)
@pytest.mark.parametrize("type_name", ["AgentMessage", "AgentEvent", "SessionEntry"])
def test_every_expression_of_a_file_of_lines_is_kept_in_the_cache(
    version: str, type_name: str
) -> None:
    """The expression of a file of each type (read as the types ``_read_as`` names) is written
    to the cache and loaded back: one that were not (its code past ``MAX_CODE_BYTES``) would be
    compiled again by every run, and a file under ``SLOW_BUILD_MIN_BYTES`` never has it."""
    types = _fastpath._read_as(FORMAT, version, type_name, True)
    assert fast_path(version, types, None, True, FORMAT) is not None
    assert fast_path(version, types, None, False, FORMAT) is not None, types


def test_a_forged_entry_with_a_recomputed_digest_is_refused() -> None:
    assert fast_path("1.5", ["AgentMessage"], None, True, FORMAT) is not None
    entry = _cache.cache_path("1.5", ["AgentMessage"], False, format=FORMAT)
    assert entry is not None
    forge_with_digest(entry, rb'(?:\{"role":"[a-z]+"[^\n]*\r?(?:\n|\Z))*+')
    assert fast_path("1.5", ["AgentMessage"], None, False, FORMAT) is None


def test_an_event_file_builds_its_slow_expression_only_from_its_own_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pi 1.5's event expression takes seconds to compile (it holds the RPC responses too): a
    file big enough for another type's build (``FORMAT_BUILD_MIN_BYTES``) but under
    ``SLOW_BUILD_MIN_BYTES`` is judged with the cache's entry or exactly, never made to wait for a
    build; from that size on, it builds."""
    requested: list[bool] = []
    loaded = _fastpath.fast_path_for

    def counted(version: str, forced: str | None, build: bool = False, **kwargs: Any) -> Any:
        if kwargs.get("format") == "pi":
            requested.append(build)
        return loaded(version, forced, False, **kwargs)  # never built here: the test is the plan

    monkeypatch.setattr(_fastpath, "fast_path_for", counted)
    monkeypatch.setattr(_fastpath, "_FAST", {})
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", str(tmp_path / "cache"))
    streams = fixtures_root() / "pi" / "1.5.2" / "streams"
    lines = b"".join(
        path.read_bytes()
        for path in sorted(streams.glob("*.jsonl"))
        if b"agent_start" in path.read_bytes()
    )
    events = tmp_path / "events.jsonl"
    events.write_bytes(lines * (_fastpath.FORMAT_BUILD_MIN_BYTES // len(lines) + 1))
    list(validate([str(events)], jobs=1))
    assert requested and not any(requested), requested
    requested.clear()
    monkeypatch.setattr(_fastpath, "_FAST", {})
    monkeypatch.setitem(
        _fastpath.SLOW_BUILD_MIN_BYTES, ("pi", "AgentEvent"), _fastpath.FORMAT_BUILD_MIN_BYTES
    )
    list(validate([str(events)], jobs=1))
    assert requested[0], requested  # the plan builds; the chunks then load what it built


def test_an_optional_type_key_is_optional_in_the_expression() -> None:
    """``type`` is pi's tag, required in the expression, but 1.5's RPC ``Model`` has it as an
    optional key (``type?: "chat"``, default None), which pi leaves out: a ``get_state``
    response with its model takes the fast path (it took the exact path before), and what the
    expression takes in its place is what pi reads (``"chat"``, absent; not null, not another
    value), over corruptions of it too."""
    lines = [line for line in stream_lines("1.5") if b'"command":"get_state"' in line]
    state = next(line for line in lines if b'"model":{' in line)
    model = path_for("1.5", "RpcResponse", shaped=False)
    events = path_for("1.5", "AgentEvent")
    assert model.vouches_line(state) and events.vouches_line(state)
    text = state.decode()
    after = '"baseUrl":"http://localhost:0",'
    assert after in text
    rng = random.Random(20261127)
    variants = [
        text.replace(after, after + value, 1).encode()
        for value in ('"type":"chat",', '"type":null,', '"type":"x",', '"type":1,', '"type":"chat"')
    ]
    variants += list(mutations(state, rng)) + list(pi_mutations(state))
    vouched = 0
    for variant in variants:
        for path, shaped in ((model, False), (events, True)):
            if path.vouches_line(variant):
                vouched += 1
                name = "AgentEvent" if shaped else "RpcResponse"
                assert valid_in_a_file_of("1.5", name, variant, shaped), variant
    assert model.vouches_line(variants[0]) and not model.vouches_line(variants[1])
    assert vouched >= 2
