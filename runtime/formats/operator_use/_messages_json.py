"""Operator-Use's reader gives a message without ``id`` a random uuid4 (its default factory):
the source had no id, so phi-core, which has none, drops none. The model keeps the key out of
its ``model_fields_set`` (``phi_wire.convert`` replaces the random value with a derived one, an
``invented`` loss), and the JSON the converters to phi-core read of it is written without it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._non_finite import source_json

__all__ = ["messages_json", "without_unset_id"]


def messages_json(values: Sequence[Any], dumps: Callable[[Any], str]) -> tuple[list[Any], bool]:
    """``source_json`` of message models, each without an id its source did not have."""
    documents, non_finite = source_json(values, dumps)
    for value, document in zip(values, documents, strict=True):
        without_unset_id(value, document)
    return documents, non_finite


def without_unset_id(message: Any, document: Any) -> None:
    """``document`` (the JSON of the message model ``message``) without its id where the source
    had none."""
    if type(document) is dict and "id" in document and "id" not in message.model_fields_set:
        del document["id"]
