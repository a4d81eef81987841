"""Recognition never raises, whatever JSON it is given (issue 17, defect 1): a tag key (``type``,
``role``, ``kind``) or any other key holding an array, an object, a number, a boolean or null is
JSON like any other, and ``phi_wire.recognise`` (and the validator and converter over it) must
answer, not raise ``TypeError: unhashable type: 'list'``.

* Every corpus document (every corpus under the fixtures with a manifest), with each key at the
  top level and one level down replaced by a value of every JSON kind, goes through every public
  recogniser: exhaustively, derandomized by construction.
* Any depth: Hypothesis walks a corpus document down to any key or item and puts any JSON value
  there (run derandomized in CI by conftest's profile).
* ``phi_wire.validate.validate`` on a sample of those documents, as .json files and JSONL lines,
  in every format: records, never an exception.
* The command lines the issue found crashing: no traceback, the documented exit status.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from command import run
from corpus import ROOT, corpora, manifest
from hypothesis import given, settings
from hypothesis import strategies as st

from phi_wire.formats.clark_agent import recognise as clark_agent
from phi_wire.formats.operator_use import recognise as operator_use
from phi_wire.formats.phi_core import recognise as phi_core
from phi_wire.formats.pi import recognise as pi
from phi_wire.formats.yoagent import recognise as yoagent
from phi_wire.recognise import (
    ORDER,
    SPOKEN,
    candidates,
    fits,
    parse,
    recognise,
    recognise_documents,
    recognise_lines,
    type_in,
)
from phi_wire.validate import INPUT, MORE, NOTE, PROBLEM, validate

KINDS: dict[str, Any] = {
    "array": [1],
    "object": {"x": 1},
    "number": 1,
    "string": "s",
    "boolean": True,
    "null": None,
}
"""One value of every JSON kind (the issue's ``[1]`` and ``{"x": 1}`` among them)."""
ITEMS_MUTATED = 3
"""The first items of an array whose values are replaced (the others are like them)."""


@cache
def corpus_documents() -> tuple[Any, ...]:
    """Every document of every corpus's manifest (each JSONL line a document), parsed; each
    distinct document once."""
    seen: dict[str, Any] = {}
    for implementation, version in corpora():
        base = manifest(version, implementation)
        for fixture in base:
            for key in ("file", "input_file", "canonical_file", "context_file"):
                if key not in fixture.entry:
                    continue
                for document in _parsed(fixture.read(key)):
                    seen.setdefault(json.dumps(document, sort_keys=True), document)
    return tuple(seen.values())


def _parsed(raw: bytes) -> Iterator[Any]:
    try:
        yield parse(raw)
        return
    except (ValueError, RecursionError):
        pass
    for line in raw.split(b"\n"):
        try:
            yield parse(line)
        except (ValueError, RecursionError):
            continue  # a fixture of invalid JSON: nothing to mutate


def paths(value: Any, depth: int) -> Iterator[tuple[str | int, ...]]:
    """The paths to the keys (and first array items) of ``value``, ``depth`` levels down."""
    if depth == 0:
        return
    if isinstance(value, dict):
        children: list[tuple[str | int, Any]] = list(value.items())
    elif isinstance(value, list):
        children = list(enumerate(value[:ITEMS_MUTATED]))
    else:
        return
    for key, child in children:
        yield (key,)
        for rest in paths(child, depth - 1):
            yield (key, *rest)


def replaced(value: Any, path: tuple[str | int, ...], new: Any) -> Any:
    """A copy of ``value`` with the value at ``path`` replaced by ``new``."""
    if not path:
        return new
    copy: Any = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = replaced(value[path[0]], path[1:], new)
    return copy


def recognised(document: Any) -> int:
    """``document`` through the recognisers, each code path once: every format's claim (through
    ``candidates``), a group of documents, an array of it, each format's type for it, the
    Operator-Use layout, phi-core's lane; the calls made."""
    calls: list[Callable[[], object]] = [
        lambda: candidates(document),
        lambda: recognise_lines([document, document]),
        lambda: candidates([document]),
        *(lambda format=format: type_in(format, [document]) for format in sorted(SPOKEN)),
        lambda: phi_core.report_as(document),
        lambda: operator_use.layout_of(document),
    ]
    for call in calls:
        call()
    return len(calls)


def recognised_every_way(document: Any) -> int:
    """``document`` through every public recogniser (each must answer); the calls made."""
    calls: list[Callable[[], object]] = [
        lambda: candidates(document),
        lambda: recognise(document),
        lambda: recognise_documents([document, document]),
        lambda: recognise_documents([document], same_type=True),
        lambda: recognise_lines([document]),
        lambda: recognise([document]),  # an array of it: list[T]
        *(lambda format=format: fits(format, document) for format in ORDER),
        *(lambda format=format: type_in(format, document) for format in sorted(SPOKEN)),
        *(
            lambda module=module: module.claim(document)
            for module in (phi_core, operator_use, clark_agent, pi, yoagent)
        ),
        lambda: phi_core.detect_type(document),
        lambda: phi_core.report_as(document),
        lambda: operator_use.layout_of(document),
    ]
    for call in calls:
        call()
    return len(calls)


def mutants(depth: int) -> Iterator[Any]:
    """Every corpus document with each value ``depth`` levels down (or less) replaced by a value
    of every JSON kind."""
    for document in corpus_documents():
        for path in paths(document, depth):
            for value in KINDS.values():
                yield replaced(document, path, value)


def test_the_corpora_are_all_here() -> None:
    """The documents mutated below come from every corpus (a corpus missing would make the test
    below prove less without failing)."""
    names = {implementation for implementation, _ in corpora()}
    assert {"phi-core", "clark-agent", "operator-use", "pi"} <= names, names
    assert len(corpus_documents()) > 3000


def test_no_key_of_any_corpus_document_makes_recognition_raise() -> None:
    """Each key at the top level and one level down (and the first items of arrays), replaced by
    a value of every JSON kind: over 200,000 documents, each through every code path of
    recognition (every format's claim, groups, arrays, types)."""
    documents = calls = 0
    for document in mutants(depth=2):
        calls += recognised(document)
        documents += 1
    assert documents > 200_000 and calls >= 8 * documents


def json_values() -> st.SearchStrategy[Any]:
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
        max_leaves=8,
    )


