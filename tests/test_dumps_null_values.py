"""``dumps`` writes a null ``JsonValue`` without a Python call (issue 21, goal 3).

A ``JsonValue`` is written through ``sorted_json``, which returns ``None`` as it is; pydantic-core
writes that ``null`` itself now (``when_used="unless-none"`` in ``dumps``' writer), so a null,
inside ``LlmMessage``'s sorted subtree or outside it, costs no Python call. The work is counted
(the Python functions entered), and the bytes compared with pydantic's own serializer, which
still calls ``sorted_json`` for the null.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic_own import pydantic_json
from python_calls import python_calls

import phi_wire.v0_8 as wire


def tool_update(details: str) -> Any:
    """A ``ToolExecutionUpdate`` event (outside any sorted subtree) whose ``details`` is the JSON
    text given."""
    return wire.loads(
        wire.AgentEvent,
        '{"type":"ToolExecutionUpdate","loop_id":"l","tool_call_id":"t","tool_name":"bash",'
        '"partial_result":{"content":[{"type":"text","text":"ok"}],"details":' + details + "}}",
    )


def assistant_calling(arguments: str) -> Any:
    """An assistant message (``LlmMessage``: written sorted) whose one tool call has the JSON text
    ``arguments``."""
    return wire.loads(
        wire.AgentMessage,
        '{"role":"assistant","content":[{"type":"toolCall","id":"t","name":"n","arguments":'
        + arguments
        + '}],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,'
        '"cacheWrite":0,"totalTokens":0,"cost":{"input":0.0,"output":0.0,"cacheRead":0.0,'
        '"cacheWrite":0.0,"total":0.0}},"stopReason":"toolUse","timestamp":0}',
    )


@pytest.mark.parametrize("build", [tool_update, assistant_calling])
def test_a_null_json_value_is_written_without_a_python_call(build: Callable[[str], Any]) -> None:
    value = build("null")
    written = wire.dumps(value)  # the class's writer built, once
    assert written == pydantic_json(value)
    assert "null" in written
    for pretty in (False, True):
        names = python_calls(lambda pretty=pretty: wire.dumps(value, pretty=pretty))
        assert "sorted_json" not in names, names
    # a value that is not null still goes through sorted_json (written sorted, one call)
    unsorted = build('{"b":1,"a":2}')
    names = python_calls(lambda: wire.dumps(unsorted))
    assert names.count("sorted_json") == 1
    assert '{"a":2,"b":1}' in wire.dumps(unsorted)
    assert wire.dumps(unsorted) == pydantic_json(unsorted)


def test_dumps_enters_two_python_functions_per_document() -> None:
    """``dumps`` itself and ``written_json`` (which calls pydantic-core): the class's writer is
    looked up in C once built, not through a Python function per document."""
    value = tool_update("null")
    wire.dumps(value)  # the class's writer built, once
    assert python_calls(lambda: wire.dumps(value)) == ["<lambda>", "dumps", "written_json"]
