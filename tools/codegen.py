"""Regenerate ``generated/`` from ``schemas/``, or check that it is up to date.

Two trees, for each version the registry lists (``runtime/formats/__init__.py``), oldest first:

``generated/python/`` (this module):

1. datamodel-code-generator (pinned in pyproject's ``codegen`` extra, shared options in
   ``[tool.datamodel-codegen]``, the format's own in ``[tool.phi-wire.codegen."<format>"]``,
   e.g. which classes get which helper base) writes a fresh package for
   ``schemas/<format>/<version>/`` into a scratch directory inside the repository, so that ruff
   formats it with the project's own configuration; the header of every module names this
   command and the sha256 of the schemas;
2. the package's ``__init__`` becomes the version's public module (``phi_wire.v0_8``): the API
   block of its format folder's ``api.py.tmpl`` is appended (the version-independent names of
   ``runtime/api.py``, ``schema`` bound to the version's files, the format's constructors, and
   ``WireValue``: the union of the version's classes, which ``phi_wire.convert`` types with);
3. each phi-core version package that ships ``loads``' expression gets ``_vouched``, its vouched
   validator's core schema written out (``tools/codegen_vouched.py``).

``generated/typescript/`` (``tools/codegen_typescript.py``): an npm package with TypeScript
declarations (json-schema-to-typescript) and ahead-of-time compiled validators (ajv) for every
wire type; it needs node and ``make node-tools``.

Write mode swaps the scratch trees in for the checked-in ones; ``--check`` compares them file by
file and prints a unified diff instead. Run ``tools/codegen`` to regenerate, ``tools/codegen
--check`` in CI (exit 1 on any drift, hand edits and stray files included).
"""

from __future__ import annotations

import argparse
import ast
import difflib
import hashlib
import importlib.util
import json
import shutil
import string
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import codegen_typescript
import codegen_vouched

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
GENERATED = ROOT / "generated"
PYTHON_TREE = "python"
"""generated/python/<format>/<version>/: the Python packages."""
TEMPLATES = Path(__file__).resolve().parent / "templates"

# Files the formatter leaves behind in the output package; never part of the generated tree.
IGNORED_NAMES = {".ruff_cache", "__pycache__"}


def load_registry() -> ModuleType:
    """``runtime/formats/__init__.py`` from the source tree, not an installed (maybe stale) copy."""
    spec = importlib.util.spec_from_file_location(
        "phi_wire_formats", ROOT / "runtime/formats/__init__.py"
    )
    if spec is None or spec.loader is None:
        raise SystemExit("codegen: runtime/formats/__init__.py not found")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # NamedTuple classes look their module up while being built
    spec.loader.exec_module(module)
    return module


NOT_FORMATS = {"meta"}
"""Folders of schemas/ that hold no wire format: meta/ is the dialect and its x- vocabulary."""


def registered_versions() -> list[Any]:
    """The registry's versions; a schema folder it does not list is an error, not a skip."""
    registry = load_registry()
    entries = list(registry.VERSIONS)
    listed = {entry.folder for entry in entries}
    clash = NOT_FORMATS.intersection(registry.FORMATS)
    if clash:
        raise SystemExit(f"codegen: {sorted(clash)} cannot be a format name: schemas/meta/")
    on_disk = {
        f"{path.parent.name}/{path.name}"
        for path in SCHEMAS.glob("*/*")
        if path.is_dir() and path.parent.name not in NOT_FORMATS
    }
    for stray in sorted(p.name for p in SCHEMAS.iterdir() if p.is_file() and p.suffix == ".json"):
        raise SystemExit(f"codegen: schemas/{stray} belongs in a format's version folder")
    for folder in sorted(on_disk - listed):
        raise SystemExit(f"codegen: schemas/{folder} is not in the registry's VERSIONS")
    for folder in sorted(listed - on_disk):
        raise SystemExit(
            f"codegen: runtime/formats/__init__.py lists {folder}, but schemas/{folder} is missing"
        )
    return entries


