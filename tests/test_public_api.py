"""The public API does not shrink: every name importable from phi-wire's public modules when the
package was laid out by format (issue 18) still is. ``tests/expected/public_names.json`` is that
list, taken from the code before the move; a name may be added to a module, never removed
without a deprecation (and then this list changes in the same commit, saying why)."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

EXPECTED = json.loads(
    (Path(__file__).parent / "expected" / "public_names.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("module", sorted(EXPECTED))
def test_every_public_name_still_imports(module: str) -> None:
    """Fix: a moved name must stay importable from where users import it (re-export it from the
    public module; private modules need no shims)."""
    imported = importlib.import_module(module)
    missing = [name for name in EXPECTED[module] if not hasattr(imported, name)]
    assert not missing, f"{module} no longer has {missing}"
    exported = getattr(imported, "__all__", None)
    if exported is not None:
        assert set(EXPECTED[module]) <= set(exported), set(EXPECTED[module]) - set(exported)
