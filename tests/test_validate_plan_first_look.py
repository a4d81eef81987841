"""A file is planned before reading from a first look at its head (``_fastpath.FIRST_LOOK_BYTES``),
and reads the rest of ``_plan.HEAD_BYTES`` only when its first lines do not decide the plan
(issue 21, goal 1: a megabyte read into fresh pages for 70 kB of pi's messages). The plan is the
one a whole head gives; the bytes read are counted, not timed."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import IO, Any

import pytest
from test_validate_plan import pi_messages

from phi_wire.validate import _fastpath, _plan
from phi_wire.validate._records import AUTO, Settings

RUN = Settings("0.10", None, False, 10, 1 << 27, AUTO)


def planned_reading(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, int]:
    """``_fastpath._planned`` of a file: its plan, and the bytes it read of the file."""
    read = {"bytes": 0}

    class Counted:
        def __init__(self, file: IO[bytes]) -> None:
            self.file = file

        def __enter__(self) -> Counted:
            return self

        def __exit__(self, *_: object) -> None:
            self.file.close()

        def read(self, size: int = -1) -> bytes:
            data = self.file.read(size)
            read["bytes"] += len(data)
            return data

    def counted_open(name: str, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        return Counted(builtins.open(name, mode, *args, **kwargs))

    _plan.forget_plans()
    monkeypatch.setattr(_fastpath, "open", counted_open, raising=False)
    try:
        return _fastpath._planned(str(path), RUN), read["bytes"]
    finally:
        monkeypatch.undo()
        _plan.forget_plans()


def test_a_file_whose_first_lines_fit_is_read_no_further(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "messages.jsonl"
    messages = pi_messages()
    path.write_bytes(b"\n".join(messages * (2_000_000 // sum(map(len, messages)) + 1)) + b"\n")
    plan, read = planned_reading(path, monkeypatch)
    assert plan == ("pi", "1.5", "AgentMessage")
    assert read == _fastpath.FIRST_LOOK_BYTES
    whole_head = _plan.plan_lines(path.read_bytes()[: _plan.HEAD_BYTES], RUN)
    assert whole_head is not None and whole_head.type == "AgentMessage"


def test_a_file_of_long_first_lines_is_planned_from_the_whole_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """64 lines past the first look: the rest of the head is read, and the plan is the whole
    head's, which a line past the first look decides (pi's, after 20 lines of another shape)."""
    path = tmp_path / "long.jsonl"
    filler = b'{"x":"' + b"y" * 10_000 + b'"}'
    messages = pi_messages()
    path.write_bytes(b"\n".join([filler] * 20 + messages * 200) + b"\n")
    plan, read = planned_reading(path, monkeypatch)
    assert read == _plan.HEAD_BYTES
    expected = _plan.plan_lines(path.read_bytes()[: _plan.HEAD_BYTES], RUN)
    assert expected is not None and expected.format == "pi"
    assert plan == ("pi", "1.5", expected.type)
