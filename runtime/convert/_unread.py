"""The keys a format's reader drops: serde (phi-core, clark-agent) and pydantic (Operator-Use)
skip an object's unknown keys without a word, so a model read from a document no longer holds
them and no converter can carry them. Every conversion of a file says so: each key of the source
document that its model does not hold is a ``dropped`` loss at its pointer, whichever format read
it (a same-format conversion too: ``--from phi-core --to phi-core`` of a pi-ai message names
the pi keys phi-core drops, as ``validate --strict`` does).

The walk goes along the document and the model read from it together: an object read as a model
has the keys of its fields (their wire names) and, for a model that keeps unknown keys
(``extra="allow"``), those too; a free-form value (``serde_json::Value``, a dict) keeps all of
its keys. Pointers are written only for the keys found.
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel, RootModel

from phi_wire.pointer import escape

__all__ = ["READER_DROPS", "unread_keys"]

READER_DROPS = "{format}'s reader does not know this key and drops it"
"""The reason of a key the source's reader dropped (``{format}``: the source format)."""


@functools.cache
def _fields(model: type[BaseModel]) -> dict[str, str]:
    """A model's wire key -> its field name."""
    fields: dict[str, str] = {}
    for name, field in model.model_fields.items():
        alias = field.validation_alias if isinstance(field.validation_alias, str) else None
        fields[alias or field.alias or name] = name
    return fields


def unread_keys(document: Any, value: Any, pointer: str = "") -> list[str]:
    """The pointers of the keys of ``document`` (parsed JSON) that ``value`` (what a format's
    ``loads`` read from it: a model, a list of them, ...) does not hold."""
    found: list[str] = []
    _walk(document, value, pointer, found)
    return found


def _walk(document: Any, value: Any, pointer: str, found: list[str]) -> None:
    if isinstance(value, BaseModel):
        if isinstance(value, RootModel):
            _walk(document, value.root, pointer, found)
            return
        if type(document) is not dict:
            return
        fields = _fields(type(value))
        extra = value.model_extra or {}
        for key, item in document.items():
            name = fields.get(key)
            if name is not None:
                _walk(item, getattr(value, name), pointer + "/" + escape(key), found)
            elif key not in extra:
                found.append(pointer + "/" + escape(key))
    elif isinstance(value, list | tuple):
        if type(document) is list and len(document) == len(value):
            for index, (item, held) in enumerate(zip(document, value, strict=True)):
                _walk(item, held, f"{pointer}/{index}", found)
    elif isinstance(value, dict) and type(document) is dict:
        for key, item in document.items():
            if key in value:  # a free-form value keeps its keys; a dict of models is walked
                _walk(item, value[key], pointer + "/" + escape(key), found)
