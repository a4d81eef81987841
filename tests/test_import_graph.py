"""The package's import graph (issue 18): no cycle among the shipped modules, and no format folder
importing another's.

Every ``import`` counts, at module level and inside functions alike (a function-level import is a
cycle deferred, not removed); only imports under ``if TYPE_CHECKING:`` do not, since they never
run. Importing ``a.b.c`` runs the ``__init__`` of ``a`` and ``a.b`` first, so a module depends on
those packages too, unless it is inside them already (then they are running). A module that only
``importlib.import_module``-s a name from the registry does not depend on it statically: that is
how the verbs find each format's folder (``phi_wire.formats``).
"""

from __future__ import annotations

import ast
from pathlib import Path

from test_layout import absolute, modules


def _runs(node: ast.AST) -> bool:
    """Whether the body of an ``if`` runs: not for ``if TYPE_CHECKING:``."""
    test = node.test if isinstance(node, ast.If) else None
    return not (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        if isinstance(node, ast.If) and not _runs(node):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def _known(target: str, known: dict[str, Path]) -> str | None:
    """The longest prefix of the dotted ``target`` that is a known module."""
    parts = target.split(".")
    while parts and ".".join(parts) not in known:
        parts.pop()
    return ".".join(parts) or None


def graph(known: dict[str, Path]) -> dict[str, set[str]]:
    """{module: the known modules importing it runs}."""
    edges: dict[str, set[str]] = {}
    for module, path in known.items():
        targets: set[str] = set()
        for node in _imports(ast.parse(path.read_text("utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                source = absolute(module, path, node.module, node.level)
                names = [source, *(f"{source}.{alias.name}" for alias in node.names)]
            for name in names:
                found = _known(name, known)
                if found is not None:
                    targets.add(found)
        own_packages = {module.rsplit(".", depth)[0] for depth in range(module.count(".") + 1)}
        for target in list(targets):  # the packages a target's import runs first
            parts = target.split(".")
            for end in range(1, len(parts)):
                package = ".".join(parts[:end])
                if package in known and package not in own_packages:
                    targets.add(package)
        targets.discard(module)
        edges[module] = targets
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle_among_the_shipped_modules() -> None:
    """Fix a cycle by moving what both sides need into a module below them (the engine's shared
    primitives live in ``phi_wire.primitives``, the recognisers' in ``phi_wire.formats.shapes``),
    or by having the lower layer find the upper one through the registry."""
    shipped = modules()
    assert len(shipped) > 80, "the module list is wrong: check pyproject's package-dir"
    assert cycles(graph(shipped)) == []


def test_the_check_sees_a_cycle(tmp_path: Path) -> None:
    """Cycles through function-level imports and through a package's ``__init__`` are found; an
    import under ``TYPE_CHECKING`` and one of the module's own package are not cycles."""
    files = {
        "pkg": "__init__.py",
        "pkg.low": "low.py",
        "pkg.high": "high.py",
        "pkg.sub": "sub/__init__.py",
        "pkg.sub.leaf": "sub/leaf.py",
        "pkg.typed": "typed.py",
    }
    (tmp_path / "sub").mkdir()
    sources = {
        "pkg": "",
        "pkg.low": "def f():\n    from .high import g\n",  # low -> high, in a function
        "pkg.high": "from .low import f\n",  # high -> low: a cycle
        "pkg.sub": "from .leaf import x\n",  # its own submodule: fine
        "pkg.sub.leaf": "from pkg.typed import t\n",  # runs pkg.sub's __init__? it is inside it
        "pkg.typed": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from pkg.sub.leaf import x\nt = 1\n",  # never runs: no cycle
    }
    for name, relative in files.items():
        (tmp_path / relative).write_text(sources[name])
    known = {name: tmp_path / relative for name, relative in files.items()}
    assert cycles(graph(known)) == [["pkg.high", "pkg.low"]]
    (tmp_path / "typed.py").write_text("from pkg.sub.leaf import x\nt = 1\n")  # now it runs
    assert sorted(cycles(graph(known))) == [
        ["pkg.high", "pkg.low"],
        ["pkg.sub", "pkg.sub.leaf", "pkg.typed"],  # through pkg.sub's __init__
    ]


def folder_of(module: str) -> str | None:
    """The format folder ``module`` belongs to (``phi_wire.formats.<format>``), if any."""
    parts = module.split(".")
    if len(parts) >= 3 and parts[:2] == ["phi_wire", "formats"] and parts[2] != "shapes":
        return ".".join(parts[:3])
    return None


def crossings(edges: dict[str, set[str]]) -> list[str]:
    """Each import of one format folder's module by another format folder's."""
    return sorted(
        f"{module} imports {target}"
        for module, targets in edges.items()
        for target in targets
        if folder_of(module) is not None
        and folder_of(target) is not None
        and folder_of(target) != folder_of(module)
    )


def test_no_format_folder_imports_another() -> None:
    """A format's folder may use the engine, the conversion types, the registry and its
    toolkit (``phi_wire.formats.shapes``), never another format's folder: a conversion between
    two other formats goes through phi-core, the hub (``phi_wire.convert``)."""
    assert crossings(graph(modules())) == []


def test_the_check_sees_a_format_folder_import_another(tmp_path: Path) -> None:
    files = {
        "phi_wire.formats": "__init__.py",
        "phi_wire.formats.shapes": "shapes.py",
        "phi_wire.formats.a": "a/__init__.py",
        "phi_wire.formats.a.convert": "a/convert.py",
        "phi_wire.formats.b": "b/__init__.py",
        "phi_wire.formats.b.codec": "b/codec.py",
    }
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
    for relative in files.values():
        (tmp_path / relative).write_text("")
    (tmp_path / "a" / "convert.py").write_text(
        "from phi_wire.formats.shapes import tag_of\nfrom phi_wire.formats.b.codec import dumps\n"
    )
    known = {name: tmp_path / relative for name, relative in files.items()}
    assert crossings(graph(known)) == [
        "phi_wire.formats.a.convert imports phi_wire.formats.b",
        "phi_wire.formats.a.convert imports phi_wire.formats.b.codec",
    ]
