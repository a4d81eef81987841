"""Non-ASCII text on the fast path (runtime/fastpath/_pattern.py, _utf8.py, __init__.py), and how
the compiler reads validator functions (by their declared role, never their name).

The expression takes the bytes >= 0x80 inside strings in runs, and UTF-8 is checked once per block
by Python's strict decoder. These tests check that verdicts stay exactly those of ``loads`` for
every kind of sequence (valid ones of each length, overlong forms, encoded surrogates, code points
past U+10FFFF, bytes 0xF5-0xFF, stray continuation bytes, sequences truncated inside a string and
at a line's end), that only the line holding a bad sequence leaves the fast path, and that CJK
text is matched at the speed of ASCII text.
"""

from __future__ import annotations

import json
import time

import pytest
from corpus import fixtures_root
from hypothesis import given
from hypothesis import strategies as st

from phi_wire.fastpath import _compact, _utf8
from phi_wire.validate import _fastpath, _judge
from phi_wire.validate._fastpath import FastPath
from phi_wire.validate._inputs import Chunk
from phi_wire.validate._records import PROBLEM, Settings, Verdict

SETTINGS = Settings("0.8", None, False, 100, 128 * 1024 * 1024)
"""phi-core 0.8, types detected, not strict, the command line's default limits."""

VALID = {
    "two bytes": "é".encode(),
    "C1 control U+0080": b"\xc2\x80",
    "three bytes, CJK": "中文字".encode(),
    "noncharacter U+FFFE": b"\xef\xbf\xbe",
    "last before the surrogates U+D7FF": b"\xed\x9f\xbf",
    "first after the surrogates U+E000": b"\xee\x80\x80",
    "four bytes, emoji": "😀".encode(),
    "last code point U+10FFFF": b"\xf4\x8f\xbf\xbf",
}
INVALID = {
    "stray continuation byte": b"\x80",
    "lead byte then ASCII": b"\xc3(",
    "overlong NUL": b"\xc0\x80",
    "overlong 2-byte": b"\xc1\xbf",
    "overlong 3-byte": b"\xe0\x80\xaf",
    "overlong 4-byte": b"\xf0\x80\x80\xaf",
    "surrogate U+D800": b"\xed\xa0\x80",
    "surrogate U+DFFF": b"\xed\xbf\xbf",
    "surrogate pair, each encoded": b"\xed\xa0\xbd\xed\xb8\x80",
    "past U+10FFFF": b"\xf4\x90\x80\x80",
    "truncated 3-byte": b"\xe4\xb8",
    "truncated 4-byte": b"\xf0\x9f\x98",
    **{f"byte 0x{byte:02x}": bytes([byte]) for byte in range(0xF5, 0x100)},
    **{f"byte 0x{byte:02x} then continuation": bytes([byte, 0x80]) for byte in (0xF5, 0xFF)},
}


@pytest.fixture(scope="module")
def lines_path() -> FastPath:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PHI_WIRE_CACHE_DIR", "")
        path = _fastpath.fast_path_for("0.8", None, build=True)
    assert path is not None
    return path


@pytest.fixture(scope="module")
def documents_path() -> FastPath:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PHI_WIRE_CACHE_DIR", "")
        path = _fastpath.fast_path_for("0.8", None, build=True, lines=False)
    assert path is not None
    return path


def text_event() -> bytes:
    """A real event of phi-core 0.8 whose message holds a text, compact, as written."""
    stream = fixtures_root() / "phi-core" / "0.8.0" / "streams" / "events.main_session.jsonl"
    return next(line for line in stream.read_bytes().splitlines() if b'{"text":"' in line)


def with_text(line: bytes, inserted: bytes) -> bytes:
    """``line`` with ``inserted`` at the start of its first text."""
    return line.replace(b'{"text":"', b'{"text":"' + inserted, 1)


def judged_both_ways(block: bytes) -> tuple[Verdict, Verdict]:
    chunk = Chunk("events.jsonl", 1, block, True)
    fast = _judge.judge_chunk(chunk, SETTINGS, fast=True)
    exact = _judge.judge_chunk(chunk, SETTINGS, fast=False)
    return fast, exact


def line_starts(block: bytes) -> list[int]:
    return [0] + [index + 1 for index, byte in enumerate(block[:-1]) if byte == 0x0A]


