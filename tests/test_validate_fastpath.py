"""The fast path of ``phi-wire validate`` (runtime/validate/) never changes a verdict.

Its regular expression may only accept documents that ``loads`` accepts; every document it does
not accept goes to ``loads``. These tests check that over the whole fixture corpus of both phi-core
versions and over systematic corruptions of real documents (duplicate keys, serde's numbers,
escapes, nesting, truncation, every byte replaced...), that it does accept what phi-core writes
(else it would be no fast path), and that its compiled code is cached and reloaded safely.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from corpus import fixtures_root, manifest

from phi_wire.fastpath import _cache, _compact, _pattern
from phi_wire.formats import find
from phi_wire.formats.phi_core import recognise as _detect
from phi_wire.validate import _fastpath
from phi_wire.validate._fastpath import FastPath, fast_path

VERSIONS = {"0.8.0": "0.8", "0.10.0": "0.10"}


_PATHS: dict[tuple[str, str | None, bool], FastPath | None] = {}


def path_for(version: str, type_name: str | None, lines: bool = True) -> FastPath:
    """The fast path for one type (None: the automatic one of JSONL logs, or with ``lines``
    false of .json files), built once per run."""
    key = (version, type_name, lines)
    if key not in _PATHS:
        if type_name is None:
            types = _fastpath.AUTO_LINE_TYPES if lines else _fastpath.AUTO_DOCUMENT_TYPES
            found = fast_path(version, types, _detect.detected_as, build=True)
        else:
            found = fast_path(version, [type_name], None, build=True)
        _PATHS[key] = found
    found = _PATHS[key]
    assert found is not None, f"no fast path for {type_name} in {version}"
    return found


def fast_accepts(path: FastPath, document: bytes) -> bool:
    return b"\n" not in document.rstrip(b"\r\n") and bool(document) and not path.unmatched(document)


def loads_accepts(wire: ModuleType, type_name: str, document: bytes) -> bool:
    try:
        wire.loads(getattr(wire, type_name), document)
    except wire.WireError:
        return False
    return True


def corpus_documents(version: str) -> Iterator[tuple[str, str, bytes]]:
    """(id, type, document) for every file of the corpus; JSONL streams line by line."""
    for fixture in manifest(version):
        for key in ("file", "input_file", "canonical_file"):
            if key not in fixture.entry:
                continue
            raw = fixture.read(key)
            if fixture.path(key).suffix == ".jsonl":
                for number, line in enumerate(raw.splitlines(), 1):
                    yield f"{fixture.id}:{number}", fixture.type_name, line
            else:
                yield f"{fixture.id}:{key}", fixture.type_name, raw


def assert_sound(version: str, type_name: str, document: bytes, label: str) -> bool:
    """The fast path accepts ``document`` only if ``loads`` does; returns whether it accepted."""
    wire = find(version).load()
    accepted = fast_accepts(path_for(version, type_name), document)
    if accepted:
        assert loads_accepts(wire, type_name, document), f"fast path accepted {label}: {document!r}"
    auto = fast_accepts(path_for(version, None), document)
    if auto:  # the automatic path vouches for the type that detection picks
        detected = _detect.detect_raw(document)
        assert loads_accepts(wire, detected, document), f"auto path accepted {label}"
    return accepted


@pytest.mark.parametrize("release", VERSIONS)
def test_the_fast_path_agrees_with_loads_over_the_corpus(release: str) -> None:
    version = VERSIONS[release]
    accepted = canonical = 0
    for label, type_name, document in corpus_documents(release):
        if assert_sound(version, type_name, document, label) and document:
            accepted += 1
        if type_name in {"AgentEvent", "AgentMessage", "Message", "Content", "Session"}:
            canonical += 1
    assert accepted > 300 and canonical > 100  # it is a fast path, not a path never taken


@pytest.mark.parametrize("release", VERSIONS)
def test_what_phi_core_writes_takes_the_fast_path(release: str) -> None:
    version = VERSIONS[release]
    stream = fixtures_root() / "phi-core" / release / "streams" / "events.main_session.jsonl"
    data = stream.read_bytes()
    bad = path_for(version, None).unmatched(data)
    # only the lines whose serde_json::Value holds u64::MAX-sized numbers go to loads
    assert len(bad) <= 3 and len(data.splitlines()) > 100
    typed = path_for(version, "AgentEvent").unmatched(data)
    assert typed == bad


def mutations(document: bytes, rng: random.Random) -> Iterator[bytes]:
    """Corruptions of a valid compact document, each of a kind serde treats specially."""
    text = document.decode("utf-8")
    value = json.loads(text)
    first_key = next(iter(value), None) if isinstance(value, dict) else None
    if first_key is not None:  # a repeated key, first and last
        member = json.dumps({first_key: value[first_key]}, separators=(",", ":"))[1:-1]
        yield ("{" + member + "," + text[1:]).encode()
        yield (text[:-1] + "," + member + "}").encode()
        yield (text[:-1] + ',"extra":1}').encode()
        yield text.replace(f'"{first_key}":', f'"{first_key}" :', 1).encode()
    for needle, replacement in (
        (":0", ":-0"),
        (":0", ":0.0"),
        (":1", ":1e400"),
        (":1", ":18446744073709551616"),
        (":1", ":-1"),
        (":1", ":NaN"),
        (":1", ":1.0"),
        ('":"', '":"\\ud800'),
        ('":"', '":"\\u0022'),
        ('":"', '":"\\x'),
        ('":"', '":"\x01'),
        ('":"', '":"\xff'),
        ('"Z', '"z'),
        ("T0", " 0"),
        (":true", ":1"),
        (":[", ":[" * 130),
        (":{", ":{" + '"a":{' * 130),
        (':"', ":"),
        (":null", ':"null"'),
        ('"', "'"),
    ):
        if needle in text:
            yield text.replace(needle, replacement, 1).encode()
    raw = document
    for _ in range(12):
        cut = rng.randrange(len(raw))
        yield raw[:cut]
        yield raw[:cut] + raw[cut + 1 :]
        yield raw[:cut] + bytes([rng.choice(b'"\\{}[]:,0-e.nu\n\x00\xc3')]) + raw[cut + 1 :]
    yield b"\xef\xbb\xbf" + raw
    yield raw + b" x"
    yield raw + b"\n" + raw


def test_no_corruption_of_a_real_document_is_accepted_when_loads_rejects_it() -> None:
    rng = random.Random(20260525)
    checked = 0
    for release, version in VERSIONS.items():
        for label, type_name, document in corpus_documents(release):
            if not loads_accepts(find(version).load(), type_name, document):
                continue
            if not fast_accepts(path_for(version, type_name), document):
                continue
            for mutated in mutations(document, rng):
                assert_sound(version, type_name, mutated, f"mutation of {label}")
                checked += 1
    assert checked > 5000


def test_every_byte_of_an_event_replaced() -> None:
    stream = fixtures_root() / "phi-core" / "0.8.0" / "streams" / "events.main_session.jsonl"
    lines = stream.read_bytes().splitlines()
    for line in (lines[0], min(lines, key=len), lines[len(lines) // 2][:2000]):
        for index in range(len(line)):
            for byte in b'"\\-0}':
                if line[index] != byte:
                    mutated = line[:index] + bytes([byte]) + line[index + 1 :]
                    assert_sound("0.8", "AgentEvent", mutated, f"byte {index}")


def test_a_line_spanning_blocks_and_carriage_returns() -> None:
    path = path_for("0.8", None)
    stream = fixtures_root() / "phi-core" / "0.8.0" / "streams" / "events.main_session.jsonl"
    line = stream.read_bytes().splitlines()[0]
    assert path.unmatched(line + b"\r\n" + line) == []
    assert path.unmatched(line + b"\n\n" + line) == [len(line) + 1]
    assert path.unmatched(line[:-1] + b"\n" + line) == [0]
    half = len(line) // 2
    assert path.unmatched(line[:half] + b"\n" + line[half:] + b"\n") == [0, half + 1]


# --- whole documents (pretty JSON) -------------------------------------------------------------


def spread(document: bytes) -> bytes:
    """``document`` laid out the way a pretty printer would: a newline and indent after every
    ``{ [ ,`` and before every ``} ]``, a space after ``:``, outside strings (found here by a
    tokenizer of the test's own; ``loads`` judges the result, not this)."""
    out = bytearray()
    depth = 0
    in_string = escaped = False
    for byte in document:
        char = bytes([byte])
        if in_string:
            out += char
            escaped = not escaped and char == b"\\"
            in_string = escaped or char != b'"'
            continue
        if char in b"}]":
            depth -= 1
            out += b"\n" + b"  " * max(depth, 0)
        out += char
        if char in b"{[,":
            depth += char != b","
            out += b"\n" + b"  " * max(depth, 0)
        elif char == b":":
            out += b" "
        in_string = char == b'"'
    return bytes(out)


@pytest.mark.parametrize(
    ("document", "compacted"),
    [
        (b'{\n  "a": [1, 2],\n  "b c": "d\\" e"\n}\n', b'{"a":[1,2],"b c":"d\\" e"}'),
        (b"[1,\t\r\n-2]", b"[1,-2]"),
        (b'["a\\\\" , "b"]', b'["a\\\\","b"]'),
        (b'["a" "b"]', b'["a""b"]'),  # joined strings: not JSON, the pattern refuses it
        (b"[1 2]", None),
        (b"[-\n1]", None),
        (b"[tr ue]", None),
        (b"[true null]", None),
        (b'["a", 1\x00]', None),
        (b"  \n", b""),
    ],
)
@pytest.mark.parametrize("piece_bytes", [_compact.PIECE_BYTES, 1])
def test_compacting_never_joins_two_tokens(
    document: bytes, compacted: bytes | None, piece_bytes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Also with a piece cut at every newline: the pieces of a big document are compacted apart."""
    monkeypatch.setattr(_compact, "PIECE_BYTES", piece_bytes)
    assert _compact.compact(document) == compacted


@pytest.mark.parametrize(
    ("document", "compacted"),
    [
        (b"[1,\n2,\n3]", b"[1,2,3]"),
        (b'{"a":\n"b"\n}', b'{"a":"b"}'),
        (b"[1\n,2]", b"[1,2]"),
        (b"[1\n2]", None),  # two words either side of the cut
        (b"[true\n  null]", None),
        (b'["a\nb"]', None),  # a raw newline cuts the string: not JSON
        (b'["a\\\nb"]', None),  # nor after a backslash
    ],
)
def test_pieces_cut_at_a_newline_join_only_whole_tokens(
    document: bytes, compacted: bytes | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_compact, "PIECE_BYTES", 1)
    assert _compact.compact(document) == compacted


@pytest.mark.parametrize("piece_bytes", [_compact.PIECE_BYTES, 256])
@pytest.mark.parametrize("release", VERSIONS)
def test_session_files_take_the_document_fast_path(
    release: str, piece_bytes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_compact, "PIECE_BYTES", piece_bytes)
    version = VERSIONS[release]
    sessions = sorted((fixtures_root() / "phi-core" / release / "sessions").glob("*.json"))
    assert sessions
    for session in sessions:
        document = session.read_bytes()
        assert path_for(version, None, lines=False).vouches(document), session.name
        assert path_for(version, "Session").vouches(document), session.name
        assert loads_accepts(find(version).load(), "Session", document)


@pytest.mark.parametrize("release", VERSIONS)
def test_pretty_documents_agree_with_loads_over_the_corpus(release: str) -> None:
    """Every corpus document, laid out pretty, is vouched for only if ``loads`` accepts it, and
    is vouched for exactly when its compact line takes the fast path."""
    version = VERSIONS[release]
    wire = find(version).load()
    vouched = 0
    for label, type_name, document in corpus_documents(release):
        path = path_for(version, type_name)
        pretty = spread(document)
        if not path.vouches(pretty):
            continue
        vouched += 1
        assert loads_accepts(wire, type_name, pretty), f"vouched for pretty {label}"
        assert fast_accepts(path, _compact.compact(pretty) or b""), label
    assert vouched > 300


@pytest.mark.parametrize("piece_bytes", [_compact.PIECE_BYTES, 64])
def test_no_corruption_of_a_pretty_session_is_vouched_for_when_loads_rejects_it(
    piece_bytes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_compact, "PIECE_BYTES", piece_bytes)
    rng = random.Random(20261123)
    session = fixtures_root() / "phi-core" / "0.8.0" / "sessions" / "session.main.json"
    document = session.read_bytes()
    wire = find("0.8").load()
    paths = (path_for("0.8", None, lines=False), path_for("0.8", "Session"))
    numbers = [m.start() for m in re.finditer(rb"[0-9]{2}|true|null", document)]
    corrupted = [b"\xef\xbb\xbf" + document, document + b" x", document + b"\n" + document]
    for _ in range(60):
        inside = rng.choice(numbers) + 1  # a blank inside a number or literal
        corrupted.append(document[:inside] + rng.choice([b" ", b"\n", b"\t"]) + document[inside:])
        cut = rng.randrange(len(document))
        corrupted.append(document[:cut] + document[cut + 1 :])
        byte = bytes([rng.choice(b'"\\{}[]:, \n0-e.nu\x00\x01')])
        corrupted.append(document[:cut] + byte + document[cut + 1 :])
    for number, mutated in enumerate(corrupted):
        if any(path.vouches(mutated) for path in paths):
            assert loads_accepts(wire, "Session", mutated), f"corruption {number}: vouched for"


def test_the_compiled_code_is_cached_and_reloaded(private_cache: Path) -> None:
    cached = fast_path("0.8", ["Usage"], None, build=True)
    assert cached is not None
    # this test's entry only: other tests' entries stay sound for them
    files = [_cache.cache_path("0.8", ["Usage"], False)]
    assert files[0] is not None and files[0].parent == private_cache and files[0].is_file()
    again = fast_path("0.8", ["Usage"], None, build=False)
    assert again is not None
    for document in (b'{"input":1,"output":2}', b'{"input":1}', b'{"output":1,"input":2}'):
        assert again.unmatched(document) == cached.unmatched(document)
    for file in files:  # a damaged cache is ignored, never trusted (tests/test_fastpath_cache.py)
        file.write_bytes(file.read_bytes()[:-64] + b"\xff" * 64)
    assert fast_path("0.8", ["Usage"], None, build=False) is None
    rebuilt = fast_path("0.8", ["Usage"], None, build=True)
    assert rebuilt is not None and rebuilt.unmatched(b'{"input":1,"output":2}') == []


def test_no_cache_folder_still_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", "")
    assert fast_path("0.8", ["Usage"], None, build=False) is None
    built = fast_path("0.8", ["Usage"], None, build=True)
    assert built is not None and built.unmatched(b'{"input":1,"output":2}') == []
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", "/proc/phi-wire-cannot-write-here")
    assert fast_path("0.8", ["Usage"], None, build=True) is not None


def test_types_it_cannot_express_are_left_to_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    original = _pattern._Compiler.compile_value

    def refuse_floats(self: Any, schema: dict[str, Any], kind: str, sorted_keys: bool) -> Any:
        if kind == "float":
            raise _pattern.Unsupported("test")
        return original(self, schema, kind, sorted_keys)

    monkeypatch.setattr(_pattern._Compiler, "compile_value", refuse_floats)
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", "")
    assert fast_path("0.8", ["LoopConfigSnapshot"], None, build=True) is None
    assert fast_path("0.8", ["Usage"], None, build=True) is not None


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (b'{"type":"TurnStart"}', "AgentEvent"),
        (b'{"content":[],"role":"user"}', "AgentMessage"),
        (b'{"role":"extension","kind":"k","data":1}', "AgentMessage"),
        (b'{"sequence":0,"event":{}}', "LoopEvent"),
        (b'{"turn_id":{},"output_message":{}}', "Turn"),
        (b'{"loop_id":"l","events":[]}', "LoopRecord"),
        (b'{"session_id":"s","loops":[]}', "Session"),
        (b'{"loops":[],"session_id":"s"}', "Session"),
        (b'{"events":[],"loop_id":"l"}', "LoopRecord"),
        (b'{"turnId":1,"role":"user"}', "AgentMessage"),
        (b'{"x":1}', "AgentEvent"),
        (b"[1,2]", "AgentEvent"),
        (b"not json", "AgentEvent"),
    ],
)
def test_detection_rules(document: bytes, expected: str) -> None:
    assert _detect.detect_raw(document) == expected


def test_a_cached_run_needs_neither_pydantic_nor_the_models(private_cache: Path) -> None:
    """What lets a cached run start in 0.1 s: its lines are vouched for before any model loads."""
    # built, or loaded if a sound entry is cached (the in-process path_for may not have written it)
    built = fast_path("0.10", _fastpath.AUTO_LINE_TYPES, _detect.detected_as, build=True)
    assert built is not None
    sample = Path(__file__).resolve().parent.parent / "examples" / "events.jsonl"
    code = (
        "import sys\n"
        "from phi_wire.cli import main\n"
        "status = main(['validate', '--quiet', '--version', '0.10', sys.argv[1]])\n"
        "assert status == 0, status\n"
        "assert 'pydantic' not in sys.modules, 'a cached run imported pydantic'\n"
        "if sys.argv[1].endswith('.jsonl'):  # split by byte ranges, no process pool\n"
        "    status = main(['validate', '--quiet', '--jobs', '2', sys.argv[1]])\n"
        "    assert status == 0, status\n"
        "    assert 'multiprocessing' not in sys.modules, 'byte ranges imported a process pool'\n"
    )
    subprocess.run([sys.executable, "-c", code, str(sample)], check=True)
    # and a pretty session file, by the path for whole documents
    built = fast_path("0.10", _fastpath.AUTO_DOCUMENT_TYPES, _detect.detected_as, build=True)
    assert built is not None
    subprocess.run([sys.executable, "-c", code, str(sample.with_name("session.json"))], check=True)
