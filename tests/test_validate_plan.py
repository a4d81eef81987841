"""A JSONL file's plan (the format its first lines have: runtime/validate/_plan.py) is made once
per run (issue 21, goal 1): what the run looks at before reading, to load or build the fast
paths its files need (``_fastpath.format_fast_paths``), is what reading the file then uses. It is
kept with the bytes it was made from, so that a head that does not start with them (a file
changed since, another file) is planned again: keeping it can save work, never change a plan.

The work is counted (the first lines parsed), not timed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import fixtures_root

from phi_wire.validate import _fastpath, _plan, validate
from phi_wire.validate._records import AUTO, Settings

PI = fixtures_root() / "pi" / "1.5.2"
CLARK = fixtures_root() / "clark-agent" / "0.4.0"
OPERATOR_USE = fixtures_root() / "operator-use" / "d0da87a6"


def lines_of(folder: Path) -> list[bytes]:
    return [
        line
        for path in sorted(folder.glob("*.jsonl"))
        for line in path.read_bytes().split(b"\n")
        if line.strip()
    ]


def pi_messages() -> list[bytes]:
    found = []
    for line in lines_of(PI / "sessions"):
        entry = json.loads(line)
        if entry.get("type") == "message":
            text = json.dumps(entry["message"], ensure_ascii=False, separators=(",", ":"))
            found.append(text.encode())
    return found


def session_file(folder: Path) -> bytes:
    """The corpus' biggest session file of a format."""
    return max((path.read_bytes() for path in folder.glob("*.jsonl")), key=len)


KINDS: dict[str, Callable[[], list[bytes]]] = {
    "pi messages": pi_messages,
    "pi events": lambda: lines_of(PI / "streams"),
    "clark-agent history": lambda: lines_of(CLARK / "history"),
    "Operator-Use messages": lambda: [
        json.dumps(json.loads(line)["message"], separators=(",", ":")).encode()
        for line in lines_of(OPERATOR_USE / "sessions")
        if json.loads(line).get("type") == "message"
    ],
    "phi-core events": lambda: lines_of(fixtures_root() / "phi-core" / "0.10.0" / "streams"),
}
"""JSONL files of each format's lines (cycled to the size a run looks at before reading)."""


def big_file(path: Path, lines: list[bytes]) -> Path:
    """``lines`` cycled until the file is big enough for the run to plan it before reading."""
    text = b"".join(line + b"\n" for line in lines)
    path.write_bytes(text * (_fastpath.FORMAT_BUILD_MIN_BYTES // len(text) + 1))
    return path


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bytes]]:
    """Every line the plans parse, in order."""
    parsed: list[bytes] = []
    parse = _plan.parse

    def counted(text: bytes) -> Any:
        parsed.append(text)
        return parse(text)

    monkeypatch.setattr(_plan, "parse", counted)
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", "")  # nothing built: the plans alone are counted
    yield parsed


def first_lines(path: Path) -> list[bytes]:
    """The lines a plan of ``path`` parses: its first ``HEAD_LINES`` lines."""
    with path.open("rb") as file:
        head = file.read(_plan.HEAD_BYTES)
    return [line for line in head.split(b"\n")[: _plan.HEAD_LINES] if line.strip()]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_file_is_planned_once_per_run(kind: str, tmp_path: Path, parses: list[bytes]) -> None:
    """A file big enough to be planned before the run reads it (to load its fast path) has its
    first lines parsed once, not once more when it is read (they were parsed twice before)."""
    path = big_file(tmp_path / "file.jsonl", KINDS[kind]())
    run = validate([str(path)])
    assert [record.text() for record in run if record.kind != "note"] == []
    assert parses == first_lines(path)
    parses.clear()
    assert not list(validate([str(path)])) and parses == first_lines(path)  # a new run: again


@pytest.mark.parametrize("options", [{}, {"format": "pi"}, {"format": "operator-use"}])
def test_a_session_file_is_planned_once_per_run(
    options: dict[str, str], tmp_path: Path, parses: list[bytes]
) -> None:
    """pi's and Operator-Use's session files (read whole once their first lines say so), with
    the format recognised or given."""
    format = options.get("format", "pi")
    folder = PI if format == "pi" else OPERATOR_USE
    head, *entries = session_file(folder / "sessions").split(b"\n")
    path = tmp_path / "session.jsonl"
    entry_lines = [line for line in entries if line.strip()]
    path.write_bytes(head + b"\n" + b"".join(line + b"\n" for line in entry_lines) * 2000)
    assert path.stat().st_size >= _fastpath.FORMAT_BUILD_MIN_BYTES
    run = validate([str(path)], **options)  # type: ignore[arg-type]
    list(run)
    assert run.files[0].layout == "session" and run.files[0].label.startswith(format)
    assert parses == first_lines(path)


def heads() -> dict[str, bytes]:
    """First lines of files of every kind, and files made from them: cut, changed, joined."""
    texts = {kind: b"".join(line + b"\n" for line in KINDS[kind]()) for kind in KINDS}
    found = dict(texts)
    found["pi session file"] = session_file(PI / "sessions")
    found["Operator-Use session file"] = session_file(OPERATOR_USE / "sessions")
    for kind, text in list(found.items()):
        lines = text.split(b"\n")
        found[f"{kind}, 3 lines"] = b"\n".join(lines[:3]) + b"\n"
        found[f"{kind}, cut in its first line"] = text[: len(lines[0]) // 2]
        found[f"{kind}, first line alone, no newline"] = lines[0]
        found[f"{kind}, first line broken"] = b"{" + text
        found[f"{kind}, blank lines first"] = b"\n\n" + text
    found["pi events then messages"] = texts["pi events"][:3000] + texts["pi messages"]
    found["empty"] = b""
    return found


@pytest.mark.parametrize(
    "settings",
    [
        Settings("0.10", None, False, 100, 1 << 27, AUTO),
        Settings("1.5", None, False, 100, 1 << 27, "pi"),
        Settings("1.5", "SessionFile", False, 100, 1 << 27, "pi"),
        Settings("d0da87a6", None, False, 100, 1 << 27, "operator-use"),
    ],
)
def test_a_kept_plan_is_the_plan_of_any_head_read_after_it(settings: Settings) -> None:
    """Whatever head a file has when it is read (the one it was planned from, longer, shorter,
    changed, another file's), its plan is the one its own first lines give."""
    found = heads()
    for first in found.values():
        for then in found.values():
            _plan.forget_plans()
            _plan.plan_file_lines("file.jsonl", first, settings)
            kept = _plan.plan_file_lines("file.jsonl", then, settings)
            assert kept == _plan.plan_lines(then, settings)
    _plan.forget_plans()


def test_what_is_kept_is_bounded(monkeypatch: pytest.MonkeyPatch, parses: list[bytes]) -> None:
    """Plans are kept with at most ``KEPT_PLAN_BYTES`` of first lines in all: a file past that is
    planned again when it is read, as before."""
    head = b"".join(line + b"\n" for line in pi_messages()[:100])
    settings = Settings("0.10", None, False, 100, 1 << 27, AUTO)
    used = sum(len(line) + 1 for line in head.split(b"\n")[: _plan.HEAD_LINES])
    monkeypatch.setattr(_plan, "KEPT_PLAN_BYTES", 2 * used)
    _plan.forget_plans()
    for name in ("a", "b", "c"):
        _plan.plan_file_lines(name, head, settings)
    parses.clear()
    for name in ("a", "b", "c"):
        _plan.plan_file_lines(name, head, settings)
    assert len(parses) == _plan.HEAD_LINES  # "c" only, which was not kept
    _plan.forget_plans()
