"""pi's own JSON, read and written by ``phi_wire.pi_0_73`` and ``phi_wire.pi_1_5``: the
compatibility proof of both lines.

Every record of ``<corpus>/pi/0.73.1/manifest.json`` and ``<corpus>/pi/1.5.2/manifest.json``
becomes one test case, judged by the version module of its line:

* ``valid-canonical``, one JSON value: ``dumps(loads(T, doc)) == doc`` byte for byte (key order,
  ``Number#toString``, lone surrogates, absent keys);
* ``valid-canonical``, a JSONL file: every line by its line type, byte for byte, and the file whole
  where pi's writer makes it one document (a session file as ``Session``, the CLI's stdout as
  ``JsonModeOutput``/``RpcOutput``);
* ``accepted-noncanonical`` (what ``SessionManager.open()`` does to a legacy, odd or 0.73 file):
  ``dumps(loads(Session, input)) == canonical``, the ids pi invents on migration compared by the
  place they hold (``varying_fields``), and the canonical file a fixed point.

Where the corpus files a document under a type that is not the one its producer writes, the
fixture id is listed in ``tests/deviations.toml`` under ``[pi.type]`` with the type that reads it;
the listed type is used, the filed one is asserted to refuse the document, and an entry that no
longer applies fails.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from corpus import Fixture, manifest

import phi_wire.pi_0_73 as pi_0_73
import phi_wire.pi_1_5 as pi_1_5
from phi_wire.errors import WireError

MODULES: dict[str, ModuleType] = {"0.73.1": pi_0_73, "1.5.2": pi_1_5}
"""corpus version: the module of its line."""
DEVIATIONS: dict[str, Any] = tomllib.loads(
    (Path(__file__).parent / "deviations.toml").read_text("utf-8")
)["pi"]

WHOLE_FILE = {"JsonAgentSessionEvent": "JsonModeOutput", "RpcOutput": "RpcOutput"}
"""A JSONL fixture type whose file is one document of pi's, and that document's type."""
LINE_TYPE = {"RpcOutput": "RpcOutputLine", "Session": "FileEntry"}
"""The type of a line of a JSONL fixture, where it is not the fixture's type."""


def cases(kind: str) -> list[Any]:
    return [
        pytest.param(fixture, id=fixture.id)
        for version in MODULES
        for fixture in manifest(version, "pi")
        if fixture.kind == kind
    ]


def filed_type(fixture: Fixture) -> str:
    """The type that reads the fixture: the manifest's, or the one deviations.toml names."""
    deviation = DEVIATIONS["type"].get(fixture.entry["id"])
    return str(deviation["reads_as"]) if deviation is not None else fixture.type_name


def roundtrip(module: ModuleType, type_name: str, data: bytes) -> str:
    return str(module.dumps(module.loads(getattr(module, type_name), data)))


def whole_type(fixture: Fixture, first_line: bytes) -> str | None:
    """The type of the whole JSONL file, when pi writes it as one document."""
    if fixture.type_name == "Session":
        return "Session"
    header_first = first_line.startswith(b'{"type":"session"')
    if fixture.version == "0.73.1" and fixture.type_name == "AgentSessionEvent" and header_first:
        return "JsonModeOutput"  # 0.73: the coding agent's stream is `pi --mode json`'s
    return WHOLE_FILE.get(fixture.type_name)


@pytest.mark.parametrize("fixture", cases("valid-canonical"))
def test_valid_fixture_round_trips_byte_for_byte(fixture: Fixture) -> None:
    module = MODULES[fixture.version]
    data = fixture.read("file")
    type_name = filed_type(fixture)
    if fixture.entry["file"].endswith(".json"):
        assert roundtrip(module, type_name, data).encode() == data
        return
    lines = data.split(b"\n")
    assert lines.pop() == b"", f"{fixture.id}: a JSONL file ends every line with \\n"
    line_type = LINE_TYPE.get(type_name, type_name)
    for number, line in enumerate(lines, start=1):
        header = line.startswith(b'{"type":"session"') and number == 1
        written = roundtrip(module, "SessionHeader" if header else line_type, line)
        assert written.encode() == line, f"{fixture.id}: line {number}"
    whole = whole_type(fixture, lines[0])
    if whole is not None:
        read = module.loads(getattr(module, whole), data)
        assert len(read) == len(lines)
        assert str(module.dumps(read)).encode() == data


