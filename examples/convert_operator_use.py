"""Convert an Operator-Use session file to phi-core messages and back, printing what is lost.

    python examples/convert_operator_use.py [SESSION.jsonl]

Without an argument it converts a small session written here (a user turn, a tool call, its
result, the answer).
"""

from __future__ import annotations

import sys
from pathlib import Path

import phi_wire.operator_use as ou
import phi_wire.v0_10 as phi
from phi_wire.convert import convert

SAMPLE = "".join(
    line + "\n"
    for line in (
        '{"type":"session","version":3,"id":"019ab0c4-1a2b-7c3d-8e4f-5a6b7c8d9e0f","timestamp":1763892000.0,"cwd":"/home/user/project"}',
        '{"id":"a1b2c3d4","timestamp":1763892001.0,"type":"model_change","model_id":"claude-sonnet-4-5","provider_id":"anthropic"}',
        '{"id":"b2c3d4e5","timestamp":1763892002.0,"parent_id":"a1b2c3d4","type":"message","message":{"role":"user","contents":[{"type":"text","content":"List the files."}],"id":"0b5e8f6a-1c2d-4e3f-9a4b-5c6d7e8f9a0b","timestamp":1763892002.0}}',  # noqa: E501
        '{"id":"c3d4e5f6","timestamp":1763892003.5,"parent_id":"b2c3d4e5","type":"message","message":{"role":"assistant","contents":[{"type":"tool_call","id":"call_1","name":"bash","kind":"execute","args":{"command":"ls"},"metadata":{}}],"id":"4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a","timestamp":1763892003.25,"usage":{"input_tokens":10,"output_tokens":3,"cache_read_tokens":0,"cache_write_tokens":0,"cost":{"input":0.00003,"output":0.000045,"cache_read":0.0,"cache_write":0.0,"total":0.000075}},"stop_reason":"tool_calls","error":""}}',
        '{"id":"d4e5f6a7","timestamp":1763892004.0,"parent_id":"c3d4e5f6","type":"message","message":{"role":"tool","contents":[{"type":"tool_result","id":"call_1","content":"README.md\\nsrc\\n","is_error":false,"metadata":{},"terminate":false}],"id":"6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","timestamp":1763892004.0}}',
    )
)


def main(argv: list[str]) -> str:
    text = Path(argv[0]).read_text(encoding="utf-8") if argv else SAMPLE
    session = ou.loads(ou.SessionFile, text)  # read as Operator-Use's read_session_file reads
    result = convert(session, source="operator-use", target="phi-core")
    lines = [phi.dumps(message) for message in result.value]  # valid phi-core 0.10 messages
    lines += [f"loss {loss.kind} {loss.pointer}: {loss.reason}" for loss in result.losses]
    back = convert(result.value, source="phi-core", target="operator-use")
    lines += [ou.dumps(message) for message in back.value]  # Operator-Use messages again
    return "\n".join(lines)


if __name__ == "__main__":
    print(main(sys.argv[1:]))
