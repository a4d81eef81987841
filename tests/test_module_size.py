"""Small modules with one job (issue 18): no hand-written module the wheel ships is longer than
``LIMIT`` lines unless its docstring says why (a paragraph starting "Why one module")."""

from __future__ import annotations

import ast

from corpus import ROOT
from test_layout import modules

LIMIT = 500


def test_long_modules_say_why_they_are_one() -> None:
    """Fix: split the module by job (one module per job, the package's ``__init__`` re-exporting
    what others use), or say in its docstring why it is one ("Why one module ...")."""
    runtime = ROOT / "runtime"
    long = []
    for name, path in sorted(modules().items()):
        if runtime not in path.parents:
            continue  # generated code is the schemas' size
        text = path.read_text("utf-8")
        if text.count("\n") > LIMIT:
            docstring = ast.get_docstring(ast.parse(text)) or ""
            if "Why one module" not in docstring:
                long.append(f"{name}: {text.count(chr(10))} lines")
    assert long == []
