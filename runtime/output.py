"""What phi-wire writes, written whole or failed loudly, and named the same way everywhere.

An operating system's ``write`` may take fewer bytes than it was given: a pipe whose reader
closed part-way, a disk that fills, a file-size limit (``RLIMIT_FSIZE``). A layer that does not
check the count (Python's text layer over a pipe) loses the rest silently and the run reports
success. ``write_all`` checks every count: the rest is written again until all is taken; an
error, or a write that takes nothing, raises ``OSError``. The command line's standard output
(``phi_wire.cli``) and the converter's files (``phi_wire.convert``) both write through it.

A file name is text to Python even when its bytes are not UTF-8: each such byte is kept as a
lone surrogate (``caf\\udce9`` for the bytes ``caf\\xe9``), which no UTF-8 stream can print.
``printable`` writes it as the byte it stands for (``caf\\xe9``), in every message of every
command.
"""

from __future__ import annotations

import errno
from collections.abc import Callable

__all__ = ["printable", "write_all"]


def write_all(write: Callable[[memoryview], int | None], data: bytes) -> None:
    """Write all of ``data`` with ``write`` (``os.write`` bound to a descriptor, a binary
    stream's ``write``), which returns the number of bytes it took: the rest is written again
    until none is left. ``OSError`` when it fails, when it takes nothing (``ENOSPC``: no room),
    or when it cannot take anything now (``None``, a non-blocking descriptor: ``EAGAIN``)."""
    view = memoryview(data)
    while view:
        taken = write(view)
        if taken is None:
            raise OSError(errno.EAGAIN, "it can take no more now: non-blocking")
        if taken <= 0:
            raise OSError(errno.ENOSPC, "it took no more bytes: no space left?")
        view = view[taken:]


def printable(text: str) -> str:
    """``text`` as any stream can print it: a byte that is not UTF-8, kept by Python as a lone
    surrogate (``\\udc80``-``\\udcff``), is written ``\\xe9``, as the byte it stands for; any other
    lone surrogate as its escape (``\\ud800``). Text that is UTF-8 already is returned as is."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(_escaped(character) for character in text)
    return text


def _escaped(character: str) -> str:
    code = ord(character)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if 0xD800 <= code <= 0xDFFF:
        return f"\\u{code:04x}"
    return character
