"""Running the ``phi-wire`` command line in-process, as the command-line tests do."""

from __future__ import annotations

import pytest

from phi_wire.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``phi-wire ARGS...``: its exit status, standard output and standard error."""
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err
