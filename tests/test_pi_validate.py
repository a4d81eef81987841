"""``phi-wire validate`` on pi's JSON (runtime/validate/ over ``phi_wire.formats.pi.recognise``):
pi is spoken, so every pi document is judged by pi's own reader, named by the line that wrote it.

* Both corpora's folders: every document judged (none "not judged"), every file of pi's named
  pi 0.73 or pi 1.5 (a 1.5 file by what only 1.5 writes), none clark-agent's or phi-core's; the
  corpus's own manifest and the JSON Schemas pi ships (``pi-schemas/``) are not pi documents;
* a session file is one document, read as ``SessionManager.open()`` reads it: a problem on a line
  is reported at that line; a file without its header is refused with pi's own reason;
* ``--format pi`` (``--version``) judges as the line given.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from command import run
from corpus import fixtures_root

from phi_wire.validate import INPUT, validate

NOT_PI = ("manifest.json", "pi-schemas/")
"""Files of the corpus folders that are not pi's documents (the corpus's own index, the JSON
Schemas of pi's tools)."""


@pytest.mark.parametrize("release", ["0.73.1", "1.5.2"])
def test_every_corpus_document_is_judged_as_pi(release: str) -> None:
    base = fixtures_root() / "pi" / release
    run_ = validate([str(base)])
    records = list(run_)
    assert not [r for r in records if r.kind == INPUT], [r for r in records if r.kind == INPUT][:3]
    assert run_.files and all(summary.unjudged == 0 for summary in run_.files)
    lines: dict[str, int] = {}
    for summary in run_.files:
        name = str(Path(summary.file).relative_to(base))
        if name == NOT_PI[0] or name.startswith(NOT_PI[1]):
            assert summary.format != "pi", name
            continue
        assert {(j.format, j.version) for j in summary.judged} <= {("pi", "0.73"), ("pi", "1.5")}
        assert summary.format == "pi", (name, summary.label)
        lines[summary.judged[0].version] = lines.get(summary.judged[0].version, 0) + 1
    # the 1.5 corpus is mostly 1.5's own JSON (system messages, durationMs...); 0.73's never is
    if release == "1.5.2":
        assert lines["1.5"] > lines.get("0.73", 0) > 0, lines
    else:
        assert set(lines) == {"0.73"}, lines


def test_a_session_files_problems_are_at_their_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A 1.5 session read as 0.73: each assistant message's ``thinkingLevel`` (1.5's) is a
    problem at its own line, not the first bad line's."""
    session = fixtures_root() / "pi" / "1.5.2" / "sessions" / "linear.jsonl"
    text = session.read_text("utf-8").split("\n")
    stamped = [
        n for n, line in enumerate(text, 1) if '"thinkingLevel":"' in line and "assist" in line
    ]
    assert len(stamped) >= 2
    code, out, _ = run(capsys, "validate", "--format", "pi", "--version", "0.73", str(session))
    problems = [line for line in out.splitlines() if "/message/thinkingLevel" in line]
    assert code == 1 and len(problems) == len(stamped), out
    for number, problem in zip(stamped, problems, strict=True):
        assert problem.startswith(f"{session}:{number}: pi SessionFile"), problem
        assert f"line {number}" not in problem  # said once, as the record's line
    code, out, _ = run(capsys, "validate", "--format", "pi", str(session))
    assert code == 0 and out.splitlines()[-1].endswith("pi 1.5)"), out


def test_a_session_file_without_its_header_is_refused_as_pi_refuses_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "headless.jsonl"
    entry = (
        '{"type":"model_change","id":"a1b2c3d4","parentId":null,'
        '"timestamp":"2026-01-01T00:00:00.000Z","provider":"faux","modelId":"m"}\n'
    )
    path.write_text(entry, "utf-8")
    code, out, _ = run(capsys, "validate", "--format", "pi", str(path))
    assert code == 1, out
    assert "Session file is not a valid pi session" in out, out


def test_the_cli_json_output_is_judged_line_by_line(capsys: pytest.CaptureFixture[str]) -> None:
    """``pi --mode json`` stdout (a header, then delta-only events): pi 1.5's, every line valid,
    not a session file."""
    path = fixtures_root() / "pi" / "1.5.2" / "streams" / "pi-cli.json.tool_run.jsonl"
    run_ = validate([str(path)])
    records = list(run_)
    (summary,) = run_.files
    assert not records and summary.valid == summary.documents > 10, (records[:3], summary)
    assert summary.label == "pi 1.5"


def test_strict_names_what_pi_would_rewrite(capsys: pytest.CaptureFixture[str]) -> None:
    """--strict: pi's valid fixtures are byte for byte what pi writes (no problem); a v1/v2 file
    is accepted but migrated and rewritten by pi, said once at its first line; a file with a line
    pi skips names that line."""
    base = fixtures_root() / "pi" / "1.5.2"
    code, out, _ = run(capsys, "validate", "--strict", str(base / "valid"), str(base / "sessions"))
    assert code == 0, out[-2000:]
    accepted = base / "accepted" / "Session"
    code, out, _ = run(
        capsys, "validate", "--strict", str(accepted / "v2_hook_message.input.jsonl")
    )
    assert code == 1
    assert (
        f"{accepted / 'v2_hook_message.input.jsonl'}:1: pi SessionFile /: accepted, but pi " in out
    )
    assert "migrates this session file from version 2 when it opens it" in out
    canonical = accepted / "v2_hook_message.canonical.jsonl"
    code, out, _ = run(capsys, "validate", "--strict", str(canonical))
    assert code == 0, out


def test_a_document_0_73_rejects_is_judged_by_1_5_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Nothing in a branchSummary message with ``fromId`` null is only 1.5's, so it is taken for
    0.73's, which types ``fromId`` as a string: 1.5 reads it (string | null), and so it is 1.5's,
    valid; a file of such lines and 0.73's names both lines. Given ``--version 0.73``, it is
    invalid there."""
    message = '{"role":"branchSummary","summary":"s","fromId":null,"timestamp":1}'
    single = tmp_path / "one.json"
    single.write_text(message, "utf-8")
    lines = tmp_path / "both.jsonl"
    lines.write_text(message + "\n" + message.replace("null", '"root"') + "\n", "utf-8")
    code, out, _ = run(capsys, "validate", str(single), str(lines))
    assert code == 0, out
    assert f"{single}: pi 1.5: 1 document, 1 valid" in out
    assert f"{lines}: pi 1.5 + pi 0.73: 2 documents, 2 valid" in out
    code, out, _ = run(capsys, "validate", "--format", "pi", "--version", "0.73", str(single))
    assert code == 1 and "/fromId: expected a valid string, found null" in out, out


def test_types_lists_each_lines_wire_types(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "types", "--format", "pi")
    newest = set(out.split())
    code_old, out_old, _ = run(capsys, "types", "--format", "pi", "--version", "0.73")
    old = set(out_old.split())
    assert code == code_old == 0
    assert {"Session", "SessionContext", "JsonModeOutput", "RpcOutput", "SystemMessage"} <= newest
    assert {"Session", "SessionContext", "JsonModeOutput", "LegacySession"} <= old
    assert not {"RpcOutput", "SystemMessage"} & old and old < newest
