"""The fast path's cache (runtime/fastpath/_cache.py, _private.py) can never change a verdict.

Each attack of issue 10's defect 20 is played here: an entry replaced by the compiled form of
``(?s).*``, a one-byte change, a folder another user owns, a group- or world-writable folder, a
symlinked folder or entry, a crafted header asking for huge allocations, a huge or truncated
entry, an interpreter without CPython's ``_sre`` (or with other internals). Every one must end in
the same verdicts as without a cache: the entry is refused and the expression rebuilt or left out.
"""

from __future__ import annotations

import array
import contextlib
import hashlib
import os
import signal
import stat
import subprocess
import sys
import threading
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from corpus import ROOT

from phi_wire.cli import main
from phi_wire.fastpath import _cache, _private
from phi_wire.validate import _fastpath, validate
from phi_wire.validate._fastpath import fast_path

if sys.implementation.name != "cpython":  # pragma: no cover - the cache is CPython's alone
    pytest.skip("the compiled-code cache exists on CPython only", allow_module_level=True)

import _sre
from re import _compiler, _constants, _parser  # type: ignore[attr-defined]

VERSION = "0.8"
TYPES = ["Usage"]  # a small expression: each test builds its own in a fraction of a second
VALID = b'{"input":1,"output":2,"reasoning":0,"cache_read":0,"cache_write":0,"total_tokens":3}'


@pytest.fixture(autouse=True)
def cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh cache folder per test, and no fast path remembered from an earlier test."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", str(folder))
    monkeypatch.setattr(_fastpath, "_FAST", {})
    return folder


def entry() -> Path:
    path = _cache.cache_path(VERSION, TYPES, False)
    assert path is not None
    return path


def built_entry() -> Path:
    """The cache entry of ``TYPES``, written by a build (what every test attacks)."""
    built = fast_path(VERSION, TYPES, None, build=True)
    assert built is not None and built.unmatched(VALID) == []
    path = entry()
    assert path.is_file()
    return path


def loaded() -> _fastpath.FastPath | None:
    """What a run that does not build (a small input) takes from the cache."""
    return fast_path(VERSION, TYPES, None, build=False)


def code_bytes(code: list[int]) -> bytes:
    return array.array("I" if _sre.CODESIZE == 4 else "H", code).tobytes()


def compiled_form(pattern: bytes) -> tuple[int, int, list[int]]:
    tree = _parser.parse(pattern, 0)
    return tree.state.flags, tree.state.groups, _compiler._code(tree, 0)


def unversioned_entry(flags: int, groups: int, code: bytes) -> bytes:
    """An entry in the layout phi-wire wrote before it checked its entries (no key, no digest):
    what the issue's reproducer wrote."""
    return b"phi-wire fast path 1\n" + f"{flags} {groups}\n".encode() + code


def verdicts(tmp_path: Path, *documents: bytes) -> list[int]:
    """The lines ``validate()`` (with --type Usage) reports as invalid."""
    sample = tmp_path / "sample.jsonl"
    sample.write_bytes(b"\n".join(documents) + b"\n")
    return sorted(
        {record.line for record in validate([str(sample)], version=VERSION, type="Usage")}
    )


# --- the entry's content ---------------------------------------------------------------------


def forge_unversioned(path: Path, pattern: bytes) -> None:
    flags, groups, code = compiled_form(pattern)
    path.write_bytes(unversioned_entry(flags, groups, code_bytes(code)))


def forge_with_digest(path: Path, pattern: bytes) -> None:
    """A forgery in today's layout, key and digest recomputed (only the user can write the
    folder, and the user can do anything: the sanity probe still refuses this gross one)."""
    flags, groups, code = compiled_form(pattern)
    path.write_bytes(_cache.encode_entry(path, flags, groups, code_bytes(code)))


