"""Operator-Use's fast path (issue 21, goal 1) never changes a verdict of ``phi-wire validate``.

Operator-Use is read by pydantic's own lax ``validate_json``, which accepts every document its
model's schema does (a repeated key too: the last wins); the fast path's expression, compiled from
that schema, matches a subset of them, so a line it vouches for is one the reader accepts. It is
used for JSONL files of messages (the type their first lines are) and for session files, read
whole (every line an entry it vouches for, the header first, no character ``str.splitlines``
breaks at). These tests run the validator with the fast path forced on and off over every
document of both layouts' corpora and over corruptions of every valid one, in JSONL files of
messages generated from the corpus' sessions, and over every session file and corruptions of it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import fixtures_root, manifest
from test_fastpath_cache import forge_with_digest
from test_validate_fastpath import mutations

from phi_wire.fastpath import _cache, fast_path
from phi_wire.formats import find
from phi_wire.validate import _fastpath, _judge, validate
from phi_wire.validate._fastpath import session_file_path
from phi_wire.validate._inputs import Chunk

FORMAT = "operator-use"
LAYOUTS = {"d0da87a6": "d0da87a6", "d1cdaad8": "d1cdaad8"}
TYPE = "AgentMessage"
"""What a JSONL file of messages holds (``phi_wire.recognise`` names it so)."""


def wire(layout: str) -> Any:
    return find(layout, FORMAT).load()


def path_for(layout: str) -> _fastpath.FastPath:
    found = _fastpath.fast_path_for(layout, TYPE, build=True, format=FORMAT)
    assert found is not None, layout
    return found


def loads_accepts(layout: str, type_name: str, document: bytes) -> bool:
    module = wire(layout)
    try:
        module.loads(getattr(module, type_name), document)
    except module.WireError:
        return False
    return True


def corpus_documents(layout: str) -> Iterator[tuple[str, bytes]]:
    """(label, document) of every file of the corpus; JSONL files line by line."""
    for fixture in manifest(layout, FORMAT):
        for key in ("file", "input_file", "canonical_file"):
            if key not in fixture.entry:
                continue
            raw = fixture.read(key)
            if fixture.path(key).suffix == ".jsonl":
                for number, line in enumerate(raw.split(b"\n"), 1):
                    if line.strip():
                        yield f"{fixture.id}:{number}", line
            else:
                yield f"{fixture.id}:{key}", raw


def session_messages(layout: str) -> list[bytes]:
    """The messages of the corpus' session files, as Operator-Use writes them (compact)."""
    found = []
    for session in sorted((fixtures_root() / FORMAT / layout / "sessions").glob("*.jsonl")):
        for line in session.read_bytes().split(b"\n"):
            entry = json.loads(line) if line.strip() else None
            if isinstance(entry, dict) and entry.get("type") == "message":
                message = json.dumps(entry["message"], ensure_ascii=False, separators=(",", ":"))
                found.append(message.encode())
    return found


@pytest.mark.parametrize("layout", LAYOUTS)
def test_it_vouches_only_for_what_loads_accepts_over_the_corpus(layout: str) -> None:
    vouched = 0
    for label, document in corpus_documents(layout):
        if path_for(layout).vouches_line(document):
            assert loads_accepts(layout, TYPE, document), label
            vouched += 1
    assert vouched >= 7  # d1cdaad8: every message of its small corpus


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_messages_operator_use_writes_take_the_fast_path(layout: str) -> None:
    messages = session_messages(layout)
    vouched = sum(path_for(layout).vouches_line(message) for message in messages)
    assert messages and vouched == len(messages)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_no_corruption_is_vouched_for_when_loads_rejects_it(layout: str) -> None:
    rng = random.Random(20261129)
    checked = 0
    documents = [document for _, document in corpus_documents(layout)]
    for document in [*documents, *session_messages(layout)]:
        if not path_for(layout).vouches_line(document):
            continue
        for mutated in mutations(document, rng):
            if path_for(layout).vouches_line(mutated):
                assert loads_accepts(layout, TYPE, mutated), mutated
            checked += 1
    assert checked > 300


def generated_files(folder: Path, layout: str) -> list[Path]:
    """A JSONL file of the sessions' messages followed by every corpus document (one per line)
    and corruptions of every message; every session file of the corpus (read whole), and
    corruptions of each: lines swapped, a blank line, a line corrupted, a line broken where
    ``str.splitlines`` breaks it (U+2028 in a string), the file cut short."""
    rng = random.Random(20261130)
    messages = session_messages(layout)
    lines = [*messages]
    lines += [document.replace(b"\n", b" ") for _, document in corpus_documents(layout)]
    for message in messages:
        lines += [m.replace(b"\n", b" ") for m in mutations(message, rng) if m.strip()]
    generated = folder / f"messages.{layout}.jsonl"
    generated.write_bytes(b"\n".join(line.replace(b"\r", b" ") for line in lines) + b"\n")
    corpus = fixtures_root() / FORMAT / layout
    sessions = sorted((corpus / "sessions").glob("*.jsonl"))
    sessions += [
        fixture.path("file")
        for fixture in manifest(layout, FORMAT)
        if fixture.type_name == "SessionFile" and fixture.entry.get("file", "").endswith(".jsonl")
    ]
    files = [generated, *dict.fromkeys(sessions)]
    for number, session in enumerate(sessions):
        entries = session.read_bytes().split(b"\n")
        variants = [
            [entries[1], entries[0], *entries[2:]],
            [*entries[:2], b"", *entries[2:]],
            [entries[0], entries[1].replace(b'":"', b'":"\xe2\x80\xa8', 1), *entries[2:]],
        ]
        for _ in range(4):
            at = rng.randrange(len(entries) - 1)
            for mutated in list(mutations(entries[at], rng))[::7]:
                variants.append([*entries[:at], mutated.replace(b"\n", b" "), *entries[at + 1 :]])
        whole = session.read_bytes()
        for index, variant in enumerate(variants):
            path = folder / f"session.{number}.{index}.jsonl"
            path.write_bytes(b"\n".join(variant))
            files.append(path)
        cut = folder / f"session.{number}.cut.jsonl"
        cut.write_bytes(whole[: rng.randrange(1, len(whole))])
        files.append(cut)
    return files