def test_a_cjk_event_takes_the_fast_path(lines_path: FastPath) -> None:
    line = with_text(text_event(), "漢字かな交じり文、한국어 텍스트。".encode() * 50)
    assert lines_path.unmatched(line + b"\n") == []
    assert json.loads(line)  # and it is JSON


@pytest.mark.parametrize("sample", list(VALID.values()), ids=list(VALID))
def test_valid_sequences_take_the_fast_path(lines_path: FastPath, sample: bytes) -> None:
    line = with_text(text_event(), b"a" + sample + b"z" + sample)
    block = line + b"\n" + line + b"\n"
    assert lines_path.unmatched(block) == []
    fast, exact = judged_both_ways(block)
    assert fast == exact
    assert exact.invalid == 0


@pytest.mark.parametrize("sample", list(INVALID.values()), ids=list(INVALID))
@pytest.mark.parametrize("where", ["inside a string", "before the closing quote", "at line end"])
def test_only_the_line_with_a_bad_sequence_leaves_the_fast_path(
    lines_path: FastPath, sample: bytes, where: str
) -> None:
    good = with_text(text_event(), "中文".encode())
    if where == "inside a string":
        bad = with_text(good, b"x" + sample + b"y")
    elif where == "before the closing quote":
        bad = good.replace(b'","type":"text"', sample + b'","type":"text"', 1)
        assert bad != good
    else:  # the line ends in the sequence, and so does the block when it is the last line
        bad = good + sample
    for block, bad_start in (
        (good + b"\n" + bad + b"\n" + good + b"\n", len(good) + 1),
        (good + b"\n" + bad, len(good) + 1),
        (bad + b"\r\n" + good, 0),
    ):
        assert lines_path.unmatched(block) == [bad_start]
        fast, exact = judged_both_ways(block)
        assert fast == exact
        assert exact.invalid == 1
        # a text serde reads in full: loads rejects it, so it is invalid (a problem, not an
        # input error: the bytes are loads's to judge, runtime/serde/_ignored.py)
        assert exact.records[0].kind == PROBLEM, exact.records


def test_bad_sequences_among_other_bad_lines_each_line_once(lines_path: FastPath) -> None:
    good = with_text(text_event(), "中文".encode())
    broken_json = good[:-1]  # refused by the expression
    both = with_text(broken_json, b"\xff")  # refused by both checks
    lines = [good, with_text(good, b"\xed\xa0\x80"), broken_json, both, good, b"\xe4\xb8"]
    block = b"\n".join(lines)
    starts = line_starts(block)
    assert lines_path.unmatched(block) == [starts[1], starts[2], starts[3], starts[5]]
    fast, exact = judged_both_ways(block)
    assert fast == exact


@pytest.mark.parametrize("piece_bytes", [_utf8.PIECE_BYTES, 4, 5, 7])
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=10),
            st.text(max_size=6).map(str.encode),
            st.sampled_from([*VALID.values(), *INVALID.values()]),
        ),
        max_size=12,
    )
)
def test_lines_not_utf8_finds_exactly_the_lines_the_decoder_refuses(
    piece_bytes: int, parts: list[bytes]
) -> None:
    """Also with pieces that cut sequences at every position."""
    data = b"".join(parts)
    expected = []
    for start in line_starts(data) if data else []:
        end = data.find(b"\n", start)
        try:
            data[start : len(data) if end == -1 else end].decode("utf-8")
        except UnicodeDecodeError:
            expected.append(start)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_utf8, "PIECE_BYTES", piece_bytes)
        assert _utf8.lines_not_utf8(data) == expected
        assert _utf8.lines_not_utf8(bytearray(data)) == expected


def cjk_session(release: str = "0.8.0") -> bytes:
    """phi-core's recorded pretty session with CJK text in every text block."""
    source = fixtures_root() / "phi-core" / release / "sessions" / "session.main.json"
    text = source.read_text(encoding="utf-8")
    converted = text.replace('"text": "', '"text": "漢字かな交じり文、😀 ')
    assert converted != text
    return converted.encode()


