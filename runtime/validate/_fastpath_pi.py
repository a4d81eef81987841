"""pi's JSONL lines in the fast path: which types a file's expression may take. A line of a file
whose first lines are one pi type is read as that type first (and as the types wider than it, in
turn, as pi's reader reads: ``WIDER_TYPES``), then, when rejected, as the type its own shape is
(``phi_wire.formats.pi.recognise.claim``). So the expression takes the file's type and its wider
ones, and an other type of ``ALSO`` only when pi's recogniser names every document of it that the
expression can match that type: checked on each variant, for every set of its optional keys (what
``claim`` goes by, with the tag's value; a ``timestamp`` tried both as an ISO time and not, the
one value it looks at)."""

from __future__ import annotations

from itertools import combinations
from types import ModuleType, UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from typing_extensions import TypeAliasType

from phi_wire.fastpath import JS_TAG_KEY
from phi_wire.formats.pi.base import JsModel
from phi_wire.formats.pi.recognise import claim

__all__ = ["ALSO", "also_read_as", "always_claimed"]

ALSO = {"AgentEvent": ("AssistantMessageEvent", "SessionHeader", "RpcResponse")}
"""Per type a pi JSONL file's first lines have, the other types its lines often are (a stream
file of the agent loop holds pi-ai's provider events too, the CLI's its session header and its
RPC responses)."""

MOST_OPTIONAL_KEYS = 12
"""A variant with more optional keys is not checked (2^12 sets of keys): its type is left out."""

_ISO_TIME = "2026-01-01T00:00:00.000Z"
_TIMES = (None, _ISO_TIME)
ISO_TIMESTAMP = "ISOTimestamp"
"""pi's type of an ISO time string (its pattern the expression enforces, ``_js``): a field of it
holds one, never another value (known by its name: another type gets both values tried)."""


def also_read_as(module: ModuleType, name: str) -> list[str]:
    """The types of ``ALSO[name]`` the module has whose every document pi's recogniser names
    as that type (so a line of one, rejected as ``name``, is read as it)."""
    return [
        other
        for other in ALSO.get(name, ())
        if hasattr(module, other) and always_claimed(getattr(module, other), other)
    ]


def _variants(tp: Any, tag: str | None = None) -> list[tuple[type[JsModel], str | None]] | None:
    """The model classes of a union type, each with the discriminator of the tagged union it is
    a choice of, the innermost (the expression requires that key); None: something else is in
    it."""
    if isinstance(tp, TypeAliasType):
        return _variants(tp.__value__, tag)
    if get_origin(tp) is Annotated:
        inner, *metadata = get_args(tp)
        for item in metadata:
            marked = getattr(item, "discriminator", None)
            tag = marked if isinstance(marked, str) else tag
        return _variants(inner, tag)
    if isinstance(tp, type) and issubclass(tp, JsModel):
        return [(tp, tag)]
    found: list[tuple[type[JsModel], str | None]] = []
    for arm in get_args(tp) if get_origin(tp) in (Union, UnionType) else [None]:
        inner = _variants(arm, tag) if arm is not None else None
        if inner is None:
            return None
        found += inner
    return found


def always_claimed(tp: Any, name: str) -> bool:
    """Whether pi's recogniser names every document of ``tp`` the expression can match ``name``:
    the keys it may have are the required ones (pydantic's, the tag ``JS_TAG_KEY`` and the
    discriminator of its tagged union), and any set of the others."""
    variants = _variants(tp)
    if not variants:
        return False
    for cls, discriminator in variants:
        tag = cls.model_fields.get(JS_TAG_KEY)
        if tag is None or get_origin(tag.annotation) is not Literal:
            return False
        fields = {field.alias or key: field for key, field in cls.model_fields.items()}
        forced = {JS_TAG_KEY, discriminator}
        required = [key for key, field in fields.items() if field.is_required() or key in forced]
        optional = [key for key in fields if key not in required]
        if len(optional) > MOST_OPTIONAL_KEYS:
            return False
        stamp = fields.get("timestamp")
        iso = stamp is not None and getattr(stamp.annotation, "__name__", "") == ISO_TIMESTAMP
        times = (_ISO_TIME,) if iso else _TIMES
        for value in get_args(tag.annotation):
            for size in range(len(optional) + 1):
                for chosen in combinations(optional, size):
                    for time in times:
                        document: dict[str, Any] = dict.fromkeys([*required, *chosen])
                        document[JS_TAG_KEY] = value
                        if "timestamp" in document:
                            document["timestamp"] = time
                        found = claim(document)
                        if found is None or found[0] != name:
                            return False
    return True
