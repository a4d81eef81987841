"""The expressions a wheel ships (runtime/fastpath/_shipped.py): a fresh installation's first
``loads`` takes the fast path without compiling, and a shipped entry is judged exactly as a cached
one is: a forged, damaged or mismatched one is ignored, never trusted (issue 21, goal 2).

The entries are written here as the tool ``make wheel`` runs writes them (``tools/stage_package.py
--ship``: ``write_shipped``) into a folder of the test's, put in place of the package's own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pydantic
import pytest
from corpus import ROOT, fixtures_root
from test_fastpath_cache import deadline

import phi_wire.v0_8
from phi_wire.fastpath import _cache, _pattern, _shipped, document_expression
from phi_wire.serde import _shortcut

sys.path.insert(0, str(ROOT / "tools"))
try:
    from stage_package import stage
finally:
    sys.path.pop(0)

VERSION, TYPE = "0.8", "AgentEvent"
INSTALLED = bool(os.environ.get("PHI_WIRE_TEST_INSTALLED"))


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the tool writes (once: compiling takes a second or two per expression)."""
    folder = tmp_path_factory.mktemp("shipped")
    written = _shipped.write_shipped(folder)
    assert {path.name for path in written} == {path.name for path in folder.iterdir()}
    assert len(written) == len(_shipped.SHIPPED)
    return folder


@pytest.fixture
def shipped(made: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the made folder as the package's own, an empty cache, no fast path known to this
    process, and every build counted (none may happen)."""
    folder = tmp_path / "shipped-expressions"
    folder.mkdir()
    for entry in made.iterdir():
        (folder / entry.name).write_bytes(entry.read_bytes())
    monkeypatch.setattr(_shipped, "FOLDER", folder)
    monkeypatch.setenv("PHI_WIRE_SHIPPED_EXPRESSIONS", "1")
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", str(tmp_path / "empty cache"))
    monkeypatch.setattr(_shortcut, "SHORTCUTS", {})
    yield folder


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []
    monkeypatch.setattr(_pattern, "build_pattern", lambda *args: calls.append(args) or b"")
    return calls


def entry_of(folder: Path, version: str = VERSION) -> Path:
    name = _shipped.shipped_name(version, [TYPE], False, True)
    assert name is not None
    return folder / name


def first_lines(count: int) -> list[bytes]:
    stream = fixtures_root() / "phi-core" / "0.8.0" / "streams" / "events.main_session.jsonl"
    return stream.read_bytes().splitlines()[:count]


def fast_from_the_first_document() -> bool:
    """Whether a fresh process's first ``loads`` of an event took the fast path."""
    wire = phi_wire.v0_8
    first = first_lines(1)[0]
    wire.loads(wire.AgentEvent, first)
    return _shortcut.shortcut_for(wire.AgentEvent).fast is not None


def test_a_shipped_expression_serves_the_first_document_without_a_build(
    shipped: Path, builds: list[Any], tmp_path: Path
) -> None:
    """With an empty cache, the first document already takes the fast path, and nothing is
    compiled or written to the cache; the fast path agrees with the exact one."""
    assert fast_from_the_first_document()
    assert builds == []
    assert not (tmp_path / "empty cache").exists()
    wire = phi_wire.v0_8
    for line in first_lines(40):
        fast = _shortcut.vouched(wire.AgentEvent, line)
        assert fast is not _shortcut.NOT_VOUCHED
        _shortcut.ENABLED = False
        try:
            exact = wire.loads(wire.AgentEvent, line)
        finally:
            _shortcut.ENABLED = True
        assert fast == exact and wire.dumps(fast) == wire.dumps(exact)


def test_switched_off_the_shipped_expressions_are_not_used(
    shipped: Path, builds: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PHI_WIRE_SHIPPED_EXPRESSIONS", "0")
    assert not fast_from_the_first_document()
    assert document_expression(VERSION, TYPE, build=False) is None


def flip_last_code_byte(path: Path) -> None:
    data = path.read_bytes()
    at = len(data) - 33  # the code's last byte, before the digest
    path.write_bytes(data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :])


def dot_star_with_its_digest(path: Path) -> None:
    """A forgery of the shipped form, digest and key recomputed: only the probes stop it."""
    made = _cache.compiled_code(b"(?s).*")
    assert made is not None
    path.write_bytes(_cache.encode_entry(path, made.flags, made.groups, made.code))


def another_versions_entry(path: Path) -> None:
    """0.10's events expression moved to 0.8's name: the key inside it is 0.10's."""
    entry_of(path.parent, "0.10").replace(path)


def truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])


