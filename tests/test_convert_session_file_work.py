"""Issue 19, section 4 ("Fast and flat"): the work of writing an Operator-Use session file from a
JSONL file of phi-core messages or clark-agent history rows, counted (never timed).

* A run that only counts its losses (no ``-v``, no JSON report, no ``--loss-report``) writes no
  loss pointer, in either step of clark-agent -> phi-core -> Operator-Use; a run that lists them
  writes each once, and lists exactly what converting the file whole lists (the stream's own
  tests compare every report form).
* The session file goes to ``AtomicFile`` as the writer's bytes, never as text decoded and
  encoded again.
* The message ids (``DerivedIds``) are ``derived_id``'s, byte for byte, the name's hash taken once.
* ``PlacedLosses`` writes a pointer only when its loss is read.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from command import run
from hypothesis import given
from hypothesis import strategies as st
from pydantic_core import to_json
from test_convert_session_file_stream import (  # noqa: F401 (fixtures: found by name)
    CLARK,
    PHI,
    TARGET,
    _file,
    small,
    streams,
)

import phi_wire.convert
import phi_wire.convert._fast as convert_fast
import phi_wire.convert._placed as convert_placed
import phi_wire.formats.operator_use._entries_from_phi as entries_from_phi
from phi_wire.convert import (
    VIA_HUB,
    AtomicFile,
    DerivedIds,
    Loss,
    PlacedLosses,
    derived_id,
    pointer_of,
)


def _counting_pointers(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every pointer written from a place (``pointer_of``, wherever a converter calls it)."""
    written: list[Any] = []
    real = convert_fast.pointer_of

    def counted(place: Any) -> str:
        written.append(place)
        return real(place)

    monkeypatch.setattr(convert_fast, "pointer_of", counted)
    monkeypatch.setattr(convert_placed, "pointer_of", counted)
    return written


@pytest.mark.usefixtures("small")
def test_a_run_that_counts_its_losses_writes_no_pointer(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    streams: list[bool],  # noqa: F811 (the fixture imported above)
) -> None:
    """clark-agent history -> Operator-Use, without -v: the first step's losses (two for every
    assistant row, at least) are counted, no pointer written (fails before: each loss was built
    with its pointer, then counted); with -v, each is written once, when listed."""
    path = _file(tmp_path, CLARK, 200_000)
    written = _counting_pointers(monkeypatch)
    code, _, err = run(
        capsys,
        "convert",
        "--from",
        "clark-agent",
        "--to",
        TARGET,
        str(path),
        "-o",
        str(tmp_path / "out.jsonl"),
    )
    assert code == 0, err
    assert "invented: phi-core requires model" in err  # the first step's losses, counted
    assert written == []

    code, _, err = run(
        capsys,
        "convert",
        "--from",
        "clark-agent",
        "--to",
        TARGET,
        str(path),
        "-o",
        str(tmp_path / "listed.jsonl"),
        "-v",
    )
    assert code == 0, err
    first_step = [  # the summary lines (a count, kind and reason) of the first step's losses
        int(found.group(1).replace(",", ""))
        for found in map(re.compile(r"phi-wire:   ([\d,]+) \w+: ").match, err.splitlines())
        if found is not None and VIA_HUB not in found.string
    ]
    assert len(first_step) > 3
    assert len(written) == sum(first_step)  # each written once, when listed
    assert (tmp_path / "listed.jsonl").read_bytes() == (tmp_path / "out.jsonl").read_bytes()
    assert streams == [True, True]


@pytest.mark.usefixtures("small")
@pytest.mark.parametrize("source", ["phi-core", "clark-agent"])
def test_the_session_file_is_written_as_the_writers_bytes(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    source: str,
) -> None:
    """Every piece of the streamed session file goes to ``AtomicFile.write_bytes``, none to
    ``write`` (text: decoded from the writer's bytes and encoded again; fails before: there was
    no bytes path), and the file is the one ``-o -`` writes."""
    path = _file(tmp_path, PHI if source == "phi-core" else CLARK, 200_000)
    pieces: list[str] = []
    real_write, real_bytes = AtomicFile.write, AtomicFile.write_bytes

    def write(self: AtomicFile, text: str) -> None:
        pieces.append("text")
        real_write(self, text)

    def write_bytes(self: AtomicFile, data: bytes) -> None:
        pieces.append("bytes")
        real_bytes(self, data)

    monkeypatch.setattr(AtomicFile, "write", write)
    monkeypatch.setattr(AtomicFile, "write_bytes", write_bytes)
    out = tmp_path / "out.jsonl"
    code, _, err = run(
        capsys, "convert", "--from", source, "--to", TARGET, str(path), "-o", str(out)
    )
    assert code == 0, err
    assert pieces and set(pieces) == {"bytes"}, pieces
    code, printed, err = run(capsys, "convert", "--from", source, "--to", TARGET, str(path))
    assert code == 0, err
    assert out.read_text("utf-8") == printed


_NAMES = st.one_of(
    st.sampled_from(["", "-", "in.jsonl", "caf\udce9.jsonl", "dir/\u00fc.jsonl"]), st.text()
)


@given(name=_NAMES, index=st.integers(min_value=0, max_value=10**9), content=st.text())
def test_derived_ids_are_derived_id(name: str, index: int, content: str) -> None:
    """The name's hash taken once, then each message's index and text (as text or its UTF-8
    bytes): the same uuid as ``derived_id``."""
    try:
        utf8 = content.encode()
    except UnicodeEncodeError:  # a lone surrogate: no phi-core text holds one
        return
    ids = DerivedIds(name)
    expected = derived_id(name, f"/{index}", content)
    assert ids.of(index, content) == expected
    assert ids.of(index, utf8) == expected


def test_placed_losses_write_a_pointer_only_when_its_loss_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Counted, none written; read, each written then, the same losses as built at once (and
    equal to their list)."""
    written = _counting_pointers(monkeypatch)
    losses = PlacedLosses()
    places: list[Any] = [(None, 3), ((None, 3), "a/b"), (((None, 3), "content"), 0), None]
    for place in places:
        losses.lose((place, "dropped", "r"))
    losses.lose(((None, 9), "changed", "s"))
    assert phi_wire.convert.loss_counts(losses) == {("dropped", "r"): 4, ("changed", "s"): 1}
    assert written == []
    expected = [Loss(pointer_of(place), "dropped", "r") for place in places]
    expected.append(Loss("/9", "changed", "s"))
    written.clear()
    assert list(losses) == expected
    assert [loss.pointer for loss in losses] == ["/3", "/3/a~1b", "/3/content/0", "", "/9"]
    assert losses[1] == expected[1] and losses == expected
    assert len(written) == 5 * 3 + 1  # read three times, and one by index


@given(st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers(0, 2**60)))
def test_a_timestamp_is_written_as_pydantic_core_writes_it(value: float) -> None:
    """An entry's timestamp (seconds: a phi-core time in milliseconds / 1000, or any float)
    written without pydantic-core where Python's ``repr`` writes the same."""
    seconds = value / 1000 if type(value) is int else value
    assert entries_from_phi._seconds_text(seconds) == to_json(seconds)
