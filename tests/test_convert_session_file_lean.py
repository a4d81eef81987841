"""Issue 19, "Fast and flat": clark-agent history written as an Operator-Use session file (its
worst direction, 0.42x a JSON round trip on main) does each message's work once. Counted, in a
run streamed a batch at a time (``_session_file_stream``), whose output and losses the tests of
``test_convert_session_file_stream`` compare with the whole-input path's:

* the free-form values clark-agent's step to phi-core sorted and checked (tool-call arguments, a
  custom message's payload, a system message's text and time) are not walked again by the
  writer (``checked_free``): on main each extension message's data was;
* the seed of the header's id (every message's id) is hashed once per batch, not once per
  message (``DerivedId.add_lines``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from command import run
from test_convert_session_file_stream import (  # noqa: F401 (fixtures: found by name)
    CLARK,
    TARGET,
    _file,
    small,
    streams,
)

import phi_wire.formats.operator_use._entries_from_phi as entries_from_phi
from phi_wire.convert import DerivedId


def _converted(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> int:
    """The clark-agent lines of the stream tests, past 200 kB, converted; how many lines."""
    path = _file(tmp_path, CLARK, 200_000)
    out = tmp_path / "out.jsonl"
    code, _, err = run(
        capsys, "convert", "--from", "clark-agent", "--to", TARGET, str(path), "-o", str(out)
    )
    assert code == 0, err
    return len(path.read_bytes().splitlines())


@pytest.mark.usefixtures("small")
def test_the_first_steps_free_values_are_not_walked_again(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    """No free-form value is checked by the writer (fails on main: once per extension
    message, the input's system and custom rows)."""
    streamed: list[bool] = request.getfixturevalue("streams")
    walked: list[Any] = []
    real = entries_from_phi.checked_free

    def counted(value: Any) -> None:
        walked.append(value)
        real(value)

    monkeypatch.setattr(entries_from_phi, "checked_free", counted)
    _converted(capsys, tmp_path)
    assert streamed == [True]
    assert b'"role":"system"' in b"\n".join(CLARK)  # there are extension messages to walk
    assert walked == []


@pytest.mark.usefixtures("small")
def test_the_headers_seed_is_hashed_once_a_batch(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    """The messages' ids go into the header's hash in one update per batch of 7 lines (fails
    on main: one ``add`` per message, as many as the lines)."""
    streamed: list[bool] = request.getfixturevalue("streams")
    updates: list[int] = []
    real_add = DerivedId.add
    real_lines = getattr(DerivedId, "add_lines", None)  # main had none

    def add(seed: DerivedId, line: bytes) -> None:
        updates.append(1)
        real_add(seed, line)

    def add_lines(seed: DerivedId, lines: list[bytes]) -> None:
        updates.append(len(lines))
        assert real_lines is not None
        real_lines(seed, lines)

    monkeypatch.setattr(DerivedId, "add", add)
    monkeypatch.setattr(DerivedId, "add_lines", add_lines, raising=False)
    lines = _converted(capsys, tmp_path)
    assert streamed == [True]
    assert len(updates) <= lines // 7 + 2, (len(updates), lines)
    assert sum(updates) > lines // 2  # every message's id is in it (tool results join some)
