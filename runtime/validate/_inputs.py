"""Reading the inputs of a run: a file or stdin as a stream of bytes (gunzipped when it starts
with gzip's magic bytes, whatever its name), its layout (one document per line, or one document),
and its documents in chunks of whole lines, in bounded memory whatever the input holds.

* gzip is inflated a block at a time; a truncated or corrupt stream is reported after the lines
  before the damage have been judged.
* The layout is recognised from the first bytes: a pretty document saved as ``.jsonl`` is read as
  one document, JSONL saved as ``.json`` line by line (each with a ``NOTE``); stdin and other names
  likewise.
* A document (a ``.json`` file, a line) over ``max_document_bytes`` is not judged (an ``INPUT``
  record) and never held whole: a long line is dropped as it is read up to its end. A long
  document whose first byte cannot start a JSON text (a NUL, a letter...) is rejected at that
  byte, without reading it further into memory.
* A regular file that ends before the size it had when opened (truncated during the run) is
  reported, so the documents it lost are not silently missing.
* A URL (``phi_wire.remote``: ``s3://...``) is read as a regular file is: by offsets, sized as
  stored; whatever the store raises is an ``INPUT`` record.
* Empty input, one rule: empty text where a document belongs is one document, which is not JSON
  (serde_json rejects it: "EOF while parsing a value"). A file that is empty or only whitespace,
  whatever its name says (``.json`` or ``.jsonl``), is one such document; so is a blank line
  among a JSONL file's lines. Standard input that sends nothing is no input at all (nothing to
  validate).

Why one module of some 600 lines: the stream, the layout and the chunks share one reading loop
over one buffer (each step decides how much of it the next may hold), so splitting them would
pass that buffer's state between modules.
"""

from __future__ import annotations

import io
import os
import re
import stat
import sys
import zlib
from collections.abc import Iterator
from typing import NamedTuple, Protocol

from phi_wire import remote, remote_s3
from phi_wire.recognise import Recognised, parse

from ._folder import settled
from ._plan import SESSION, first_documents, plan_file_lines
from ._records import (
    AUTO,
    INPUT,
    NOTE,
    PROBLEM,
    FileStart,
    InputError,
    Record,
    Settings,
    Verdict,
)
from ._walk import DOCUMENT, LINES, named_layout
from ._wording import BOM

__all__ = [
    "BLOCK_BYTES",
    "BOM",
    "GZIP_MAGIC",
    "Chunk",
    "Item",
    "Source",
    "input_size",
    "is_plain_file",
    "layout_note",
    "newlines_in",
    "not_json_start",
    "open_stored",
    "peek_layout",
    "read_file",
    "read_range",
    "recognise_layout",
    "stored_size",
]

BLOCK_BYTES = 4 * 1024 * 1024
"""Bytes read at a time: a chunk of JSONL is this much whole lines."""
RAW_BLOCK_BYTES = 1024 * 1024
"""Compressed bytes read at a time from a gzip file."""
GZIP_MAGIC = b"\x1f\x8b"
LONG_LINE_BYTES = 512
"""Mean line length from which a chunk's newlines are counted by finding each (``memchr`` skips
a line at memory speed, for some 0.1 us of Python a line) rather than by ``bytes.count``, which
looks at every byte (0.3 ns each): on 8 MB of pi's messages (1 kB a line), 1.2 ms against 2.3."""
_FOUND_AT_ONCE = 64
_COUNTED_AT_ONCE = 1024 * 1024
_BLANKS = b" \t\r\n"
_NOT_BLANK = re.compile(rb"[^ \t\r\n]")
"""Where a byte other than ``_BLANKS`` is (found in place: no copy of a head to strip it)."""
_JSON_STARTS = frozenset(b'{["-0123456789tfn')


class Chunk(NamedTuple):
    """Consecutive documents of one file: whole lines of JSONL, or one whole document."""

    file: str
    first_line: int
    data: bytes | bytearray
    lines: bool
    """One document per line (else ``data`` is one document); JSONL lines read on from a block
    before are in the buffer they were read into (``Source.read_on``)."""
    newlines: int = -1
    """``data.count(b"\\n")`` when the reader counted them already."""
    plan: Recognised | None = None
    """The format the file's first lines have (a JSONL file, or an Operator-Use session file
    read whole), None when the file is one document or nothing named a format."""

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