@pytest.mark.parametrize("forge", [forge_unversioned, forge_with_digest])
def test_an_entry_replaced_by_dot_star_vouches_for_nothing(
    forge: Callable[[Path, bytes], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    forge(built_entry(), b"(?s).*")
    assert verdicts(tmp_path, b"not json at all", VALID) == [1]
    _fastpath._FAST.clear()
    sample = tmp_path / "sample.jsonl"
    assert main(["validate", "--version", VERSION, "--type", "Usage", str(sample)]) == 1
    assert "sample.jsonl:1" in capsys.readouterr().out


def test_a_one_byte_change_in_the_code_lets_nothing_through(tmp_path: Path) -> None:
    """The issue's one-byte change: the code's first literal ``{`` made an ``x``, so that an
    event starting with ``x`` matched."""
    path = built_entry()
    data = path.read_bytes()
    literal = code_bytes([int(_constants.LITERAL), ord("{")])
    assert literal in data
    path.write_bytes(data.replace(literal, code_bytes([int(_constants.LITERAL), ord("x")]), 1))
    assert verdicts(tmp_path, b"x" + VALID[1:], VALID) == [1]


def test_any_one_byte_change_is_refused() -> None:
    path = built_entry()
    data = path.read_bytes()
    assert loaded() is not None
    for index in range(len(data)):
        path.write_bytes(data[:index] + bytes([data[index] ^ 0x01]) + data[index + 1 :])
        assert _cache.load_cached(path, VERSION, TYPES) is None, (
            f"byte {index} changed, entry still loaded"
        )


@pytest.mark.parametrize("keep", [0.0, 0.5, 0.999, -4, -1])
def test_a_truncated_entry_is_refused(keep: float) -> None:
    path = built_entry()
    data = path.read_bytes()
    cut = int(len(data) * keep) if isinstance(keep, float) else len(data) + keep
    path.write_bytes(data[:cut])
    assert _cache.load_cached(path, VERSION, TYPES) is None
    rebuilt = fast_path(VERSION, TYPES, None, build=True)
    assert rebuilt is not None and rebuilt.unmatched(VALID) == []
    assert path.read_bytes() == data  # and the rebuild wrote a sound entry again


def test_an_entry_of_other_types_moved_into_place_is_refused() -> None:
    """Each entry carries its own key: one renamed to another's name is refused."""
    other = _cache.cache_path(VERSION, ["TextContent"], False)
    assert other is not None and fast_path(VERSION, ["TextContent"], None, build=True) is not None
    path = entry()
    other.replace(path)
    assert _cache.load_cached(path, VERSION, TYPES) is None


@contextlib.contextmanager
def bounded_memory() -> Iterator[None]:
    """Loading must allocate little, whatever the entry says (the expression of ``TYPES`` holds
    some 1.5 kB of code)."""
    tracemalloc.start()
    try:
        yield
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 1024 * 1024, f"peak {peak / 1e6:.0f} MB"


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail, rather than hang, when what runs inside blocks (an open waiting on a FIFO)."""

    class Blocked(BaseException):  # not an OSError: no ``except OSError`` may swallow it
        pass

    def expire(signum: int, frame: object) -> None:
        raise Blocked(f"still blocked after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_an_unversioned_header_asking_for_many_groups_allocates_nothing() -> None:
    """The issue's crafted header (groups = 10**9 allocated 18.8 GB; 10**7 here, 80 MB, so that
    the old code's failure is survivable)."""
    path = built_entry()
    flags, _, code = compiled_form(b"a")
    path.write_bytes(unversioned_entry(flags, 10**7, code_bytes(code)))
    with bounded_memory():
        assert _cache.load_cached(path, VERSION, TYPES) is None


@pytest.mark.parametrize(
    "header",
    [{"groups": 10**9}, {"groups": 0}, {"flags": 1 << 20}, {"length": 1 << 60}, {"length": 3}],
)
def test_a_crafted_header_with_a_valid_digest_allocates_nothing(header: dict[str, int]) -> None:
    path = built_entry()
    flags, groups, code = compiled_form(b"a")
    body = code_bytes(code)
    fields = {"flags": flags, "groups": groups, "length": len(body)} | header
    key = bytes.fromhex(path.stem.removeprefix("fast-"))
    head = _cache._MAGIC + _cache._HEADER.pack(
        key, fields["flags"], fields["groups"], _sre.CODESIZE, fields["length"]
    )
    path.write_bytes(head + body + hashlib.sha256(head + body).digest())
    with bounded_memory():
        assert _cache.load_cached(path, VERSION, TYPES) is None


def test_a_huge_entry_is_never_read() -> None:
    path = built_entry()
    with path.open("r+b") as handle:  # sparse: no disk used
        handle.truncate(256 * 1024 * 1024)
    with bounded_memory():
        assert _cache.load_cached(path, VERSION, TYPES) is None


# --- the folder and the file -------------------------------------------------------------------


def test_a_folder_another_user_owns_is_not_used(
    monkeypatch: pytest.MonkeyPatch, cache_folder: Path
) -> None:
    """Whoever creates $PHI_WIRE_CACHE_DIR first owns it: seen from another uid, it is theirs."""
    built_entry()
    before = sorted(cache_folder.iterdir())
    uid = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: uid + 1)
    assert loaded() is None
    rebuilt = fast_path(VERSION, TYPES, None, build=True)
    assert rebuilt is not None and rebuilt.unmatched(VALID) == []
    assert sorted(cache_folder.iterdir()) == before  # nothing written into their folder


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o702, 0o1777])
def test_a_folder_others_can_write_is_not_used(mode: int, cache_folder: Path) -> None:
    path = built_entry()
    cache_folder.chmod(mode)
    try:
        assert loaded() is None
        path.with_suffix(".none").write_bytes(b"")  # nor is a marker found there
        assert fast_path(VERSION, TYPES, None, build=True) is not None
    finally:
        cache_folder.chmod(0o700)


