"""phi-wire convert (runtime/cli/ over runtime/convert/_files.py and phi_wire.convert): files of
one format written as another's, round trips through the command line, atomic writes, the losses
on standard error, --fail-on-loss, one-line errors (the docs' examples: test_docs_examples.py)."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from command import run
from corpus import ROOT, fixtures_root

import phi_wire.convert._inputs as convert_inputs
import phi_wire.convert._write as convert_write
from phi_wire.convert import write_atomically

CLARK = fixtures_root() / "clark-agent" / "0.4.0"
OPERATOR_USE = fixtures_root() / "operator-use" / "d0da87a6"
HISTORY = CLARK / "history" / "history.multi_turn.jsonl"
SESSION = OPERATOR_USE / "sessions" / "compaction.jsonl"


def loss_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("phi-wire:   ")]


# --- round trips -------------------------------------------------------------------------------


def test_a_clark_history_round_trips_through_phi_core(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """clark-agent -> phi-core -> clark-agent: every row no forward loss names comes back byte
    for byte; the phi-core file is valid phi-core, the way back loses nothing."""
    middle, back = tmp_path / "history.phi-core.jsonl", tmp_path / "back.jsonl"
    code, _, err = run(capsys, "convert", "--to", "phi-core", str(HISTORY), "-o", str(middle), "-v")
    assert code == 0 and "clark-agent -> phi-core, 11 documents" in err
    named = {
        int(line.split(":")[-1].split()[0]) for line in err.splitlines() if f"{HISTORY}:" in line
    }
    assert named, err  # -v lists each loss's file:line
    code, _, err = run(
        capsys, "convert", "--from", "phi-core", "--to", "clark-agent", str(middle), "-o", str(back)
    )
    assert code == 0 and "nothing lost" in err
    original = HISTORY.read_text(encoding="utf-8").splitlines()
    returned = back.read_text(encoding="utf-8").splitlines()
    assert len(returned) == len(original)
    for number, (a, b) in enumerate(zip(original, returned, strict=True), 1):
        if number not in named:
            assert a == b, number
    code, out, _ = run(capsys, "validate", str(middle), str(back))
    assert code == 0 and "phi-core 0.10: 1 file, clark-agent 0.4: 1 file" in out


def test_an_operator_use_session_round_trips_through_phi_core(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A session file's active branch as phi-core messages, then as an Operator-Use session file
    (a fresh header and entries), whose active branch converts to the same phi-core messages."""
    first, session, second = (tmp_path / name for name in ("a.jsonl", "s.jsonl", "b.jsonl"))
    assert run(capsys, "convert", "--to", "phi-core", str(SESSION), "-o", str(first))[0] == 0
    code, _, err = run(capsys, "convert", "--to", "operator-use", str(first), "-o", str(session))
    assert code == 0 and "invented: the session header" in err
    assert run(capsys, "convert", "--to", "phi-core", str(session), "-o", str(second))[0] == 0
    assert second.read_bytes() == first.read_bytes()
    code, out, _ = run(capsys, "validate", str(session))
    assert code == 0 and "operator-use d0da87a6" in out


def test_one_document_becomes_one_document(capsys: pytest.CaptureFixture[str]) -> None:
    path = CLARK / "valid" / "AgentMessage" / "AgentMessage.system.empty_content.json"
    code, out, err = run(capsys, "convert", "--to", "phi-core", str(path))
    document = json.loads(out)
    assert code == 0 and document["role"] == "extension" and out.count("\n") == 1
    assert "1 document, written to standard output: nothing lost" in err


# --- losses and exit status ----------------------------------------------------------------------