@pytest.mark.parametrize(
    "damage", [flip_last_code_byte, dot_star_with_its_digest, another_versions_entry, truncated]
)
def test_a_forged_or_damaged_shipped_entry_is_ignored(
    damage: Any, shipped: Path, builds: list[Any]
) -> None:
    damage(entry_of(shipped))
    assert _shipped.load_shipped(VERSION, [TYPE], False, True) is None
    assert not fast_from_the_first_document()
    # ... and what it would have vouched for is judged exactly
    wire = phi_wire.v0_8
    with pytest.raises(wire.WireError):
        wire.loads(wire.AgentEvent, b'{"type":"TurnStarx","nonsense":1}')


def test_an_entry_made_for_another_pydantic_is_not_used(
    shipped: Path, builds: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key holds pydantic's version (and pydantic-core's, the interpreter's, its engine's):
    an installation with another one looks for another file, which is not there."""
    monkeypatch.setattr(pydantic, "VERSION", pydantic.VERSION + ".other")
    assert not entry_of(shipped).exists()
    assert not fast_from_the_first_document()


def test_an_entry_made_from_other_sources_is_not_used(
    shipped: Path, builds: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key holds the digest of phi_wire's sources and the version's models: an entry made
    before a source changed is not found (by its old name) after."""
    old = entry_of(shipped)
    monkeypatch.setattr(_shipped, "sources_digest", lambda *args: b"other sources")
    assert entry_of(shipped) != old
    assert not fast_from_the_first_document()


def test_a_shipped_entry_comes_first_and_the_cache_is_not_read(
    shipped: Path, builds: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that finds its expression shipped looks at no cache (a fresh installation's
    has nothing: looking would only cost)."""
    looked: list[object] = []
    monkeypatch.setattr(_cache, "load_cached", lambda *args: looked.append(args))
    monkeypatch.setattr(_cache, "cache_path", lambda *args: looked.append(args))
    assert document_expression(VERSION, TYPE, build=False) is not None
    assert looked == [] and builds == []


def test_without_a_shipped_entry_the_cache_serves(
    shipped: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry_of(shipped).unlink()
    assert document_expression(VERSION, TYPE, build=True) is not None  # built into the cache
    built: list[object] = []
    monkeypatch.setattr(_pattern, "build_pattern", lambda *args: built.append(args) or b"")
    assert document_expression(VERSION, TYPE, build=False) is not None  # from the cache
    assert built == []


def test_an_entry_that_is_a_fifo_or_a_folder_is_ignored_without_waiting(shipped: Path) -> None:
    path = entry_of(shipped)
    path.unlink()
    os.mkfifo(path)
    with deadline(30):  # fails, rather than hangs, if the read waited for a writer
        assert _shipped.load_shipped(VERSION, [TYPE], False, True) is None
    path.unlink()
    path.mkdir()
    assert _shipped.load_shipped(VERSION, [TYPE], False, True) is None


def test_the_sources_are_named_alike_in_the_tree_and_the_wheel(tmp_path: Path) -> None:
    """The key names each source by its place in its package, never by its path: the package
    laid out as the wheel lays it (its version packages inside it) digests the same."""
    staged = tmp_path / "wheel layout"  # real files, as a wheel installs them (no links)
    shutil.copytree(stage(tmp_path / "staged"), staged, symlinks=False)
    script = (
        "import sys; from phi_wire.fastpath import _cache; "
        "sys.stdout.write(_cache.sources_digest('0.8').hex())"
    )
    there = subprocess.run(
        [sys.executable, "-c", script],
        env=dict(os.environ, PYTHONPATH=str(staged)),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert there == _cache.sources_digest("0.8").hex()


@pytest.mark.skipif(not INSTALLED, reason="needs the installed wheel (make test)")
def test_the_wheel_ships_its_builders_expressions(monkeypatch: pytest.MonkeyPatch) -> None:
    """``make test`` builds the wheel with the Python that tests it: its entries are found and
    pass every check."""
    monkeypatch.setenv("PHI_WIRE_SHIPPED_EXPRESSIONS", "1")
    assert _shipped.FOLDER.is_dir()
    for version, name in _shipped.SHIPPED:
        assert _shipped.load_shipped(version, [name], False, True) is not None, version
