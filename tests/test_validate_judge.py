"""Judging (runtime/validate/_detect.py, _judge.py, _locate.py) through the real command line:
type detection whatever the key order, a known role judged as that role, problems capped per
document, line numbers in linear time."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from command import run

ROOT = Path(__file__).resolve().parent.parent
EVENTS = (ROOT / "examples" / "events.jsonl").read_text(encoding="utf-8").splitlines()
SESSION = json.loads((ROOT / "examples" / "session.json").read_text(encoding="utf-8"))


# --- item 10: detection by keys, whatever their order -------------------------------------------


def test_documents_with_sorted_keys_are_detected_as_their_type(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Item 10: the same events with keys sorted (jq -S, sort_keys=True) are AgentEvents (valid,
    as loads(AgentEvent, line) says), not LoopRecords with 9 errors each; a session with sorted
    keys is a Session."""
    from phi_wire import v0_10

    sorted_lines = [json.dumps(json.loads(line), sort_keys=True) for line in EVENTS]
    for line in sorted_lines:
        v0_10.loads(v0_10.AgentEvent, line)  # phi-core reads each one as an event
    path = tmp_path / "sorted.jsonl"
    path.write_text("\n".join(sorted_lines) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 0, out
    session = tmp_path / "sorted.json"
    session.write_text(json.dumps(SESSION, sort_keys=True, indent=1), encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(session))
    assert code == 0, out


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        ({"type": 1, "loop_id": 1, "events": 1}, "LoopRecord"),
        ({"events": 1, "type": 1, "loop_id": 1}, "LoopRecord"),
        ({"loop_id": 1, "type": 1}, "AgentEvent"),
        ({"kind": 1, "role": 1, "data": 1}, "AgentMessage"),
        ({"output_message": 1, "turn_id": 1}, "Turn"),
        ({"event": 1, "sequence": 1}, "LoopEvent"),
        ({"zzz": 1, "session_id": 1, "loops": 1}, "Session"),
        ({"zzz": {"type": 1}}, "AgentEvent"),
    ],
)
def test_detection_does_not_depend_on_key_order(keys: dict[str, Any], expected: str) -> None:
    from phi_wire.validate import detect

    for ordering in (keys, dict(reversed(list(keys.items())))):
        assert detect(json.dumps(ordering).encode()) == expected
        assert detect(json.dumps(ordering, indent=2).encode()) == expected


# --- item 12: a known role is judged as that role -------------------------------------------------