def test_losses_are_counted_by_kind_and_reason(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "convert", "--to", "phi-core", str(SESSION), "-o", os.devnull)
    assert code == 0 and "a session file of 22 entries" in err and ": 84 losses" in err
    counted = loss_lines(err)
    assert "phi-wire:   19 dropped: phi-core usage has no cost" in counted
    assert sum(int(line.split()[1]) for line in counted) == 84
    code, _, err = run(capsys, "convert", "--to", "phi-core", str(SESSION), "-o", os.devnull, "-v")
    places = [line for line in err.splitlines() if line.startswith("phi-wire:     ")]
    assert len(places) == 84
    # each names a line of the session file and a pointer into that line's document
    lines = SESSION.read_text(encoding="utf-8").split("\n")
    for place in places:
        where, pointer = place.split()[1:3]
        number = int(where.rsplit(":", 1)[1])
        document = json.loads(lines[number - 1])
        for token in [token for token in pointer.split("/") if token][:-1]:
            document = document[int(token) if isinstance(document, list) else token]


def test_fail_on_loss_exits_1_and_still_writes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "out.jsonl"
    code, _, _ = run(
        capsys, "convert", "--to", "phi-core", str(HISTORY), "-o", str(out), "--fail-on-loss"
    )
    assert code == 1 and out.exists()
    lossless = CLARK / "valid" / "AgentMessage" / "AgentMessage.user.text.json"
    code, _, err = run(capsys, "convert", "--to", "phi-core", str(lossless), "--fail-on-loss")
    assert code == 0 and "nothing lost" in err


@pytest.mark.parametrize(
    ("content", "arguments", "expected"),
    [
        (
            '{"role":"user","content":"hi"}\n{"role":"user"\n',
            ["--from", "clark-agent"],
            r"in\.jsonl:2: invalid JSON",
        ),
        (
            '{"role":"tool_result","tool_call_id":"c","content":[]}\n',
            [],
            r"in\.jsonl:1: AgentMessage tool_result /: missing field `tool_name`",
        ),
        ('{"type":"agentStart"}\n', [], r"in\.jsonl: looks like yoagent's JSON"),
        ('{"foo": 1}\n', [], r"in\.jsonl: nothing in it names a format: give one with --from"),
        ("", [], r"in\.jsonl: empty: nothing to convert"),
        (  # not UTF-8 where clark-agent reads the string in full: loads's verdict and words
            '{"role":"user","content":"caf\xe9"}\n',
            [],
            r"in\.jsonl:1: AgentMessage /: invalid JSON: invalid unicode code point",
        ),
        (  # a pretty document: the line of the value the pointer names
            '{\n  "role": "user",\n  "content": [{"type": "text", "text": 5}],\n'
            '  "timestamp": 1\n}\n',
            ["--from", "clark-agent"],
            r"in\.jsonl:3: AgentMessage user text /content/0/text: expected a valid string",
        ),
        (  # Operator-Use records no events (a traceback once); clark-agent does (issue 19)
            (ROOT / "examples" / "events.jsonl").read_text(encoding="utf-8"),
            ["--to", "operator-use"],
            r"in\.jsonl: Operator-Use has no event stream \(its session files hold messages\): "
            r"phi-core's AgentStart \(item 0\) has no counterpart there",
        ),
    ],
)
def test_each_error_is_one_line_with_file_and_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    content: str,
    arguments: list[str],
    expected: str,
) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(content.encode("latin-1" if "\xe9" in content else "utf-8"))
    target = [] if "--to" in arguments else ["--to", "phi-core"]
    code, out, err = run(capsys, "convert", *target, *arguments, str(path))
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert re.search(expected, err), err
    assert "Traceback" not in err


def test_an_unreadable_input_is_one_line_and_the_others_go_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "missing.jsonl"
    code, _, err = run(
        capsys,
        "convert",
        "--to",
        "phi-core",
        str(missing),
        str(HISTORY),
        "-o",
        str(tmp_path / "out"),
    )
    assert code == 2 and f"{missing}: cannot read (No such file or directory)" in err
    assert (tmp_path / "out" / "history.multi_turn.phi-core.jsonl").exists()


def test_several_inputs_go_into_a_folder_named_after_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "convert", "--to", "phi-core", str(HISTORY), str(SESSION))
    assert code == 2 and "several inputs need -o FOLDER" in err
    folder = tmp_path / "converted"
    code, _, _ = run(
        capsys, "convert", "--to", "phi-core", str(HISTORY), str(SESSION), "-o", str(folder)
    )
    assert code == 0
    assert sorted(path.name for path in folder.iterdir()) == [
        "compaction.phi-core.jsonl",
        "history.multi_turn.phi-core.jsonl",
    ]


