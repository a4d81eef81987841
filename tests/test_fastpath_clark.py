"""clark-agent's fast path (issue 21, goal 1) never changes a verdict of ``phi-wire validate``.

clark-agent is read by the same serde codec as phi-core, so its types' expressions are compiled
the same way (``phi_wire.fastpath``), one per JSONL file kind (history rows, event streams,
trajectories: the type a file's first lines are). These tests run the validator with its fast
path forced on and forced off over every file of the corpus, and over files generated from it:
every document of the corpus (valid, accepted, rejected) and systematic corruptions of each valid
one, appended to each kind's real file. They check that the expression vouches only for what
``loads`` accepts, that it vouches for what clark-agent writes (else it would be no fast path),
the one serde fact phi-core lacks (a borrowed ``&str`` written with an escape is rejected), and
that its cache entries are guarded like phi-core's.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import fixtures_root, manifest
from test_fastpath_cache import forge_with_digest
from test_validate_fastpath import mutations

from phi_wire import clark_agent
from phi_wire.fastpath import _cache, fast_path
from phi_wire.validate import _fastpath, _judge, validate

FORMAT = "clark-agent"
VERSION = "0.4"
RELEASE = "0.4.0"
KINDS = {"history": "AgentMessage", "streams": "AgentEvent", "trajectory": "TrajectoryRecord"}
"""The corpus' JSONL folders and the type of their lines."""


def corpus_folder() -> Path:
    return fixtures_root() / FORMAT / RELEASE


def path_for(type_name: str) -> _fastpath.FastPath:
    found = _fastpath.fast_path_for(VERSION, type_name, build=True, format=FORMAT)
    assert found is not None, type_name
    return found


def loads_accepts(type_name: str, document: bytes) -> bool:
    try:
        clark_agent.loads(getattr(clark_agent, type_name), document)
    except clark_agent.WireError:
        return False
    return True


def corpus_documents() -> Iterator[tuple[str, str, bytes]]:
    """(label, type, document) of every file of the corpus; JSONL files line by line."""
    for fixture in manifest(RELEASE, FORMAT):
        for key in ("file", "input_file", "canonical_file"):
            if key not in fixture.entry:
                continue
            raw = fixture.read(key)
            if fixture.path(key).suffix == ".jsonl":
                for number, line in enumerate(raw.splitlines(), 1):
                    yield f"{fixture.id}:{number}", fixture.type_name, line
            else:
                yield f"{fixture.id}:{key}", fixture.type_name, raw


def vouched(type_name: str, document: bytes) -> bool:
    return path_for(type_name).vouches_line(document)


def test_it_vouches_only_for_what_loads_accepts_over_the_corpus() -> None:
    """Every corpus document, as each kind's type and as its own: vouched for only if valid."""
    accepted = 0
    for label, type_name, document in corpus_documents():
        for name in sorted({type_name, *KINDS.values()}):
            if hasattr(clark_agent, name) and vouched(name, document):
                assert loads_accepts(name, document), f"{label} vouched for as {name}"
                accepted += 1
    assert accepted > 150  # it is a fast path, not a path never taken


def test_what_clark_agent_writes_takes_the_fast_path() -> None:
    """Every line of the corpus' history, streams and trajectories is vouched for."""
    for folder, type_name in KINDS.items():
        files = sorted((corpus_folder() / folder).glob("*.jsonl"))
        assert files, folder
        for file in files:
            data = file.read_bytes()
            assert path_for(type_name).unmatched(data) == [], file.name


def test_no_corruption_of_a_real_document_is_vouched_for_when_loads_rejects_it() -> None:
    rng = random.Random(20261127)
    checked = 0
    for label, type_name, document in corpus_documents():
        for name in sorted({type_name, *KINDS.values()}):
            if not hasattr(clark_agent, name):
                continue
            if not vouched(name, document):
                continue
            for mutated in mutations(document, rng):
                if vouched(name, mutated):
                    assert loads_accepts(name, mutated), f"mutation of {label} as {name}"
                checked += 1
    assert checked > 3000


@pytest.mark.parametrize("escape", [b"\\/", b'\\"', b"\\u0067", b"\\n"])
def test_a_borrowed_string_written_with_an_escape_is_left_to_loads(escape: bytes) -> None:
    """clark-agent's ``plugin`` is a ``&'static str``: serde rejects any escape in it (phi-core
    has no such field; the expression of its strings takes escapes)."""
    found = None
    for _, _, document in corpus_documents():
        if b'"plugin":"' in document and vouched("AgentEvent", document):
            found = document
            break
    assert found is not None, "no event with a plugin in the corpus"
    head, tail = found.split(b'"plugin":"', 1)
    escaped = head + b'"plugin":"' + escape + tail
    assert not loads_accepts("AgentEvent", escaped)
    assert not vouched("AgentEvent", escaped)
    assert not path_for("TrajectoryRecord").vouches_line(escaped)


