"""The command-line examples in README.md, docs/validate.md and docs/convert.md run as printed.

Each block after the marker ``<!-- checked: tests/test_docs_examples.py -->`` is run, in document
order, in one empty folder per document (with ``../shared/fixtures`` the fixture corpus and
``examples/`` the project's sample data, so the paths read as they do in the repository), with the
installed ``phi-wire`` first on PATH:

* a ``sh`` block is a script (``sh -e``): it must succeed;
* a ``console`` block is commands (``$ ...``) each followed by what it prints: standard error's
  lines are the ones starting ``phi-wire: ``, the others standard output's; ``$ echo $?`` prints the
  exit status of the command before. Elapsed times and rates are the only parts not compared.

So every example's output in those documents is real, and stays so.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from corpus import ROOT, fixtures_root

MARK = "<!-- checked: tests/test_docs_examples.py -->"
DOCUMENTS = {
    "README.md": 2,
    "docs/validate.md": 8,
    "docs/convert.md": 9,
    "docs/otel-genai.md": 2,
}
"""Each document, and how many checked blocks it has at least (a marker lost is a failure)."""
_BLOCK = re.compile(r"```(\w+)\n(.*?)```\n", re.DOTALL)
_TIMING = re.compile(r"in \d+\.\d+ s \(\d+\.\d+ MB/s|\"elapsed_s\": \d+(\.\d+)?")


def checked_blocks(path: Path) -> list[tuple[str, str]]:
    """(language, body) of each block after a marker."""
    found = []
    for part in path.read_text(encoding="utf-8").split(MARK)[1:]:
        match = _BLOCK.search(part)
        assert match is not None and part[: match.start()].strip() == "", part[:200]
        found.append((match.group(1), match.group(2)))
    return found


def commands(body: str) -> list[tuple[str, list[str]]]:
    """Each ``$ command`` of a console block and the lines printed after it."""
    found: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            found.append((line[2:], []))
        else:
            assert found, f"output before any command: {line}"
            found[-1][1].append(line)
    return found


def masked(lines: list[str]) -> list[str]:
    return [_TIMING.sub("<elapsed>", line) for line in lines]


@pytest.mark.parametrize("document", DOCUMENTS)
def test_the_examples_run_as_printed(document: str, tmp_path: Path) -> None:
    blocks = checked_blocks(ROOT / document)
    assert len(blocks) >= DOCUMENTS[document], f"{document}: checked examples went missing"
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "fixtures").symlink_to(fixtures_root())
    work = tmp_path / "work"
    work.mkdir()
    (work / "examples").symlink_to(ROOT / "examples")
    bin_folder = Path(sys.executable).parent
    environment = dict(
        os.environ, PATH=f"{bin_folder}{os.pathsep}{os.environ['PATH']}", COLUMNS="100"
    )
    environment.pop("PHI_WIRE_CACHE_DIR", None)
    environment["PHI_WIRE_CACHE_DIR"] = str(tmp_path / "cache")
    for language, body in blocks:
        if language == "sh":
            result = subprocess.run(
                ["sh", "-e", "-c", body], cwd=work, env=environment, capture_output=True, text=True
            )
            assert result.returncode == 0, (body, result.stdout, result.stderr)
            continue
        assert language == "console", language
        status = None
        for command, printed in commands(body):
            if command == "echo $?":
                assert printed == [str(status)], (command, printed, status)
                continue
            result = subprocess.run(
                ["sh", "-c", command], cwd=work, env=environment, capture_output=True, text=True
            )
            status = result.returncode
            expected_err = [line for line in printed if line.startswith("phi-wire: ")]
            expected_out = [line for line in printed if not line.startswith("phi-wire: ")]
            assert "Traceback" not in result.stderr, (command, result.stderr)
            assert masked(result.stdout.splitlines()) == masked(expected_out), (
                f"{document}: $ {command}\n--- printed in the document:\n"
                + "\n".join(expected_out)
                + "\n--- printed now:\n"
                + result.stdout
            )
            assert masked(result.stderr.splitlines()) == masked(expected_err), (
                f"{document}: $ {command}\n--- printed in the document:\n"
                + "\n".join(expected_err)
                + "\n--- printed now:\n"
                + result.stderr
            )
