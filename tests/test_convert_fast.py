"""The fast path of ``phi-wire convert`` (``phi_wire.convert._fast``, issue 19 section 4): a JSONL
line the source's fast path vouches for is converted dict to dict by its format folder's
converter; the documents written and the losses (kinds, reasons, pointers, order) are exactly the
model path's, and every other line takes the model path unchanged.

The helpers here (``equivalent``, ``corruptions``) serve the dict converters' own test files
(``test_convert_fast_*.py``): a conversion run twice through ``convert_stream``, fast path off and
on, must give the same items (or the same error), and the fast path must have been taken.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from corpus import manifest

from phi_wire.convert import (
    ConvertError,
    FastUnsupported,
    _batches,
    _fast,
    checked_number,
    convert_stream,
    pointer_of,
)
from phi_wire.convert import _files as convert_files
from phi_wire.fastpath import compact
from phi_wire.formats import find
from phi_wire.formats.operator_use.convert import FAST_CONVERTERS as OPERATOR_USE_CONVERTERS

Items = list[tuple[str, tuple[Any, ...]]] | tuple[str, str]
Run = tuple[Items, Items, int]


class Taken:
    """How many documents the dict converters converted."""

    def __init__(self) -> None:
        self.documents = 0


@pytest.fixture
def fast_conversions(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Run]]:
    """``run(lines, source, target)``: the items of the conversion with the fast path off, with
    it on, and the documents the dict converters took."""
    monkeypatch.setattr(convert_files, "FAST_MIN_BYTES", 0)
    real_path = _batches.line_path
    real_converter = _batches.fast_converter

    def run(lines: list[bytes], source: str, target: str) -> tuple[Items, Items, int]:
        taken = Taken()

        def counting(*key: str) -> Any:
            found = real_converter(*key)
            if found is None:
                return None

            def counted(documents: list[dict[str, Any]], kind: str) -> Any:
                result = found(documents, kind)
                taken.documents += len(documents)
                return result

            return counted

        results: list[Items] = []
        for on in (False, True):
            monkeypatch.setattr(_batches, "line_path", real_path if on else _no_path)
            monkeypatch.setattr(_batches, "fast_converter", counting)
            try:
                items: Items = [
                    (type(item).__name__, tuple(item))
                    for item in convert_stream(lines, source=source, target=target, name="in")
                ]
            except ConvertError as error:
                items = ("error", str(error))
            results.append(items)
        return results[0], results[1], taken.documents

    yield run


def _no_path(*_: Any) -> None:
    return None


def corpus_lines(
    implementation: str, versions: tuple[str, ...], types: set[str], jsonl_only: bool = False
) -> list[bytes]:
    """Every document of the corpora of ``types`` (JSONL files line by line; JSON files compacted
    as a line, unless ``jsonl_only``), valid, accepted and rejected ones."""
    found: list[bytes] = []
    for version in versions:
        for fixture in manifest(version, implementation):
            if fixture.type_name not in types:
                continue
            for key in ("file", "input_file", "canonical_file"):
                if key not in fixture.entry:
                    continue
                raw = fixture.read(key)
                if fixture.path(key).suffix == ".jsonl":
                    found += [line for line in raw.splitlines() if line.strip()]
                    continue
                if jsonl_only:
                    continue
                compacted = compact(raw)  # escapes and numbers as written
                found.append(compacted if b"\n" not in compacted else raw.replace(b"\n", b" "))
    return found


EDGE_NUMBERS: tuple[Any, ...] = (1e16, 1e-7, 1.0, 0.5, 2**64, 2**63, -(2**63) - 1, 1e300)
EDGE_TEXTS = ("é\u2028\U0001f600", 'q"\\/\n\t\x01\x7f', "\ud800")


def _places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _places(item, (*path, index))


def _set(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copy = json.loads(json.dumps(document))
    holder = copy
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = value
    return copy


def _line(document: Any, ascii: bool = False) -> bytes:
    return json.dumps(document, ensure_ascii=ascii, separators=(",", ":")).encode(
        "utf-8", "surrogatepass"
    )


def corruptions(line: bytes, seed: int) -> list[bytes]:
    """Variants of a document's line: an unknown key in an object, a null, edge numbers, a key
    left out (a timestamp too), escapes and non-ASCII text in a string, ``-0``; each alone."""
    try:
        document = json.loads(line)
    except ValueError:
        return []
    rng = random.Random(seed)
    places = list(_places(document))
    objects = [(path, value) for path, value in places if isinstance(value, dict)]
    leaves = [(path, value) for path, value in places if path and not isinstance(value, dict)]
    out: list[bytes] = [_line(document, ascii=True)]
    for path, value in rng.sample(objects, min(3, len(objects))):
        out.append(_line(_set(document, path, {**value, "unknownKey": 1})))
        if value:
            key = rng.choice(list(value))
            out.append(_line(_set(document, path, {k: v for k, v in value.items() if k != key})))
            if path or key != "role":
                out.append(_line(_set(document, (*path, key), None)))
        if "timestamp" in value:
            out.append(
                _line(_set(document, path, {k: v for k, v in value.items() if k != "timestamp"}))
            )
        reordered = dict(reversed(list(value.items())))
        out.append(_line(_set(document, path, reordered)))
    for path, value in rng.sample(leaves, min(4, len(leaves))):
        if isinstance(value, str):
            for text in EDGE_TEXTS:
                changed = _set(document, path, value + text)
                out.append(_line(changed))
                out.append(_line(changed, ascii=True))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            for number in rng.sample(EDGE_NUMBERS, 3):
                out.append(_line(_set(document, path, number)))
            out.append(_line(_set(document, path, 0)).replace(b":0", b":-0", 1))
    return out


def check_equivalent(
    run: Callable[..., tuple[Items, Items, int]],
    lines: list[bytes],
    source: str,
    target: str,
) -> int:
    """Each line alone (twice: a JSONL file), fast path off and on: the same items; the number
    of lines the dict converters took."""
    taken = 0
    for line in lines:
        model, fast, documents = run([line, line], source, target)
        assert fast == model, line
        taken += documents > 0
    return taken


# --- the seam's own pieces ---------------------------------------------------------------------


def test_a_pointer_is_written_from_its_place() -> None:
    assert pointer_of(None) == ""
    assert pointer_of(((((None, 3), "content"), 1), "a/b~c")) == "/3/content/1/a~1b~0c"


@pytest.mark.parametrize("number", [2**64, -(2**63) - 1, 1e16, 1e-7, 1e300, float("inf")])
def test_a_number_the_writers_print_otherwise_is_handed_back(number: float) -> None:
    with pytest.raises(FastUnsupported):
        checked_number(number)


@pytest.mark.parametrize("number", [0, -(2**63), 2**64 - 1, 1.5, 1e15, -0.0, 1e-4])
def test_a_number_both_print_alike_is_kept(number: float) -> None:
    checked_number(number)
    assert json.dumps(number) == repr(number)


def test_runs_split_a_batch_where_the_vouching_changes() -> None:
    class Path:
        def vouches_line(self, line: bytes, utf8: bool = False) -> bool:
            return line.startswith(b"{")

        def unmatched(self, block: bytes) -> list[int]:  # the lines' starts, as vouches_line
            starts = [0] + [found.end() for found in re.finditer(b"\n", block)]
            return [start for start in starts if not block[start:].startswith(b"{")]

    lines = [(1, b"{}"), (2, b"{}"), (3, b"x"), (4, b"{}"), (5, b'{"a":-0}')]
    found = [(vouched, [n for n, _ in run]) for vouched, run in _fast.runs(lines, Path())]  # type: ignore[arg-type]
    assert found == [(True, [1, 2]), (False, [3]), (True, [4]), (False, [5])]
    assert list(_fast.runs(lines, None)) == [(False, lines)]


def test_the_dumped_form_is_compact_and_keeps_non_ascii() -> None:
    assert _fast.dumped({"b": "é\n", "a": [1.5, None]}) == '{"b":"é\\n","a":[1.5,null]}'


def test_a_pair_without_dict_converter_has_none() -> None:
    # through phi-core: a converter when both steps have one (test_convert_fast_via_hub)
    second = ("phi-core", "operator-use", "AgentMessage") in OPERATOR_USE_CONVERTERS
    assert (_fast.fast_converter("clark-agent", "operator-use", "AgentMessage") is None) != second
    assert _fast.fast_converter("clark-agent", "operator-use", "AgentEvent") is None
    assert _fast.fast_converter("phi-core", "otel-genai", "AgentMessage") is None
    assert _fast.fast_converter("phi-core", "phi-core", "AgentMessage") is None


def test_a_null_the_reader_reads_as_absent_is_found_where_a_model_has_it() -> None:
    """phi-core's ToolResult does not write a None ``child_loop_id`` (its reader takes a null
    for absent: a loss of reading), ToolExecutionEnd writes its own: only the first is found."""
    nulls = _fast.absent_nulls("phi-core", "0.10")
    assert nulls is not None
    result = {"content": [], "details": None, "child_loop_id": None}
    event = {
        "type": "ToolExecutionEnd",
        "loop_id": "l",
        "tool_call_id": "t",
        "tool_name": "n",
        "result": {"content": [], "details": None},
        "is_error": False,
        "child_loop_id": None,
    }
    assert not nulls.found(event)
    assert nulls.found({**event, "result": result})
    assert nulls.may_have(_fast.dumped(event).encode())  # a cheap first look
    assert not nulls.may_have(b'{"text":"\\"child_loop_id\\":nul","x":1}')


@pytest.mark.parametrize(
    ("format", "version", "kind", "release"),
    [
        ("clark-agent", "0.4", "AgentMessage", "0.4.0"),
        ("clark-agent", "0.4", "AgentEvent", "0.4.0"),
        ("phi-core", "0.10", "AgentMessage", "0.10.0"),
        ("phi-core", "0.10", "AgentEvent", "0.10.0"),
    ],
)
def test_what_a_vouched_line_implies_for_the_losses_of_reading(
    format: str, version: str, kind: str, release: str
) -> None:
    """A line the fast path vouches for has no key its reader drops; a null it reads as absent
    is found by ``AbsentNulls`` (the line takes the model path); a timestamp it stamps, or a
    value its default factory makes, is one the line lacks (the dict converters hand such a line
    back: ``test_convert_fast_clark_*``)."""
    from phi_wire.convert._unread import unread

    path = _fast.line_path(format, version, kind, True)
    nulls = _fast.absent_nulls(format, version)
    assert path is not None and nulls is not None
    module = find(version, format).load()
    lines = corpus_lines(format, (release,), {kind})
    vouched = 0
    for seed, line in enumerate(lines):
        for variant in [line, *corruptions(line, seed)]:
            if not path.vouches_line(variant):
                continue
            vouched += 1
            document = json.loads(variant)
            unknown, absent, filled = unread(document, module.loads(getattr(module, kind), variant))
            assert unknown == [], variant
            assert not absent or nulls.found(document), variant
            assert all(
                pointer.rpartition("/")[2] not in _at(document, pointer.rpartition("/")[0])
                for pointer in [filled.pointer for filled in filled]
            ), variant
    assert vouched > len(lines)


def _at(document: Any, pointer: str) -> Any:
    for token in pointer.split("/")[1:]:
        document = document[int(token)] if isinstance(document, list) else document[token]
    return document