@pytest.mark.parametrize("piece_bytes", [_utf8.PIECE_BYTES, 5])
def test_pretty_documents_with_non_ascii_text(
    documents_path: FastPath, piece_bytes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_utf8, "PIECE_BYTES", piece_bytes)
    monkeypatch.setattr(_compact, "PIECE_BYTES", 256)
    document = cjk_session()
    assert documents_path.vouches(document)
    for sample in INVALID.values():
        bad = document.replace("交じり".encode(), "交".encode() + sample, 1)
        assert not documents_path.vouches(bad), sample
        chunk = Chunk("session.json", 1, bad, False)
        fast = _judge.judge_chunk(chunk, SETTINGS, fast=True)
        assert fast == _judge.judge_chunk(chunk, SETTINGS, fast=False)
        assert fast.invalid == 1 and fast.records[0].kind == PROBLEM  # as loads judges it


def test_cjk_strings_are_matched_about_as_fast_as_ascii(lines_path: FastPath) -> None:
    """Defect 21: a 7-branch UTF-8 table tried per character made CJK text some 15 times slower
    to match than ASCII (and slower than json.loads); runs of bytes >= 0x80 match like ASCII
    ones. CPU time, the least of interleaved rounds, a wide margin: no race on a busy machine."""
    event = text_event()
    cjk = with_text(event, "漢字かな交じり文".encode() * 12_000)  # 288 kB of 3-byte characters
    ascii_ = with_text(event, b"x" * (len(cjk) - len(event)))
    assert len(cjk) == len(ascii_)
    best = {cjk: float("inf"), ascii_: float("inf")}
    for _ in range(7):
        for line in best:
            start = time.process_time()
            assert lines_path.unmatched(line) == []
            best[line] = min(best[line], time.process_time() - start)
    assert best[cjk] < 3 * best[ascii_], best.values()


# --- validator functions: the compiler reads their declared role, never their name ----------------


def _function_model(marked: bool) -> type:
    from typing import Annotated

    from pydantic import AfterValidator

    from phi_wire.base import WireModel
    from phi_wire.primitives import TRANSPARENT, fast_path_role

    def keep(value: int) -> int:  # the same name and body both ways: only the mark differs
        return value

    validator = fast_path_role(TRANSPARENT)(keep) if marked else keep

    class Counted(WireModel):
        count: Annotated[int, AfterValidator(validator)]

    return Counted


def test_a_validator_is_looked_through_only_when_marked() -> None:
    """Issue 10 section 3: transparency is an attribute on the function (``phi_wire.base``'s
    ``fast_path_role_of``), not its qualified name; an unmarked function keeps its type off the
    fast path, so renaming a validator can never silently change what the fast path accepts."""
    import re

    from phi_wire.fastpath import _pattern

    seqs, _ = _pattern._type_seqs(_function_model(marked=True))
    expression = re.compile(_pattern._render(_pattern._alt(seqs)))
    assert expression.fullmatch(b'{"count":7}') and not expression.fullmatch(b'{"count":"7"}')
    with pytest.raises(_pattern.Unsupported, match="validator"):
        _pattern._type_seqs(_function_model(marked=False))


# The string expression as it was before it was unrolled (runs between escapes): the reference.
_ALTERNATING_STRING = (
    rb'"(?:[ !#-\[\]-\xff]++|\\["\\/bfnrt]|\\u(?![dD][89a-fA-F])[0-9a-fA-F]{4})*+"'
)
_STRING_PIECES = st.sampled_from(
    [
        *(b'"', b"\\", b"a", b" ", b"\t", b"\x1f", b"\x7f", b"\xc3\xa9", b"\xff", b"n", b"u", b"/"),
        *(b"\\u00e9", b"\\uD800", b"\\ud834", b"\\uDBFF", b"\\ue000", b"\\u12", b"\\x"),
    ]
)


@given(st.lists(_STRING_PIECES, max_size=12))
def test_the_unrolled_string_expression_matches_what_the_alternating_one_did(
    pieces: list[bytes],
) -> None:
    import re

    from phi_wire.fastpath import _pattern

    for text in (b"".join(pieces), b'"' + b"".join(pieces) + b'"'):
        unrolled = re.fullmatch(_pattern._STRING, text) is not None
        assert unrolled == (re.fullmatch(_ALTERNATING_STRING, text) is not None), text
