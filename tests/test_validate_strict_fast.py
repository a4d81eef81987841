"""``validate --strict``'s fast path (``phi_wire.fastpath.CanonicalPath``) never changes a verdict.

It vouches for a phi-core .json document only when the document is valid and byte for byte what
phi-core writes for it (serde_json's pretty layout of a canonical compact form); every other
document is judged by the exact path, with today's messages. Checked over every document of both
phi-core corpora (as they are, written back pretty and compact by ``dumps``), corruptions of the
canonical ones (whitespace, key order, number and timestamp forms, escapes, unknown keys, a
``Value``'s key order, null for an omitted field...) and generated documents: the records, tallies
and files with the fast path forced on and off are the same, and the exact path judges only what
the fast path left (counted).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import fixtures_root, manifest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schema_strategies import from_schema

from phi_wire.fastpath import CanonicalPath, canonical_path, compact, is_pretty
from phi_wire.formats import find
from phi_wire.validate import _fastpath, _judge, validate

VERSIONS = {"0.8.0": "0.8", "0.10.0": "0.10"}
SESSION = fixtures_root() / "phi-core" / "0.8.0" / "sessions" / "session.main.json"

_PATHS: dict[tuple[str, str | None], CanonicalPath] = {}


def strict_path(version: str, type_name: str | None = None) -> CanonicalPath:
    """The strict fast path of a version (the automatic one of .json files, or one type's)."""
    key = (version, type_name)
    if key not in _PATHS:
        types = [type_name] if type_name else list(_fastpath.AUTO_DOCUMENT_TYPES)
        found = canonical_path(version, types, type_name is None, build=True)
        assert found is not None, f"no strict fast path for {types} in {version}"
        _PATHS[key] = found
    return _PATHS[key]


def exactly_clean(version: str, type_name: str, document: bytes) -> bool:
    """What the exact path of --strict finds clean: ``loads`` reads it, and ``dumps`` writes it
    back byte for byte (pretty when it spans lines, else compact with an optional line end)."""
    wire = find(version).load()
    try:
        value = wire.loads(getattr(wire, type_name), document)
    except wire.WireError:
        return False
    pretty = b"\n" in document.strip()
    written = wire.dumps(value, pretty=pretty).encode()
    return written == (document if pretty else document.rstrip(b"\r\n"))


def corpus_documents(release: str) -> Iterator[tuple[str, str, bytes]]:
    """(id, type, document) of every corpus file, JSONL lines one by one."""
    for fixture in manifest(release):
        for key in ("file", "input_file", "canonical_file"):
            if key not in fixture.entry:
                continue
            raw = fixture.read(key)
            if fixture.path(key).suffix == ".jsonl":
                for number, line in enumerate(raw.splitlines(), 1):
                    yield f"{fixture.id}:{key}:{number}", fixture.type_name, line
            else:
                yield f"{fixture.id}:{key}", fixture.type_name, raw


def written_back(version: str, type_name: str, document: bytes) -> list[bytes]:
    """The document, and what ``dumps`` writes for it, pretty and compact (when it reads)."""
    wire = find(version).load()
    try:
        value = wire.loads(getattr(wire, type_name), document)
    except wire.WireError:
        return [document]
    return [document, wire.dumps(value, pretty=True).encode(), wire.dumps(value).encode()]


def corruptions(canonical: bytes) -> list[bytes]:
    """Texts a byte or a form away from a canonical pretty document: each one phi-core would
    write otherwise (or not read at all)."""
    found = [
        canonical + b"\n",
        canonical.replace(b"\n", b"\r\n"),
        canonical.replace(b'": ', b'":', 1),
        canonical.replace(b'": ', b'":  ', 1),
        canonical.replace(b"\n  ", b"\n   ", 1),
        canonical.replace(b"\n    ", b"\n  ", 1),
        canonical.replace(b",\n", b", \n", 1),
        canonical.replace(b"[]", b"[\n]", 1),
        canonical.replace(b"{}", b"{ }", 1),
        b" " + canonical,
        canonical.replace(b"\n", b"\n\n", 1),
        bytes(compact(canonical) or b""),
    ]
    # values: the first few of each form phi-core writes, in another form it reads
    swaps = [
        (rb'(": )(\d+)\.0(?=[,\n])', rb"\1\2"),  # 1.0 -> 1
        (rb'(": )(\d+)(?=[,\n])', rb"\1\2.0"),  # 1 -> 1.0
        (rb'(": )(\d+\.\d*[1-9])(?=[,\n])', rb"\g<1>\g<2>0"),  # 1.5 -> 1.50
        (rb'(": )(\d+\.\d*[1-9])(?=[,\n])', rb"\1\2e0"),  # 1.5 -> 1.5e0
        (rb'(": )0\.(\d)', rb"\1.\2"),
        (rb'"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?Z"', rb'"\1.000000000Z"'),
        (rb'"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?Z"', rb'"\1+00:00"'),
        (rb'"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{3})Z"', rb'"\1.\g<2>000Z"'),
        (rb'(": "[^"\\\n]*?)/', rb"\1\\/"),
        (rb'(": "[^"\\\n]*?)A', rb"\1\\u0041"),
        (rb'(": "[^"\\\n]*?)\\n', rb"\1\\u000a"),
        (rb'(": "[^"\\\n]*?)\\u001b', rb"\1\\u001B"),
        (rb'\n *"[^"\n]*": null,(?=\n)', rb""),  # a null written: left out
        (rb"(\n *)(\"child_loop_id\": )", rb'\1"unknown": 1,\1\2'),
        (rb'(\{\n *)("[^"\n]*": )', rb'\1"zzz_unknown": null,\n    \2'),
        (rb'(\n *)"metadata": null', rb'\1"metadata": {\1  "b": 1,\1  "a": 2\1}'),
        (rb'(\n *)"metadata": null', rb'\1"metadata": {\1  "a": 1,\1  "a": 2\1}'),
        (rb'(\n *)"metadata": null', rb'\1"metadata": {\1  "a": 1,\1  "b": [\1    2.50\1  ]\1}'),
        (rb'(\n *)"metadata": null', rb'\1"metadata": {\1  "a": 1,\1  "b": 2\1}'),
        (rb'(\n *)"details": null', rb'\1"details": {\1  "\\u00e9": 1\1}'),
        (rb'(\n *)"details": null', rb'\1"details": -0'),
        (rb'(\n *)"details": null', rb'\1"details": -0.0'),
        (rb'(\n *)"details": null', rb'\1"details": 12345678901234567890'),
    ]
    for pattern, replacement in swaps:
        for count in (1, 2):
            found.append(re.sub(pattern, replacement, canonical, count=count))
    # two neighbouring keys swapped, at a few places
    keys = list(re.finditer(rb'\n( +)("[^"\n]*": [^\n]*,)\n\1("[^"\n]*": [^\n]*),\n', canonical))
    for match in keys[:: max(1, len(keys) // 12)]:
        swapped = b"\n%s%s\n%s%s,\n" % (
            match[1],
            match[3] + b",",
            match[1],
            match[2].removesuffix(b","),
        )
        found.append(canonical[: match.start()] + swapped + canonical[match.end() :])
    return [text for text in dict.fromkeys(found) if text != canonical]


def report(path: Path, **options: Any) -> tuple[list[str], tuple[int, ...], list[Any]]:
    run = validate([str(path)], jobs=1, strict=True, **options)
    records = [record.text() for record in run]
    tally = run.tally
    counts = (tally.documents, tally.invalid, tally.unjudged, tally.problems, tally.omitted)
    return records, counts, list(run.files)


def judged_both_ways(
    files: list[tuple[Path, dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> tuple[dict[str, list[Any]], dict[str, int]]:
    """The reports of ``files`` (each with its options) with the fast path forced off, then on,
    and how many documents the exact path judged each way."""
    exact = {"documents": 0}
    judge_exactly = _judge._judge

    def counted(*arguments: Any) -> Any:
        exact["documents"] += 1
        return judge_exactly(*arguments)

    monkeypatch.setattr(_judge, "_judge", counted)
    reports: dict[str, list[Any]] = {}
    judged: dict[str, int] = {}
    found = _fastpath.strict_path_for
    forced = {"on": False}

    def strict_path_for(version: str, type_name: str | None, build: bool = False) -> Any:
        return found(version, type_name, build) if forced["on"] else None

    monkeypatch.setattr(_fastpath, "strict_path_for", strict_path_for)
    monkeypatch.setattr(_fastpath, "_STRICT", {})
    for version, type_name in {(o["version"], o.get("type")) for _, o in files}:
        _fastpath._STRICT[version, type_name] = strict_path(version, type_name)
    for mode in ("off", "on"):
        forced["on"] = mode == "on"
        exact["documents"] = 0
        reports[mode] = [report(path, **options) for path, options in files]
        judged[mode] = exact["documents"]
    return reports, judged


@pytest.mark.parametrize("release", sorted(VERSIONS))
def test_the_verdicts_are_the_same_with_the_fast_path_forced_on_and_off(
    release: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every corpus document, as it is and written back pretty and compact, as a .json file,
    judged as its type and (with no --type) as the automatic types; then the canonical
    sessions' corruptions."""
    version = VERSIONS[release]
    files: list[tuple[Path, dict[str, Any]]] = []
    vouchable = 0
    for number, (_, type_name, document) in enumerate(corpus_documents(release)):
        for form, text in enumerate(written_back(version, type_name, document)):
            path = tmp_path / f"{number}.{form}.json"
            path.write_bytes(text)
            files.append((path, {"version": version, "type": type_name}))
            files.append((path, {"version": version}))
            vouchable += strict_path(version, type_name).vouches(text)
    sessions = sorted((fixtures_root() / "phi-core" / release / "sessions").glob("*.json"))
    corrupted = 0
    for session in sessions:
        for number, text in enumerate(corruptions(session.read_bytes())):
            path = tmp_path / f"{session.stem}.corrupt.{number}.json"
            path.write_bytes(text)
            files.append((path, {"version": version}))
            files.append((path, {"version": version, "type": "Session"}))
            corrupted += 1
    reports, judged = judged_both_ways(files, monkeypatch)
    for (path, options), on, off in zip(files, reports["on"], reports["off"], strict=True):
        assert on == off, (path.name, options)
    assert vouchable > 100 and corrupted > 60
    # the exact path judged exactly what the fast path left: no document twice, none skipped
    vouched = sum(
        strict_path(version, options.get("type")).vouches(path.read_bytes())
        for path, options in files
    )
    assert judged["off"] == len(files)
    assert judged["on"] == len(files) - vouched and vouched >= vouchable


def test_vouched_means_clean_over_the_corpus_and_corruptions() -> None:
    """Directly: every text the path vouches for is one the exact path finds clean, the
    canonical sessions are vouched for, and none of their corruptions phi-core writes
    otherwise."""
    for release, version in VERSIONS.items():
        for label, type_name, document in corpus_documents(release):
            for text in written_back(version, type_name, document):
                if strict_path(version, type_name).vouches(text):
                    assert exactly_clean(version, type_name, text), label
        for session in sorted((fixtures_root() / "phi-core" / release / "sessions").glob("*.json")):
            canonical = session.read_bytes()
            assert exactly_clean(version, "Session", canonical)
            assert strict_path(version).vouches(canonical), session.name
            unclean = 0
            for text in corruptions(canonical):
                clean = exactly_clean(version, "Session", text)
                assert strict_path(version).vouches(text) <= clean, text[:200]
                unclean += not clean
            assert unclean > 30  # (a few are clean: the compact form, a sorted Value...)


@pytest.mark.parametrize("name", ["AgentEvent", "AgentMessage", "LoopRecord", "Session"])
def test_generated_documents_vouched_for_are_clean(name: str) -> None:
    """Documents generated from the schema, as Python's json writes them pretty and compact
    and as ``dumps`` writes them back: vouched for only when the exact path finds them clean,
    and vouched for when ``dumps`` wrote them."""
    version = "0.8"
    wire = find(version).load()
    tp = getattr(wire, name)
    path = strict_path(version, name)
    written_ones = {"vouched": 0}

    @settings(max_examples=60, suppress_health_check=list(HealthCheck), deadline=None)
    @given(from_schema(wire.schema(tp)), st.booleans())
    def check(value: Any, ascii_only: bool) -> None:
        pretty = json.dumps(value, indent=2, ensure_ascii=ascii_only).encode()
        plain = json.dumps(value, separators=(",", ":"), ensure_ascii=ascii_only).encode()
        texts = [pretty, plain, *written_back(version, name, pretty)[1:]]
        for text in texts:
            if path.vouches(text):
                assert exactly_clean(version, name, text), text[:300]
        for text in texts[2:]:
            written_ones["vouched"] += path.vouches(text)

    check()
    assert written_ones["vouched"] > 0


def test_a_canonical_session_takes_no_exact_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reason for it (issue 21): --strict on a session phi-core wrote judges it without
    ``loads`` (on main, --strict sent every document through the models)."""
    version = "0.8"
    exact = {"documents": 0}
    judge_exactly = _judge._judge

    def counted(*arguments: Any) -> Any:
        exact["documents"] += 1
        return judge_exactly(*arguments)

    monkeypatch.setattr(_judge, "_judge", counted)
    monkeypatch.setattr(_fastpath, "_STRICT", {})
    strict_path_for = _fastpath.strict_path_for
    assert strict_path_for(version, None, build=True) is not None
    run = validate([str(SESSION)], version=version, strict=True)
    assert [record.text() for record in run] == []
    assert run.tally.documents == 1 and run.tally.invalid == 0
    assert exact["documents"] == 0


def test_the_pretty_layout_is_serde_jsons() -> None:
    """``is_pretty``: what serde_json's pretty writer (pydantic-core's) writes, and nothing a
    blank away from it."""
    import pydantic_core

    values: list[Any] = [
        1,
        "x",
        [],
        {},
        [[]],
        [{}],
        {"a": [1, {"b": {}}], "c": [[]], "d": {"e": "f: g, h"}},
        [[1, 2], [3]],
        {"a": {"b": {"c": [1]}}},
    ]
    for value in values:
        text = pydantic_core.to_json(value, indent=2)
        assert is_pretty(text), text
        for variant in corruptions_of_layout(text):
            assert not is_pretty(variant), variant
    assert is_pretty(SESSION.read_bytes())


def corruptions_of_layout(text: bytes) -> list[bytes]:
    """A blank between two tokens added, taken away or changed (never inside a string)."""
    found = [text + b"\n", b"\n" + text, text + b" ", text.replace(b"\n", b"\r\n")]
    inside = {i for m in re.finditer(rb'"[^"\\]*(?:\\.[^"\\]*)*"', text) for i in range(*m.span())}
    for index, byte in enumerate(text):
        if index not in inside and byte in b" \n":
            found.append(text[:index] + text[index + 1 :])
            found.append(text[:index] + b" " + text[index:])
            if byte == 0x20:
                found.append(text[:index] + b"\n" + text[index + 1 :])
    return [variant for variant in found if variant != text]