Item = FileStart | Chunk | Verdict
"""What reading yields: a file begins, documents to judge, or a verdict reached while reading (a
document rejected or refused as it was read, a read error)."""


def not_json_start(data: bytes) -> str | None:
    """Why ``data`` cannot be a JSON text, judged from its first non-blank byte alone: None when
    that byte may start one, is not ASCII (left to the UTF-8 check), or is not there yet."""
    text = data.removeprefix(BOM).lstrip(_BLANKS)
    if not text or text[0] in _JSON_STARTS or text[0] >= 0x80:
        return None
    return (
        f"invalid JSON: expected a value, found byte 0x{text[0]:02x}, which cannot start a JSON "
        "text (the document was read no further)"
    )


class Readable(Protocol):
    """What the reader reads from: a file opened in binary, or an object in a store."""

    def read(self, size: int = -1, /) -> bytes: ...

    def seek(self, offset: int, whence: int = 0, /) -> int: ...

    def close(self) -> None: ...


def is_plain_file(name: str) -> bool:
    """A regular file (not stdin, a FIFO, a device) or an object at a URL: one that can be sized
    and read by offsets, by any process given its name."""
    if name == "-":
        return False
    if remote.is_url(name):
        return True
    try:
        return stat.S_ISREG(os.stat(name).st_mode)
    except OSError:
        return False


def stored_size(name: str) -> int:
    """The size of a plain file or object as stored (``OSError`` if it cannot be sized)."""
    return remote.path_size(name)


def open_stored(name: str, until: int | None = None) -> Readable:
    """A plain file or object opened for reading bytes (``OSError`` if it cannot be); ``until``:
    where its reads end but for the line that runs on past it (an object's requests stop near
    it)."""
    return remote.open_path(name, until)


def input_size(name: str) -> int:
    """Bytes to judge in one regular file (0 for others): for gzip, the uncompressed size its
    trailer records (modulo 4 GB, as gzip keeps it); for an object at a URL, its stored size (no
    request for the trailer)."""
    if not is_plain_file(name):
        return 0
    if remote.is_url(name):
        try:
            return stored_size(name)
        except OSError:
            return 0  # reading it will report the problem
    try:
        size = os.path.getsize(name)
        with open(name, "rb") as handle:
            if size >= 18 and handle.read(2) == GZIP_MAGIC:
                handle.seek(-4, os.SEEK_END)
                size = max(size, int.from_bytes(handle.read(4), "little"))
    except OSError:
        return 0  # reading it will report the problem
    return size


def _reason(error: OSError) -> str:
    return error.strerror or str(error) or type(error).__name__


