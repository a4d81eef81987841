"""The registry of formats and versions (runtime/formats/__init__.py) is the one list everything
reads: pyproject's package table, the schema folders, the generated packages and the package itself
agree with it, and versions are found however people write them."""

from __future__ import annotations

import tomllib

import pytest
from corpus import ROOT

import phi_wire
from phi_wire.formats import (
    FORMATS,
    VERSIONS,
    UnknownVersion,
    WireVersion,
    find,
    newest,
    version_of,
)


def test_pyproject_maps_every_registered_version_to_its_generated_package() -> None:
    """Adding a version: one line in VERSIONS, its package-dir and packages entries here."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapped = {
        package: folder
        for package, folder in setuptools["package-dir"].items()
        if package not in {"phi_wire", "phi_wire.schemas"}
    }
    expected = {entry.module: f"generated/python/{entry.folder}" for entry in VERSIONS}
    assert mapped == expected, "pyproject's package-dir must list exactly the registry's versions"
    assert set(expected) <= set(setuptools["packages"]), "list each version in packages too"


def test_every_schema_folder_is_a_registered_version_or_the_dialect() -> None:
    """schemas/meta holds the meta-schemas (the dialect and its x- vocabulary), explicitly not a
    format; every other folder is <format>/<version> from the registry."""
    schemas = ROOT / "schemas"
    folders = {
        f"{path.parent.name}/{path.name}"
        for path in schemas.glob("*/*")
        if path.is_dir() and path.parent.name != "meta"
    }
    assert folders == {entry.folder for entry in VERSIONS}
    assert "meta" not in FORMATS
    assert {path.name for path in (schemas / "meta").iterdir()} == {"dialect.json", "serde.json"}


@pytest.mark.parametrize("entry", VERSIONS, ids=lambda entry: entry.label)
def test_each_version_has_schemas_and_a_public_module(entry: WireVersion) -> None:
    assert (ROOT / "schemas" / entry.folder).is_dir()
    module = entry.load()
    assert entry.version == module.VERSION and entry.format == module.FORMAT
    classes = [getattr(module, name) for name in module.WIRE_TYPES]
    classes = [cls for cls in classes if isinstance(cls, type)]
    assert classes and all(version_of(cls) == entry for cls in classes)


def test_the_package_speaks_the_newest_version() -> None:
    assert phi_wire.AgentEvent is newest().load().AgentEvent
    assert phi_wire.__version__.count(".") == 2


@pytest.mark.parametrize("text", ["0.8", "0.8.0", "0.8.7", "v0.8", " 0.8 "])
def test_versions_are_found_as_people_write_them(text: str) -> None:
    assert find(text).version == "0.8"


@pytest.mark.parametrize("text", ["0.9", "8", "0.8.0.1", "latest", "0.٨", ""])
def test_unknown_versions_name_the_choices(text: str) -> None:
    with pytest.raises(UnknownVersion, match=r"choose one of 0\.8, 0\.10"):
        find(text)
