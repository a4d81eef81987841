"""What a user installs: the wheel holds the product only, its ``phi-wire`` command works, schema
files load however the package is laid out, and the tests behave as CI needs (issue 10, section 1).

The wheel tests run where ``make test`` runs the suite (``PHI_WIRE_TEST_INSTALLED``: the wheel in a
fresh venv); in a development venv they are skipped, since there is no wheel to look at.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from corpus import ROOT
from hypothesis import settings

INSTALLED = bool(os.environ.get("PHI_WIRE_TEST_INSTALLED"))
wheel_only = pytest.mark.skipif(not INSTALLED, reason="needs the installed wheel (make test)")


@wheel_only
def test_the_wheel_holds_the_product_only() -> None:
    """Only ``phi_wire`` (runtime, generated models, schemas, ``py.typed``) and the LICENSE ship;
    the workshop (codegen, benchmarks, type checking) and the tests do not. Fix: pyproject's
    ``packages``/``package-data``."""
    import phi_wire

    # The distribution installed beside the imported package (not the source tree's egg-info,
    # which pytest's pythonpath puts on sys.path too).
    site = str(Path(phi_wire.__file__).resolve().parent.parent)
    (wheel,) = [d for d in metadata.distributions(path=[site]) if d.name == "phi-wire"]
    files = [str(file) for file in wheel.files or ()]
    outside = [name for name in files if name.startswith("../")]  # pip's console script
    assert [Path(name).name for name in outside] == ["phi-wire"], outside
    top = {name.split("/", 1)[0] for name in files if name not in outside}
    assert {name for name in top if not name.endswith(".dist-info")} == {"phi_wire"}, top
    assert "phi_wire/py.typed" in files
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in files), files
    assert "phi_wire/schemas/phi-core/0.10/event.json" in files
    assert "phi_wire/fastpath/probes.json" in files  # what a cached expression is tried on
    for shipped_module in ("phi_wire/v0_10/__init__.py", "phi_wire/cli/__init__.py"):
        assert shipped_module in files, shipped_module
    shipped = " ".join(files)
    for workshop in ("codegen", "bench_", "typecheck", "stage_package", "conftest", "test_"):
        assert workshop not in shipped, f"{workshop!r} is in the wheel"


def test_every_importable_folder_of_package_data_is_a_listed_package() -> None:
    """Issue 17: building warned that ``phi_wire.schemas.meta`` "would be ignored" (the wheel held
    it all the same): a folder of package data whose name Python can import must be in
    ``packages``, as setuptools checks (``schemas/phi-core/0.10`` cannot be imported: no
    warning), and so must an importable folder above one that is not (``schemas/pi``, above
    ``schemas/pi/0.73``: setuptools warned of ``phi_wire.schemas.pi``)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    packages, folders = set(config["packages"]), config["package-dir"]

    def folder_of(package: str) -> Path:
        parts = package.split(".")
        for end in range(len(parts), 0, -1):
            if ".".join(parts[:end]) in folders:
                return ROOT / folders[".".join(parts[:end])] / Path(*parts[end:])
        raise AssertionError(f"{package}: no package-dir")

    checked = []
    for package, patterns in config["package-data"].items():
        root = folder_of(package)
        for pattern in patterns:
            for path in root.glob(pattern):
                importable: list[str] = []
                for part in path.parent.relative_to(root).parts:
                    if not part.isidentifier():
                        break
                    importable.append(part)
                    checked.append(".".join((package, *importable)))
    assert "phi_wire.schemas.meta" in checked  # the folder the warning named
    assert "phi_wire.schemas.pi" in checked  # the one named when pi came
    assert sorted(set(checked) - packages) == []


@wheel_only
def test_the_console_script_runs() -> None:
    """The ``phi-wire`` command pip installs beside the interpreter works (entry point intact)."""
    command = Path(sys.executable).with_name("phi-wire")
    result = subprocess.run([command, "--version"], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and result.stdout.startswith("phi-wire "), result.stderr
    examples = ROOT / "examples"
    result = subprocess.run([command, "validate", examples], capture_output=True, text=True)
    assert result.returncode == 0 and " 0 invalid" in result.stdout, result.stdout + result.stderr


def test_schema_files_load_from_a_namespace_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """Defect 1: in a wheel on Python 3.11 ``phi_wire/schemas`` is a namespace package, whose
    ``MultiplexedPath.joinpath`` takes one part per call. The same path object here, any install."""
    try:
        from importlib.resources.readers import MultiplexedPath
    except ImportError:  # Python 3.11
        from importlib.readers import MultiplexedPath

    from phi_wire.serde import _schema

    monkeypatch.setattr(_schema, "_schema_root", lambda: MultiplexedPath(ROOT / "schemas"))
    _schema.load_schema_files.cache_clear()
    try:
        files = _schema.load_schema_files("phi-core/0.10")
    finally:
        _schema.load_schema_files.cache_clear()
    assert "event.json" in files and files["event.json"]["$defs"]["AgentEvent"]


def test_hypothesis_is_derandomized_in_ci() -> None:
    """Property tests draw the same examples on every CI run (conftest's ``ci`` profile), so CI
    cannot fail by chance; elsewhere they explore."""
    in_ci = bool(os.environ.get("CI")) or INSTALLED
    if os.environ.get("HYPOTHESIS_PROFILE"):
        pytest.skip("HYPOTHESIS_PROFILE picks the profile by hand")
    assert settings.default.derandomize is in_ci
    assert settings.default.database is None or not in_ci
