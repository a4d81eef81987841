"""The phi-wire command line (tools/cli.py): exit codes, messages, schema and types output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from corpus import fixtures_root

from phi_wire.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_sample_data_is_valid(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(ROOT / "examples")]) == 0
    assert "0 invalid" in capsys.readouterr().out


def test_every_phi_core_file_validates_and_every_rejection_is_reported(
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = fixtures_root() / "phi-core" / "0.8.0"
    assert (
        main(["validate", "--version", "0.8", str(base / "sessions"), str(base / "streams")]) == 0
    )
    assert (
        main(
            [
                "validate",
                "--version",
                "0.8",
                "--type",
                "Message",
                str(base / "rejected" / "Message"),
            ]
        )
        == 1
    )
    out = capsys.readouterr().out
    for path in (base / "rejected" / "Message").iterdir():
        assert f"{path}:1: Message" in out, f"no report for {path.name}"


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["validate", str(tmp_path / "missing.json")]) == 2
    assert main(["validate", "--type", "Nope", str(ROOT / "examples")]) == 2
    assert main(["validate", "--version", "9.9", str(ROOT / "examples")]) == 2
    assert "phi-wire:" in capsys.readouterr().err


def test_schema_and_types(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "Usage", "--version", "0.8"]) == 0
    assert json.loads(capsys.readouterr().out)["$ref"] == "#/$defs/Usage"
    assert main(["types"]) == 0
    names = capsys.readouterr().out.split()
    assert {"AgentEvent", "Session", "TurnRequest", "Usage"} <= set(names)
