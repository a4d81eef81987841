"""mypy on scripts, against ``phi_wire`` laid out as the wheel installs it (mypy cannot follow
pyproject's package-dir mapping through an editable install: ``tools/stage_package.py`` stages it
as symlinks, as ``tools/typecheck`` does)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from corpus import ROOT


def run_mypy(
    scripts: list[Path],
    options: list[str],
    *,
    cache: str,
    staging: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[int, str]:
    """mypy's exit status and report for ``scripts`` with ``options``; the package is staged in
    ``staging``. ``cache`` names the cache folder under ``build/``: one per set of options, since
    mypy throws away a cache made with other options."""
    api = pytest.importorskip("mypy.api")
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from stage_package import stage
    finally:
        sys.path.pop(0)
    stage(staging)
    monkeypatch.setenv("MYPYPATH", str(staging))
    out, _, status = api.run(
        [*options, "--cache-dir", str(ROOT / "build" / cache), *map(str, scripts)]
    )
    return status, out