def report(path: Path, **options: Any) -> tuple[list[str], tuple[int, ...], list[Any]]:
    run = validate([str(path)], jobs=1, **options)
    records = [record.text() for record in run]
    tally = run.tally
    counts = (tally.documents, tally.invalid, tally.unjudged, tally.problems, tally.omitted)
    return records, counts, list(run.files)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_verdicts_are_the_same_with_the_fast_path_forced_on_and_off(
    layout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same records, tallies and formats judged, without options and with ``--format
    operator-use --type AgentMessage``; on, only the lines the fast path left are judged
    exactly (counted)."""
    files = generated_files(tmp_path, layout)
    exact = {"documents": 0}
    judge_exactly = _judge._judge

    def counted(*arguments: Any) -> Any:
        exact["documents"] += 1
        return judge_exactly(*arguments)

    monkeypatch.setattr(_judge, "_judge", counted)
    reports = {}
    judged_exactly = {}
    for mode in ("off", "on"):
        monkeypatch.setattr(_fastpath, "_FAST", {})
        if mode == "on":
            path_for(layout)
            assert session_file_path(FORMAT, layout, build=True) is not None
        else:
            monkeypatch.setenv("PHI_WIRE_CACHE_DIR", "")
        exact["documents"] = 0
        for file in files:
            reports[mode, file, ()] = report(file)
            given = {"format": FORMAT, "version": layout, "type": TYPE}
            reports[mode, file, ("given",)] = report(file, **given)
        judged_exactly[mode] = exact["documents"]
    for file in files:
        for options in ((), ("given",)):
            assert reports["on", file, options] == reports["off", file, options], file.name
    generated = files[0].read_bytes()
    lines = generated.count(b"\n")
    unmatched = len(path_for(layout).unmatched(generated))
    assert reports["on", files[0], ()][1][1] > 100 and lines - unmatched > 30
    sessions = files[1:]  # without options: each read whole
    whole = session_file_path(FORMAT, layout, build=True)
    assert whole is not None
    vouched = sum(whole.vouches(file.read_bytes()) for file in sessions)
    assert 0 < vouched < len(sessions) // 2  # the corpus' own, none of the corrupted ones
    # --type AgentMessage reads a session file as lines of messages, which the path judges
    session_lines = sum(len(_inputs_lines(file.read_bytes())) for file in sessions)
    left = sum(len(path_for(layout).unmatched(file.read_bytes())) for file in sessions)
    assert judged_exactly["off"] == 2 * lines + len(sessions) + session_lines
    assert judged_exactly["on"] == 2 * unmatched + len(sessions) - vouched + left


def _inputs_lines(data: bytes) -> list[int]:
    """The starts of the JSONL lines of ``data`` the validator reads (as ``Chunk`` does)."""
    return Chunk("", 1, data, True).line_starts() if data else []


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_genuine_entry_is_loaded_back(layout: str) -> None:
    built = fast_path(layout, [TYPE], None, True, FORMAT)
    again = fast_path(layout, [TYPE], None, False, FORMAT)
    assert built is not None and again is not None and again is not built


def test_a_forged_entry_with_a_recomputed_digest_is_refused() -> None:
    assert fast_path("d0da87a6", [TYPE], None, True, FORMAT) is not None
    entry = _cache.cache_path("d0da87a6", [TYPE], False, format=FORMAT)
    assert entry is not None
    forge_with_digest(entry, rb'(?:\{"role":"[a-z]+"[^\n]*\r?(?:\n|\Z))*+')
    assert fast_path("d0da87a6", [TYPE], None, False, FORMAT) is None


def test_a_session_file_given_as_its_type_is_vouched_for_whole_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--format operator-use --type SessionFile``: a session file is vouched for whole, as
    without options; a JSON array of its entries, which the JSONL reader rejects, never by the
    expression of ``SessionFile``'s items as an array (the same reports on and off)."""
    session = sorted((fixtures_root() / FORMAT / "d0da87a6" / "sessions").glob("*.jsonl"))[0]
    entries = [line for line in session.read_bytes().split(b"\n") if line.strip()]
    array = tmp_path / "array.jsonl"
    array.write_bytes(b"[" + b",".join(entries) + b"]\n")
    given = {"format": FORMAT, "version": "d0da87a6", "type": "SessionFile"}
    reports = {}
    for mode in ("off", "on"):
        monkeypatch.setattr(_fastpath, "_FAST", {})
        if mode == "on":  # every expression that could apply, SessionFile's own included
            assert session_file_path(FORMAT, "d0da87a6", build=True) is not None
            assert _fastpath.fast_path_for("d0da87a6", "SessionFile", True, format=FORMAT)
        else:
            monkeypatch.setenv("PHI_WIRE_CACHE_DIR", "")
        reports[mode] = [report(file, **given) for file in (session, array)]
    assert reports["on"] == reports["off"]
    assert reports["on"][0][1][1] == 0 and reports["on"][1][1][1] == 1  # valid; the array not
