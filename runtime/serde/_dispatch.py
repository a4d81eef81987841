"""A union of model classes written by its member's own serializer: pydantic-core's native
dispatch, without the union's second pass over the value.

pydantic-core fact: a union (``union``, ``tagged-union``) writes JSON in two passes: it first
turns the value into Python objects with the chosen member's serializer (``to_python``, checking
the member), then writes those objects by inference. Every event of a session's loop, every
message of a list, is built as dicts and lists before a byte is written: a third of ``dumps``'s
time on a session. A ``model`` schema with ``polymorphic_serialization`` instead writes an
instance of a strict subclass of its class straight through that instance's own
``__pydantic_serializer__`` (the polymorphism trampoline), in one pass.

So ``dispatched`` stands a model schema in for such a union: its class is a marker whose
instances are exactly the union's members' (a flag per member, tested in C: ``_marker``); any
other phi-wire model, of the wrong class put in a model unvalidated, goes to the union itself (a
function-wrap serializer around a copy of it), which refuses it as before, and a value that is no
phi-wire model is refused by the test (``refused_value``). ``_write`` installs each member's
fast serializer as its class's own, so a member is written as ``dumps`` writes it on its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from operator import attrgetter
from typing import Any

from pydantic_core import core_schema

from ..primitives import parsed_as_value
from ._interrupts import InterruptibleModel, keeps

__all__ = ["UNIONS", "dispatched", "own_model", "refused_value", "union_members"]

UNIONS = frozenset({"union", "tagged-union"})
"""The schemas ``dispatched`` may stand in for."""


def union_members(
    node: Mapping[str, Any], definitions: Mapping[str, Any]
) -> frozenset[type] | None:
    """The phi-wire model classes of the union ``node`` (nested unions flattened, references
    resolved), or None if any choice is something else (a scalar, a model with a serializer of
    its own in this place): such a union stays as it is."""
    members: list[type] = []
    return frozenset(members) if _gather(node, definitions, members) else None


def _gather(node: Any, definitions: Mapping[str, Any], members: list[type]) -> bool:
    while node.get("type") == "definition-ref" and node["schema_ref"] in definitions:
        node = definitions[node["schema_ref"]]
    kind = node.get("type")
    if kind in UNIONS:
        choices: Iterable[Any] = (
            node["choices"].values() if kind == "tagged-union" else node["choices"]
        )
        return all(
            _gather(choice[0] if isinstance(choice, tuple) else choice, definitions, members)
            for choice in choices
        )
    cls = node.get("cls")
    if kind != "model" or not own_model(cls):
        return False  # (a user's model class is never flagged)
    if "serialization" in node and not parsed_as_value(cls):
        return False  # a serializer of its own, maybe this place's alone
    members.append(cls)
    return True


_PACKAGE = __name__.partition(".")[0]


def own_model(cls: Any) -> bool:
    """Whether ``cls`` is one of phi-wire's own model classes: the only classes it flags as a
    union's members and gives ``dumps``'s serializer as their own (``_write``), never a user's."""
    return (
        isinstance(cls, type)
        and issubclass(cls, InterruptibleModel)
        and cls.__module__.partition(".")[0] == _PACKAGE
    )


_MARKERS: dict[frozenset[type], type] = {}
"""One marker class per set of members: the class the stand-in's instances are tested against."""

_NAMES: dict[str, str] = {}
"""Each marker's flag: the names of its members, for ``refused_value``."""

_FLAG = "__phi_wire_union_member_{}__"
_REFUSED = re.compile(
    r"AttributeError: '(\w+)' object has no attribute '(__phi_wire_union_member_\d+__)'"
)


def _marker(members: frozenset[type]) -> type:
    """A class whose instances are exactly the instances of ``members`` (and their subclasses):
    each member carries a flag of its own that its metaclass's instance check reads in C
    (``attrgetter``: an ABC's check is a Python call, a third of the time saved, on every value
    written through the stand-in). Any other phi-wire model carries it false (the union then
    judges it); a value that is no phi-wire model has no such flag: the check raises, and
    ``dumps`` reports it (``refused_value``)."""
    marker = _MARKERS.get(members)
    if marker is None:
        flag = _FLAG.format(len(_NAMES))
        check = type(
            "UnionMemberCheck", (type,), {"__instancecheck__": staticmethod(attrgetter(flag))}
        )
        _NAMES[flag] = ", ".join(sorted(cls.__name__ for cls in members))
        marker = check("UnionMember", (), {"__doc__": f"One of {_NAMES[flag]}."})
        setattr(InterruptibleModel, flag, False)
        for cls in members:
            setattr(cls, flag, True)
        _MARKERS[members] = marker
    return marker


def refused_value(problem: str) -> str | None:
    """``problem``, pydantic-core's text, in a reader's words when a stand-in's member check
    refused a value that is no phi-wire model (an int put in a list of events), else None."""
    found = _REFUSED.search(problem)
    if found is None or found[2] not in _NAMES:
        return None
    return f"expected one of {_NAMES[found[2]]}, found a value of type {found[1]}"


@keeps  # pydantic calls it while writing (``_interrupts``)
def _through_union(value: Any, union: Callable[[Any], Any]) -> Any:
    """A value no member's own serializer writes: written, or refused, by the union itself."""
    return union(value)


def dispatched(members: frozenset[type], union: Any) -> Any:
    """A schema that writes an instance of one of ``members`` with its class's own serializer,
    and anything else as ``union`` (the union's schema, already copied) does."""
    return core_schema.model_schema(
        _marker(members),
        core_schema.model_fields_schema({}),
        serialization=core_schema.wrap_serializer_function_ser_schema(_through_union, schema=union),
        config=core_schema.CoreConfig(polymorphic_serialization=True),
    )
