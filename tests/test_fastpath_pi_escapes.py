"""pi's lines dense with ``\\n`` escapes are matched rewritten (``phi_wire.fastpath._escapes``:
each ``\\n`` two DEL bytes, which the expression's plain runs take at their C speed), and that
never changes which lines the fast path vouches for (issue 21, goal 1).

The argument (in ``_escapes``' docstring) rests on one fact of pi's expressions, checked here on
every one ``validate`` builds: DEL is taken only inside a ``JS_STRING``, whose every escape is
allowed. Then the offsets ``FastPath.unmatched`` gives are compared with the rewrite forced on
(every line) and off, over both lines' corpora, their corruptions (escapes pi refuses, escapes
and DEL bytes inside strings the expression constrains, ``\\\\n``...) and generated lines, and
``validate``'s records with the rewrite forced on and off over generated files.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_fastpath_pi import (
    FORMAT,
    RELEASES,
    corpus_lines,
    generated_files,
    path_for,
    pi_mutations,
    report,
    session_messages,
    stream_lines,
    whole_path,
)

from phi_wire.fastpath import _escapes
from phi_wire.fastpath._js import JS_STRING
from phi_wire.fastpath._pattern import build_pattern
from phi_wire.validate import _fastpath

DEL = 0x7F
FILE_TYPES = ("AgentMessage", "AgentEvent", "SessionEntry", "SessionHeader")
"""The types of the files ``validate`` gives pi's fast path to (a session file: its entries and
its header)."""


def _set_takes(items: list[tuple[Any, Any]], byte: int) -> bool:
    """Whether a character set (``re._parser``'s ``IN`` items) takes ``byte``."""
    from re import _constants as sre

    negate = False
    found = False
    for op, value in items:
        if op is sre.NEGATE:
            negate = True
        elif op is sre.LITERAL:
            found = found or value == byte
        elif op is sre.RANGE:
            found = found or value[0] <= byte <= value[1]
        else:
            raise AssertionError(f"a set item the check does not know: {op}")
    return found != negate


def consuming_del(items: Any) -> list[str]:
    """The parts of a parsed expression (``re._parser``) that can take the byte DEL, lookarounds
    aside (they take no byte: what they look at is taken by a part checked here)."""
    from re import _constants as sre

    found: list[str] = []
    for op, value in items:
        if op is sre.LITERAL:
            found += [f"literal {value}"] if value == DEL else []
        elif op is sre.NOT_LITERAL:
            found += [f"not literal {value}"] if value != DEL else []
        elif op is sre.ANY:
            found.append("any")
        elif op is sre.IN:
            found += [f"set {value}"] if _set_takes(value, DEL) else []
        elif op is sre.SUBPATTERN:
            found += consuming_del(value[3])
        elif op is sre.ATOMIC_GROUP:
            found += consuming_del(value)
        elif op is sre.BRANCH:
            for branch in value[1]:
                found += consuming_del(branch)
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            found += consuming_del(value[2])
        elif op in (sre.ASSERT, sre.ASSERT_NOT, sre.AT):
            continue
        else:
            raise AssertionError(f"an expression part the check does not know: {op}")
    return found


def del_takers(source: bytes) -> list[str]:
    """The parts of the expression ``source`` that take DEL, its ``JS_STRING``s put aside."""
    from re import _parser

    return consuming_del(_parser.parse(source.replace(JS_STRING, b'"a"')))


@pytest.mark.parametrize("version", RELEASES)
def test_del_is_taken_only_inside_a_string_that_takes_every_escape(version: str) -> None:
    """The fact the rewrite stands on: with every ``JS_STRING`` of the expression put aside, no
    part of what is left takes DEL (no literal, key, number, timestamp or borrowed string)."""
    checked = 0
    for type_name in FILE_TYPES:
        for shaped in (True, False):
            types = _fastpath._read_as(FORMAT, version, type_name, shaped)
            source = build_pattern(version, types, None, False, FORMAT)
            assert source.count(JS_STRING) > 0, types
            assert del_takers(source) == [], types
            checked += 1
    assert checked == 2 * len(FILE_TYPES)
    # the check sees DEL where another part takes it: a string without escapes (serde's
    # borrowed ``&str``), a negated set, any byte
    assert len(del_takers(b'"[ !#-\\[\\]-\\xff]*+":' + JS_STRING)) == 1
    assert len(del_takers(rb"(?:[^}]|.)\{" + JS_STRING)) == 2


def escape_corruptions(line: bytes) -> Iterator[bytes]:
    """Edits of a line about escapes: ones pi refuses (``\\x``, a short ``\\u``, a backslash that
    ends the line or a string), ``\\n`` and DEL inside strings the expression constrains (a tag,
    a role, a key, a timestamp) and escapes pi reads (``\\\\n``: a backslash then ``n``,
    ``\\\\\\n``, DEL beside an escape)."""
    for needle, replacement in (
        (b"\\n", b"\\x"),
        (b"\\n", b"\\u12"),
        (b"\\n", b"\\u12\\n"),
        (b"\\n", b"\\\\n"),
        (b"\\n", b"\\\\\\n"),
        (b"\\n", b"\x7f\\n\x7f"),
        (b"\\n", b"\\"),
        (b'\\n"', b'\\"'),
        (b'"role":"', b'"role":"\\n'),
        (b'"role":"', b'"role":"\x7f'),
        (b'"type":"', b'"type":"\\n'),
        (b'"type":"', b'"type":"\x7f\x7f'),
        (b'"text":"', b'"te\\nxt":"'),
        (b'"text":"', b'"te\x7f\x7fxt":"'),
        (b'"timestamp":"20', b'"timestamp":"\\n0'),
        (b'"timestamp":"20', b'"timestamp":"\x7f\x7f'),
        (b'"text":"', b'"text":"\\\\'),
        (b'"text":"', b'"text":"a\\\\nb\\\\\\\\n'),
    ):
        if needle in line:
            yield line.replace(needle, replacement, 1)
            yield line.replace(needle, replacement)
    cut = line.rfind(b"\\")
    if cut != -1:
        yield line[: cut + 1]  # a backslash at the line's end
    yield line + b"\\"


def dense_lines(version: str) -> list[bytes]:
    """Generated lines dense with escapes: tool outputs and texts of ``\\n`` every few bytes,
    with ``\\\\``, ``\\"``, ``\\t``, ``\\u`` escapes and non-ASCII text among them."""
    rng = random.Random(20261129)
    messages = [json.loads(m) for m in session_messages(version)]
    texts = [m for m in messages if m.get("role") == "toolResult" or m.get("role") == "user"]
    found = []
    for number in range(40):
        words = [
            str(rng.randrange(10 ** rng.randrange(1, 6))) for _ in range(rng.randrange(50, 900))
        ]
        extras = ["", "\\", '"', "\t", "é", "\u2028", "\x7f", "\\n"]
        text = "\n".join(word + rng.choice(extras) * (rng.random() < 0.2) for word in words)
        message = json.loads(json.dumps(rng.choice(texts)))
        content = message.get("content")
        if isinstance(content, list) and content and content[0].get("type") == "text":
            content[0]["text"] = text
        elif isinstance(content, str):
            message["content"] = text
        found.append(json.dumps(message, ensure_ascii=number % 3 == 0, separators=(",", ":")))
    return [line.encode() for line in found]


def lines_of(version: str) -> list[bytes]:
    """Every corpus line, the generated dense ones, and corruptions of them."""
    rng = random.Random(20261130)
    lines = [line for _, line in corpus_lines(version)] + dense_lines(version)
    lines += session_messages(version) + stream_lines(version)
    corrupted = []
    for line in lines:
        corrupted += list(escape_corruptions(line))
    for line in rng.sample(lines, 60):
        corrupted += list(pi_mutations(line))
    return [m.replace(b"\n", b" ").replace(b"\r", b" ") for m in lines + corrupted if m.strip()]


@pytest.mark.parametrize("version", RELEASES)
def test_the_lines_vouched_for_are_the_same_with_the_rewrite_forced_on_and_off(
    version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = lines_of(version)
    block = b"\n".join(lines) + b"\n"
    results = {}
    for type_name in FILE_TYPES[:3]:
        for shaped in (True, False):
            path = path_for(version, type_name, shaped)
            assert path.any_escape
            for mode, least in (("off", 10**9), ("on", 0), ("sampled", _escapes.DENSE_SAMPLE)):
                monkeypatch.setattr(_escapes, "DENSE_SAMPLE", least)
                results[mode] = path.unmatched(block)
                if mode == "on":
                    assert _escapes.dense_spans(block) == [(0, len(block))]
            assert results["on"] == results["off"] == results["sampled"], (type_name, shaped)
    messages = path_for(version, "AgentMessage")
    monkeypatch.setattr(_escapes, "DENSE_SAMPLE", 0)
    rejected = set(messages.unmatched(block))
    middle = block.index(b"\n", len(block) // 2) + 1
    for first in (len(lines[0]) + 1, middle):  # the lines after a session file's header
        after = [offset + first for offset in messages.unmatched(block[first:])]
        assert messages.unmatched(block, first) == after
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    vouched = [line for start, line in zip(starts, lines, strict=True) if start not in rejected]
    assert sum(b"\\n" in line for line in vouched) > 40  # the rewrite had lines to match
    assert sum(b"\\\\n" in line for line in vouched) > 5  # matched again as written
    assert len(rejected) > 100


def test_a_line_dense_with_escapes_is_matched_rewritten_and_only_it() -> None:
    """A tool output with an escape every few bytes, among sparse lines, is rewritten: only the
    stretch of its own lines (they start and end at line boundaries), offsets unchanged."""
    output = "\n".join(str(number) for number in range(1001, 4000))
    dense = json.dumps({"role": "bashExecution", "output": output}, separators=(",", ":"))
    sparse = json.dumps({"role": "user", "content": "hello " * 3000}, separators=(",", ":"))
    block = (sparse + "\n" + dense + "\n" + sparse + "\n").encode()
    start = len(sparse) + 1
    spans = _escapes.dense_spans(block)
    assert spans == [(start, start + len(dense) + 1)]
    rewritten = _escapes.rewritten(block, *spans[0])
    assert len(rewritten) == len(dense) + 1 and b"\\" not in rewritten
    assert rewritten.replace(b"\x7f\x7f", b"\\n") == block[slice(*spans[0])]
    assert _escapes.dense_spans(sparse.encode() * 4) == []


@pytest.mark.parametrize("version", RELEASES)
def test_the_verdicts_are_the_same_with_the_rewrite_forced_on_and_off(
    version: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``validate``'s records, tallies and files, over generated files of messages and events
    (corrupted ones among them), a file of dense lines and their corruptions, and every session
    file and its corruptions, with and without ``--format pi --type``."""
    files = generated_files(tmp_path, version)
    dense = tmp_path / f"dense.{version}.jsonl"
    generated = dense_lines(version)
    corrupted = [c for line in generated[:10] for c in escape_corruptions(line)]
    dense.write_bytes(b"\n".join([*generated, *corrupted]) + b"\n")
    files.append(dense)
    for type_name in ("AgentMessage", "AgentEvent"):
        path_for(version, type_name, shaped=True)
        path_for(version, type_name, shaped=False)
    whole_path(version)
    given_types = {"messages": "AgentMessage", "dense": "AgentMessage", "events": "AgentEvent"}
    reports = {}
    for mode, least in (("off", 10**9), ("on", 0)):
        monkeypatch.setattr(_escapes, "DENSE_SAMPLE", least)
        for file in files:
            kind = file.name.split(".")[0]
            given = {"format": FORMAT, "version": version, "type": given_types.get(kind, "Session")}
            for options, arguments in (((), {}), (("given",), given)):
                reports[mode, file, options] = report(file, **arguments)
    for file in files:
        for options in ((), ("given",)):
            on, off = reports["on", file, options], reports["off", file, options]
            assert on == off, (file.name, options, set(on[0]) ^ set(off[0]), on[1:], off[1:])
    counts = reports["on", dense, ()][1]
    assert counts[0] == len(generated) + len(corrupted) and 0 < counts[1] < len(corrupted)
