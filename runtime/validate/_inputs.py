"""Inputs of ``phi-wire validate``: which files to read, and their documents in chunks.

A ``.json`` file is one document; ``.jsonl``/``.ndjson`` files hold one document per line; any of
them may be gzipped (``.gz``); ``-`` is stdin, whose layout is recognised from its first bytes.
Files are read in blocks of whole lines (``BLOCK_BYTES``), so memory stays flat however large the
input.
"""

from __future__ import annotations

import os
import sys
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, NamedTuple

from ._records import InputError

__all__ = [
    "BLOCK_BYTES",
    "JSON_SUFFIXES",
    "LINES_SUFFIXES",
    "Chunk",
    "find_files",
    "input_size",
    "is_lines_file",
    "read_chunks",
    "reason",
]

JSON_SUFFIXES = (".json",)
LINES_SUFFIXES = (".jsonl", ".ndjson")
BLOCK_BYTES = 4 * 1024 * 1024


class Chunk(NamedTuple):
    """Consecutive documents of one file: whole lines of JSONL, or one whole document."""

    file: str
    first_line: int
    data: bytes
    lines: bool
    """One document per line (else ``data`` is one document)."""
    newlines: int = -1
    """``data.count(b"\\n")`` when the reader counted them already."""

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def documents(self) -> int:
        if not self.lines:
            return 1
        newlines = self.newlines if self.newlines >= 0 else self.data.count(b"\n")
        return newlines + (not self.data.endswith(b"\n"))

    def line_starts(self) -> list[int]:
        if not self.lines:
            return [0]
        starts = [0]
        position = self.data.find(b"\n")
        while position != -1 and position + 1 < len(self.data):
            starts.append(position + 1)
            position = self.data.find(b"\n", position + 1)
        return starts


def is_lines_file(name: str) -> bool:
    """Whether a file's name says it holds one document per line (stdin counts as lines)."""
    return not name.removesuffix(".gz").endswith(JSON_SUFFIXES)


def find_files(paths: Iterable[str]) -> Iterator[str]:
    """Files named, and .json/.jsonl/.ndjson (optionally .gz) files under folders, sorted."""
    suffixes = JSON_SUFFIXES + LINES_SUFFIXES
    for name in paths:
        if name == "-":
            yield name
            continue
        path = Path(name)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and child.name.removesuffix(".gz").endswith(suffixes):
                    yield str(child)
        elif path.exists():
            yield name
        else:
            raise InputError(f"{name}: no such file or folder")


def input_size(name: str) -> int:
    """Bytes to judge in one file: for gzip, the uncompressed size its trailer records."""
    size = os.path.getsize(name)
    if name.endswith(".gz") and size >= 18:
        try:
            with open(name, "rb") as handle:
                handle.seek(-4, os.SEEK_END)
                size = max(size, int.from_bytes(handle.read(4), "little"))
        except OSError:
            pass  # reading it will report the problem
    return size


def _open(name: str) -> BinaryIO:
    if name == "-":
        return sys.stdin.buffer
    handle: BinaryIO = open(name, "rb")  # noqa: SIM115 - closed by the caller
    if name.endswith(".gz"):
        import gzip

        return gzip.GzipFile(fileobj=handle, mode="rb")  # type: ignore[return-value]
    return handle


def _is_lines(name: str, head: bytes) -> bool:
    base = name.removesuffix(".gz")
    if base.endswith(LINES_SUFFIXES):
        return True
    if base.endswith(JSON_SUFFIXES):
        return False
    # stdin or an unknown suffix: one document per line unless it is one (pretty) document
    stripped = head.strip()
    return b"\n" in stripped and not stripped.startswith((b"{\n", b"{\r\n", b"[\n"))


def read_chunks(name: str, block_bytes: int = BLOCK_BYTES) -> Iterator[Chunk]:
    """The documents of one file in chunks of whole lines (one chunk for a .json file)."""
    try:
        with _open(name) as stream:
            head = stream.read(block_bytes)
            if not _is_lines(name, head):
                data = head + stream.read()
                yield Chunk(name, 1, data, lines=False)
                return
            yield from _line_chunks(name, stream, head, block_bytes)
    except (OSError, EOFError, zlib.error) as error:
        raise InputError(f"{name}: cannot read ({reason(error)})") from None


def reason(error: BaseException) -> str:
    """Why a file could not be read, in a few words."""
    if isinstance(error, EOFError) or "end-of-stream" in str(error):
        return "truncated gzip file"
    return getattr(error, "strerror", None) or str(error) or type(error).__name__


def _line_chunks(name: str, stream: BinaryIO, head: bytes, block_bytes: int) -> Iterator[Chunk]:
    """Blocks that end at a line end; a line longer than a block is gathered whole."""
    pending = [head]  # pieces of the unfinished block (joined once: no quadratic copying)
    line_number = 1
    while True:
        more = stream.read(block_bytes)
        if more:
            cut = more.rfind(b"\n") + 1
            if cut == 0:
                pending.append(more)
                continue
            pending.append(more[:cut])
            rest = more[cut:]
        else:
            rest = b""
        block = b"".join(pending)
        if not more:
            if block:
                yield Chunk(name, line_number, block, lines=True)
            return
        # the head may end mid-line: keep whole lines only, carry the rest forward
        cut = block.rfind(b"\n") + 1
        block, carried = block[:cut], block[cut:]
        pending = [carried + rest] if carried or rest else []
        if block:
            newlines = block.count(b"\n")
            yield Chunk(name, line_number, block, lines=True, newlines=newlines)
            line_number += newlines
