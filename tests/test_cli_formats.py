"""phi-wire validate --format (runtime/cli/, runtime/validate/ over phi_wire.recognise): each
file is judged as the format it is, and says which.

* ``others/`` and both corpora (clark-agent 0.4.0, Operator-Use d0da87a6 and d1cdaad8): a table
  names the format of every file. Every corpus file is its corpus's format except the ones listed
  in ``NOT_THEIR_OWN`` with the reason (JSON another format writes the same way, JSON that names
  no format, pi's JSON kept in Operator-Use's corpus); a rejected fixture is invalid in its own
  format, a written or accepted one valid.
* A file of mixed formats is judged document by document; an Operator-Use session file is one
  document whose skipped lines are problems at their lines; pi's and yoagent's JSON is named.
* ``--format``/``--version``/``--type`` force one format; ``types``/``schema`` per format.
* ``--strict`` lists each key phi-core drops from a pi-ai message.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from command import run
from corpus import fixtures_root, manifest

from phi_wire.cli import main
from phi_wire.validate import INPUT, NOTE, PROBLEM, FileSummary, Record, validate


def judged(
    *paths: Path, **options: object
) -> tuple[dict[str, FileSummary], dict[str, list[Record]]]:
    """Each file's summary and records, by path."""
    run_ = validate([str(path) for path in paths], **options)  # type: ignore[arg-type]
    records: dict[str, list[Record]] = defaultdict(list)
    for record in run_:
        records[record.file].append(record)
    return {summary.file: summary for summary in run_.files}, records


# --- others/: every file named -----------------------------------------------------------------

OTHERS = {
    "clark-agent/clark-agent.history-rows.jsonl": "clark-agent",
    "clark-agent/clark-agent.reasoning-details.items.json": "clark-agent",
    "operator-use/operator-use.session.generated.jsonl": "operator-use",
    "phi-core-consumers/baby-phi.phi-core-loop-record.handwritten.json": "phi-core",
    "phi-core-consumers/baby-phi.phi-core-session.handwritten.json": "phi-core",
    "pi/fixtures/earendil-pi.prompt-cache-replay-session.jsonl": "pi",
    "pi/fixtures/pi-mono.assistant-message-with-thinking-code.json": "pi",
    "pi/fixtures/pi-mono.before-compaction.excerpt.jsonl": "pi",
    "pi/fixtures/pi-mono.large-session.excerpt.jsonl": "pi",
    "pi/generated/pi-agent-core.agent-events.jsonl": "pi",
    "pi/generated/pi-agent-core.error-run.events.jsonl": "pi",
    "pi/generated/pi-agent-core.messages.json": "pi",
    "pi/generated/pi-ai.assistant-message-events.jsonl": "pi",
    "pi/generated/pi-ai.error-and-aborted.events.jsonl": "pi",
    "pi/generated/pi-coding-agent.session-context.json": "pi",
    "pi/generated/pi-coding-agent.session.v3.jsonl": "pi",
    "yoagent/yoagent-0.13plus.events.jsonl": "yoagent",
    "yoagent/yoagent-0.13plus.message-end.frozen.json": "yoagent",
    # yoagent before 0.13 wrote phi-core's JSON (phi-core ignores its provider_metadata)
    "yoagent/yoagent-pre0.13.assistant.legacy.json": "phi-core",
}
"""others/README.md's files -> the format each one is."""
OTHERS_INVALID = {"phi-core-consumers/baby-phi.phi-core-session.handwritten.json"}
"""others/README.md: invalid for phi-core (``formation`` is no SessionFormation variant)."""


def test_others_each_file_is_named_as_its_format() -> None:
    """The issue's "done" item: validate on others/ names the right format for each file; a
    document of another known format is that format's, never invalid phi-core with a list of 19
    variant names (what the command said before)."""
    base = fixtures_root() / "others"
    found = sorted(str(path.relative_to(base)) for path in base.rglob("*.json*"))
    assert found == sorted(OTHERS), "others/ changed: name the format of its new files here"
    files, records = judged(base)
    for name, expected in OTHERS.items():
        summary = files[str(base / name)]
        assert summary.format == expected, (name, summary.label)
        listed = records.get(str(base / name), [])
        assert not any("expected one of 'AgentStart'" in r.message for r in listed), name
        if name in OTHERS_INVALID:
            assert summary.invalid == 1 and listed[0].format == "phi-core", name
        elif expected == "yoagent":
            assert summary.unjudged == summary.documents > 0, (name, summary)
            assert [r.kind for r in listed] == [INPUT], listed
            assert "phi-wire does not speak" in listed[0].message
        else:
            assert summary.valid == summary.documents > 0, (name, summary, listed)
        if expected == "pi":  # pi is spoken: judged by pi's own reader, named by its line
            assert {j.reader for j in summary.judged} <= {"pi 0.73", "pi 1.5"}, summary.judged


def test_others_in_the_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    """The text report lists each file with its format, and the summary counts them."""
    base = fixtures_root() / "others"
    code, out, err = run(capsys, "validate", str(base))
    assert code == 2  # yoagent's files could not be judged
    for name, expected in OTHERS.items():
        line = next(line for line in out.splitlines() if line.startswith(f"{base / name}: "))
        assert line.split(": ")[1].startswith(expected), line
    summary = out.splitlines()[-1]
    assert "clark-agent 0.4: 2 files" in summary and "operator-use d0da87a6: 1 file" in summary
    assert "pi 0.73: 11 files" in summary and "(not judged)" not in summary.replace(
        "yoagent (not judged)", ""
    )
    assert "Traceback" not in err