def test_a_symlinked_folder_is_not_used(
    tmp_path: Path, cache_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built_entry()
    link = tmp_path / "link"
    link.symlink_to(cache_folder)
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", str(link))
    assert loaded() is None


def test_an_entry_that_is_a_symlink_is_not_followed(tmp_path: Path) -> None:
    path = built_entry()
    elsewhere = tmp_path / "elsewhere.bin"
    path.replace(elsewhere)
    path.symlink_to(elsewhere)
    assert loaded() is None


@pytest.mark.parametrize("mode", [0o666, 0o620, 0o602])
def test_an_entry_others_can_write_is_not_used(mode: int) -> None:
    path = built_entry()
    path.chmod(mode)
    assert loaded() is None


def test_an_entry_that_is_a_folder_or_a_fifo_is_not_used() -> None:
    path = built_entry()
    path.unlink()
    os.mkfifo(path, 0o600)
    with deadline(5):  # opening it for reading must not wait for a writer
        assert loaded() is None
    path.unlink()
    path.mkdir(mode=0o700)
    assert loaded() is None


@pytest.mark.parametrize("umask", [0o022, 0o000, 0o002, 0o077, 0o777])
def test_the_folder_is_created_private_whatever_the_umask(umask: int, cache_folder: Path) -> None:
    previous = os.umask(umask)
    try:
        built_entry()
    finally:
        os.umask(previous)
    assert stat.S_IMODE(cache_folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(entry().stat().st_mode) == 0o600


def test_an_owned_folder_readable_by_others_is_made_private(cache_folder: Path) -> None:
    cache_folder.mkdir(mode=0o755)
    cache_folder.chmod(0o755)
    built_entry()
    assert stat.S_IMODE(cache_folder.stat().st_mode) == 0o700
    assert loaded() is not None


# --- other interpreters ------------------------------------------------------------------------


def test_without_sre_the_expression_is_compiled_and_not_cached(
    monkeypatch: pytest.MonkeyPatch, cache_folder: Path
) -> None:
    monkeypatch.setitem(sys.modules, "_sre", None)  # importing it fails
    built = fast_path(VERSION, TYPES, None, build=True)
    assert built is not None and built.unmatched(VALID) == [] and built.unmatched(b"{}") == [0]
    assert not cache_folder.exists() or not any(cache_folder.iterdir())


@pytest.mark.parametrize("missing", ["MAGIC", "CODESIZE", "compile"])
def test_an_sre_without_what_the_cache_needs(
    missing: str, monkeypatch: pytest.MonkeyPatch, cache_folder: Path
) -> None:
    built_entry()  # an entry is there: it is not read without the engine's identity
    if missing == "compile":  # re.compile itself calls it: the engine is faked instead
        fake = type(sys)("_sre")
        fake.MAGIC, fake.CODESIZE = _sre.MAGIC, _sre.CODESIZE
        monkeypatch.setitem(sys.modules, "_sre", fake)
    else:
        monkeypatch.delattr(_sre, missing)
    assert loaded() is None
    built = fast_path(VERSION, TYPES, None, build=True)
    assert built is not None and built.unmatched(VALID) == [] and built.unmatched(b"{}") == [0]


def test_an_engine_with_other_signatures_falls_back(
    monkeypatch: pytest.MonkeyPatch, cache_folder: Path
) -> None:
    built_entry()
    engine = _cache._engine()
    assert engine is not None

    def refuse(*args: object) -> object:
        raise TypeError("compile() takes 7 arguments")

    monkeypatch.setattr(_cache, "_engine", lambda: engine._replace(compile=refuse))
    assert loaded() is None
    built = fast_path(VERSION, TYPES, None, build=True)
    assert built is not None and built.unmatched(VALID) == [] and built.unmatched(b"{}") == [0]
    monkeypatch.setattr(_cache, "_engine", lambda: engine._replace(parse=refuse))
    built = fast_path(VERSION, TYPES, None, build=True)
    assert built is not None and built.unmatched(VALID) == []


def test_a_sound_entry_is_loaded_and_agrees_with_the_build() -> None:
    """The cache still works: what it loads judges as the freshly built expression does."""
    built = fast_path(VERSION, TYPES, None, build=True)
    again = loaded()
    assert built is not None and again is not None and again is not built
    for document in (VALID, b"{}", b"x" + VALID[1:], VALID + b"\n" + VALID, b"not json"):
        assert again.unmatched(document) == built.unmatched(document)


# --- the end of the interpreter (a build on a daemon thread may be writing) -----------------------


@pytest.fixture
def writes_open(monkeypatch: pytest.MonkeyPatch) -> None:
    """``stop_writes`` may be called: the cache writes again after the test."""
    monkeypatch.setattr(_private, "_stopped", False)


def test_after_stop_writes_nothing_is_written(writes_open: None, cache_folder: Path) -> None:
    _private.stop_writes()
    built = fast_path(VERSION, TYPES, None, build=True)
    assert built is not None and built.unmatched(VALID) == []  # built, only not kept
    assert not entry().exists()
    assert not [path for path in cache_folder.iterdir() if path.name.startswith(".tmp")]


def test_stop_writes_lets_a_write_under_way_finish(
    writes_open: None, cache_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inside, go_on = threading.Event(), threading.Event()
    write = _private.PrivateFolder._write

    def held(self: _private.PrivateFolder, name: str, data: bytes) -> None:
        inside.set()
        assert go_on.wait(60)
        write(self, name, data)

    monkeypatch.setattr(_private.PrivateFolder, "_write", held)
    writer = threading.Thread(target=fast_path, args=(VERSION, TYPES, None, True))
    writer.start()
    assert inside.wait(60)
    stopper = threading.Thread(target=_private.stop_writes)
    stopper.start()
    stopper.join(0.2)
    assert stopper.is_alive()  # it cannot return while the write holds the lock
    go_on.set()
    stopper.join(60)
    writer.join(60)
    assert entry().is_file()
    assert not [path for path in cache_folder.iterdir() if path.name.startswith(".tmp")]


def test_stop_writes_waits_a_bounded_time(
    writes_open: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that hangs (a stalled file system) does not hang the exit."""
    monkeypatch.setattr(_private, "STOP_WAIT", 0.05)
    assert _private._writes.acquire()  # a write under way that never ends
    try:
        stopper = threading.Thread(target=_private.stop_writes)
        stopper.start()
        stopper.join(60)
        assert not stopper.is_alive() and _private._stopped
    finally:
        _private._writes.release()


# --- what a loaded expression must do before use (issue 17, defect 13) ---------------------------

AUTO_VERSION = "0.10"
TURN_START = (
    '{"type":"TurnStart","loop_id":"l","turn_index":0,"timestamp":"2026-05-25T09:41:07Z",'
    '"triggered_by":"User"}'
)
NEAR_MISSES = (
    b'{"type":"TurnStarx","nonsense":1}',  # the issue's: an unknown tag
    TURN_START.replace('"turn_index":0', '"turn_index":"0"').encode(),  # a wrong type
)
_LINES_END = rb"\r?(?:\n|\Z))*+"


def auto_entry() -> Path:
    """The entry of ``validate``'s own expression for JSONL lines (AgentEvent, AgentMessage)."""
    path = _cache.cache_path(AUTO_VERSION, _fastpath.AUTO_LINE_TYPES, True)
    assert path is not None
    return path


@pytest.fixture(scope="module")
def auto_document() -> bytes:
    """The expression of one document of ``validate``'s JSONL lines (built once: two seconds)."""
    from phi_wire.fastpath._pattern import build_pattern
    from phi_wire.formats.phi_core.recognise import detected_as

    pattern = build_pattern(AUTO_VERSION, _fastpath.AUTO_LINE_TYPES, detected_as)
    assert pattern.startswith(b"(?:") and pattern.endswith(_LINES_END)
    return pattern[3 : -len(_LINES_END)]


def lines_of(document: bytes) -> bytes:
    return b"(?:" + document + _LINES_END


FORGERIES = {
    "the issue's \\{(?s:.)*": lambda genuine: rb"\{(?s:.)*",
    "any object with a type": lambda genuine: lines_of(rb'\{"type":[^\n]*'),
    "any tag": lambda genuine: lines_of(rb'\{"type":"[A-Za-z]+"[^\n]*'),
    "a variant whose fields take anything": lambda genuine: lines_of(
        b"(?:" + genuine + rb'|\{"type":"TurnStart",[^\n]*)'
    ),
    "a message of any role": lambda genuine: lines_of(
        b"(?:" + genuine + rb'|\{"content":\[[^\n]*)'
    ),
    "another type's expression": lambda genuine: lines_of(rb'\{"input":[0-9]+[^\n]*'),
    "one that matches nothing": lambda genuine: rb"(?!)",
}


@pytest.mark.parametrize("forgery", FORGERIES)
def test_a_forged_entry_with_a_recomputed_digest_is_refused(
    forgery: str, auto_document: bytes, tmp_path: Path
) -> None:
    """Issue 17, defect 13: the entry of ``validate``'s JSONL expression rewritten as the code
    of ``\\{(?s:.)*``, digest recomputed, made ``{"type":"TurnStarx","nonsense":1}`` valid. Now
    the loaded expression must first accept real documents and reject near-misses (an unknown
    tag, a wrong type in a variant, a message of an unknown role): each forgery is refused, and
    the verdicts are those of ``loads``."""
    genuine = fast_path_for_lines(build=True)
    assert genuine is not None and genuine.unmatched(b"\n".join(NEAR_MISSES) + b"\n") == [0, 34]
    forge_with_digest(auto_entry(), FORGERIES[forgery](auto_document))
    sample = tmp_path / "events.jsonl"
    valid = (ROOT / "examples" / "events.jsonl").read_bytes().splitlines()[1]
    sample.write_bytes(b"\n".join([*NEAR_MISSES, valid]) + b"\n")
    _fastpath._FAST.clear()
    reported = {record.line for record in validate([str(sample)], version=AUTO_VERSION)}
    assert reported == {1, 2}, reported
    _fastpath._FAST.clear()
    assert fast_path_for_lines(build=False) is None


def fast_path_for_lines(build: bool) -> _fastpath.FastPath | None:
    return _fastpath.fast_path_for(AUTO_VERSION, None, build=build)


@pytest.mark.parametrize("version", ["0.8", "0.10"])
@pytest.mark.parametrize("lines", [True, False], ids=["JSONL lines", "whole documents"])
def test_the_genuine_automatic_entries_are_loaded(version: str, lines: bool) -> None:
    """The probes pass the expressions they guard: validate's own, loaded from their entries
    (each type's alone is checked by ``tools/fastpath_probes.py`` as it writes them)."""
    built = _fastpath.fast_path_for(version, None, build=True, lines=lines)
    _fastpath._FAST.clear()
    again = _fastpath.fast_path_for(version, None, build=False, lines=lines)
    assert built is not None and again is not None and again is not built


def test_the_probes_are_what_the_tool_writes() -> None:
    """``runtime/fastpath/probes.json`` is ``tools/fastpath_probes.py``'s output from examples/
    (each rejected text with the types that read it, computed by ``loads``)."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "fastpath_probes.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def test_the_probes_cover_every_version_and_the_automatic_types() -> None:
    from phi_wire.fastpath._probes import probes_for
    from phi_wire.formats import versions

    for entry in versions("phi-core"):
        probes = probes_for(entry.version, [*_fastpath.AUTO_LINE_TYPES, "Session", "Usage"])
        assert len(probes.accepted) >= 10 and len(probes.rejected) >= 100, entry
        events = probes_for(entry.version, ["AgentEvent"])
        assert NEAR_MISSES[0] in events.rejected  # the issue's
        for document in events.accepted:  # each variant has near-misses of its own
            tag = document[: document.index(b",")]
            assert sum(text.startswith(tag + b",") for text in events.rejected) >= 3, tag
