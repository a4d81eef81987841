"""Lay ``phi_wire`` out under a folder as a wheel installs it, from symlinks into the sources.

pyproject's ``package-dir`` maps ``phi_wire`` to ``runtime/`` and each version module to its
generated folder (``phi_wire.v0_8`` is ``generated/python/phi-core/0.8``). mypy cannot follow
that mapping through an editable install, so tools/typecheck (and the test that type-checks the
one-way rule) stage the package first:

    python tools/stage_package.py build/typecheck   # then: cd build/typecheck; mypy -p phi_wire

With ``--ship FOLDER`` it writes instead the compiled expressions the wheel ships for this
interpreter (``phi_wire.fastpath.write_shipped``): ``make wheel`` runs it into
``runtime/fastpath/shipped-expressions`` before building, with the venv's Python and pydantic.

    python tools/stage_package.py --ship runtime/fastpath/shipped-expressions
"""

from __future__ import annotations

import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def package_dirs() -> dict[str, Path]:
    """``{package: source folder}`` from pyproject's ``[tool.setuptools] package-dir``."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    mapping = config["tool"]["setuptools"]["package-dir"]
    return {package: ROOT / folder for package, folder in mapping.items()}


def stage(target: Path) -> Path:
    """Recreate ``target`` holding the package tree; returns ``target``."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    mapping = package_dirs()
    for package in sorted(mapping, key=lambda name: name.count(".")):
        place = target.joinpath(*package.split("."))
        nested = [other for other in mapping if other.startswith(package + ".")]
        if not nested:
            place.symlink_to(mapping[package], target_is_directory=True)
            continue
        place.mkdir()  # a real folder: mapped subpackages go inside it
        for item in mapping[package].iterdir():
            if item.name != "__pycache__":
                (place / item.name).symlink_to(item)
    return target


def ship(folder: Path) -> list[Path]:
    """Write the shipped expressions for this interpreter into ``folder``."""
    from phi_wire.fastpath import write_shipped

    return write_shipped(folder)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--ship":
        written = ship(Path(sys.argv[2]))
        print(f"stage_package: {len(written)} shipped expression(s) in {sys.argv[2]}")
    elif len(sys.argv) == 2:
        stage(Path(sys.argv[1]))
    else:
        raise SystemExit("usage: tools/stage_package.py TARGET | --ship FOLDER")
