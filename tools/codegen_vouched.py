"""Write ``loads``' vouched validator's core schema (``phi_wire.serde``'s ``vouched_schema``) as
Python source, so that a fresh process builds the fast path's validator from literals, without a
``TypeAdapter`` (13 ms for phi-core's ``AgentEvent``, and 3 ms more to rewrite its schema).

``tools/codegen`` runs this module (``write_vouched``) on its fresh tree: each phi-core version
package that ships ``loads``' expression (``TYPES``: only there is one at hand for a process's first
document) gets a ``_vouched`` module, its schema made from that very tree
(the version package is imported from it, in a child process), so ``tools/codegen --check``
catches a module made from other models or from other vouched forms. ``phi_wire.serde._shortcut``
uses it only with the pydantic and pydantic-core versions it names, and
``tests/test_loads_vouched_written.py`` proves it equal to the schema built at run time, so the
verdicts cannot differ.

pydantic-core fact it rests on: a ``SchemaValidator`` is made from a core schema alone, a tree of
plain values, classes and functions; ``metadata`` (notes for JSON Schema) and the serializer's
keys (``serialization``, a field's ``serialization_exclude_if``) are never read by the validator,
so they are left out, as are the process ids pydantic puts in its refs (``...NodeId:1403...``):
a ref is only a label the tree's ``definition-ref`` nodes name. Everything else is written as it
is: a class, enum member or function by a public name that reaches that very object, a
``functools.partial`` as a call, and pydantic's default of a lenient field (a ``partial`` of its
``FieldInfo``'s ``get_default``) through the model's own field of that name, checked to hold the
same default. Anything else in the tree stops the writing with an error: nothing is guessed.

    python tools/codegen_vouched.py GENERATED_PYTHON_TREE
"""

from __future__ import annotations

import enum
import functools
import importlib
import importlib.abc
import importlib.machinery
import inspect
import math
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pydantic
import pydantic_core
from pydantic.fields import FieldInfo

__all__ = ["MODULE", "NOT_READ_BY_VALIDATOR", "TYPES", "vouched_module_source", "write_vouched"]

MODULE = "_vouched.py"
"""The module's file name inside its version package."""

TYPES = ("AgentEvent",)
"""The types written, in every phi-core version: those whose ``loads`` expression a wheel ships
(``phi_wire.fastpath._shipped.SHIPPED``; a test keeps the two the same), the only ones with an
expression at hand for a process's first document."""

NOT_READ_BY_VALIDATOR = ("metadata", "serialization", "serialization_exclude_if")
"""Keys of a core schema (a node with a ``type``) that pydantic-core's validator never reads."""

_PROCESS_ID = re.compile(r":[0-9]+\Z")
"""The ``:id(type)`` pydantic appends to a ref: differs from process to process."""