def test_stdin_in_stdout_out(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "phi_wire", "convert", "--to", "phi-core", "-"],
        input=HISTORY.read_bytes(),
        capture_output=True,
        check=False,
    )
    assert result.returncode == 0
    assert len(result.stdout.splitlines()) == 11 and b"-: clark-agent -> phi-core" in result.stderr


def test_the_output_never_overwrites_the_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "h.jsonl"
    shutil.copy(HISTORY, path)
    code, _, err = run(capsys, "convert", "--to", "clark-agent", str(path), "-o", str(path))
    assert code == 2 and "would overwrite the input" in err
    assert path.read_bytes() == HISTORY.read_bytes()


def test_bytes_that_are_not_utf8_are_the_formats_loads_to_judge(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """An unknown key's value serde skips may hold bytes that are not UTF-8: clark-agent reads
    the document (its Usage struct is read directly), so it converts. (Before: refused whole.)
    The key the reader drops is a loss (issue 19: before, "nothing lost")."""
    path = tmp_path / "usage.json"
    path.write_bytes(b'{"input_tokens":1,"output_tokens":2,"note":"caf\xe9"}')
    code, out, err = run(
        capsys, "convert", "--from", "clark-agent", "--to", "phi-core", "-v", str(path)
    )
    assert code == 0 and json.loads(out)["input"] == 1, err
    assert "1 dropped: clark-agent's reader does not know this key" in err and " /note" in err, err


def test_a_gzip_input_is_read_and_its_size_bounded(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gzip is recognised by its magic bytes; what it inflates to is read up to the limit, never
    whole (a small file can inflate to gigabytes)."""
    packed = tmp_path / "history.jsonl.gz"
    packed.write_bytes(gzip.compress(HISTORY.read_bytes()))
    code, out, _ = run(capsys, "convert", "--to", "phi-core", str(packed))
    assert code == 0 and len(out.splitlines()) == len(HISTORY.read_bytes().splitlines())
    bomb = tmp_path / "bomb.jsonl.gz"
    bomb.write_bytes(gzip.compress(b" " * 64 * 2**20))  # 64 MB of blanks in 64 kB
    monkeypatch.setattr(convert_inputs, "MAX_INPUT_BYTES", 2**20)
    tracemalloc.start()
    try:
        code, out, err = run(capsys, "convert", "--to", "phi-core", str(bomb))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 2 and out == "" and f"{bomb}: over 1 MB uncompressed" in err
    assert peak < 16 * 2**20, peak  # not the 64 MB it inflates to


# --- each direction, each file kind ---------------------------------------------------------------

PHI_CORE = fixtures_root() / "phi-core" / "0.10.0"
OPERATOR_USE_D1 = fixtures_root() / "operator-use" / "d1cdaad8"


def phi_core_message_lines(folder: Path) -> Path:
    """A JSONL file of every phi-core 0.10 AgentMessage fixture, one per line (phi-core's corpus
    has no such file; a message log is one)."""
    lines = [
        json.dumps(json.loads(path.read_bytes()), separators=(",", ":"))
        for path in sorted((PHI_CORE / "valid" / "AgentMessage").glob("*.json"))
    ]
    path = folder / "messages.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


KINDS: dict[str, tuple[str, list[str], Any]] = {
    # name: (source format, targets, the input files: a glob pattern or a function of tmp_path)
    "clark-agent JSON messages": ("clark-agent", ["phi-core"], CLARK / "valid/AgentMessage/*.json"),
    "clark-agent JSONL histories": ("clark-agent", ["phi-core"], CLARK / "history/*.jsonl"),
    "clark-agent JSONL event streams": ("clark-agent", ["phi-core"], CLARK / "streams/*.jsonl"),
    "operator-use JSON messages": (
        "operator-use",
        ["phi-core"],
        OPERATOR_USE / "valid/AgentMessage/*.json",
    ),
    "operator-use d1cdaad8 JSON messages": (
        "operator-use",
        ["phi-core"],
        OPERATOR_USE_D1 / "valid/AgentMessage/*.json",
    ),
    "operator-use JSON contexts": ("operator-use", ["phi-core"], OPERATOR_USE / "context/*.json"),
    "operator-use session files": ("operator-use", ["phi-core"], OPERATOR_USE / "sessions/*.jsonl"),
    "operator-use d1cdaad8 session files": (
        "operator-use",
        ["phi-core"],
        OPERATOR_USE_D1 / "sessions/*.jsonl",
    ),
    "phi-core JSON messages": (
        "phi-core",
        ["clark-agent", "operator-use"],
        PHI_CORE / "valid/AgentMessage/*.json",
    ),
    "phi-core JSONL message log": (
        "phi-core",
        ["clark-agent", "operator-use"],
        phi_core_message_lines,
    ),
}


@pytest.mark.parametrize("kind", KINDS)
def test_each_direction_and_file_kind_converts_to_valid_target_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, kind: str
) -> None:
    """Every corpus file of the kind (--from: some are JSON another format writes the same way),
    converted to each target: exit 0,
    the summary names both formats and the documents read, the output is valid in the target
    format (``validate --format``); a JSONL or session input gives JSONL, one line per document
    (an Operator-Use session file when phi-core messages go to Operator-Use)."""
    source, targets, inputs = KINDS[kind]
    if callable(inputs):
        paths = [inputs(tmp_path)]
    else:
        paths = sorted(Path(inputs.parent).glob(inputs.name))
    assert paths, kind
    for path in paths:
        for target in targets:
            out = tmp_path / f"out.{target}.jsonl"
            code, _, err = run(
                capsys, "convert", "--from", source, "--to", target, str(path), "-o", str(out)
            )
            assert code == 0, (path.name, err)
            assert f"{path}: {source} -> {target}, " in err, err
            code, report, _ = run(capsys, "validate", "--format", target, str(out))
            assert code == 0, (path.name, target, report)
            written = out.read_bytes()
            if path.suffix == ".jsonl" and "session" not in kind:
                documents = len(path.read_bytes().splitlines())
                assert f", {documents} documents, " in err, err
                if target == "operator-use":  # a message log becomes a session file
                    assert json.loads(written.splitlines()[0])["type"] == "session"
                else:
                    assert len(written.splitlines()) >= 1
            elif "session" in kind:
                assert "a session file of " in err, err


# --- atomic writes --------------------------------------------------------------------------------


def test_a_failed_write_leaves_no_partial_file(tmp_path: Path) -> None:
    """The text goes to a temporary file beside the target, renamed over it once complete: a
    failure half-way leaves the target as it was (absent, or its old content) and no temporary
    file behind."""
    target = tmp_path / "out.jsonl"

    def chunks() -> object:
        yield "first half\n"
        raise RuntimeError("the disk went away")

    with pytest.raises(RuntimeError):
        write_atomically(target, chunks())  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []
    target.write_text("old\n")
    with pytest.raises(RuntimeError):
        write_atomically(target, chunks())  # type: ignore[arg-type]
    assert target.read_text() == "old\n" and list(tmp_path.iterdir()) == [target]
    write_atomically(target, ["new\n"])
    assert target.read_text() == "new\n" and list(tmp_path.iterdir()) == [target]


def test_a_disk_failure_mid_write_is_one_line_and_no_partial_output(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("the previous conversion\n")

    def full_disk(descriptor: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(convert_write.os, "fsync", full_disk)
    code, _, err = run(capsys, "convert", "--to", "phi-core", str(HISTORY), "-o", str(target))
    assert code == 2 and err.count("\n") == 1
    assert f"{target}: cannot write (No space left on device): not written" in err
    assert target.read_text() == "the previous conversion\n"
    assert list(tmp_path.iterdir()) == [target]
