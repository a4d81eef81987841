"""A JSONL file's chunks: a block's unfinished last line is read on with the next block into one
buffer, which becomes the next chunk (``_inputs.Source.read_on``), so a block's whole lines are
not copied a second time (issue 21, goal 1: the copy's fresh pages cost some 2-3 ms per 8 MB).

The lines a run reads must be exactly the file's, numbered as they are, whatever the blocks:
checked against the file's own lines over generated files of lines shorter and longer than a
block and than the size limit, blank lines, with and without a last newline, plain and gzip.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phi_wire.validate import _inputs
from phi_wire.validate._inputs import Chunk, Source, newlines_in, read_file
from phi_wire.validate._records import FileStart, InputError, Settings, Verdict

LIMIT = 300
"""The size limit of the runs here: their block is as big (``_inputs._block_bytes``)."""


def read_lines(path: Path) -> tuple[list[tuple[int, bytes]], list[int], list[type]]:
    """(line number, line) of every document read, the lines refused as over the limit, and
    the kinds of data the chunks came in."""
    run = Settings("0.10", None, False, 10, LIMIT)
    documents: list[tuple[int, bytes]] = []
    over: list[int] = []
    kinds: list[type] = []
    for item in read_file(str(path), run, "AgentEvent"):
        if isinstance(item, Chunk):
            kinds.append(type(item.data))
            assert item.lines
            data = bytes(item.data)
            assert item.newlines in (-1, data.count(b"\n"))
            lines = data.split(b"\n")
            lines = lines[:-1] if data.endswith(b"\n") else lines
            documents += [(item.first_line + index, line) for index, line in enumerate(lines)]
        elif isinstance(item, Verdict):
            for record in item.records:
                assert "over the size limit" in record.message, record
                over.append(record.line)
        else:
            assert isinstance(item, FileStart)
    return documents, over, kinds


def lines_written(lines: list[bytes], last_newline: bool) -> bytes:
    return b"\n".join(lines) + (b"\n" if last_newline else b"")


@settings(max_examples=60, deadline=None)
@given(
    lengths=st.lists(
        st.one_of(st.integers(0, 40), st.integers(0, 3 * LIMIT)), min_size=1, max_size=60
    ),
    last_newline=st.booleans(),
    first_read=st.sampled_from([64, 1024 * 1024]),
)
def test_every_line_is_read_once_at_its_number(
    tmp_path_factory: pytest.TempPathFactory,
    lengths: list[int],
    last_newline: bool,
    first_read: int,
) -> None:
    """Against the file's own lines: each line up to the limit read once, at its number, in
    order; each longer one refused at its number; plain (read in place once the first read is
    used up: ``first_read``) and gzip alike."""
    folder = tmp_path_factory.mktemp("lines")
    # each line may start a JSON text (a digit: none is rejected at its first byte, and no first
    # line is a lone "{", which makes the file one pretty document)
    lines = [
        b"1" + bytes([0x61 + n % 26]) * (length - 1) if length else b""
        for n, length in enumerate(lengths)
    ]
    data = lines_written(lines, last_newline)
    if not data.strip():
        return  # a file of whitespace is one document, not lines (another rule)
    expected = [(number, line) for number, line in enumerate(lines, 1) if len(line) <= LIMIT]
    refused = [number for number, line in enumerate(lines, 1) if len(line) > LIMIT]
    if not last_newline and lines[-1] == b"":
        expected = expected[:-1]  # no last line after the last newline
    plain = folder / "lines.jsonl"
    plain.write_bytes(data)
    packed = folder / "lines.jsonl.gz"
    packed.write_bytes(gzip.compress(data))
    saved = _inputs.RAW_BLOCK_BYTES
    _inputs.RAW_BLOCK_BYTES = first_read
    try:
        for path in (plain, packed):
            documents, over, _ = read_lines(path)
            assert documents == expected, path.name
            assert over == refused, path.name
    finally:
        _inputs.RAW_BLOCK_BYTES = saved


def test_a_plain_files_lines_are_read_on_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the first read is used up, a block's unfinished line and the next block come in
    one buffer, the chunk itself (no bytes object copied from it)."""
    monkeypatch.setattr(_inputs, "RAW_BLOCK_BYTES", 64)
    lines = [b'{"n":' + str(number).encode() * (number % 9) + b"}" for number in range(2000)]
    path = tmp_path / "lines.jsonl"
    path.write_bytes(lines_written(lines, True))
    documents, over, kinds = read_lines(path)
    assert documents == list(enumerate(lines, 1)) and over == []
    assert kinds.count(bytearray) > 100


def test_a_file_that_shrinks_while_read_on_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a":1}\n' * 200_000)
    with Source(str(path)) as source:
        assert source.read(2 * 1024 * 1024)
        carried = b'{"a"'
        assert source.read_on(carried, 1024).startswith(carried)
        path.write_bytes(b"")
        with pytest.raises(InputError, match="shrank while being read"):
            while len(source.read_on(carried, 1024 * 1024)) > len(carried):
                pass


class _Counted(bytearray):
    """A chunk's bytes that count the scans made of them."""

    finds = 0
    counts = 0

    def find(self, *arguments: Any) -> int:  # type: ignore[override]
        type(self).finds += 1
        return super().find(*arguments)

    def count(self, *arguments: Any) -> int:  # type: ignore[override]
        type(self).counts += 1
        return super().count(*arguments)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 3000), max_size=3000), st.booleans())
def test_newlines_are_counted_exactly(lengths: list[int], last_newline: bool) -> None:
    data = lines_written([b"x" * length for length in lengths], last_newline)
    assert newlines_in(data) == data.count(b"\n")


def test_long_lines_are_found_and_short_ones_counted() -> None:
    """Lines of 1 kB: each newline found (no byte counted); of 100 bytes: the first
    ``_FOUND_AT_ONCE`` found, the rest counted at once."""
    for length, found_at_most, counted_at_least in ((1000, 4001, 0), (100, 64, 1)):
        _Counted.finds = _Counted.counts = 0
        data = _Counted(lines_written([b"y" * length] * 4000, True))
        assert newlines_in(data) == 4000
        assert _Counted.finds <= found_at_most and _Counted.counts >= counted_at_least
        if not counted_at_least:
            assert _Counted.counts == 0