class Source:
    """A file (or ``-``, stdin) as bytes: ``read(size)`` returns up to ``size`` bytes, ``b""`` at
    the end; gzip (recognised by its magic bytes) is inflated as it is read, never more than
    ``size`` bytes at a time, members one after the other. Raises ``InputError`` when the bytes
    stop early: a read error, a truncated or corrupt gzip stream, a file that shrank."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.expected: int | None = None
        """The size of a regular file when opened."""
        self.consumed = 0
        try:
            if name == "-":
                self.stream: Readable = sys.stdin.buffer
                self.owned = False
            elif remote.is_url(name):
                opened = remote.open_url(name)
                self.stream, self.owned, self.expected = opened, True, opened.size
            else:
                local = open(name, "rb")  # noqa: SIM115 - closed by close()
                self.stream, self.owned = local, True
                status = os.fstat(local.fileno())
                if stat.S_ISDIR(status.st_mode):
                    raise IsADirectoryError(21, "Is a directory")
                if stat.S_ISREG(status.st_mode):
                    self.expected = status.st_size
            first = self._raw(RAW_BLOCK_BYTES)
        except OSError as error:
            raise InputError(f"cannot read ({_reason(error)})") from None
        self.gzip = first.startswith(GZIP_MAGIC)
        self.inflater: zlib._Decompress | None = None
        self.input = first
        """Bytes read and not yet returned (gzip: not yet inflated)."""

    def close(self) -> None:
        if self.owned:
            self.stream.close()

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _raw(self, size: int) -> bytes:
        data = self.stream.read(size)
        self._consumed(len(data))
        return data

    def _consumed(self, size: int) -> None:
        self.consumed += size
        if not size and self.expected is not None and self.consumed < self.expected:
            raise InputError(
                f"the file shrank while being read: it ends at byte {self.consumed:,} of the "
                f"{self.expected:,} it had; the rest was not judged"
            )

    def read_on(self, carried: bytes, size: int) -> bytearray:
        """``carried`` followed by up to ``size`` bytes read after it, in one buffer: a plain
        file's are read into it in place (a block's fresh pages are then written once, not once
        by the read and again by a copy of its whole lines)."""
        if self.gzip or self.input or not isinstance(self.stream, io.BufferedReader):
            buffer = bytearray(carried)
            buffer += self.read(size)
            return buffer
        if self.expected is not None and self.expected > self.consumed:
            size = min(size, self.expected - self.consumed)  # not a whole block's pages at the end
        buffer = bytearray(len(carried) + size)
        buffer[: len(carried)] = carried
        try:
            got = self.stream.readinto(memoryview(buffer)[len(carried) :])
        except OSError as error:
            raise InputError(f"cannot read ({_reason(error)})") from None
        self._consumed(got)
        del buffer[len(carried) + got :]
        return buffer

    def read(self, size: int) -> bytes:
        try:
            return self._inflate(size) if self.gzip else self._plain(size)
        except OSError as error:
            raise InputError(f"cannot read ({_reason(error)})") from None
        except zlib.error as error:
            raise InputError(f"corrupt gzip data ({error}); the rest was not judged") from None

    def _plain(self, size: int) -> bytes:
        if self.input:
            data, self.input = self.input[:size], self.input[size:]
            return data
        return self._raw(size)

    def _inflate(self, size: int) -> bytes:
        while True:
            inflater = self.inflater
            if inflater is not None and inflater.unconsumed_tail:
                data = inflater.decompress(inflater.unconsumed_tail, size)
            elif self.input:
                if inflater is None:
                    if not self._member_starts():
                        continue
                    inflater = self.inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
                compressed, self.input = self.input, b""
                data = inflater.decompress(compressed, size)
            else:
                self.input = self._raw(RAW_BLOCK_BYTES)
                if not self.input:
                    if inflater is not None:
                        raise InputError(
                            "truncated gzip file: the compressed data ends early; "
                            "the lines before the cut were judged"
                        )
                    return b""
                continue
            if inflater.eof:  # this member is complete; another one may follow
                self.input = inflater.unused_data + self.input
                self.inflater = None
            if data:
                return data

    def _member_starts(self) -> bool:
        """Whether a gzip member starts at ``self.input`` (else consume NUL padding, or fail)."""
        if len(self.input) < 2 and self.input == GZIP_MAGIC[:1]:
            more = self._raw(RAW_BLOCK_BYTES)
            self.input += more
            if more:
                return False  # look again with more bytes
        if self.input.startswith(GZIP_MAGIC):
            return True
        if not self.input.strip(b"\0"):
            self.input = b""  # zeros after the last member: padding, as gzip(1) allows
            return False
        raise InputError("trailing bytes after the gzip data are not gzip; they were not judged")


def recognise_layout(named: str | None, head: bytes) -> str:
    """``LINES`` or ``DOCUMENT``, from the first bytes of a file (``named``: what its name says).

    Several lines whose first is a lone ``{`` or ``[`` are one pretty document; several lines
    whose first is a whole JSON value are JSONL; one line, or no sign either way, is what the name
    says (JSONL for stdin and other names)."""
    text = head.removeprefix(BOM).lstrip(_BLANKS)
    end = text.find(b"\n")
    if end == -1 or _NOT_BLANK.search(text, end + 1) is None:
        return named or LINES  # one line (or the first line fills the head): either reading
    first = text[:end].rstrip(_BLANKS)
    if first in (b"{", b"["):
        return DOCUMENT
    if named == DOCUMENT:
        try:
            parse(first)
        except (ValueError, RecursionError):
            return DOCUMENT  # e.g. `{"a": 1,` on its first line: a pretty document
    return LINES


_LAYOUT_WORDS = {LINES: "one document per line (JSONL)", DOCUMENT: "one (pretty) JSON document"}


def layout_note(name: str, layout: str, named: str | None) -> Record | None:
    if layout == SESSION:
        layout = LINES  # a session file is JSONL, read whole
    if named is None or layout == named:
        return None
    return Record(
        name,
        0,
        "",
        "",
        "",
        f"the file holds {_LAYOUT_WORDS[layout]}, not {_LAYOUT_WORDS[named]} as its name says: "
        "judged as what it holds",
        NOTE,
    )


def peek_layout(
    name: str, settings: Settings
) -> tuple[str, str | None, bool, Recognised | None] | None:
    """(layout, named layout, gzip, format plan) of a file as ``read_file`` will see them; None
    if it cannot be read (reading it will report why)."""
    try:
        with Source(name) as source:
            head = source.read(_block_bytes(settings))
            named = named_layout(name)
            layout, plan = _layout_and_plan(name, named, head, settings)
            return layout, named, source.gzip, plan
    except InputError:
        return None


def _layout_and_plan(
    name: str, named: str | None, head: bytes, settings: Settings
) -> tuple[str, Recognised | None]:
    """The layout of a file and, for JSONL, the format its first lines have (``_plan``; when
    other formats' JSON is the same, the one its folder shows most: ``_folder``); an
    Operator-Use session file is one document (``SESSION``)."""
    layout = recognise_layout(named, head)
    if layout != LINES:
        return layout, None
    plan = plan_file_lines(name, head, settings)
    if settings.format == AUTO:
        plan = settled(plan, name, lambda: first_documents(head), lines=True)
    if plan is not None and plan.format in ("operator-use", "pi") and plan.type == "SessionFile":
        return SESSION, plan
    return layout, plan


def read_file(name: str, settings: Settings, fallback_type: str) -> Iterator[Item]:
    """A file start, then the documents of ``name`` in chunks, and verdicts reached while reading
    (``fallback_type``: what a document that cannot be parsed is reported as)."""
    block = _block_bytes(settings)
    try:
        source = Source(name)
    except InputError as error:
        yield FileStart(name, named_layout(name) or LINES, named_layout(name), False)
        yield _failed(name, 0, str(error))
        return
    with source:
        try:
            head = source.read(block)
        except InputError as error:
            yield FileStart(name, named_layout(name) or LINES, named_layout(name), source.gzip)
            yield _failed(name, 0, str(error))
            return
        named = named_layout(name)
        empty = False
        try:
            if not head.strip(_BLANKS):  # whitespace so far: is there more after it?
                more = source.read(block)
                empty, head = not more, head + more
        except InputError as error:
            yield FileStart(name, named or LINES, named, source.gzip)
            yield _failed(name, 0, str(error))
            return
        if empty:  # one rule, whatever the name says: one document, which is not JSON
            yield FileStart(name, named or LINES, named, source.gzip)
            if name == "-":
                yield _failed(name, 0, "nothing to validate: nothing came on standard input")
            else:
                yield Chunk(name, 1, head, False)
            return
        layout, plan = _layout_and_plan(name, named, head, settings)
        yield FileStart(name, layout, named, source.gzip, plan)
        note = layout_note(name, layout, named)
        if note is not None:
            yield Verdict(0, 0, 0, [note])
        if layout in (DOCUMENT, SESSION):
            yield from _document(source, name, head, settings, fallback_type, block, plan)
        else:
            yield from _lines(source, name, head, settings, fallback_type, block, plan)


def _block_bytes(settings: Settings) -> int:
    # no line fully inside a block can be over the limit: only one carried across blocks can
    return max(1, min(BLOCK_BYTES, settings.max_document_bytes))


def _failed(name: str, line: int, message: str) -> Verdict:
    return Verdict(0, 0, 0, [Record(name, line, "", "", "", message, INPUT)])


def _over_limit(name: str, line: int, settings: Settings) -> Verdict:
    message = (
        f"document over the size limit of {settings.max_document_bytes:,} bytes "
        "(--max-document-bytes raises it): not judged"
    )
    return Verdict(1, 0, 0, [Record(name, line, "", "", "", message, INPUT)], unjudged=1)


def _document(
    source: Source,
    name: str,
    head: bytes,
    settings: Settings,
    fallback: str,
    block: int,
    plan: Recognised | None = None,
) -> Iterator[Item]:
    """The whole file as one document: refused past the size limit, and a long one rejected at
    its first byte when that cannot start JSON, without reading the rest."""
    pieces = [head]
    size = len(head)
    checked = False  # the first non-blank byte has been looked at
    try:
        while more := source.read(block):
            if not checked and pieces[-1].strip(_BLANKS):
                checked = True
                reason = not_json_start(pieces[-1])
                if reason is not None:
                    record = Record(name, 1, "", fallback, "", reason, PROBLEM)
                    yield Verdict(1, 1, size, [record])
                    return
            size += len(more)
            if size > settings.max_document_bytes:
                yield _over_limit(name, 0, settings)._replace(size=size)
                return
            pieces.append(more)
    except InputError as error:
        yield _failed(name, 0, f"{error}; the document was not judged")
        return
    yield Chunk(name, 1, b"".join(pieces), False, plan=plan)


def _lines(
    source: Source,
    name: str,
    head: bytes,
    settings: Settings,
    fallback: str,
    block: int,
    plan: Recognised | None = None,
) -> Iterator[Item]:
    """Chunks of whole lines. A line longer than a block is gathered in pieces (joined once), or,
    over the size limit or not JSON from its first byte, dropped up to its end as it is read. A
    block's unfinished last line is read on with the next block, in one buffer that becomes the
    next chunk (``Source.read_on``: its whole lines are not copied again)."""
    limit = settings.max_document_bytes
    line = 1
    pieces: list[bytes] = []  # the current line so far: no newline in them
    size = 0
    dropping = -1  # bytes of a rejected line dropped so far (-1: not dropping)
    carried = 0  # bytes of ``data`` a block's unfinished last line carried in
    unfinished = False  # ``pieces`` is a block's unfinished last line, read on with the next
    data: bytes | bytearray = head
    try:
        while True:
            if not data:
                if unfinished:
                    data, unfinished = source.read_on(pieces[0], block), False
                    if len(data) == size:
                        break  # the end: the piece is the last line
                    pieces, carried, size = [], size, 0
                else:
                    data = source.read(block)
                    if not data:
                        break
            if dropping >= 0:
                cut = data.find(b"\n")
                if cut == -1:
                    dropping += len(data)
                    data = b""
                    continue
                yield Verdict(0, 0, dropping + cut + 1, [])
                data, dropping, line = data[cut + 1 :], -1, line + 1
                continue
            cut = data.rfind(b"\n")
            if cut == -1:
                pieces.append(bytes(data))
                size += len(data)
                data, carried = b"", 0
                rejected = _long_line(name, line, pieces, size, settings, fallback)
                if rejected is not None:
                    yield rejected
                    pieces, size, dropping = [], 0, 0
                continue
            if (pieces or carried) and size + data.find(b"\n") > limit:
                yield _over_limit(name, line, settings)._replace(size=size or carried)
                pieces, size, dropping = [], 0, 0
                data, carried = data[carried:], 0
                continue  # drop the rest of the line: it ends in ``data``
            if pieces:  # the carried line's pieces and this block's whole lines, copied once
                whole: bytes | bytearray = b"".join([*pieces, memoryview(data)[: cut + 1]])
                rest = bytes(data[cut + 1 :])
            elif isinstance(data, bytearray):  # read on: the buffer is the chunk
                rest = bytes(data[cut + 1 :])
                del data[cut + 1 :]
                whole = data
            else:
                whole, rest = data[: cut + 1], data[cut + 1 :]
            newlines = newlines_in(whole)
            yield Chunk(name, line, whole, True, newlines, plan)
            del whole  # freed before the next block is read: its memory is then reused
            line += newlines
            pieces, size, data, carried = ([rest], len(rest), b"", 0) if rest else ([], 0, b"", 0)
            unfinished = bool(rest)
    except InputError as error:
        if pieces:  # the partial line before the damage is no document
            pieces = []
        yield _failed(name, line, str(error))
    if pieces:
        last = b"".join(pieces)
        if len(last) > limit:
            yield _over_limit(name, line, settings)
        else:
            yield Chunk(name, line, last, True, 0, plan)


def newlines_in(data: bytes | bytearray) -> int:
    """``data.count(b"\\n")``, in the quicker way for its lines' length (``LONG_LINE_BYTES``):
    newlines found one by one while ``_FOUND_AT_ONCE`` of them span that much a line, the next
    ``_COUNTED_AT_ONCE`` bytes counted whenever they do not."""
    find = data.find
    size = len(data)
    count = 0
    position = -1  # every newline up to here is counted
    while position < size - 1:
        start = position
        for _ in range(_FOUND_AT_ONCE):
            position = find(b"\n", position + 1)
            if position == -1:
                return count
            count += 1
        if position - start < _FOUND_AT_ONCE * LONG_LINE_BYTES:  # short lines
            end = min(size, position + 1 + _COUNTED_AT_ONCE)
            count += data.count(b"\n", position + 1, end)
            position = end - 1
    return count


def _long_line(
    name: str, line: int, pieces: list[bytes], size: int, settings: Settings, fallback: str
) -> Verdict | None:
    """The verdict on a line that runs on past a block, as soon as it can be given."""
    if len(pieces) <= 2:  # it has just begun to run on: look at its first byte
        begun = next((piece for piece in pieces if piece.strip(_BLANKS)), b"")
        reason = not_json_start(begun)
        if reason is not None:
            return Verdict(1, 1, size, [Record(name, line, "", fallback, "", reason, PROBLEM)])
    if size > settings.max_document_bytes:
        return _over_limit(name, line, settings)._replace(size=size)
    return None


class _Range:
    """The bytes of a plain file from the first line that starts in [start, end) to the end of
    the last such line, read as ``Source.read`` reads (``InputError`` if the file shrank)."""

    def __init__(self, name: str, start: int, end: int) -> None:
        self.handle = open_stored(name, until=end)
        self.end = end
        # first asked past ``end`` as much as an object's GET holds past it (one GET then)
        self.past_end = remote_s3.TAIL_BYTES
        """What the next read of the line running on past ``end`` asks (doubled by each)."""
        self.position = start
        self.done = False
        if start > 0:
            self.handle.seek(start - 1)
            if self.handle.read(1) != b"\n":
                self._skip_to_line_start()
        self.handle.seek(self.position)
        self.last = b"\n"

    def _skip_to_line_start(self) -> None:
        """Past the line that began in an earlier range; reads no further than ``end``: a range
        inside one long line is empty (its owner reads the line once)."""
        while self.position < self.end:
            data = self.handle.read(min(RAW_BLOCK_BYTES, self.end - self.position))
            if not data:
                raise _shrank(self.position)
            cut = data.find(b"\n")
            if cut != -1:
                self.position += cut + 1
                return
            self.position += len(data)
        self.done = True

    def read(self, size: int) -> bytes:
        try:
            return self._read(size)
        except OSError as error:
            raise InputError(f"cannot read ({_reason(error)})") from None

    def read_on(self, carried: bytes, size: int) -> bytearray:
        """``carried`` followed by up to ``size`` bytes read after it, in one buffer."""
        buffer = bytearray(carried)
        buffer += self.read(size)
        return buffer

    def _read(self, size: int) -> bytes:
        if self.done:
            return b""
        if self.position < self.end:
            data = self.handle.read(min(size, self.end - self.position))
            if not data:
                raise _shrank(self.position)
        elif self.last.endswith(b"\n"):
            self.done = True
            return b""
        else:  # finish the line that runs past ``end``: little at first (a line is short)
            data = self.handle.read(min(size, self.past_end))
            self.past_end *= 2
            cut = data.find(b"\n")
            if cut != -1 or not data:
                data = data[: cut + 1] if cut != -1 else data
                self.done = True
        self.position += len(data)
        if data:
            self.last = data
        return data


def _shrank(position: int) -> InputError:
    return InputError(
        f"the file shrank while being read: it ends at byte {position:,}; the rest was not judged"
    )


def read_range(
    name: str,
    start: int,
    end: int,
    settings: Settings,
    fallback_type: str,
    plan: Recognised | None = None,
) -> Iterator[Item]:
    """The lines of a plain JSONL file that start in [start, end), numbered from 1 at the range's
    first line, as ``read_file`` reads a file (no file start; the caller knows the layout)."""
    try:
        source = _Range(name, start, end)
    except OSError as error:
        yield _failed(name, 0, f"cannot read ({_reason(error)})")
        return
    except InputError as error:
        yield _failed(name, 0, str(error))
        return
    try:
        block = _block_bytes(settings)
        yield from _lines(source, name, b"", settings, fallback_type, block, plan)  # type: ignore[arg-type]
    finally:
        source.handle.close()