# --- the validator, its fast path forced on and off ------------------------------------------


def generated_files(folder: Path) -> list[Path]:
    """Each corpus JSONL file as it is; and per kind, its first file followed by every document of
    the corpus (one per line) and corruptions of every valid one."""
    rng = random.Random(20261128)
    documents = [
        document.replace(b"\n", b" ").replace(b"\r", b" ")
        for _, _, document in corpus_documents()
        if document.strip()
    ]
    files = sorted(corpus_folder().glob("*/*.jsonl"))
    for kind, type_name in KINDS.items():
        first = sorted((corpus_folder() / kind).glob("*.jsonl"))[0].read_bytes()
        lines = [*documents]
        for _, name, document in corpus_documents():
            if name == type_name and loads_accepts(name, document):
                lines += [m.replace(b"\n", b" ") for m in mutations(document, rng) if m.strip()]
        generated = folder / f"generated.{kind}.jsonl"
        generated.write_bytes(first + b"\n".join(lines) + b"\n")
        files.append(generated)
    return files


def report(path: Path, **options: Any) -> tuple[list[str], tuple[int, ...], list[Any]]:
    """The records, the tally and the files' summaries of a run over ``path``."""
    run = validate([str(path)], jobs=1, **options)
    records = [record.text() for record in run]
    tally = run.tally
    counts = (tally.documents, tally.invalid, tally.unjudged, tally.problems, tally.omitted)
    return records, counts, list(run.files)


def test_the_verdicts_are_the_same_with_the_fast_path_forced_on_and_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every corpus file and the generated ones: the same records, tallies and formats judged,
    without options and with ``--format clark-agent --type <kind's type>``."""
    files = generated_files(tmp_path)
    kinds = {file: KINDS.get(file.parent.name) or file.name.split(".")[1] for file in files}
    exact = {"lines": 0}  # documents judged by loads (counted, not timed)
    judge_exactly = _judge._judge

    def counted(*arguments: Any) -> Any:
        exact["lines"] += 1
        return judge_exactly(*arguments)

    monkeypatch.setattr(_judge, "_judge", counted)
    reports = {}
    judged_exactly = {}
    for mode in ("off", "on"):
        monkeypatch.setattr(_fastpath, "_FAST", {})
        if mode == "on":
            for type_name in KINDS.values():
                path_for(type_name)
        else:
            monkeypatch.setenv("PHI_WIRE_CACHE_DIR", "")
        exact["lines"] = 0
        for file in files:
            type_name = KINDS.get(kinds[file], kinds[file])
            reports[mode, file, ()] = report(file)
            given = {"format": FORMAT, "version": VERSION, "type": type_name}
            reports[mode, file, ("given",)] = report(file, **given)
        judged_exactly[mode] = exact["lines"]
    lines = unmatched = 0
    for file in files:
        for options in ((), ("given",)):
            assert reports["on", file, options] == reports["off", file, options], file.name
        type_name = KINDS.get(kinds[file], kinds[file])
        data = file.read_bytes()
        lines += data.count(b"\n")
        unmatched += len(path_for(type_name).unmatched(data))
    invalid = sum(reports["on", file, ()][1][1] for file in files)
    assert invalid > 1000 and lines - unmatched > 500  # both paths were taken
    # off: every line judged exactly, both ways; on: only the lines the fast path left
    assert judged_exactly == {"off": 2 * lines, "on": 2 * unmatched}


