"""JSON parsed for recognition, as leniently about UTF-8 as serde_json may be: a byte that is not
UTF-8 stands in as U+FFFD.

serde_json skips an unknown key's value without checking its UTF-8 (``ignore_str``, see
``phi_wire._ignored``), so bytes that are not UTF-8 do not make a document invalid by themselves:
only the format's ``loads`` can say. Python's ``json.loads`` refuses such bytes outright; reading
them as U+FFFD keeps the document's shape (the byte can only be inside a string: anywhere else it
is a syntax error either way), so its format and type are recognised as for any other document.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["parse"]


def parse(raw: bytes | str) -> Any:
    """``json.loads(raw)``, except that bytes that are not UTF-8 read as U+FFFD; ``ValueError``
    (or ``RecursionError``) when ``raw`` is not one JSON value."""
    try:
        return json.loads(raw)
    except UnicodeDecodeError:
        if isinstance(raw, str):
            raise
        return json.loads(raw.decode("utf-8", "replace"))
