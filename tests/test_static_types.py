"""Static types of the public API (issue 17, defect 6): what a user's ``mypy --strict`` sees.

``loads(T, text)`` has the type ``T`` for every wire type, union aliases (``AgentEvent``,
``SessionFile``...) as much as model classes, in every format module; ``dumps`` takes what
``loads`` gives; ``schema`` a type or its name; ``convert(...).value`` the target format's values;
``phi_wire.sse.events`` the event type asked for. tests/typed_user_script.py uses each of them as
a user would, with the types it must get and the lines that must be errors; mypy checks it with
``--strict`` and no other configuration (no pydantic plugin), as a user's project would.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest
from corpus import ROOT
from mypy_run import run_mypy

SCRIPT = Path(__file__).resolve().parent / "typed_user_script.py"
_REPORT = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): (?P<kind>error|note): (?P<message>.*)$")
_REVEALED = re.compile(r'^Revealed type is "(?P<type>.*)"$')


def markers(script: Path, word: str) -> dict[int, str]:
    """``{line: text}`` of each line of ``script`` ending in ``# <word>: text``."""
    found: dict[int, str] = {}
    for number, line in enumerate(script.read_text("utf-8").splitlines(), 1):
        code, marker, text = line.partition(f"  # {word}: ")
        if marker and code.strip():
            found[number] = text.strip()
    return found


def reports(out: str, script: Path) -> tuple[dict[int, list[str]], dict[int, list[str]]]:
    """mypy's errors and notes about ``script``, by line."""
    errors: dict[int, list[str]] = defaultdict(list)
    notes: dict[int, list[str]] = defaultdict(list)
    for line in out.splitlines():
        found = _REPORT.match(line)
        if found is None or Path(found["file"]).name != script.name:
            continue
        kind = errors if found["kind"] == "error" else notes
        kind[int(found["line"])].append(found["message"])
    return errors, notes


def test_a_users_script_gets_the_wire_types(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``loads(AgentEvent, s).no_such_attribute`` is an error, and so is each marked misuse;
    every ``assert_type`` holds (a mismatch is an error on an unmarked line)."""
    status, out = run_mypy(
        [SCRIPT],
        ["--config-file", "", "--strict"],
        cache="mypy-cache-user",
        staging=tmp_path / "staged",
        monkeypatch=monkeypatch,
    )
    errors, notes = reports(out, SCRIPT)
    expected = markers(SCRIPT, "error")
    assert status == 1 and expected, out
    unexpected = {line: found for line, found in errors.items() if line not in expected}
    assert not unexpected, f"errors on lines that must type-check: {unexpected}"
    for line, words in expected.items():
        assert any(words in message for message in errors.get(line, [])), (
            f"line {line} must be an error ({words}); mypy said {errors.get(line)}"
        )
    revealed = markers(SCRIPT, "reveals")
    assert len(revealed) >= 4
    for line, start in revealed.items():
        types = [m["type"] for m in map(_REVEALED.match, notes.get(line, [])) if m is not None]
        assert len(types) == 1 and types[0].startswith(start), (line, start, notes.get(line))
    # the script reaches every format module, union aliases and model classes alike
    text = SCRIPT.read_text("utf-8")
    for call in ("phi_wire.loads(", "v8.loads(", "v10.loads(", "clark.loads(", "ou.loads("):
        assert call in text, call
    assert "ou1.loads(" in text and "sse.events(" in text and "sse.aevents(" in text
    assert "pi.loads(" in text and "pi073.loads(" in text and "pi15.loads(" in text


def test_the_readmes_python_examples_type_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README.md's Python examples, its first (``loads(AgentEvent, ...)``) included, pass
    ``mypy --strict`` as they are printed."""
    text = (ROOT / "README.md").read_text("utf-8")
    blocks = re.findall(r"```python\n(.*?)```\n", text, re.DOTALL)
    assert len(blocks) >= 3 and "loads(\n    AgentEvent," in blocks[0]
    scripts = []
    for number, block in enumerate(blocks):
        scripts.append(tmp_path / f"readme_example_{number}.py")
        scripts[-1].write_text(block, encoding="utf-8")
    status, out = run_mypy(
        scripts,
        ["--config-file", "", "--strict"],
        cache="mypy-cache-user",
        staging=tmp_path / "staged",
        monkeypatch=monkeypatch,
    )
    assert status == 0, out
