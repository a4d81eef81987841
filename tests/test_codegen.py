"""tools/codegen: generated/ is exactly what the schemas produce, deterministically.

``tools/codegen --check`` is the CI drift gate (``.ci/run`` runs the command itself); these tests
prove it can fail: a hand edit, a stray module and a schema change each show up as a diff.
"""

from __future__ import annotations

import ast
import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import codegen  # noqa: E402


def scratch(name: str) -> Path:
    """A scratch folder inside the repository, where ruff reads the project's configuration."""
    target = ROOT / "build" / name
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    return target


@pytest.fixture(scope="module")
def fresh() -> Iterator[Path]:
    """One regeneration of the whole tree."""
    target = scratch("test-codegen")
    yield codegen.build(target)
    shutil.rmtree(target, ignore_errors=True)


def test_checked_in_tree_matches_the_schemas(fresh: Path) -> None:
    drift = codegen.diff_trees(fresh, ROOT / "generated" / "python")
    assert not drift, "generated/ is stale; run tools/codegen:\n" + "".join(drift[:40])


def test_a_hand_edit_is_reported_as_a_diff(fresh: Path, tmp_path: Path) -> None:
    edited = tmp_path / "python"
    shutil.copytree(ROOT / "generated" / "python", edited)
    module = edited / "phi-core" / "0.8" / "message.py"
    module.write_text(module.read_text().replace('"toolUse"', '"tool_use"', 1))
    (edited / "phi-core" / "0.8" / "stray.py").write_text("x = 1\n")
    drift = "".join(codegen.diff_trees(fresh, edited))
    assert '-    TOOL_USE = "tool_use"' in drift and '+    TOOL_USE = "toolUse"' in drift
    assert "generated/python/phi-core/0.8/stray.py" in drift


def test_generation_is_deterministic(fresh: Path) -> None:
    target = scratch("test-codegen-again")
    try:
        assert codegen.tree_files(codegen.build(target)) == codegen.tree_files(fresh)
    finally:
        shutil.rmtree(target, ignore_errors=True)


def test_a_type_aliass_description_becomes_comment_lines() -> None:
    """A type alias's description follows it as comments (tools/templates/TypeAliasType.jinja2).
    It was written as bare text, valid Python only when the description began with '#' (as
    clark-agent's ``#[serde(transparent)]`` ones did), so ``UserBlocks`` broke the generator."""
    folder = scratch("test-codegen-alias")
    try:
        schemas = folder / "schemas"
        schemas.mkdir()
        names = {
            "title": "Names",
            "description": "Plain words, no hash.\nA second line.",
            "type": "array",
            "items": {"type": "string"},
        }
        document = {
            "$schema": "https://phi-wire.dev/schemas/meta/dialect.json",
            "$id": "https://phi-wire.dev/schemas/test/0.1/a.json",
            "$defs": {"Names": names},
        }
        (schemas / "a.json").write_text(json.dumps(document))
        output = folder / "generated" / "out"  # where ruff applies the generated-code rules
        codegen.run_generator(schemas, output, codegen.format_options("phi-core"))
        text = (output / "a.py").read_text()
        ast.parse(text)
        assert "\n# Plain words, no hash.\n# A second line.\n" in text
    finally:
        shutil.rmtree(folder, ignore_errors=True)
