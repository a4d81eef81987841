"""The one json.loads pass of ``loads`` (runtime/serde/_scan.py): repeats, numbers, nesting
depth."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

import phi_wire.serde._codec
from phi_wire import Content, LlmMessage, ToolCallContent, Usage, WireError, dumps, loads
from phi_wire.serde._scan import SERDE_MAX_DEPTH, scan, too_deep

HUGE_EXPONENT = "1e" + "0" * 4300 + "1"
"""serde reads it as 10.0 (the exponent's value counts); Python's int() refuses its digits."""


def tool_call(arguments: str) -> str:
    return f'{{"type":"toolCall","id":"c","name":"n","arguments":{arguments}}}'


def test_nesting_limit_is_serde_jsons() -> None:
    deepest = "[" * (SERDE_MAX_DEPTH - 1) + "]" * (SERDE_MAX_DEPTH - 1)  # plus the outer object
    assert dumps(loads(Content, tool_call(deepest))) == tool_call(deepest)
    with pytest.raises(WireError, match="nested deeper"):
        loads(Content, tool_call("[" + deepest + "]"))
    with pytest.raises(WireError):  # far beyond any limit: an error, never a RecursionError
        loads(Content, tool_call("[" * 100_000 + "]" * 100_000))


def test_brackets_inside_strings_do_not_count() -> None:
    text = '"' + "[{" * 200 + '\\" \\\\' + '"'
    assert not too_deep(tool_call(text).encode())
    assert loads(Content, tool_call(text))


def test_an_unpaired_quote_in_a_bracket_heavy_document_is_a_plain_error() -> None:
    """Regression: with more than 127 brackets, ``too_deep`` pairs up the quotes to skip strings;
    a quote left unpaired (a string that never ends) raised KeyError out of ``loads``. It opens a
    string that runs to the end, as the parser reads it: nothing after it nests."""
    deep = "[" * 200 + "]" * 200
    wide = "[" + ",".join(["[]"] * 100) + "]"
    for nested in (deep, wide):  # the syntax error comes first: that is what serde reports
        document = tool_call(nested).replace('"id":"c"', '"id":c"')
        assert document.count('"') % 2 == 1
        with pytest.raises(WireError, match="invalid JSON"):
            loads(Content, document)
    late = tool_call(deep)[:-1] + '"}'  # the nesting comes first: serde's limit is the error
    with pytest.raises(WireError, match="nested deeper"):
        loads(Content, late)
    unterminated = tool_call('"' + "[" * 200)[:-1]  # the brackets lie inside the open string
    assert not too_deep(unterminated.encode())
    with pytest.raises(WireError, match="invalid JSON"):
        loads(Content, unterminated)


def test_repeated_keys_rejected_in_structs_but_last_wins_in_values() -> None:
    found = scan(b'{"a":1,"a":2}')
    assert found is not None and found.repeated_keys and not found.numbers_differ
    with pytest.raises(WireError, match="duplicate field `name`"):
        loads(Content, '{"type":"toolCall","id":"c","name":"a","name":"b","arguments":null}')
    assert dumps(loads(Content, tool_call('{"k":1,"k":2}'))) == tool_call('{"k":2}')
    assert loads(Content, '{"type":"text","text":"a","x":1,"x":2}')  # unknown keys may repeat
    message = loads(LlmMessage, '{"role":"user","content":[],"timestamp":1,"timestamp":2}')
    assert message.timestamp == 2  # LlmMessage is parsed through serde_json::Value


def test_not_json_is_left_to_the_parser_error() -> None:
    assert scan(b'{"a":') is None
    with pytest.raises(WireError, match="invalid JSON"):
        loads(Content, '{"type":')


def test_a_huge_exponent_is_read_as_serde_reads_it() -> None:
    raw = tool_call(f"[{HUGE_EXPONENT},-0]").encode()
    found = scan(raw)
    assert found is not None and found.numbers_differ  # -0 needs a rewrite; 1e0...01 does not
    assert dumps(loads(Content, raw)) == tool_call("[10.0,-0.0]")
    assert dumps(loads(Usage, '{"input":1,"output":2,"pad":' + HUGE_EXPONENT + "}")) == (
        '{"input":1,"output":2,"reasoning":0,"cache_read":0,"cache_write":0,"total_tokens":0}'
    )


DEEP = "[" * SERDE_MAX_DEPTH + "]" * SERDE_MAX_DEPTH


@pytest.mark.parametrize(
    ("tp", "text", "message"),
    [
        # issue 10's example: the duplicate field must still be found
        (Usage, '{"input":7,"input":1,"output":2,"pad":HUGE}', "/: duplicate field `input`"),
        (ToolCallContent, tool_call("[NaN,HUGE]"), "expected value at line 1 column 53"),
        (ToolCallContent, tool_call("[HUGE,Infinity]"), "expected value"),
        (ToolCallContent, tool_call("[1e400,HUGE]"), "number out of range"),
        (Usage, '{"input":-0,"output":2,"pad":HUGE}', "/input: .* found integer -0"),
        (
            Usage,
            '{"input":18446744073709551616,"output":2,"pad":HUGE}',
            "/input: .* found integer 18446744073709551616",
        ),
        (ToolCallContent, tool_call(f"[HUGE,{DEEP}]"), "nested deeper than serde_json's 127"),
    ],
)
def test_every_serde_check_still_runs_beside_a_huge_exponent(
    tp: Any, text: str, message: str
) -> None:
    """A number Python's int() refuses made the scan give up and skip every check (issue 10)."""
    with pytest.raises(WireError, match=message):
        loads(tp, text.replace("HUGE", HUGE_EXPONENT))


def test_what_loads_accepts_it_reads_back_from_dumps() -> None:
    value = loads(ToolCallContent, tool_call(f'{{"a":{HUGE_EXPONENT},"b":1e-{"0" * 5000}1}}'))
    assert loads(ToolCallContent, dumps(value)) == value
    assert dumps(value) == tool_call('{"a":10.0,"b":0.1}')


def test_depth_is_checked_before_the_scan() -> None:
    """Depth used to be checked only when the scan succeeded; it is now checked first."""
    with pytest.raises(WireError, match="nested deeper"):  # pydantic alone allows 200 levels
        loads(ToolCallContent, tool_call("[" * 150 + HUGE_EXPONENT + "]" * 150))


def test_a_document_the_scan_cannot_read_is_never_judged_unchecked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Should the scan fail where pydantic succeeds, loads rejects rather than skip serde's
    checks (no such document is known: this pins the safety net)."""
    monkeypatch.setattr(phi_wire.serde._codec, "scan", lambda raw: None)
    with pytest.raises(WireError, match="invalid JSON: the document could not be scanned"):
        loads(Usage, '{"input":1,"input":2,"output":3}')


LEXEMES = st.one_of(
    st.integers(-(2**80), 2**80).map(str),
    st.floats(allow_nan=False).map(
        lambda x: json.dumps(x) if x == x and abs(x) != float("inf") else "0"
    ),
    st.sampled_from(["-0", "1e400", "-1e-400", HUGE_EXPONENT, "1" * 4400, "0." + "0" * 4400 + "1"]),
    st.from_regex(
        r"-?[1-9][0-9]{0,30}(\.[0-9]{1,30})?([eE][+-]?0{0,4400}[0-9]{1,12})?", fullmatch=True
    ),
)
JSON_TEXT = st.recursive(
    st.one_of(
        st.none().map(lambda _: "null"),
        st.booleans().map(json.dumps),
        LEXEMES,
        st.text(max_size=5).map(json.dumps),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(lambda items: "[" + ",".join(items) + "]"),
        st.lists(st.tuples(st.sampled_from(["a", "b", "input"]), inner), max_size=4).map(
            lambda pairs: "{" + ",".join(f'"{key}":{item}' for key, item in pairs) + "}"
        ),
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(JSON_TEXT)
def test_the_scan_reads_every_document_pydantics_parser_reads(text: str) -> None:
    """scan returns None only for text that is not JSON: never for one pydantic reads."""
    raw = text.encode()
    try:
        TypeAdapter(Any).validate_json(raw)
    except ValueError:
        return
    assert scan(raw) is not None
