"""Serde and pydantic facts: a reader fills some missing keys with values of its own. clark-agent's
(serde's ``default_timestamp``, the schema's ``x-serde-default: now-unix-ms``) stamps a missing
message ``timestamp`` with the time of reading, in ms; Operator-Use's, by a default factory (the
schema's ``x-default-factory``), gives a message's ``id`` a random ``str(uuid4())``, a session
entry's ``str(uuid4())[:8]``, a ``timestamp`` the time of reading. A conversion must not differ
from run to run, so each such value read from a file is replaced by one made from the input (an id
derived as every id phi-wire invents, ``_ids``; a timestamp 0, the epoch, since the source
has no time to give) and named as an ``invented`` loss at its pointer. The model keeps the key
out of its ``model_fields_set`` (the source did not set it), so a converter to a format without
the field does not call it dropped.
"""

from __future__ import annotations

from typing import NamedTuple

from ._ids import DerivedId
from ._types import Loss
from ._unread import NOW_UNIX_MS, Filled

__all__ = ["replaced"]


class _Made(NamedTuple):
    """What replaces a factory's value (``id``: a derived uuid, or its first 8 hex digits;
    else the number) and the reason of its loss."""

    id_length: int
    number: int | float
    reason: str


_ID = (
    "{format}'s reader gives a missing {key} a random {factory}: read as a uuid5 of the "
    "input's name, the document's line, the {key}'s pointer and the document's JSON{part} instead"
)
_TIME = "{format}'s reader gives a missing {key} the time of reading: read as 0 (the epoch) instead"
_MADE = {
    "uuid4": _Made(36, 0.0, _ID.format(format="{format}", key="{key}", factory="uuid4", part="")),
    "uuid4-8": _Made(
        8,
        0.0,
        _ID.format(
            format="{format}",
            key="{key}",
            factory="str(uuid4())[:8]",
            part=" (its first 8 hex digits)",
        ),
    ),
    "time.time": _Made(0, 0.0, _TIME),
    "datetime.now": _Made(0, 0.0, _TIME),
    NOW_UNIX_MS: _Made(0, 0, _TIME),  # clark-agent's u64 ms: an integer
}
"""Each ``x-default-factory`` Operator-Use's schemas use, and clark-agent's stamp
(``NOW_UNIX_MS``), and what a conversion writes instead."""


def replaced(filled: list[Filled], name: str, line: int, text: bytes, format: str) -> list[Loss]:
    """Each value in ``filled`` (read from line ``line`` of input ``name``, the line's bytes
    ``text``) replaced in its model by one made from the input; the ``invented`` losses."""
    losses = []
    for pointer, model, field, factory in filled:
        made = _MADE.get(factory)
        if made is None:  # a factory this module does not know: left as read, still named
            losses.append(Loss(pointer, "invented", f"{format}'s reader made it ({factory})"))
            continue
        if made.id_length:
            derived = DerivedId(name, f"{line}{pointer}")
            derived.add(text)
            value: str | int | float = derived.id()[: made.id_length]
        else:
            value = made.number
        setattr(model, field, value)
        model.model_fields_set.discard(field)  # the source did not set it: no converter drops it
        key = pointer.rpartition("/")[2]
        losses.append(Loss(pointer, "invented", made.reason.format(format=format, key=key)))
    return losses