def schema_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.json")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def format_options(format: str) -> list[str]:
    """Command-line options for one format's packages, from pyproject's
    ``[tool.phi-wire.codegen."<format>"]`` (keys are datamodel-codegen's long option names):
    they override the shared ``[tool.datamodel-codegen]`` options, e.g. a format whose classes
    share names with phi-core's (``Usage``) needs its own ``base-class-map``."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    table = pyproject.get("tool", {}).get("phi-wire", {}).get("codegen", {}).get(format, {})
    options: list[str] = []
    for key, value in table.items():
        if isinstance(value, list):
            options += [f"--{key}", *map(str, value)]
        elif isinstance(value, dict):
            options += [f"--{key}", json.dumps(value, sort_keys=True)]
        else:
            options += [f"--{key}", str(value)]
    return options


def run_generator(schemas: Path, output: Path, options: Sequence[str] = ()) -> None:
    """datamodel-codegen with the pyproject options (and the format's own ``options``); fail
    loudly on any error or warning."""
    header = (
        f"# Generated by tools/codegen from {schemas.relative_to(ROOT).as_posix()} - do not edit.\n"
        f"# schemas sha256: {schema_digest(schemas)}\n"
        # a union field's default is written as its wire value ("Initial") and validated by
        # pydantic (validate_default), which mypy cannot see
        '# mypy: disable-error-code="assignment"'
    )
    command = [
        sys.executable,
        "-m",
        "datamodel_code_generator",
        "--input",
        str(schemas.relative_to(ROOT)),
        "--output",
        str(output.relative_to(ROOT)),
        "--custom-file-header",
        header,
        *options,
    ]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if result.returncode != 0 or "warning" in result.stderr.lower():
        raise SystemExit(
            f"codegen: datamodel-codegen failed for {schemas.relative_to(ROOT)} "
            f"(exit {result.returncode}):\n{result.stdout}{result.stderr}"
        )


def api_names() -> list[str]:
    """``__all__`` of runtime/api.py, read without importing the package."""
    tree = ast.parse((ROOT / "runtime" / "api.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            return list(ast.literal_eval(node.value))
    raise SystemExit("codegen: runtime/api.py has no literal __all__")


def append_api(entry: Any, package: Path) -> None:
    """Turn the generated package's ``__init__`` into the version's public module."""
    folder = load_registry().FOLDERS[entry.format]  # phi_wire.formats.<format>
    template = ROOT / "runtime" / Path(*folder.split(".")[1:]) / "api.py.tmpl"
    if not template.is_file():
        raise SystemExit(f"codegen: no API template {template.relative_to(ROOT)}")
    init = package / "__init__.py"
    generated = init.read_text()
    bound = {
        alias.asname or alias.name
        for node in ast.parse(generated).body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    # phi-core's version-independent API, for the templates that import it ($api_imports)
    shared = api_names() if "$api_imports" in template.read_text() else []
    names = [name for name in shared if name not in bound]  # Timestamp comes from base
    exported = [*shared, *template_names(template)]
    block = string.Template(template.read_text()).substitute(
        label=entry.label,
        template=template.relative_to(ROOT).as_posix(),
        format=entry.format,
        version=entry.version,
        folder=entry.folder,
        api_imports="".join(f"    {name},\n" for name in names).rstrip("\n"),
        api_exports="".join(f'    "{name}",\n' for name in isort_order(exported)).rstrip("\n"),
        wire_classes=" | ".join(wire_classes(package)),
    )
    init.write_text(generated + block)


def wire_classes(package: Path) -> list[str]:
    """The classes (models and enums) the package's ``__init__`` re-exports from its modules:
    ``$wire_classes``, the members of the version's ``WireValue`` union."""
    exported = {
        alias.asname or alias.name
        for node in ast.parse((package / "__init__.py").read_text()).body
        if isinstance(node, ast.ImportFrom) and node.level == 1
        for alias in node.names
    }
    classes = {
        node.name
        for module in package.glob("*.py")
        for node in ast.parse(module.read_text()).body
        if isinstance(node, ast.ClassDef)
    }
    return sorted(exported & classes)


def template_names(template: Path) -> list[str]:
    """The public names an API template binds at module level (``schema``, ``VERSION``, a
    function it defines...), its imports by name included (``$api_imports`` stands for
    runtime/api.py's names, counted apart)."""
    text = string.Template(template.read_text()).safe_substitute(
        api_imports="    dumps,", api_exports="", wire_classes="object"
    )
    names: list[str] = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign):
            names += [target.id for target in node.targets if isinstance(target, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
        elif isinstance(node, ast.FunctionDef):
            names.append(node.name)
        elif isinstance(node, ast.ImportFrom) and "$api_imports" not in template.read_text():
            names += [alias.asname or alias.name for alias in node.names]
    return [name for name in names if not name.startswith("_")]


def isort_order(names: list[str]) -> list[str]:
    """``__all__`` order as ruff's RUF022 wants it: CONSTANTS, Classes, then functions."""

    def key(name: str) -> tuple[int, str]:
        return (0 if name.isupper() else 1 if name[:1].isupper() else 2), name

    return sorted(set(names), key=key)


def format_tree(tree: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--quiet", str(tree)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"codegen: ruff format failed:\n{result.stdout}{result.stderr}")


def build(scratch: Path) -> Path:
    """Generate the whole Python tree into ``scratch`` and return it."""
    tree = scratch / "generated" / PYTHON_TREE  # under generated/: ruff's per-file settings apply
    tree.mkdir(parents=True)
    for entry in registered_versions():
        # the generator takes an output named like "0.8" for a file: write, then move
        staging = tree / "staging"
        run_generator(SCHEMAS / entry.folder, staging, format_options(entry.format))
        package = tree / entry.folder
        package.parent.mkdir(parents=True, exist_ok=True)
        staging.rename(package)
        append_api(entry, package)
    codegen_vouched.write_vouched(tree)
    format_tree(tree)
    for junk in IGNORED_NAMES:
        for path in list(tree.rglob(junk)):
            shutil.rmtree(path)
    return tree


def tree_files(tree: Path) -> dict[str, str]:
    files: dict[str, str] = {}
    if not tree.is_dir():
        return files
    for path in sorted(tree.rglob("*")):
        if path.is_file() and not IGNORED_NAMES.intersection(path.relative_to(tree).parts):
            files[path.relative_to(tree).as_posix()] = path.read_text()
    return files


def diff_trees(expected: Path, actual: Path, label: str = f"generated/{PYTHON_TREE}") -> list[str]:
    """Unified diff lines turning ``actual`` (the checked-in tree) into ``expected``."""
    want, have = tree_files(expected), tree_files(actual)
    lines: list[str] = []
    for name in sorted(want.keys() | have.keys()):
        if want.get(name) == have.get(name):
            continue
        lines.extend(
            difflib.unified_diff(
                have.get(name, "").splitlines(keepends=True),
                want.get(name, "").splitlines(keepends=True),
                fromfile=f"{label}/{name}" if name in have else "/dev/null",
                tofile=f"{label}/{name} (from schemas)" if name in want else "/dev/null",
            )
        )
    return lines


def replace_tree(fresh: Path, target: Path) -> None:
    """Swap ``target`` for ``fresh`` by renames, so an interrupted run never leaves half a tree."""
    staged = target.with_name(target.name + ".new")
    retired = target.with_name(target.name + ".old")
    for leftover in (staged, retired):
        shutil.rmtree(leftover, ignore_errors=True)
    shutil.copytree(fresh, staged)
    if target.exists():
        target.rename(retired)
    staged.rename(target)
    shutil.rmtree(retired, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/codegen", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="exit 1 with a diff when generated/ is stale"
    )
    args = parser.parse_args(argv)
    build_root = ROOT / "build"
    build_root.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=build_root, prefix="codegen-") as scratch:
        fresh = {
            PYTHON_TREE: build(Path(scratch)),
            codegen_typescript.TREE: codegen_typescript.build(
                Path(scratch), registered_versions(), schema_digest
            ),
        }
        if args.check:
            drift = [
                line
                for name, tree in fresh.items()
                for line in diff_trees(tree, GENERATED / name, f"generated/{name}")
            ]
            if drift:
                sys.stdout.writelines(drift)
                print("\ncodegen: generated/ differs from schemas/; run tools/codegen and commit.")
                return 1
            print("codegen: generated/ is up to date.")
            return 0
        GENERATED.mkdir(exist_ok=True)
        for name, tree in fresh.items():
            replace_tree(tree, GENERATED / name)
            print(f"codegen: wrote generated/{name}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