def test_a_message_with_a_known_role_is_judged_as_that_role(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Item 12: "role":"assistant" with snake_case stop_reason (and other slips) is reported
    against the assistant variant; "role":"usr" says the role is unknown; neither as an
    ExtensionMessage missing `kind`. With `kind`, it is an ExtensionMessage."""
    assistant = {
        "role": "assistant",
        "content": [{"type": "text", "text": "hi"}],
        "stop_reason": "stop",
        "model": "m",
        "provider": "p",
        "time": 1,
    }  # three assistant fields missing against the extension's two: it "resembled" that more
    user = {"role": "usr", "content": [{"type": "text", "text": "hi"}], "timestamp": 1}
    extension = {"role": "user", "kind": "note"}
    path = tmp_path / "messages.jsonl"
    path.write_text(
        "\n".join(json.dumps(item) for item in (assistant, user, extension)) + "\n",
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "validate", str(path))
    lines = out.splitlines()[:-1]
    assert code == 1 and "kind" not in "".join(lines[:-1]), out
    first = [line for line in lines if line.startswith(f"{path}:1: ")]
    assert first and all(line.startswith(f"{path}:1: AgentMessage assistant /") for line in first)
    assert any("missing field `stopReason`" in line for line in first), first
    second = [line for line in lines if line.startswith(f"{path}:2: ")]
    assert second == [
        f"{path}:2: AgentMessage /: unknown variant 'usr', expected one of 'user', 'assistant', "
        "'toolResult'"
    ], second
    third = [line for line in lines if line.startswith(f"{path}:3: ")]
    assert third == [f"{path}:3: AgentMessage ExtensionMessage /: missing field `data`"], third
    # the same with --type AgentMessage
    code, forced, _ = run(capsys, "validate", "--type", "AgentMessage", str(path))
    assert forced.splitlines()[:-1] == lines


# --- item 7: the work per document is capped ----------------------------------------------------


def session_with_loops(count: int, item: Any = None, indent: int | None = 2) -> str:
    return json.dumps(
        {**SESSION, "loops": [item if item is not None else {}] * count}, indent=indent
    )


def test_problems_are_capped_per_document(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Item 7: 1,000 empty loops make 10,000 problems: the first 100 are reported (default) and
    a count of the rest; --max-problems picks the cap."""
    path = tmp_path / "loops.json"
    path.write_text(session_with_loops(1000), encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(path))
    lines = out.splitlines()
    assert code == 1 and len(lines) == 102, len(lines)
    assert lines[100] == (
        f"{path}:1: Session: and 9,900 more problems in this document, not listed "
        "(--max-problems 100)"
    )
    code, out, _ = run(
        capsys, "validate", "--max-problems", "3", "--output-format", "json", str(path)
    )
    lines = [json.loads(line) for line in out.splitlines()]
    *records, total = (record for record in lines if "kind" in record or "summary" in record)
    assert [record["kind"] for record in records] == ["problem"] * 3 + ["more"]
    assert records[-1]["omitted"] == 9997 and total["summary"]["omitted"] == 9997


def test_loads_builds_no_more_problems_than_asked(tmp_path: Path) -> None:
    """Item 7: the cap reaches the error translation: beyond it no problem is built."""
    from phi_wire import v0_10

    raw = session_with_loops(500, indent=None).encode()
    with pytest.raises(v0_10.WireError) as caught:
        v0_10.loads(v0_10.Session, raw, max_problems=7)
    assert len(caught.value.problems) == 7 and caught.value.omitted == 4993
    assert str(caught.value).endswith("(and 4999 more problems)")
    with pytest.raises(v0_10.WireError) as whole:
        v0_10.loads(v0_10.Session, raw)
    assert len(whole.value.problems) == 5000 and whole.value.omitted == 0


PEAK_PROBE = (
    "import re, sys\n"
    "from phi_wire.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "peak = re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read())\n"
    "print('peak_rss_kb', peak.group(1), file=sys.stderr)\n"
    "raise SystemExit(code)\n"
)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM (Linux)")
@pytest.mark.parametrize("shape", ["100,000 empty loops", "1,000,000 wrong array items"])
def test_a_document_with_a_million_problems_costs_little(tmp_path: Path, shape: str) -> None:
    """Item 7: the issue's two documents (a 300 kB session of 100,000 empty loops: 1,000,001
    problems, 1.5 GB before; a 2 MB line of 1,000,000 wrong array items: 2 GB before) stay far
    below that: each array is judged up to its first invalid item, a note says so."""
    if shape.startswith("100,000"):
        path = tmp_path / "loops.json"
        path.write_text(session_with_loops(100_000, indent=None), encoding="utf-8")
        expected = "Session /loops/0: missing field `loop_id`"
    else:
        path = tmp_path / "wide.jsonl"
        path.write_text(
            '{"role":"user","content":[' + ",".join(["0"] * 1_000_000) + '],"timestamp":1}\n',
            encoding="utf-8",
        )
        expected = "AgentMessage user /content/0: expected an object, found integer 0"
    result = subprocess.run(
        [sys.executable, "-c", PEAK_PROBE, "validate", str(path)],
        capture_output=True,
        text=True,
    )
    peak_mb = int(re.search(r"peak_rss_kb (\d+)", result.stderr)[1]) // 1024  # type: ignore[index]
    assert result.returncode == 1 and expected in result.stdout, result.stdout
    assert peak_mb < 400, f"{peak_mb} MB"
    assert "each array was judged up to its first invalid item" in result.stdout
    assert len(result.stdout.splitlines()) <= 12


# --- item 6: line numbers in linear time --------------------------------------------------------


class CountingPattern:
    """Wraps the locator's token pattern: counts the tokens it hands out."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.tokens = 0

    def search(self, text: str, position: int = 0) -> re.Match[str] | None:
        self.tokens += 1
        return self.pattern.search(text, position)

    def finditer(self, text: str, position: int = 0) -> Iterator[re.Match[str]]:
        for match in self.pattern.finditer(text, position):
            self.tokens += 1
            yield match


def test_line_numbers_take_one_pass_per_document(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 6: the problems of a pretty document are located in one pass over its tokens, not one
    pass per problem (16 kB of empty loops took 33 s)."""
    from phi_wire.validate import _locate

    counter = CountingPattern(_locate._TOKEN)
    monkeypatch.setattr(_locate, "_TOKEN", counter)
    path = tmp_path / "loops.json"
    text = session_with_loops(2000)
    path.write_text(text, encoding="utf-8")
    code, out, _ = run(capsys, "validate", "--max-errors", "1", str(path))
    assert code == 1 and out.startswith(f"{path}:14: Session /loops/0: missing field"), out
    tokens = len(_locate._TOKEN.pattern.findall(text))
    assert 0 < counter.tokens <= tokens, (counter.tokens, tokens)
    # every located line is right: each problem of loop n is on the line of loop n
    code, out, _ = run(capsys, "validate", "--max-problems", "100", str(path))
    first_loop = text.splitlines().index("    {},") + 1
    for line in out.splitlines()[:100]:
        found = re.match(rf"{re.escape(str(path))}:(\d+): Session /loops/(\d+)", line)
        assert found is not None, line
        number, loop = found.groups()
        assert int(number) == first_loop + int(loop), line


