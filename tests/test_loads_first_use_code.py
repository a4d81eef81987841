"""The code of ``loads``' expression, which a fresh process's first document reads, converts and
compiles (issue 21, goal 2: the first 1,000 documents >= 0.25x ``json.loads``), kept small without
changing a verdict.

Of AgentEvent's exact expression, 80% of the code was its numbers: each number of a
``serde_json::Value`` (15 a Value, 17 Values) bounded integers up to u64::MAX and down to i64::MIN
with their bound written once per prefix. Now the bound is compared digit by digit, each digit
written once (``_numbers.at_most``: the same integers), and the numbers nested two levels or
more inside a Value take no integer of 19 digits or more (``NUMBER_LEVELS``: a document with one
there takes the exact path). Checked here:

- the bound takes exactly the integers from 1 to it (Python's own comparison is the reference);
- the code is within its budget, counted in code words (main's was 494,819 and 647,831 words);
- the expression vouches for no document that the one with every number at every level does not,
  and for every corpus document that one vouches for (corpus, corruptions, generated values);
- numbers at every depth of a Value, in every form, are judged alike both ways.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_loads_shortcut import RELEASES, assert_same
from test_validate_fastpath import corpus_documents, mutations

from phi_wire.fastpath import _cache, _numbers, _pattern

CODE_BUDGET = 250_000
"""Code words AgentEvent's exact expression may take (0.8's is 166,831 now, 0.10's 222,831; on
main 494,819 and 647,831): at the 15-20 ns per word that a fresh process spends reading the
shipped entry, converting it into a list and compiling it (``_cache.checked_entry``), 4-5 ms of
the ~12 ms of set-up the goal leaves."""

BOUNDS = [1, 7, 9, 10, 99, 100, 305, 2**31, 10**18, 2**63, 2**64 - 1, 10**19 + 7]


def in_range(text: str, limit: int) -> bool:
    """Python's reading: a decimal integer without leading zero from 1 to ``limit``."""
    return text.isascii() and text.isdigit() and text[0] != "0" and 1 <= int(text) <= limit


def near(limit: int) -> st.SearchStrategy[str]:
    """Digit strings around ``limit``: of its length, one more or less, sharing a prefix."""
    text = str(limit)
    same_prefix = st.tuples(st.integers(0, len(text)), st.integers(0, 10**25)).map(
        lambda cut: (text[: cut[0]] + str(cut[1]))[: len(text) + 1]
    )
    offset = st.integers(-(10**6), 10**6).map(lambda delta: str(abs(limit + delta)))
    return st.one_of(
        same_prefix, offset, st.integers(0, 10**22).map(str), st.from_regex(r"\A0[0-9]{0,21}\Z")
    )


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_a_bound_takes_exactly_the_integers_up_to_it(data: st.DataObject) -> None:
    limit = data.draw(st.sampled_from(BOUNDS))
    text = data.draw(near(limit))
    expression = _numbers.at_most(limit)
    assert (re.fullmatch(expression, text.encode()) is not None) == in_range(text, limit), text
    # a whole run of digits: never a prefix of one, whatever follows
    followed = re.fullmatch(expression + rb"[,0-9]", (text + ",").encode())
    assert (followed is not None) == in_range(text, limit), text


def test_every_bound_digit_and_edge() -> None:
    """Each bound itself, one above, one below, and every digit of it raised or lowered."""
    for limit in BOUNDS:
        text = str(limit)
        cases = {str(limit - 1), text, str(limit + 1), "0" + text}
        for index in range(len(text)):
            for digit in "0123456789":
                cases.add(text[:index] + digit + text[index + 1 :])
        expression = re.compile(_numbers.at_most(limit))
        for case in cases:
            assert (expression.fullmatch(case.encode()) is not None) == in_range(case, limit)


def code_words(version: str, name: str = "AgentEvent") -> int:
    made = _cache.compiled_code(_pattern.build_pattern(version, [name], None, True))
    engine = _cache._engine()
    assert made is not None and engine is not None
    return len(made.code) // engine.codesize


@pytest.mark.parametrize("version", sorted(RELEASES.values()))
def test_agent_events_code_is_within_its_budget(version: str) -> None:
    """Counted, not timed: the code a fresh process's first ``loads`` converts and compiles."""
    assert code_words(version) <= CODE_BUDGET