@settings(max_examples=500)
@given(st.data())
def test_any_value_at_any_depth_of_a_corpus_document_is_recognised_or_not(data: Any) -> None:
    documents = corpus_documents()
    document = documents[data.draw(st.integers(0, len(documents) - 1), label="document")]
    path: list[str | int] = []
    node = document
    while isinstance(node, dict | list) and node and data.draw(st.booleans(), label="deeper"):
        keys: list[Any] = sorted(node) if isinstance(node, dict) else list(range(len(node)))
        key = data.draw(st.sampled_from(keys), label="key")
        path.append(key)
        node = node[key]
    value = data.draw(json_values(), label="value")
    recognised_every_way(replaced(document, tuple(path), value))


def sample(every: int) -> list[Any]:
    """Every ``every``-th mutant of the tag keys, and of each top-level key by an array."""
    found: list[Any] = []
    for index, document in enumerate(corpus_documents()):
        if index % every or not isinstance(document, dict):
            continue
        for key in document:
            values = KINDS.values() if key in ("type", "role", "kind") else ([1], {"x": 1})
            found += [replaced(document, (key,), value) for value in values]
    return found


@pytest.mark.parametrize("format", ["auto", "phi-core", "clark-agent", "operator-use"])
def test_validate_judges_such_documents_without_raising(tmp_path: Path, format: str) -> None:
    """``phi_wire.validate`` says nothing in its inputs raises: a sample of the mutants, as JSONL
    lines and as .json files, in every format, yields records for them all."""
    documents = sample(every=25)
    assert len(documents) > 1000
    lines = tmp_path / "mutants.jsonl"
    lines.write_text("".join(json.dumps(d) + "\n" for d in documents), encoding="utf-8")
    folder = tmp_path / "files"
    folder.mkdir()
    for index, document in enumerate(documents[::10]):
        (folder / f"{index}.json").write_text(json.dumps(document), encoding="utf-8")
    run_ = validate([str(lines), str(folder)], format=format)
    records = list(run_)
    assert run_.complete and run_.tally.documents == len(documents) + len(documents[::10])
    assert all(record.kind in (PROBLEM, MORE, INPUT, NOTE) for record in records)
    assert all(record.text() and record.json() for record in records)


# --- the command lines the issue found crashing ---------------------------------------------------


def no_traceback(err: str) -> None:
    assert "Traceback" not in err and "TypeError" not in err, err


def test_a_type_that_is_an_array(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('{"type":["a"]}\n', encoding="utf-8")
    for jobs in ("1", "2"):
        code, out, err = run(capsys, "validate", "--jobs", jobs, str(path))
        no_traceback(err)
        assert code == 1 and out.startswith(f"{path}:1: AgentEvent /"), out


def test_a_role_that_is_an_array_in_clark_agent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"role":[1],"content":"hi","timestamp":1}\n', encoding="utf-8")
    code, out, err = run(capsys, "validate", "--format", "clark-agent", str(path))
    no_traceback(err)
    assert code == 1 and out.startswith(f"{path}:1: clark-agent AgentMessage /"), out
    code, out, err = run(capsys, "validate", "--jobs", "2", str(path))
    no_traceback(err)
    assert code == 1, out
    code, out, err = run(capsys, "convert", "--from", "clark-agent", "--to", "phi-core", str(path))
    no_traceback(err)
    assert code == 2 and out == "" and err.count("\n") == 1 and f"{path}:1:" in err, err


@pytest.mark.parametrize("where", ["schemas", "."])
def test_the_repository_itself(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """Every JSON Schema file has a ``type`` that is an array or an object somewhere, and one at
    the top: ``phi-wire validate schemas/`` and ``phi-wire validate .`` in the repository root
    judge them (not phi-core's JSON: invalid), never a traceback."""
    monkeypatch.chdir(ROOT)
    code, out, err = run(capsys, "validate", where)
    no_traceback(err)
    assert code in (1, 2) and "files," in out.splitlines()[-1], out[-500:]


def test_recognisers_read_tags_through_one_helper() -> None:
    """The mechanism: no recogniser reads a tag key with ``document.get("type")`` or
    ``document["role"]``, whose value may be any JSON; ``tag_of`` gives a string or None."""
    found = []
    for path in sorted((ROOT / "runtime" / "recognise").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            key = None
            if isinstance(node, ast.Subscript) and not (
                isinstance(node.value, ast.Name) and node.value.id.isupper()  # a table's entry
            ):
                key = node.slice
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "get":
                key = node.args[0] if node.args else None
            if isinstance(key, ast.Constant) and key.value in ("type", "role", "kind"):
                found.append(f"{path.name}:{node.lineno}")
    assert found == []
