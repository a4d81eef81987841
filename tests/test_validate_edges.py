"""What ``phi-wire validate`` says at the edges a new user hits (issue 17): the format the summary
names when nothing was judged, empty input, a type that was only guessed, which files a run
reads (``--include``/``--exclude``), JSON that more than one format writes, lone surrogates.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from command import run

CLARK_USER = '{"role":"user","content":"hi","timestamp":1}\n'


# --- defect 12: the summary names the format judged by, even when nothing was judged -----------


@pytest.mark.parametrize(
    ("options", "label"),
    [
        (["--format", "clark-agent"], "clark-agent 0.4"),
        (["--format", "operator-use"], "operator-use d0da87a6"),
        (["--format", "operator-use", "--version", "d1cdaad8"], "operator-use d1cdaad8"),
        (["--format", "phi-core", "--version", "0.8"], "phi-core 0.8"),
        ([], "phi-core 0.10"),
    ],
)
def test_the_summary_names_the_format_given_when_nothing_was_judged(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, options: list[str], label: str
) -> None:
    path = tmp_path / "one.jsonl"
    path.write_text(CLARK_USER, encoding="utf-8")
    code, out, _ = run(capsys, "validate", *options, "--max-document-bytes", "10", str(path))
    summary = out.splitlines()[-1]
    assert code == 2 and "1 not judged" in summary, out
    assert summary.endswith(f" MB/s, {label})"), summary