def test_strict_reports_the_line_of_the_difference(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = (ROOT / "examples" / "session.json").read_text(encoding="utf-8")
    changed = text.replace('"status": "Completed"', '"status": "Completed", "extra": 1', 1)
    path = tmp_path / "session.json"
    path.write_text(changed, encoding="utf-8")
    code, out, _ = run(capsys, "validate", "--strict", "--version", "0.8", str(path))
    line = changed[: changed.index('"extra"')].count("\n") + 1
    assert code == 1 and out.startswith(f"{path}:{line}: Session /loops/0/extra:"), out


# --- bytes that are not UTF-8: loads decides ---------------------------------------------------

SESSION_TEXT = (ROOT / "examples" / "session.json").read_bytes()
AN_EVENT = json.loads(EVENTS[1])  # a TurnStart
LOOP_EVENT = json.dumps({"sequence": 0, "event": AN_EVENT}, separators=(",", ":")).encode()
BAD = b'"caf\xe9"'  # Latin-1, not UTF-8

NOT_UTF8 = {
    # name: (file name, bytes); the first two hold the bad byte in an unknown key's value of a
    # struct serde reads directly (skipped: valid), the others where serde reads it in full
    "unknown key of Session": (
        "s.json",
        SESSION_TEXT.replace(b'{\n  "session_id"', b'{\n  "zz": ' + BAD + b',\n  "session_id"', 1),
    ),
    "unknown key of a LoopRecord": (
        "s.json",
        SESSION_TEXT.replace(b'"loop_id"', b'"zz": ' + BAD + b', "loop_id"', 1),
    ),
    "unknown key of a LoopEvent line": (
        "e.jsonl",
        LOOP_EVENT[:-1] + b',"zz":' + BAD + b"}\n",
    ),
    "a known field of Session": (
        "s.json",
        SESSION_TEXT.replace(b'"agent_id": "c0ffee00', b'"agent_id": "c\xe9ffee00', 1),
    ),
    "unknown key of an event (buffered: read in full)": (
        "e.jsonl",
        json.dumps(AN_EVENT, separators=(",", ":")).encode()[:-1] + b',"zz":' + BAD + b"}\n",
    ),
}


@pytest.mark.parametrize("case", NOT_UTF8)
def test_bytes_that_are_not_utf8_are_judged_by_loads(case: str, tmp_path: Path) -> None:
    """serde_json skips an unknown key's value without checking its UTF-8; ``loads`` says so
    (runtime/serde/_ignored.py). The validator lets ``loads`` decide: the same verdict, and for a
    rejected document its pointer and line, as a problem (not an input error). Regression: it
    rejected every document holding such a byte ("not UTF-8", an input error) before asking."""
    from phi_wire import v0_10
    from phi_wire.validate import PROBLEM, validate

    name, data = NOT_UTF8[case]
    path = tmp_path / name
    path.write_bytes(data)
    run_ = validate([str(path)])
    records = list(run_)
    (summary,) = run_.files
    type_name = {"s.json": "Session", "e.jsonl": "LoopEvent"}[name]
    if case.startswith("unknown key of an event"):
        type_name = "AgentEvent"
    try:
        v0_10.loads(getattr(v0_10, type_name), data.strip())
    except v0_10.WireError as error:
        assert summary.invalid == 1 and summary.input_errors == 0, records
        (record,) = records
        assert (record.kind, record.type, record.pointer) == (PROBLEM, type_name, error.pointer)
        assert record.line == (error.line or 1), (record, error)
        assert "not UTF-8" in record.message and str(error.problems[0].message) in record.message
    else:
        assert summary.valid == 1 and records == [], records
    assert not case.startswith("unknown key of") or "buffered" in case or summary.valid == 1