# --- both corpora: every file named, verdicts in their own format --------------------------------

SAME_AS_PHI_CORE = "the same JSON is phi-core's (first in the order): valid there"
NAMES_NONE = (
    "nothing in it names a format (syntax error, empty, bare number, {}): phi-core by default"
)
PI = "pi's JSON, kept in Operator-Use's corpus as what it rejects"
OTHER_FORMAT = "the same JSON is another spoken format's, weighed first"
FOLDER = (
    "JSON other formats write alike: taken as the fitting format its folder's other files show "
    "most (issue 17)"
)
FOLDER_TIE = (
    "bare strings its folder's files all share with Operator-Use's enums: Operator-Use fits as "
    "many of them, and comes first in the order (issue 17)"
)

NOT_THEIR_OWN: dict[str, dict[str, tuple[str, str]]] = {
    "clark-agent/0.4.0": {
        "accepted/ProviderContentCounts/ProviderContentCounts.array_form.input.json": (
            "phi-core",
            NAMES_NONE,
        ),
        "accepted/ReasoningFormat/ReasoningFormat.unknown.other_fallback.canonical.json": (
            "operator-use",
            OTHER_FORMAT,
        ),
        "accepted/ReasoningFormat/ReasoningFormat.unknown.other_fallback.input.json": (
            "phi-core",
            NAMES_NONE,
        ),
        "accepted/TextContent/TextContent.array_form.input.json": ("phi-core", NAMES_NONE),
        "accepted/ToolCall/ToolCall.openai_function_shape.input.json": ("phi-core", NAMES_NONE),
        "accepted/ToolResult/ToolResult.content_only_unknown.input.json": ("phi-core", NAMES_NONE),
        "accepted/Usage/Usage.empty.input.json": ("phi-core", NAMES_NONE),
        "accepted/UserContent/UserContent.blocks.key_order.canonical.json": (
            "phi-core",
            SAME_AS_PHI_CORE,
        ),
        "accepted/UserContent/UserContent.blocks.key_order.input.json": (
            "phi-core",
            SAME_AS_PHI_CORE,
        ),
        "rejected/AgentEvent/AgentEvent.missing_type.input.json": ("phi-core", NAMES_NONE),
        "rejected/AgentEvent/AgentEvent.unknown_type.input.json": ("phi-core", NAMES_NONE),
        "rejected/AgentMessage/AgentMessage.assistant.stop_reason_missing.input.json": (
            "phi-core",
            NAMES_NONE,
        ),
        "rejected/AgentMessage/AgentMessage.empty_input.input.json": ("phi-core", NAMES_NONE),
        "rejected/AgentMessage/AgentMessage.malformed_history_row.input.json": (
            "phi-core",
            NAMES_NONE,
        ),
        "rejected/AgentMessage/AgentMessage.missing_role.input.json": ("phi-core", NAMES_NONE),
        "rejected/AgentMessage/AgentMessage.raw_control_char.input.json": ("phi-core", NAMES_NONE),
        "rejected/AgentMessage/AgentMessage.role_pascal_case.input.json": ("phi-core", NAMES_NONE),
        "rejected/AgentMessage/AgentMessage.top_level_string.input.json": (
            "operator-use",
            OTHER_FORMAT,
        ),
        "rejected/AgentMessage/AgentMessage.trailing_characters.input.json": (
            "phi-core",
            NAMES_NONE,
        ),
        "rejected/AgentMessage/AgentMessage.trailing_comma.input.json": ("phi-core", NAMES_NONE),
        "rejected/AgentMessage/AgentMessage.unknown_role.input.json": ("phi-core", NAMES_NONE),
        "rejected/AgentMessage/AgentMessage.user.content_single_block_object.input.json": (
            "phi-core",
            NAMES_NONE,
        ),
        "rejected/AgentMessage/AgentMessage.user.content_unknown_block_type.input.json": (
            "phi-core",
            NAMES_NONE,
        ),
        "rejected/AssistantBlock/AssistantBlock.tool_call_camel.input.json": (
            "phi-core",
            SAME_AS_PHI_CORE,
        ),
        "rejected/ExecutionMode/ExecutionMode.unknown.input.json": ("phi-core", NAMES_NONE),
        "rejected/ReasoningDetailsContent/ReasoningDetailsContent.missing_details.input.json": (
            "phi-core",
            NAMES_NONE,
        ),
        "rejected/ReasoningEffort/ReasoningEffort.uppercase.input.json": ("phi-core", NAMES_NONE),
        "rejected/ReasoningEffort/ReasoningEffort.x_high_snake.input.json": (
            "phi-core",
            NAMES_NONE,
        ),
        "rejected/ReasoningFormat/ReasoningFormat.not_string.input.json": ("phi-core", NAMES_NONE),
        "rejected/RunIdentity/RunIdentity.run_id_missing.input.json": ("phi-core", NAMES_NONE),
        "rejected/StopReason/StopReason.unknown.input.json": ("phi-core", SAME_AS_PHI_CORE),
        "rejected/StreamErrorKind/StreamErrorKind.unknown.input.json": ("phi-core", NAMES_NONE),
        "rejected/ToolCall/ToolCall.missing_arguments.input.json": ("phi-core", NAMES_NONE),
        "rejected/ToolResult/ToolResult.content_missing.input.json": ("phi-core", NAMES_NONE),
        "rejected/ToolSchema/ToolSchema.missing_parameters.input.json": ("phi-core", NAMES_NONE),
        "rejected/Usage/Usage.null_counter.input.json": ("operator-use", OTHER_FORMAT),
        "rejected/Usage/Usage.string_counter.input.json": ("operator-use", OTHER_FORMAT),
        "rejected/UserBlock/UserBlock.type_case.input.json": ("phi-core", NAMES_NONE),
        "rejected/UserContent/UserContent.number.input.json": ("phi-core", NAMES_NONE),
        "rejected/UserContent/UserContent.object.input.json": ("phi-core", SAME_AS_PHI_CORE),
        "valid/ReasoningEffort/ReasoningEffort.high.value.json": ("operator-use", FOLDER_TIE),
        "valid/ReasoningEffort/ReasoningEffort.low.value.json": ("operator-use", FOLDER_TIE),
        "valid/ReasoningEffort/ReasoningEffort.medium.value.json": ("operator-use", FOLDER_TIE),
        "valid/ReasoningEffort/ReasoningEffort.minimal.value.json": ("operator-use", FOLDER_TIE),
        "valid/ReasoningEffort/ReasoningEffort.xhigh.value.json": ("operator-use", OTHER_FORMAT),
        "valid/ToolResultBlock/ToolResultBlock.text.basic.json": ("phi-core", SAME_AS_PHI_CORE),
        "valid/ToolSchema/ToolSchema.shell.json": ("phi-core", SAME_AS_PHI_CORE),
    },
    "operator-use/d0da87a6": {
        "accepted/Content/Content.empty_object.input.json": ("phi-core", NAMES_NONE),
        "accepted/Content/Content.image.pi_phi_shape.input.json": ("phi-core", SAME_AS_PHI_CORE),
        "accepted/Content/Content.phi_pi_text_key.input.json": ("clark-agent", FOLDER),
        "accepted/Content/Content.tool_call.pi_arguments_key.input.json": (
            "clark-agent",
            OTHER_FORMAT,
        ),
        "accepted/MessageMeta/MessageMeta.nulls.canonical.json": ("phi-core", NAMES_NONE),
        "accepted/Usage/Usage.pi_keys.input.json": ("pi", PI),
        "rejected/AgentMessage/AgentMessage.empty_input.input.json": ("phi-core", NAMES_NONE),
        "rejected/AgentMessage/AgentMessage.invalid_json_truncated.input.json": (
            "phi-core",
            NAMES_NONE,
        ),
        "rejected/AgentMessage/AgentMessage.role_extension.input.json": (
            "phi-core",
            SAME_AS_PHI_CORE,
        ),
        "rejected/AgentMessage/AgentMessage.role_toolResult.input.json": (
            "phi-core",
            SAME_AS_PHI_CORE,
        ),
        "rejected/Content/Content.null.input.json": ("phi-core", NAMES_NONE),
        "rejected/Content/Content.unknown_tag_camel.input.json": ("phi-core", SAME_AS_PHI_CORE),
        "rejected/Role/Role.reject_human.input.json": ("phi-core", NAMES_NONE),
        "rejected/Role/Role.reject_toolResult.input.json": ("phi-core", NAMES_NONE),
        # an empty file is one document, which is not JSON, whatever its name (issue 17)
        "rejected/SessionFile/SessionFile.empty.input.jsonl": ("phi-core", NAMES_NONE),
        "rejected/SessionFile/SessionFile.pi_coding_agent_v3.input.jsonl": ("pi", PI),
        "rejected/SessionFileEntry/Entry.array_line.input.json": ("phi-core", NAMES_NONE),
        "rejected/SessionFileEntry/Entry.blank_line.input.json": ("phi-core", NAMES_NONE),
        "rejected/SessionFileEntry/Entry.message.pi_entry.input.json": ("pi", PI),
        "rejected/SessionFileEntry/Entry.session.pi_iso_timestamp.input.json": ("pi", PI),
        "rejected/StopReason/StopReason.reject_Stop.input.json": ("phi-core", NAMES_NONE),
        "rejected/StopReason/StopReason.reject_empty.input.json": ("phi-core", NAMES_NONE),
        "rejected/StopReason/StopReason.reject_toolUse.input.json": ("phi-core", SAME_AS_PHI_CORE),
        "rejected/StopReason/StopReason.reject_tool_use.input.json": ("clark-agent", OTHER_FORMAT),
        "rejected/ThinkingLevel/ThinkingLevel.reject_3.input.json": ("phi-core", NAMES_NONE),
        "rejected/ThinkingLevel/ThinkingLevel.reject_HIGH.input.json": ("phi-core", NAMES_NONE),
        "rejected/ToolKind/ToolKind.reject_Execute.input.json": ("phi-core", NAMES_NONE),
        "rejected/ToolKind/ToolKind.reject_shell.input.json": ("phi-core", NAMES_NONE),
        "rejected/Usage/Usage.array.input.json": ("phi-core", NAMES_NONE),
        "valid/MessageMeta/MessageMeta.empty.json": ("phi-core", NAMES_NONE),
    },
    "operator-use/d1cdaad8": {},
}
"""Corpus files that are not their corpus's format, and why (every other file is)."""
VALID_AS_ANOTHER_TYPE = {
    # rejected as a ToolResultBlock only: without --type it is a valid AssistantBlock
    "clark-agent/0.4.0/rejected/ToolResultBlock/ToolResultBlock.thinking.input.json",
}
"""Rejected fixtures that are valid as another type of their own format (the manifest says
which type they were read as; validation without --type recognises the type from the shape)."""
SKIPS_LINES = {"accepted/SessionFile/SessionFile.skips_invalid_lines.input.jsonl"}
"""Accepted by Operator-Use, which drops its bad lines without a word: each is a problem here."""


