"""How ``phi-wire convert`` words an input that is not JSON, or that a byte order mark spoils:
in ``phi-wire validate``'s words, with the line and column serde_json names.

A document that does not parse is said as serde_json says it (``invalid JSON: expected value at
line 1 column 1``: what phi-core and clark-agent would say), not as Python's ``json`` does
(``Expecting value``, no column). A UTF-8 byte order mark before it, which serde_json rejects,
is said as such (``phi_wire.validate.byte_order_mark``), as validate says it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from phi_wire.errors import WireError

# The engine (``phi_wire.serde``) and validate's words are imported by the function that says
# what is wrong: a conversion with nothing wrong never needs them.

__all__ = ["not_json", "rejected"]

_HOME = "phi-core"
"""The format a document is judged as when none is given or recognised (as validate does)."""


def not_json(text: bytes, format: str | None) -> tuple[int, str]:
    """(the line of ``text`` where it goes wrong, 1-based; what is wrong) for a document that
    does not parse as JSON, read as ``format`` (None: not known yet, phi-core's words)."""
    from phi_wire.errors import WireError
    from phi_wire.serde import JsonValue, loads
    from phi_wire.validate import SERDE_FORMATS, byte_order_mark, explained

    format = format or _HOME
    serde = format in SERDE_FORMATS
    bom = byte_order_mark(text, format, serde)
    if bom is not None:
        return 1, bom
    try:
        loads(JsonValue, text)
    except WireError as error:
        return error.line or 1, explained(error.problems[0].message, text, serde=serde)
    except RecursionError:
        return 1, "invalid JSON: nested too deeply"
    return 1, "invalid JSON"  # Python's parser refused what serde_json reads: said plainly


def rejected(error: WireError, text: bytes, format: str) -> str:
    """What ``format``'s ``loads`` said of ``text``, as validate says it: a byte order mark
    named as such, bytes that are not UTF-8 and lone surrogate escapes named
    (``phi_wire.validate.explained``)."""
    from phi_wire.validate import SERDE_FORMATS, byte_order_mark, explained

    serde = format in SERDE_FORMATS
    bom = byte_order_mark(text, format, serde)
    if bom is not None:
        return f"{error.type_name} /: {bom}" if error.type_name else bom
    return explained(str(error), text, serde=serde)