@pytest.mark.parametrize(
    "fixture_id", sorted({key for key in DEVIATIONS["type"]}), ids=lambda key: key
)
def test_each_type_deviation_holds(fixture_id: str) -> None:
    """A fixture filed under a type that refuses it: the filed type refuses it (for the reason
    given), the listed one reads it."""
    deviation = DEVIATIONS["type"][fixture_id]
    found = [
        fixture
        for version in MODULES
        for fixture in manifest(version, "pi")
        if fixture.entry["id"] == fixture_id and fixture.version == deviation["version"]
    ]
    assert len(found) == 1, f"deviations.toml [pi.type] {fixture_id!r}: no such fixture"
    (fixture,) = found
    module = MODULES[fixture.version]
    with pytest.raises(WireError) as refused:
        module.loads(getattr(module, fixture.type_name), fixture.read("file"))
    assert deviation["refused_because"] in str(refused.value), str(refused.value)
    module.loads(getattr(module, deviation["reads_as"]), fixture.read("file"))


INVENTED = re.compile(rb'"(id|parentId|firstKeptEntryId)":"([0-9a-f]{8})"')
"""The ids ``SessionManager.open()`` invents when it migrates a v1 file (random per run)."""


def ids_by_place(text: bytes) -> bytes:
    """The text with each invented id replaced by the order it first appears in: two files
    that differ only in the random ids pi drew are then equal."""
    places: dict[bytes, bytes] = {}

    def place(match: re.Match[bytes]) -> bytes:
        number = places.setdefault(match[2], str(len(places) + 1).encode())
        return b'"' + match[1] + b'":"<id ' + number + b'>"'

    return INVENTED.sub(place, text)


@pytest.mark.parametrize("fixture", cases("accepted-noncanonical"))
def test_session_file_opens_as_pi_opens_it(fixture: Fixture) -> None:
    """``loads(Session, input)`` migrates as ``SessionManager.open()`` does and ``dumps`` writes
    the file pi leaves on disk; the canonical file reads back unchanged."""
    module = MODULES[fixture.version]
    source, canonical = fixture.read("input_file"), fixture.read("canonical_file")
    session = module.loads(module.Session, source)
    written = str(module.dumps(session)).encode()
    if {"id", "parentId"} & set(fixture.entry["varying_fields"]):
        assert session.migrated_from == 1
        assert written != canonical  # pi drew other ids: compared by place
        assert ids_by_place(written) == ids_by_place(canonical)
    else:
        assert written == canonical
    assert (session.migrated_from is None) == bool(fixture.entry["input_equals_canonical"])
    assert fixture.entry["canonical_is_stable"]
    assert str(module.dumps(module.loads(module.Session, canonical))).encode() == canonical


@pytest.mark.parametrize("fixture", cases("accepted-noncanonical"))
def test_legacy_session_reads_the_file_as_it_is(fixture: Fixture) -> None:
    """``LegacySession``: the file as pi's loader reads it, unmigrated, written back unchanged
    (skipped lines in place)."""
    module = MODULES[fixture.version]
    source = fixture.read("input_file")
    legacy = module.loads(module.LegacySession, source)
    assert legacy.migrated_from is None
    assert str(module.dumps(legacy)).encode() == source


def test_both_corpora_are_here() -> None:
    for version in MODULES:
        fixtures = manifest(version, "pi")
        assert len(fixtures) > 250, (version, len(fixtures))
        assert {fixture.kind for fixture in fixtures} == {
            "valid-canonical",
            "accepted-noncanonical",
        }
