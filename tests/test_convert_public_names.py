"""``phi_wire.convert`` lists each public name three times: its ``TYPE_CHECKING`` imports (what
type checkers see), ``__all__`` and ``_HOMES`` (name -> the submodule it is imported from when
first used). A name added to one list and not the others fails here, saying which list to fix."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import phi_wire.convert as convert

SOURCE = Path(convert.__file__).read_text("utf-8")


def type_checking_imports() -> dict[str, str]:
    """name -> submodule, from the ``if TYPE_CHECKING:`` block's ``from .X import ...``."""
    found: dict[str, str] = {}
    for node in ast.parse(SOURCE).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.level == 1
                for alias in statement.names:
                    found[alias.asname or alias.name] = statement.module or ""
    return found


def test_all_and_homes_list_the_same_names() -> None:
    homes, listed = set(convert._HOMES), set(convert.__all__)
    assert sorted(listed - homes) == [], "in __all__ but not in _HOMES: add them to _HOMES"
    assert sorted(homes - listed) == [], "in _HOMES but not in __all__: add them to __all__"
    assert len(convert.__all__) == len(listed), "a name twice in __all__"


def test_the_type_checking_imports_are_the_homes() -> None:
    imported = type_checking_imports()
    for name, home in convert._HOMES.items():
        assert name in imported, f"{name}: add it to the TYPE_CHECKING imports (from .{home})"
        assert imported[name] == home, (
            f"{name}: _HOMES says .{home}, the TYPE_CHECKING import .{imported[name]}: fix one"
        )
    extra = sorted(imported.keys() - convert._HOMES.keys())
    assert extra == [], "imported under TYPE_CHECKING but not in _HOMES: add them to _HOMES"


def test_each_home_defines_and_lists_its_names() -> None:
    wrong: list[str] = []
    for name, home in convert._HOMES.items():
        module = importlib.import_module(f"phi_wire.convert.{home}")
        if not hasattr(module, name):
            wrong.append(f"{name}: not defined in .{home}: fix _HOMES")
        elif name not in getattr(module, "__all__", ()):
            wrong.append(f"{name}: not in .{home}'s __all__: add it there (or fix _HOMES)")
    assert wrong == []
