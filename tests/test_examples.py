"""examples/ holds sample data that phi-wire made itself; it must be what the script writes."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from phi_wire import dumps

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


def test_streaming_example_serves_the_sample_events_over_sse() -> None:
    from sse_server import serve_asgi

    from examples.streaming_server import app
    from phi_wire.sse import events

    lines = (ROOT / "examples" / "events.jsonl").read_text(encoding="utf-8").splitlines()
    with serve_asgi(app) as base:  # uvicorn on 127.0.0.1, as the example's client runs it
        received = [dumps(event) for event in events(f"{base}/events")]
    assert received == lines


def _requirement_name(requirement: str) -> str:
    name = re.match(r"[A-Za-z0-9_.-]+", requirement)
    assert name is not None, requirement
    return name.group().lower().replace("_", "-")


def test_the_examples_extra_holds_what_the_examples_import() -> None:
    """Issue 17: ``examples/streaming_client.py`` failed from the installed wheel (``No module
    named 'uvicorn'``). Every package an example imports is a dependency of phi-wire or of its
    ``examples`` extra (``pip install "phi-wire[examples]"``), as the README says."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    installable = {
        _requirement_name(requirement)
        for requirement in [
            *project["dependencies"],
            *project["optional-dependencies"].get("examples", []),
        ]
    }
    distributions = metadata.packages_distributions()
    imported: set[str] = set()
    for path in (ROOT / "examples").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = sorted(
        name
        for name in imported - set(sys.stdlib_module_names) - {"phi_wire", "examples", "__future__"}
    )
    assert third_party, "the examples import no package: the check reads nothing"
    missing = [
        name
        for name in third_party
        if not {_requirement_name(d) for d in distributions.get(name, [name])} & installable
    ]
    assert missing == [], f"examples import {missing}: add them to the examples extra"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "phi-wire[examples]" in readme
    assert "phi-wire[examples]" in (ROOT / "examples" / "streaming_client.py").read_text("utf-8")