def corpus_files(corpus: str) -> dict[str, bool]:
    """Every fixture file of a corpus (relative path) -> whether its implementation reads it
    (what it wrote and read back, what it accepted; not what it rejected, nor what it wrote and
    cannot read back: ``written-unreadable``, ``read_back_error``, ``canonical_reread_error``)."""
    implementation, version = corpus.split("/")
    readable: dict[str, bool] = {}
    for fixture in manifest(version, implementation):
        entry = fixture.entry
        if "input_file" in entry:
            readable[entry["input_file"]] = fixture.kind != "rejected"
        if "canonical_file" in entry:
            readable[entry["canonical_file"]] = "canonical_reread_error" not in entry
        if "file" in entry:
            written = fixture.kind != "written-unreadable" and "read_back_error" not in entry
            readable[entry["file"]] = written
        for key in ("context_file", "overwritten_file"):
            if key in entry:
                readable[entry[key]] = True
    base = fixtures_root() / corpus
    on_disk = {
        str(path.relative_to(base))
        for path in base.rglob("*.json*")
        if path.name != "manifest.json"
    }
    for name in on_disk - set(readable):  # streams/, history/...: written and read by it
        readable[name] = True
    return readable


@pytest.mark.parametrize("corpus", sorted(NOT_THEIR_OWN))
def test_every_corpus_file_is_named_and_judged_in_its_own_format(corpus: str) -> None:
    """The issue's "done" item for both corpora: each file names the right format (its corpus's,
    or the one NOT_THEIR_OWN gives with its reason); a rejected fixture is invalid in its own
    format (every problem names it), anything the implementation wrote or accepted is valid."""
    own = corpus.split("/")[0]
    base = fixtures_root() / corpus
    readable = corpus_files(corpus)
    files, records = judged(*(base / name for name in sorted(readable)))
    exceptions = NOT_THEIR_OWN[corpus]
    assert set(exceptions) <= set(readable), set(exceptions) - set(readable)
    assert {
        name.removeprefix(f"{corpus}/") for name in VALID_AS_ANOTHER_TYPE if name.startswith(corpus)
    } <= set(readable)
    wrong = []
    for name, reads in sorted(readable.items()):
        summary = files[str(base / name)]
        listed = [r for r in records.get(str(base / name), []) if r.kind != NOTE]
        expected, reason = exceptions.get(name, (own, ""))
        if summary.format != expected:
            wrong.append((name, summary.label, f"expected {expected}"))
            continue
        if reason == NAMES_NONE and not summary.by_default:
            wrong.append((name, summary.label, "expected: judged by default"))
        if reason:
            continue
        if f"{corpus}/{name}" in VALID_AS_ANOTHER_TYPE:
            reads = True
        if not reads or name in SKIPS_LINES:
            if not summary.invalid or not listed or any(r.format != own for r in listed):
                wrong.append((name, summary.label, [r.text() for r in listed]))
        elif summary.invalid or summary.unjudged or listed:
            wrong.append((name, summary.label, [r.text() for r in listed]))
    assert not wrong, "\n".join(map(str, wrong))