def test_a_big_file_builds_the_fast_path_of_its_kind(tmp_path: Path) -> None:
    """The run itself builds a kind's expression when its files are worth it (the cache is
    empty): every line of a history of 4 MB is then vouched for, none judged exactly."""
    history = sorted((corpus_folder() / "history").glob("*.jsonl"))[0].read_bytes()
    big = tmp_path / "history.jsonl"
    big.write_bytes(history * (_fastpath.FORMAT_BUILD_MIN_BYTES // len(history) + 1))
    _fastpath._FAST.clear()
    entry = _cache.cache_path(VERSION, ["AgentMessage"], False, format=FORMAT)
    assert entry is not None
    entry.unlink(missing_ok=True)
    records, (documents, invalid, *_), _ = report(big)
    assert records == [] and documents > 1000 and invalid == 0
    assert entry.is_file()


# --- the cache ------------------------------------------------------------------------------


@pytest.mark.parametrize("type_name", KINDS.values())
def test_a_genuine_entry_is_loaded_back(type_name: str) -> None:
    """The probes (``probes.json``, clark-agent's from examples/ converted) pass the genuine
    expression of each kind, so a later run loads it instead of building it."""
    built = fast_path(VERSION, [type_name], None, True, FORMAT)
    again = fast_path(VERSION, [type_name], None, False, FORMAT)
    assert built is not None and again is not None and again is not built


def test_phi_core_s_expression_in_clark_agent_s_entry_is_refused() -> None:
    """The same type name in both formats: phi-core's AgentEvent expression written as
    clark-agent's entry, digest recomputed, fails clark-agent's probes (its real events)."""
    from phi_wire.fastpath._pattern import build_pattern

    clark = _cache.cache_path(VERSION, ["AgentEvent"], False, format=FORMAT)
    home = _cache.cache_path("0.10", ["AgentEvent"], False)
    assert clark is not None and home is not None and clark != home
    assert fast_path(VERSION, ["AgentEvent"], None, True, FORMAT) is not None
    forge_with_digest(clark, build_pattern("0.10", ["AgentEvent"], None))
    assert fast_path(VERSION, ["AgentEvent"], None, False, FORMAT) is None


@pytest.mark.parametrize(
    "forgery",
    [rb"\{(?s:.)*", rb'(?:\{"role":"[a-z]+"[^\n]*\r?(?:\n|\Z))*+', rb"(?!)"],
    ids=["anything", "any role", "nothing"],
)
def test_a_forged_entry_with_a_recomputed_digest_is_refused(forgery: bytes) -> None:
    """An entry rewritten with a recomputed digest fails the probes: it is rebuilt, never used."""
    assert fast_path(VERSION, ["AgentMessage"], None, True, FORMAT) is not None
    entry = _cache.cache_path(VERSION, ["AgentMessage"], False, format=FORMAT)
    assert entry is not None
    forge_with_digest(entry, forgery)
    assert fast_path(VERSION, ["AgentMessage"], None, False, FORMAT) is None


def test_formats_without_a_fast_path_get_none() -> None:
    """OpenTelemetry GenAI is read by the official schema's validator: the seam gives it none
    (pi, read by ``JSON.parse`` and pi's types, has one since issue 21: test_fastpath_pi.py)."""
    assert fast_path("2026-05", ["InputMessages"], None, True, "otel-genai") is None
    assert _fastpath.fast_path_for("2026-05", "InputMessages", True, format="otel-genai") is None


def test_only_big_files_are_looked_at_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Telling a file's kind before the run reads its first lines again: done only for files of
    ``PLAN_MIN_BYTES`` or more, and only when the input is worth a build (counted); phi-core's
    own threshold is left alone (``--format phi-core --type`` under 16 MB builds nothing)."""
    looked_at: list[str] = []
    planned = _fastpath._planned

    def counted(name: str, settings: Any) -> Any:
        looked_at.append(name)
        return planned(name, settings)

    monkeypatch.setattr(_fastpath, "_planned", counted)
    monkeypatch.setattr(_fastpath, "_FAST", {})
    history = sorted((corpus_folder() / "history").glob("*.jsonl"))[0].read_bytes()
    small = tmp_path / "small"
    small.mkdir()
    for number in range(40):  # 40 small files: under the build threshold together
        (small / f"{number}.jsonl").write_bytes(history)
    assert report(small)[1][1] == 0 and looked_at == []
    big = tmp_path / "big.jsonl"
    big.write_bytes(history * (_fastpath.FORMAT_BUILD_MIN_BYTES // len(history) + 1))
    for number in range(3):
        (tmp_path / f"small.{number}.jsonl").write_bytes(history)
    names = [big, *(tmp_path / f"small.{number}.jsonl" for number in range(3))]
    run = validate([str(name) for name in names], jobs=1)
    assert not list(run) and looked_at == [str(big)]
    events = fixtures_root() / "phi-core" / "0.10.0" / "streams"
    phi_core = tmp_path / "phi-core.jsonl"
    lines = b"".join(path.read_bytes() for path in sorted(events.glob("*.jsonl")))
    phi_core.write_bytes(lines * (_fastpath.FORMAT_BUILD_MIN_BYTES // len(lines) + 1))
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", "")
    list(validate([str(phi_core)], format="phi-core", version="0.10", type="AgentEvent"))
    assert ("phi-core", "0.10", "AgentEvent", True) not in _fastpath._FAST or (
        _fastpath._FAST["phi-core", "0.10", "AgentEvent", True] is None
    )
