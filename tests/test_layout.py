"""Public seams, not private reach-ins: no module of the package imports another package's
``_private`` module or name (issue 10, section 3).

A private module (``phi_wire.serde._codec``) or a private name (``_lenient``) belongs to the
package that holds it; only modules of that same package may import it.
``phi_wire.validate._judge`` may use ``phi_wire.validate._records``, never
``phi_wire.serde._codec``: it goes through ``phi_wire.serde``, ``phi_wire.base``,
``phi_wire.errors``... The generated version packages import only public names. Each module's
package is read from pyproject's ``package-dir``, as setuptools lays the wheel out.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from corpus import ROOT


def package_dirs() -> dict[str, Path]:
    """{package name: source folder}, from pyproject's package-dir."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    folders = config["tool"]["setuptools"]["package-dir"]
    return {name: ROOT / folder for name, folder in folders.items()}


def modules() -> dict[str, Path]:
    """{dotted module name: file} of every Python module the wheel ships."""
    roots = package_dirs()
    nested = [(a, b) for a in roots.values() for b in roots.values() if a in b.parents]
    assert not nested, f"package folders inside one another: {nested}"
    found: dict[str, Path] = {}
    for package, folder in roots.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            found[".".join((package, *parts)).removesuffix(".__init__")] = path
    return found


def is_private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def package_of(module: str, path: Path) -> str:
    """The package a module belongs to: itself for an ``__init__``, else its parent."""
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def absolute(module: str, path: Path, target: str | None, level: int) -> str:
    if level == 0:
        return target or ""
    base = package_of(module, path).split(".")
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, target] if target else base)


def private_home(target: str) -> str | None:
    """The package owning the first private module on the dotted path ``target``, if any."""
    parts = target.split(".")
    for index, part in enumerate(parts):
        if is_private(part):
            return ".".join(parts[:index])
    return None


def reach_ins(known: dict[str, Path]) -> list[str]:
    """One line per import of a private module or name from outside the package owning it."""
    found: list[str] = []
    for module, path in sorted(known.items()):
        own = package_of(module, path)
        tree = ast.parse(path.read_text("utf-8"), str(path))
        for node in ast.walk(tree):
            imported: list[tuple[str, str | None]] = []  # (module, name imported from it)
            if isinstance(node, ast.Import):
                imported = [(alias.name, None) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = absolute(module, path, node.module, node.level)
                imported = [(source, alias.name) for alias in node.names]
            for source, name in imported:
                if not source.startswith("phi_wire"):
                    continue
                home = private_home(source)
                if home is None and name is not None and is_private(name):
                    if f"{source}.{name}" in known:  # a private submodule: home is source
                        home = source
                    else:  # a private name: home is the package of the module defining it
                        defining = known.get(source)
                        home = source if defining is None else package_of(source, defining)
                if home is not None and home != own:
                    where = f"{path.name}:{node.lineno}"
                    found.append(f"{where}: {module} imports {source}{'.' + name if name else ''}")
    return found


def test_no_module_reaches_into_another_packages_private_names() -> None:
    """Every import of a ``_private`` module or name stays inside the package that owns it.

    Fix a failure by importing the public seam instead (``phi_wire.base``, ``errors``,
    ``pointer``, ``formats``, ``api``, a package's ``__init__``), or by making the name public
    in its own package when other packages need it.
    """
    shipped = modules()
    assert len(shipped) > 50, "the module list is wrong: check pyproject's package-dir"
    workshop = {  # the workshop and the examples use the package as any user does
        f"{folder}.{path.stem}": path
        for folder in ("tools", "examples")
        for path in (ROOT / folder).glob("*.py")
    }
    assert reach_ins(shipped | workshop) == []


def test_the_check_sees_a_reach_in(tmp_path: Path) -> None:
    """The rule above can fail: cross-package private imports are named, same-package ones not."""
    files = {
        "phi_wire": "__init__.py",
        "phi_wire._codec": "_codec.py",
        "phi_wire.base": "base.py",
        "phi_wire.validate": "validate/__init__.py",
        "phi_wire.validate._records": "validate/_records.py",
        "phi_wire.validate._judge": "validate/_judge.py",
    }
    (tmp_path / "validate").mkdir()
    for relative in files.values():
        (tmp_path / relative).write_text("")
    (tmp_path / "validate" / "_judge.py").write_text(
        "from .._codec import adapter\n"  # reach-in: a private module of phi_wire
        "from ..base import _hidden\n"  # reach-in: a private name of phi_wire
        "import phi_wire._codec\n"  # reach-in
        "from . import _records\n"  # same package: fine
        "from ._records import _Record\n"  # same package: fine
        "from ..base import adapter\n"  # public: fine
    )
    known = {name: tmp_path / relative for name, relative in files.items()}
    assert [line.split(": ", 1)[1] for line in reach_ins(known)] == [
        "phi_wire.validate._judge imports phi_wire._codec.adapter",
        "phi_wire.validate._judge imports phi_wire.base._hidden",
        "phi_wire.validate._judge imports phi_wire._codec",
    ]