def test_the_layout_of_an_operator_use_file_is_named() -> None:
    d1 = fixtures_root() / "operator-use" / "d1cdaad8"
    d0 = fixtures_root() / "operator-use" / "d0da87a6"
    files, _ = judged(
        d1 / "sessions" / "linear_entries.jsonl",
        d0 / "sessions" / "linear.jsonl",
        d1 / "valid" / "AgentMessage" / "AgentMessage.user.text.json",  # role last
        d1 / "valid" / "AgentMessage" / "AgentMessage.custom.basic.json",  # the same in both
    )
    versions = [summary.version for summary in files.values()]
    assert versions == ["d1cdaad8", "d0da87a6", "d1cdaad8", "d0da87a6"], versions


def test_a_session_files_skipped_lines_are_problems_at_their_lines(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Operator-Use reads a session file whole and skips its bad lines without a word: each
    is reported at its line, in Operator-Use's terms; the file is one document."""
    path = (
        fixtures_root()
        / "operator-use/d0da87a6/accepted/SessionFile/SessionFile.skips_invalid_lines.input.jsonl"
    )
    lines = path.read_text(encoding="utf-8").split("\n")
    code, out, _ = run(capsys, "validate", str(path))
    problems = [line for line in out.splitlines() if line.startswith(f"{path}:")]
    assert code == 1 and "1 document: 0 valid, 1 invalid" in out.splitlines()[-1]
    numbers = [int(line.split(":")[1]) for line in problems]
    assert numbers and all(lines[n - 1].strip() for n in numbers)  # real, non-blank lines
    assert all("operator-use SessionFileEntry" in line for line in problems), problems
    assert all("Operator-Use skips this line" in line for line in problems), problems
    for number in numbers:  # each of them is a line Operator-Use's reader rejects
        import phi_wire.operator_use as ou

        with pytest.raises(ou.WireError):
            ou.loads(ou.SessionFileEntry, lines[number - 1])


def test_a_session_whose_header_is_not_first_is_invalid_in_operator_use(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = (
        fixtures_root()
        / "operator-use/d0da87a6/rejected/SessionFile/SessionFile.header_not_first.input.jsonl"
    )
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 1
    assert out.startswith(f"{path}:1: operator-use SessionFile /type: the first entry is a")


# --- mixed files, recognition per document ------------------------------------------------------

PHI_EVENT = (
    '{"type":"TurnStart","loop_id":"l","turn_index":0,"timestamp":"2026-01-01T00:00:00Z",'
    '"triggered_by":"User"}'
)
CLARK_ROW = '{"role":"tool_result","tool_call_id":"c","tool_name":"t","content":[],"timestamp":1}'
OU_MESSAGE = '{"role":"user","contents":[],"id":"m","timestamp":1.5}'


def test_a_file_of_mixed_formats_is_judged_document_by_document(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "mixed.jsonl"
    bad_clark = CLARK_ROW.replace('"is_error"', '"x"').replace('"tool_name":"t",', "")
    path.write_text("\n".join([PHI_EVENT, PHI_EVENT, CLARK_ROW, bad_clark, OU_MESSAGE]) + "\n")
    files, records = judged(path)
    summary = files[str(path)]
    assert summary.mixed and [j.format for j in summary.judged] == [
        "phi-core",
        "clark-agent",
        "operator-use",
    ]
    assert summary.invalid == 1 and summary.valid == 4
    notes = [r for r in records[str(path)] if r.kind == NOTE]
    assert [(n.line, n.format) for n in notes] == [(3, "clark-agent"), (5, "operator-use")]
    (problem,) = [r for r in records[str(path)] if r.kind == PROBLEM]
    assert (problem.line, problem.format, problem.message) == (
        4,
        "clark-agent",
        "missing field `tool_name`",
    )
    _code, out, _ = run(capsys, "validate", str(path), str(tmp_path / "other.jsonl"))
    assert f"{path}:4: clark-agent AgentMessage tool_result /: missing field `tool_name`" in out


def test_jobs_give_the_same_report_on_mixed_formats(tmp_path: Path) -> None:
    """Byte ranges of a big JSONL file all judge it as the format of its first lines (decided
    once, before the split); a pool of workers gives the same report as one process."""
    big = tmp_path / "big.jsonl"
    rows = [CLARK_ROW] * 110_000 + [CLARK_ROW.replace('"tool_name":"t",', "")] + [PHI_EVENT]
    big.write_text("\n".join(rows) + "\n")
    assert big.stat().st_size > 8 * 1024 * 1024  # split into byte ranges with --jobs
    small = fixtures_root() / "operator-use" / "d0da87a6" / "sessions"
    reports = []
    for jobs in (1, 2):
        run_ = validate([str(big), str(small)], jobs=jobs)
        reports.append((list(run_), run_.files))
    assert reports[0] == reports[1]
    files = {summary.file: summary for summary in reports[0][1]}
    assert files[str(big)].format == "clark-agent" and files[str(big)].invalid == 1


def test_a_jsonl_with_nothing_recognisable_is_phi_core_by_default(tmp_path: Path) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_text('{"a": 1}\n{"b": 2}\n')
    files, records = judged(path)
    assert files[str(path)].by_default and files[str(path)].format == "phi-core"
    assert all(r.type == "AgentEvent" for r in records[str(path)])


# --- pi read as phi-core (--format phi-core), under --strict ------------------------------------

PI_MESSAGE = {
    "role": "assistant",
    "content": [
        {"type": "thinking", "thinking": "hm", "thinkingSignature": "sig"},
        {"type": "text", "text": "hi", "textSignature": "t"},
    ],
    "api": "anthropic-messages",
    "provider": "anthropic",
    "model": "claude",
    "usage": {
        "input": 1,
        "output": 2,
        "cacheRead": 3,
        "cacheWrite": 4,
        "totalTokens": 10,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    },
    "stopReason": "error",
    "errorMessage": "overloaded",
    "responseId": "msg_1",
    "timestamp": 1,
}
DROPPED = [
    "/content/0/thinkingSignature",
    "/content/1/textSignature",
    "/api",
    "/usage/cacheRead",
    "/usage/cacheWrite",
    "/usage/totalTokens",
    "/usage/cost",
    "/errorMessage",
    "/responseId",
]


def test_a_pi_message_phi_core_reads_is_valid_unless_strict(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Recognised, a pi-ai message is pi's, valid there; read as phi-core (``--format
    phi-core``), it stays valid phi-core (phi-core reads it), with a note naming pi and what
    phi-core drops; under --strict each key phi-core would drop is a problem at its pointer (and
    line), saying it looks like pi-ai."""
    path = tmp_path / "pi.json"
    path.write_text(json.dumps(PI_MESSAGE, indent=2), encoding="utf-8")
    code, out, err = run(capsys, "validate", str(path))
    assert code == 0 and out.splitlines()[-1].endswith("pi 0.73)") and "note:" not in err, out
    code, out, err = run(capsys, "validate", "--format", "phi-core", str(path))
    assert code == 0 and "pi (read as phi-core 0.10)" in out, out
    # not silently valid phi-core: a note names pi and what phi-core drops
    assert f"{path}:1: note: looks like a pi-ai message: phi-core 0.10 reads it (valid) but " in err
    assert "(/content/0/thinkingSignature, /content/1/textSignature, /api, /usage/cacheRead" in err
    code, out, _ = run(
        capsys, "validate", "--format", "phi-core", "--strict", "--output-format", "json", str(path)
    )
    records = [json.loads(line) for line in out.splitlines()]
    problems = [r for r in records if r.get("kind") == "problem"]
    assert code == 1 and sorted(r["pointer"] for r in problems) == sorted(DROPPED)
    text = path.read_text(encoding="utf-8").split("\n")
    for problem in problems:
        key = problem["pointer"].rsplit("/", 1)[1]
        assert f'"{key}"' in text[problem["line"] - 1], problem  # the line the key is on
        assert problem["message"].startswith("looks like a pi-ai message: phi-core 0.10 reads")


def test_a_jsonl_of_pi_messages_under_strict_names_each_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "pi.jsonl"
    path.write_text(json.dumps(PI_MESSAGE) + "\n" + json.dumps(PI_MESSAGE) + "\n")
    code, out, _ = run(capsys, "validate", "--strict", str(path))
    assert code == 1 and out.splitlines()[-1].endswith("pi 0.73)"), out  # pi's, not canonical
    code, out, _ = run(capsys, "validate", "--format", "phi-core", "--strict", str(path))
    lines = [line for line in out.splitlines() if line.startswith(str(path))]
    assert code == 1 and len([line for line in lines if ":2: " in line]) == len(DROPPED)
    assert f"{path}:1: AgentMessage /api: looks like a pi-ai message" in out


PI_MESSAGE_TYPES = ("Message", "ToolResultMessage", "AgentMessage")


def dropped_by_phi_core(have: object, kept: object, pointer: str = "") -> set[str]:
    """The pointers of the keys of ``have`` that phi-core's re-serialization ``kept`` lacks."""
    found: set[str] = set()
    if isinstance(have, dict) and isinstance(kept, dict):
        for key, value in have.items():
            inner = f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}"
            found |= {inner} if key not in kept else dropped_by_phi_core(value, kept[key], inner)
    elif isinstance(have, list) and isinstance(kept, list):
        for index, (a, b) in enumerate(zip(have, kept, strict=False)):
            found |= dropped_by_phi_core(a, b, f"{pointer}/{index}")
    return found


def test_pi_corpus_messages_phi_core_reads_are_named_and_their_losses_listed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every pi-ai message of the pi 0.73.1 corpus that phi-core reads (``loads`` through
    phi_wire.v0_10) while dropping keys, read as phi-core (``--format phi-core``), is named pi:
    valid, with a note naming pi and what is dropped; under --strict each dropped key (computed
    here from phi-core's own re-serialization) is a problem at its pointer, the issue's ``api``,
    ``usage/cost`` and ``errorMessage`` among them where present. One phi-core reads whole is
    simply valid phi-core, with no note."""
    from phi_wire import v0_10

    base = fixtures_root() / "pi" / "0.73.1"
    checked = with_losses = 0
    for fixture in manifest("0.73.1", "pi"):
        if fixture.entry["type"] not in PI_MESSAGE_TYPES:
            continue
        path = base / fixture.entry["file"]
        text = path.read_text(encoding="utf-8")
        try:
            value = v0_10.loads(v0_10.AgentMessage, text)
        except v0_10.WireError:
            continue  # phi-core cannot read it: not judged, or another format's (other tests)
        checked += 1
        document = json.loads(text)
        dropped = dropped_by_phi_core(document, json.loads(v0_10.dumps(value)))
        code, out, err = run(capsys, "validate", "--format", "phi-core", str(path))
        assert code == 0, (path.name, out, err)
        if not dropped:
            assert "note:" not in err and "phi-core 0.10" in out.splitlines()[-1], path.name
            continue
        with_losses += 1
        assert "pi (read as phi-core 0.10)" in out.splitlines()[-1], (path.name, out)
        assert f"{path}:1: note: looks like a pi-ai message" in err, (path.name, err)
        code, out, _ = run(
            capsys,
            "validate",
            *("--format", "phi-core", "--strict", "--output-format", "json", str(path)),
        )
        problems = [r for r in map(json.loads, out.splitlines()) if r.get("kind") == "problem"]
        assert code == 1 and {r["pointer"] for r in problems} == dropped, path.name
        for key in ("/api", "/usage/cost", "/errorMessage"):
            assert (key in dropped) == (
                document.get(key.split("/")[1]) is not None
                and (key != "/usage/cost" or "cost" in document["usage"])
            ), (path.name, key)
    assert checked >= 20 and with_losses >= 15, (checked, with_losses)


def test_pi_events_phi_core_cannot_read_are_judged_as_pi(tmp_path: Path) -> None:
    """A pi user message of string content: phi-core cannot read it; pi's events are judged by
    pi's reader (valid), never called valid or invalid phi-core; read as phi-core
    (``--format phi-core``) they are phi-core's problems."""
    path = tmp_path / "pi.jsonl"
    events = [
        {"type": "message_start", "message": {"role": "user", "content": "hi", "timestamp": 1}},
        {"type": "message_end", "message": PI_MESSAGE},
    ]
    path.write_text("".join(json.dumps(event) + "\n" for event in events))
    files, records = judged(path)
    assert files[str(path)].format == "pi" and files[str(path)].valid == 2, files[str(path)]
    assert files[str(path)].label == "pi 0.73" and not records[str(path)], records
    files, records = judged(path, format="phi-core")
    assert files[str(path)].format == "phi-core" and files[str(path)].invalid == 2
    assert {r.kind for r in records[str(path)]} == {PROBLEM}


# --- forcing a format -----------------------------------------------------------------------------


def test_format_forces_every_document_into_one_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(CLARK_ROW + "\n" + PHI_EVENT + "\n")
    code, out, _ = run(capsys, "validate", "--format", "clark-agent", str(path))
    assert code == 1 and f"{path}:2: clark-agent AgentMessage" in out
    assert "clark-agent 0.4)" in out.splitlines()[-1]
    code, out, _ = run(capsys, "validate", "--format", "phi-core", str(path))
    assert code == 1 and f"{path}:1: AgentMessage" in out  # phi-core's report, as before


def test_version_picks_the_layout_or_version(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    message = fixtures_root() / "operator-use/d1cdaad8/valid/AgentMessage"
    path = sorted(message.glob("*.json"))[0]
    for version, label in (
        ("d1cdaad8", "d1cdaad8"),
        ("d1cdaad8b6", "d1cdaad8"),
        (None, "d0da87a6"),
    ):
        extra = ["--version", version] if version else []
        code, out, _ = run(
            capsys, "validate", "--format", "operator-use", *extra, "--strict", str(path)
        )
        assert f"operator-use {label})" in out.splitlines()[-1], out
        # the file is d1cdaad8's: d0da87a6 writes it otherwise (role first), which --strict says
        assert code == (0 if label == "d1cdaad8" else 1), out
    code, out, err = run(
        capsys, "validate", "--format", "clark-agent", "--version", "0.3", str(path)
    )
    assert code == 2 and out == "" and err.count("\n") == 1 and "choose one of 0.4" in err


@pytest.mark.parametrize(
    ("arguments", "owner"),
    [
        (["--version", "d1cdaad8"], "operator-use"),  # auto: --version is phi-core's
        (["--format", "operator-use", "--version", "0.8"], "phi-core"),
        (["--format", "phi-core", "--version", "0.4.0"], "clark-agent"),
        (["--format", "clark-agent", "--version", "0.10"], "phi-core"),
    ],
)
def test_a_version_of_another_format_is_a_usage_error_naming_it(
    capsys: pytest.CaptureFixture[str], arguments: list[str], owner: str
) -> None:
    """--version belongs to --format: another format's version is a usage error (exit 2, one
    line, nothing on stdout) that says whose version it is; phi-core's versions work as before
    (0.8.0 as 0.8)."""
    path = fixtures_root() / "phi-core" / "0.8.0" / "sessions"
    code, out, err = run(capsys, "validate", *arguments, str(path))
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert f"is a version of {owner}, not of " in err and "Traceback" not in err
    if arguments[0] == "--version":
        assert "(--format operator-use)" in err
    code, out, _ = run(capsys, "validate", "--version", "0.8.0", str(path))
    assert code == 0 and "phi-core 0.8)" in out.splitlines()[-1], out
    code, out, err = run(capsys, "types", *arguments)
    assert code == 2 and out == "" and f"is a version of {owner}" in err


def test_type_is_one_formats_type(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "reason.json"
    path.write_text('"end_turn"')
    code, out, _ = run(
        capsys, "validate", "--format", "clark-agent", "--type", "StopReason", str(path)
    )
    assert code == 0, out
    code, out, err = run(capsys, "validate", "--type", "ReasoningEffort", str(path))
    assert code == 2 and "not a wire type of phi-core 0.10" in err  # a type alone: phi-core's
    code, _, err = run(capsys, "validate", "--format", "operator-use", "--type", "Nope", str(path))
    assert code == 2 and "phi-wire types --format operator-use" in err


def test_types_and_schema_per_format(capsys: pytest.CaptureFixture[str]) -> None:
    import phi_wire.clark_agent as clark
    import phi_wire.operator_use as ou

    for format, module in (("clark-agent", clark), ("operator-use", ou)):
        code, out, _ = run(capsys, "types", "--format", format)
        assert code == 0 and out.split() == sorted(module.WIRE_TYPES)
        assert not {"loads", "dumps", "recognise", "WireError", "FORMAT"} & set(out.split())
    code, out, _ = run(capsys, "schema", "SessionHeader", "--format", "operator-use")
    assert code == 0 and json.loads(out)["$id"].endswith(
        "/operator-use/d0da87a6/bundled/SessionHeader.json"
    )
    code, _, err = run(capsys, "schema", "SessionHeader")
    assert code == 2 and "unknown wire type" in err and "Traceback" not in err


def test_json_output_names_each_files_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(CLARK_ROW + "\n")
    code, out, _ = run(capsys, "validate", "--output-format", "json", str(path))
    *files, summary = (json.loads(line) for line in out.splitlines())
    assert code == 0 and [f["file"]["format"] for f in files] == ["clark-agent"]
    assert files[0]["file"]["formats"][0]["reader"] == "clark-agent 0.4"
    assert summary["summary"]["formats"] == {"clark-agent 0.4": 1}


def test_schema_diff_takes_output_format_like_validate(capsys: pytest.CaptureFixture[str]) -> None:
    """validate's report form is --output-format (its --format names the wire format);
    schema-diff takes the same option, and its older --format still."""
    reports = []
    for option in ("--output-format", "--format"):
        code, out, err = run(capsys, "schema-diff", "0.8", "0.10", option, "json")
        assert code in (0, 1) and err == "", err
        reports.append(json.loads(out))
    assert reports[0] == reports[1]


def test_the_help_names_the_formats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--help"]) == 0
    text = capsys.readouterr().out
    for word in ("--format", "clark-agent", "operator-use", "--output-format", "pi", "--strict"):
        assert word in text


@pytest.mark.parametrize("form", ["text", "json"])
def test_the_old_report_form_option_names_its_new_name(
    capsys: pytest.CaptureFixture[str], form: str
) -> None:
    """Before 0.2, validate's --format was the report's form; a script still passing
    ``--format json`` gets a usage error that names ``--output-format json`` (exit 2, no run)."""
    code, out, err = run(capsys, "validate", "--format", form, "examples/")
    assert code == 2 and out == "" and f"use --output-format {form}" in err, err


IMPORT_CHECK = """
import sys
from phi_wire.cli import main
code = main(sys.argv[1:])
loaded = {name for name in sys.modules if name.startswith(("phi_wire", "pydantic", "inspect"))}
print(code, " ".join(sorted(loaded)))
"""


@pytest.mark.parametrize(
    ("inputs", "expected", "absent"),
    [
        # phi-core files the fast path vouches for: no model, no pydantic, no other format, and
        # not inspect (dataclasses import it: some 15 ms of every start)
        (
            ["examples/"],
            [],
            ["pydantic", "inspect", "phi_wire.clark_agent", "phi_wire.operator_use"],
        ),
        # an invalid phi-core document needs phi-core's models only
        (["bad.jsonl"], ["pydantic", "phi_wire.v0_10"], ["phi_wire.clark_agent", "phi_wire.op"]),
        # a clark-agent history needs clark-agent's, not Operator-Use's (nor the converters)
        (["rows.jsonl"], ["phi_wire.clark_agent"], ["phi_wire.operator_use", "phi_wire.convert"]),
    ],
)
def test_validate_imports_a_formats_models_only_when_a_file_needs_them(
    tmp_path: Path, inputs: list[str], expected: list[str], absent: list[str]
) -> None:
    """Start-up: recognising each file's format needs no model; `phi-wire validate` imports a
    format's models (and pydantic) only when a document is judged by them (phi-core's documents
    the cached fast path vouches for need none)."""
    from phi_wire.formats.phi_core import recognise as phi_core
    from phi_wire.validate import _fastpath

    root = Path(__file__).resolve().parent.parent
    (tmp_path / "examples").symlink_to(root / "examples")
    (tmp_path / "bad.jsonl").write_text(PHI_EVENT.replace('"turn_index":0', '"turn_index":-1'))
    (tmp_path / "rows.jsonl").write_text(CLARK_ROW + "\n")
    # phi-core's fast paths, cached (as a run over 16 MB, or an earlier one, leaves them)
    for types in (_fastpath.AUTO_LINE_TYPES, _fastpath.AUTO_DOCUMENT_TYPES):
        assert _fastpath.fast_path("0.10", types, phi_core.detected_as, build=True) is not None
    result = subprocess.run(
        [sys.executable, "-c", IMPORT_CHECK, "validate", *inputs],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    code, _, loaded = result.stdout.strip().splitlines()[-1].partition(" ")
    modules = set(loaded.split())
    assert code == ("1" if inputs == ["bad.jsonl"] else "0"), result.stdout
    for name in expected:
        assert name in modules, (name, sorted(modules))
    for prefix in absent:
        assert not {m for m in modules if m == prefix or m.startswith(prefix)}, (prefix, modules)


def test_startup_recognises_without_pydantic(tmp_path: Path) -> None:
    """Recognising a file's format needs no model: a clark-agent file that cannot be read (not
    UTF-8) is reported without pydantic being imported."""
    path = tmp_path / "rows.jsonl"
    path.write_bytes(CLARK_ROW.encode() + b"\n" + b"\xff\n")
    code = (
        "import sys\n"
        "from phi_wire.validate import validate\n"
        f"run = validate([{str(path)!r}])\n"
        "from phi_wire.validate import _plan, _inputs\n"
        "items = list(_inputs.read_file(run.names[0], run.settings, 'AgentEvent'))\n"
        "assert items[0].recognised.format == 'clark-agent', items[0]\n"
        "assert 'pydantic' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