@pytest.fixture(scope="module")
def expressions() -> Iterator[dict[tuple[str, str], tuple[re.Pattern[bytes], re.Pattern[bytes]]]]:
    """(version, type) -> (the expression, the one with every number at every level), built when
    first asked for."""
    yield {}


def both(
    built: dict[tuple[str, str], tuple[re.Pattern[bytes], re.Pattern[bytes]]],
    version: str,
    name: str,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[re.Pattern[bytes], re.Pattern[bytes]] | None:
    if (version, name) not in built:
        source = _pattern.build_pattern(version, [name], None, True)
        if not source:
            return None
        with monkeypatch.context() as patched:
            patched.setattr(_pattern, "_SHORT_EXACT_NUMBER", _pattern._EXACT_NUMBER)
            every = _pattern.build_pattern(version, [name], None, True)
        built[version, name] = (re.compile(source), re.compile(every))
    return built[version, name]


@pytest.mark.parametrize("release", sorted(RELEASES))
def test_the_expression_vouches_for_a_subset_and_loses_no_corpus_document(
    release: str,
    expressions: dict[tuple[str, str], tuple[re.Pattern[bytes], re.Pattern[bytes]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    version = RELEASES[release]
    rng = random.Random(21)
    vouched = 0
    for label, name, document in corpus_documents(release):
        found = both(expressions, version, name, monkeypatch)
        if found is None:
            continue
        short, every = found
        matched = short.fullmatch(document) is not None
        assert matched == (every.fullmatch(document) is not None), label
        vouched += matched
        for corrupted in mutations(document, rng) if matched else ():
            if short.fullmatch(corrupted) is not None:
                assert every.fullmatch(corrupted) is not None, (label, corrupted)
    assert vouched > 300  # the corpus is vouched for, not merely left alone


# --- numbers at every depth of a serde_json::Value -----------------------------------------------

_INTEGER = st.one_of(
    st.integers(-(2**64), 2**65),
    st.sampled_from([2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**18, -(10**18), 10**19]),
).map(str)
_LEXEME = st.one_of(
    _INTEGER,
    st.from_regex(r"\A-?(0|[1-9][0-9]{0,19})\.[0-9]{1,18}\Z"),
    st.sampled_from(["0", "-0", "-0.0", "0.0", "1e5", "-1E-5"]),
)


def _nested(lexeme: str, depth: int, in_object: bool) -> str:
    """``lexeme`` ``depth`` containers deep (objects or arrays)."""
    text = lexeme
    for level in range(depth):
        text = f'{{"k{level}":{text}}}' if in_object else f"[1,{text}]"
    return text


def _document(data: str) -> str:
    return (
        '{"type":"MessageStart","loop_id":"l","message":{"role":"extension","kind":"k","data":'
        + data
        + "}}"
    )


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(_LEXEME, st.integers(0, 3), st.booleans()), min_size=1, max_size=3).map(
        lambda parts: "[" + ",".join(_nested(*part) for part in parts) + "]"
    )
    | st.tuples(_LEXEME, st.integers(0, 3), st.booleans()).map(lambda part: _nested(*part))
)
def test_numbers_at_every_depth_of_a_value_are_judged_alike(data: str) -> None:
    document = _document(data)
    assert_same("0.8", "AgentEvent", document, document)


def test_deep_long_integers_take_the_exact_path_and_shallow_ones_the_fast_path() -> None:
    """What ``NUMBER_LEVELS`` changes: a long integer two levels inside a Value is left to the
    exact path, one level inside it is vouched for; both are judged alike."""
    for lexeme in ("18446744073709551615", "-9223372036854775808"):
        shallow = _document(json.dumps({"id": json.loads(lexeme)}, separators=(",", ":")))
        deep = _document(_nested(lexeme, 2, True))
        assert assert_same("0.8", "AgentEvent", shallow, shallow)
        assert not assert_same("0.8", "AgentEvent", deep, deep)
    short = _document(_nested("123456789012345678", 3, False))
    assert assert_same("0.8", "AgentEvent", short, short)
