"""The one json.loads pass of ``loads`` (runtime/_scan.py): repeats, numbers, nesting depth."""

from __future__ import annotations

import pytest

from phi_wire import Content, LlmMessage, WireError, dumps, loads
from phi_wire._scan import SERDE_MAX_DEPTH, scan, too_deep


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
