"""What ``phi-wire convert`` imports before its first line (issue 19, "Fast and flat"): a file
the dict converters convert whole imports the modules they use, not the models of any format,
pydantic's model machinery or the engine (``phi_wire.serde``). Each run
pays for its imports (a third of a second on main, against 0.8 s for a JSON round trip of 30 MB),
so they are counted here, in a fresh process started as the command starts, through the command
line's entry (``phi_wire.cli.main``)."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_convert_fast import corpus_lines

from phi_wire.cli import main
from phi_wire.convert._fast import FAST_MIN_BYTES

MODELS_AND_ENGINE = (
    "pydantic.main",
    "phi_wire.base",
    "phi_wire.serde",
    "phi_wire.v0_8",
    "phi_wire.v0_10",
    "phi_wire.clark_agent",
    "phi_wire.operator_use",
    "phi_wire.operator_use_d1cdaad8",
    "phi_wire.pi_0_73",
    "phi_wire.pi_1_5",
    "phi_wire.otel_genai_2026_05",
    "phi_wire.otel_genai_2b902ce1",
)
"""What a fast conversion needs none of: the generated models (and their base), pydantic's
``BaseModel`` (pydantic-core, which reads and writes the JSON, is needed) and the engine."""

_RUN = """
import json, sys
from phi_wire.cli import main
status = main(sys.argv[2:])
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump({"status": status, "modules": sorted(sys.modules)}, out)
"""

CASES = [("clark-agent", "phi-core"), ("phi-core", "clark-agent")]
"""(source, target) of the directions whose fast conversion imports no model."""


def _input(folder: Path, source: str) -> Path:
    """A JSONL file of ``source``'s rows as their implementation writes them, past
    ``FAST_MIN_BYTES``: clark-agent's, the corpus' written history rows without a null (a null
    may be one the reader reads as absent: its models are read to tell) or reasoning details
    (their carrier takes the model path on the way back), repeated; phi-core's, those rows
    converted by the command (as phi-core writes them)."""
    lines = [
        line
        for line in corpus_lines("clark-agent", ("0.4.0",), {"AgentMessage"}, jsonl_only=True)
        if b'":null' not in line and b'"reasoning_details"' not in line
    ]
    assert len(lines) >= 10
    text = b"\n".join(lines) + b"\n"
    history = folder / "history.jsonl"
    history.write_bytes(text * (FAST_MIN_BYTES // len(text) + 2))
    if source == "clark-agent":
        return history
    messages = folder / "messages.jsonl"
    arguments = ["convert", "--from", "clark-agent", "--to", source, str(history)]
    with contextlib.redirect_stderr(io.StringIO()):
        assert main([*arguments, "-o", str(messages)]) == 0
    return messages


def imported(tmp_path: Path, arguments: list[str]) -> tuple[int, list[str]]:
    """The exit status of ``phi-wire ARGUMENTS`` run in a fresh process, and the modules it
    imported."""
    report = tmp_path / "modules.json"
    subprocess.run(
        [sys.executable, "-c", _RUN, str(report), *arguments], check=True, capture_output=True
    )
    found = json.loads(report.read_text("utf-8"))
    return found["status"], found["modules"]


def heavy(modules: list[str]) -> list[str]:
    return [
        name
        for name in modules
        if any(name == root or name.startswith(root + ".") for root in MODELS_AND_ENGINE)
    ]


@pytest.mark.parametrize(("source", "target"), CASES)
def test_a_fast_conversion_imports_no_model(tmp_path: Path, source: str, target: str) -> None:
    """The second run of a conversion (the first builds the fast path's expression and caches
    it: building reads the models) imports none of ``MODELS_AND_ENGINE``, and writes what the
    first wrote."""
    given = _input(tmp_path, source)
    arguments = ["convert", "--from", source, "--to", target, str(given)]
    first_status, _ = imported(tmp_path, [*arguments, "-o", str(tmp_path / "first.jsonl")])
    status, modules = imported(tmp_path, [*arguments, "-o", str(tmp_path / "second.jsonl")])
    assert first_status == status == 0
    assert (tmp_path / "first.jsonl").read_bytes() == (tmp_path / "second.jsonl").read_bytes()
    assert heavy(modules) == [], heavy(modules)
    assert "pydantic_core" in modules and "phi_wire.fastpath" in modules  # what it does use


def test_the_models_are_imported_where_a_line_needs_them(tmp_path: Path) -> None:
    """The same input with one row the dict converter hands back (no timestamp: the reader
    stamps the time of reading) takes the model path for that row: the models are imported
    then, and the losses of reading are named as before."""
    given = _input(tmp_path, "clark-agent")
    row = b'{"role":"user","content":"no timestamp"}\n'
    given.write_bytes(given.read_bytes() + row)
    arguments = ["convert", "--from", "clark-agent", "--to", "phi-core", str(given), "-v"]
    imported(tmp_path, [*arguments, "-o", str(tmp_path / "first.jsonl")])  # builds the cache
    status, modules = imported(tmp_path, [*arguments, "-o", str(tmp_path / "out.jsonl")])
    assert status == 0
    assert "phi_wire.clark_agent" in modules and "phi_wire.v0_10" in modules


def test_the_package_gives_every_public_name(tmp_path: Path) -> None:
    """``phi_wire.convert``'s names are imported when first used: each one its ``__all__``
    lists is there, ``dir()`` lists them, an unknown one is an ``AttributeError``, and importing
    the package alone imports no model."""
    script = """
import json, sys
import phi_wire.convert as pc
before = sorted(sys.modules)
missing = [name for name in pc.__all__ if getattr(pc, name, None) is None]
try:
    pc.no_such_name
    unknown = False
except AttributeError as error:
    unknown = "no_such_name" in str(error)
listed = sorted(set(pc.__all__) - set(dir(pc)))
print(json.dumps({"before": before, "missing": missing, "listed": listed, "unknown": unknown}))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True
    )
    found = json.loads(done.stdout)
    assert found["missing"] == [] and found["listed"] == [] and found["unknown"]
    assert heavy(found["before"]) == []
