"""examples/ holds sample data that phi-wire made itself; it must be what the script writes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_sample_data_is_up_to_date() -> None:
    spec = importlib.util.spec_from_file_location(
        "make_examples", ROOT / "examples" / "make_examples.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, text in module.render().items():
        on_disk = (ROOT / "examples" / name).read_text(encoding="utf-8")
        assert on_disk == text, f"examples/{name} is stale: run python examples/make_examples.py"