class _Writer:
    """Writes one core schema as a Python expression, noting the imports it needs."""

    def __init__(self, package: str) -> None:
        self.package = package
        """The version package the module lies in (its modules are imported relatively)."""
        self.imports: set[str] = set()
        """Modules imported whole: the standard library's, phi_wire's."""
        self.local: set[str] = set()
        """Modules of the version package itself."""
        self.refs: dict[str, str] = {}
        """Each ref as written (its process id left out): the ref it stands for."""

    def value(self, node: Any, owner: tuple[type, str] | None = None) -> str:
        if isinstance(node, dict):
            schema = isinstance(node.get("type"), str)
            items = []
            for key, item in node.items():
                if schema and key in NOT_READ_BY_VALIDATOR:
                    continue
                if schema and key in ("ref", "schema_ref") and isinstance(item, str):
                    items.append(f"{key!r}: {self.ref(item)!r}")
                    continue
                inner = owner
                if schema and node.get("type") == "model":
                    inner = (node["cls"], "")
                elif not schema and owner is not None and owner[1] == "" and isinstance(key, str):
                    inner = (owner[0], key)  # a model's fields, by name
                items.append(f"{self.value(key)}: {self.value(item, inner)}")
            return "{" + ", ".join(items) + "}"
        if isinstance(node, list):
            return "[" + ", ".join(self.value(item, owner) for item in node) + "]"
        if isinstance(node, tuple):
            inside = ", ".join(self.value(item, owner) for item in node)
            return f"({inside},)" if len(node) == 1 else f"({inside})"
        if node is None or type(node) in (bool, int, str, bytes):  # (an enum member is no str)
            return repr(node)
        if type(node) is float:
            return repr(node) if math.isfinite(node) else f'float("{node}")'
        return self.reference(node, owner)

    def ref(self, ref: str) -> str:
        """``ref`` without its process id, which must leave it naming one definition."""
        written = _PROCESS_ID.sub("", ref)
        if self.refs.setdefault(written, ref) != ref:
            raise ValueError(f"two refs would both be written {written!r}")
        return written

    def reference(self, thing: Any, owner: tuple[type, str] | None) -> str:
        if isinstance(thing, enum.Enum):
            return f"{self.named(type(thing))}.{thing.name}"
        if isinstance(thing, functools.partial):
            arguments = [self.reference(thing.func, owner)]
            arguments += [self.value(item, owner) for item in thing.args]
            arguments += [
                f"{key}={self.value(value, owner)}" for key, value in thing.keywords.items()
            ]
            self.imports.add("functools")
            return f"functools.partial({', '.join(arguments)})"
        bound = getattr(thing, "__self__", None)
        if isinstance(bound, FieldInfo) and getattr(thing, "__name__", "") == "get_default":
            return self.field_default(bound, owner)
        if (inspect.ismethod(thing) or inspect.isbuiltin(thing)) and isinstance(bound, type):
            name = thing.__name__
            if getattr(bound, name, None) == thing:
                return f"{self.named(bound)}.{name}"
        return self.named(thing)

    def field_default(self, field: FieldInfo, owner: tuple[type, str] | None) -> str:
        """A lenient field's default, as its model's own field gives it."""
        if owner is None or not owner[1]:
            raise ValueError(f"a field's default outside a model's fields: {field!r}")
        cls, name = owner
        fields: dict[str, FieldInfo] = getattr(cls, "__pydantic_fields__", {})
        own = fields.get(name)
        if (
            own is None
            or own.default != field.default
            or own.default_factory is not field.default_factory
            or own.default_factory_takes_validated_data
            != field.default_factory_takes_validated_data
        ):
            raise ValueError(f"{cls.__qualname__}.{name}'s default is not its model field's")
        return f"{self.named(cls)}.__pydantic_fields__[{name!r}].get_default"

    def named(self, thing: Any) -> str:
        """A class or function by a name that reaches this very object, its module imported."""
        module, qualname = getattr(thing, "__module__", None), getattr(thing, "__qualname__", None)
        if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
            raise ValueError(f"no name reaches {thing!r}")
        if module == "builtins":
            return qualname
        if module == self.package or module.startswith(self.package + "."):
            local = module[len(self.package) + 1 :]
            if local and "." not in local:
                self.local.add(local)
                if _reached(importlib.import_module(module), qualname) is thing:
                    return f"{local}.{qualname}"
        parts = module.split(".")
        for depth in range(len(parts), 0, -1):  # the deepest public module that has it
            public = ".".join(parts[:depth])
            if any(part.startswith("_") for part in parts[:depth]):
                continue
            found = importlib.import_module(public)
            if _reached(found, qualname) is thing:
                self.imports.add(public)
                return f"{public}.{qualname}"
            alias = next(
                (key for key, value in vars(found).items() if value is thing and key[0] != "_"),
                None,
            )
            if alias is not None:  # a private function made public under another name
                self.imports.add(public)
                return f"{public}.{alias}"
        raise ValueError(f"no public name reaches {thing!r}")


def _reached(module: Any, qualname: str) -> Any:
    found: Any = module
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found


def vouched_module_source(
    package: str, schemas: Sequence[tuple[str, Callable[[], tuple[Any, Any] | None]]]
) -> str:
    """The module (``package``'s ``_vouched``) that builds each named type's vouched core schema
    and config, given as (type name, a function returning them as ``_shortcut`` builds them)."""
    writer = _Writer(package)
    functions: list[str] = []
    table: list[str] = []
    for name, built in schemas:
        writer.refs = {}
        parts = built()
        if parts is None:
            raise ValueError(f"{package}.{name} has no vouched validator")
        schema, config = parts
        function = "_" + re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
        functions.append(
            f"def {function}() -> tuple[Any, Any]:\n"
            f'    """{name}: its vouched core schema and config."""\n'
            f"    return ({writer.value(schema)}, {writer.value(config)})\n"
        )
        table.append(f"    {name!r}: {function},\n")
    standard = sorted(
        name for name in writer.imports if name.split(".")[0] in sys.stdlib_module_names
    )
    own = sorted(writer.imports.difference(standard))
    imports = "import functools\n" if "functools" in standard else ""
    imports += "from collections.abc import Callable\nfrom typing import Any\n\n"
    imports += "".join(f"import {name}\n" for name in own)
    if writer.local:
        imports += f"\nfrom . import {', '.join(sorted(writer.local))}\n"
    if set(standard) - {"functools"}:
        raise ValueError(f"unexpected imports: {standard}")
    return (
        "# Generated by tools/codegen from the models and phi_wire's vouched forms - do not edit.\n"
        f'"""``loads``\' vouched validators of ``{package}``, their core schemas written out by\n'
        "tools/codegen_vouched.py; ``phi_wire.serde`` uses them only with the pydantic versions\n"
        "below.\n"
        '"""\n\n'
        "from __future__ import annotations\n\n" + imports + f"\nPYDANTIC = {pydantic.VERSION!r}\n"
        f"PYDANTIC_CORE = {pydantic_core.__version__!r}\n\n\n"
        + "\n\n".join(functions)
        + "\n\nVOUCHED: dict[str, Callable[[], tuple[Any, Any]]] = {\n"
        + "".join(table)
        + "}\n"
    )


class _FromTree(importlib.abc.MetaPathFinder):
    """Imports the given version packages (and their modules) from a fresh tree, not from the
    installed one."""

    def __init__(self, packages: dict[str, Path]) -> None:
        self.packages = packages

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        for name, folder in self.packages.items():
            if fullname == name:
                return importlib.util.spec_from_file_location(
                    name, folder / "__init__.py", submodule_search_locations=[str(folder)]
                )
            if fullname.startswith(name + "."):
                return importlib.machinery.PathFinder.find_spec(fullname, [str(folder)])
        return None


def _write_from(tree: Path) -> None:
    """In the child: each shipped phi-core version package of ``tree`` gets its ``_vouched``."""
    from phi_wire.formats import VERSIONS

    versions = [entry for entry in VERSIONS if entry.format == "phi-core"]
    packages = {entry.module: tree / entry.folder for entry in versions}
    sys.meta_path.insert(0, _FromTree(packages))
    from phi_wire.serde import vouched_schema

    for entry in versions:
        module = importlib.import_module(entry.module)
        if Path(str(module.__file__)).parent != tree / entry.folder:
            raise SystemExit(f"codegen: {entry.module} was not imported from {tree}")
        schemas = [
            (name, functools.partial(vouched_schema, getattr(module, name))) for name in TYPES
        ]
        source = vouched_module_source(entry.module, schemas)
        (tree / entry.folder / MODULE).write_text(source, encoding="utf-8")


def write_vouched(tree: Path) -> None:
    """Write the ``_vouched`` modules into the fresh Python ``tree`` (a child process: it imports
    that tree's version packages, and pydantic builds their schemas)."""
    result = subprocess.run(
        [sys.executable, __file__, str(tree)], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise SystemExit(f"codegen: writing the vouched schemas failed:\n{result.stderr}")


if __name__ == "__main__":
    _write_from(Path(sys.argv[1]))
