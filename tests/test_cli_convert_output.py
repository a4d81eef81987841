"""phi-wire convert's output never loses a file (issue 19, section 2, defects 6-11): every write
checked, one line for a loop of links, clashing outputs refused before anything is written, a
folder named as one, ``.gz`` written gzipped, modes kept and links written through, one naming of
file names and one wording of bad input for convert and validate alike.

The small full disk is stood in for by ``RLIMIT_FSIZE`` set in the child (its writes past the
limit are short, then fail, as a full disk's are) and by a stream that takes no bytes at all.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import resource
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from command import run
from corpus import fixtures_root

from phi_wire.cli._shared import Output, OutputFailed
from phi_wire.convert import write_atomically
from phi_wire.output import write_all

HISTORY = fixtures_root() / "clark-agent" / "0.4.0" / "history" / "history.multi_turn.jsonl"
PHI_WIRE = [sys.executable, "-m", "phi_wire"]
LIMIT = 64 * 1024


def file_size_limited(limit: int) -> Callable[[], None]:
    """A ``preexec_fn``: the child may write files of ``limit`` bytes at most (a full disk)."""
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def big_history(folder: Path) -> Path:
    """A clark-agent history whose phi-core output (about 650 KiB) is ten times the limit."""
    path = folder / "big.jsonl"
    path.write_text(HISTORY.read_text(encoding="utf-8") * 200, encoding="utf-8")
    return path


def convert_to_phi_core(*arguments: str) -> list[str]:
    return [*PHI_WIRE, "convert", "--to", "phi-core", "--quiet", *arguments]


# --- 6. every write checked -----------------------------------------------------------------------


def test_standard_output_on_a_full_disk_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """``phi-wire convert big.jsonl > /small-full-disk/out.jsonl`` (65,536 of 2,040,000 bytes
    written) exited 0: the write's short count went unchecked."""
    source, out = big_history(tmp_path), tmp_path / "out.jsonl"
    with out.open("wb") as stdout:
        result = subprocess.run(
            convert_to_phi_core(str(source)),
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=file_size_limited(LIMIT),
        )
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "cannot write the output (File too large)" in result.stderr
    assert out.stat().st_size == LIMIT  # what the disk took: the run says it is not all


def test_a_file_on_a_full_disk_is_one_line_exit_2_and_not_left_half_written(
    tmp_path: Path,
) -> None:
    source, out = big_history(tmp_path), tmp_path / "out" / "big.jsonl"
    out.parent.mkdir()
    result = subprocess.run(
        convert_to_phi_core(str(source), "-o", str(out)),
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=file_size_limited(LIMIT),
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"{out}: cannot write (File too large): not written" in result.stderr
    assert list(out.parent.iterdir()) == []  # no partial file, no temporary file


class TakesNothing(io.RawIOBase):
    """A byte stream that takes no byte (a full device reporting 0; a non-blocking one
    reporting None), and counts how often it was asked."""

    def __init__(self, taken: int | None) -> None:
        self.taken = taken
        self.calls = 0

    def writable(self) -> bool:
        return True

    def write(self, data: object) -> int | None:
        self.calls += 1
        if self.calls > 1000:
            raise AssertionError("written again and again, never failed")
        return self.taken


@pytest.mark.parametrize("taken", [0, None])
def test_a_write_that_takes_nothing_fails_instead_of_spinning(taken: int | None) -> None:
    """The output layer wrote the rest again while a write took nothing: forever, for a
    standard output that returns 0 or None (non-blocking). Now: one failure, exit 2's reason."""
    raw = TakesNothing(taken)
    stdout = io.TextIOWrapper(raw, encoding="utf-8")  # type: ignore[arg-type]
    output = Output(stdout, io.StringIO())
    with pytest.raises(OutputFailed) as failed:
        output.text("converted data\n" * 1000)
        output.flush()
    assert raw.calls < 10
    said = "it took no more bytes: no space left?" if taken == 0 else "it can take no more now"
    assert str(failed.value).startswith(f"cannot write the output ({said}")


def test_write_all_completes_short_writes() -> None:
    taken = bytearray()

    def seven_at_most(view: memoryview) -> int:
        taken.extend(view[:7])
        return min(7, len(view))

    write_all(seven_at_most, b"x" * 100)
    assert bytes(taken) == b"x" * 100


# --- 7. a loop of links -------------------------------------------------------------------------


def test_an_output_that_is_a_loop_of_links_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``-o loop.jsonl`` (a link to itself): ``RuntimeError: Symlink loop`` traceback, exit 1."""
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop.name)
    code, out, err = run(capsys, "convert", "--to", "phi-core", str(HISTORY), "-o", str(loop))
    assert (code, out, err.count("\n")) == (2, "", 1), err
    assert f"{loop}: cannot write there (a loop of symbolic links)" in err
    assert loop.is_symlink() and sorted(tmp_path.iterdir()) == [loop]


# --- 8. clashing outputs --------------------------------------------------------------------------


def test_two_inputs_with_one_output_name_are_refused_before_anything_is_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``convert a/h.jsonl b/h.jsonl -o coll/`` wrote both to ``coll/h.phi-core.jsonl``, exit 0:
    the first was lost."""
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "h.jsonl").write_bytes(HISTORY.read_bytes())
    first, second = str(tmp_path / "a" / "h.jsonl"), str(tmp_path / "b" / "h.jsonl")
    code, _, err = run(capsys, "convert", "--to", "phi-core", first, second, "-o", f"{tmp_path}/c/")
    assert code == 2 and err.count("\n") == 1, err
    assert f"{first} and {second} would both be written as {tmp_path}/c/h.phi-core" in err
    assert not (tmp_path / "c").exists()


def test_inputs_found_under_a_folder_named_keep_their_paths_apart(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for folder in ("a", "b"):
        (tmp_path / "in" / folder).mkdir(parents=True)
        (tmp_path / "in" / folder / "h.jsonl").write_bytes(HISTORY.read_bytes())
    out = tmp_path / "out"
    code, _, err = run(capsys, "convert", "--to", "phi-core", str(tmp_path / "in"), "-o", str(out))
    assert code == 0, err
    assert sorted(str(path.relative_to(out)) for path in out.rglob("*.jsonl")) == [
        "a/h.phi-core.jsonl",
        "b/h.phi-core.jsonl",
    ]


# --- 9. a folder named as one, several inputs need one, .gz gzipped ---------------------------


def test_a_trailing_slash_names_a_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``-o gzout/`` (absent) wrote a file named ``gzout``."""
    code, _, err = run(capsys, "convert", "--to", "phi-core", str(HISTORY), "-o", f"{tmp_path}/o/")
    assert code == 0 and (tmp_path / "o" / "history.multi_turn.phi-core.jsonl").is_file(), err


def test_several_inputs_and_a_file_name_are_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``-o out.jsonl`` with two inputs made a folder named ``out.jsonl``."""
    out = tmp_path / "out.jsonl"
    code, _, err = run(
        capsys, "convert", "--to", "phi-core", str(HISTORY), str(HISTORY), "-o", str(out)
    )
    assert code == 2 and err.count("\n") == 1, err
    assert f"{out}: several inputs need a folder, and this names a file" in err
    assert not out.exists()


def test_a_gz_output_is_written_gzipped(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``-o x.jsonl.gz`` wrote plain text under a ``.gz`` name."""
    code, plain, _ = run(capsys, "convert", "--to", "phi-core", str(HISTORY))
    assert code == 0
    packed = tmp_path / "x.jsonl.gz"
    code, _, err = run(capsys, "convert", "--to", "phi-core", str(HISTORY), "-o", str(packed))
    assert code == 0, err
    assert gzip.decompress(packed.read_bytes()).decode("utf-8") == plain
    code, out, _ = run(capsys, "validate", str(packed))  # and phi-wire reads it back as such
    assert code == 0 and "11 valid, 0 invalid" in out and "phi-core 0.10" in out


# --- 10. modes and links --------------------------------------------------------------------------


@pytest.fixture
def umask_027() -> object:
    old = os.umask(0o027)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.usefixtures("umask_027")
def test_a_new_file_follows_the_umask_and_an_overwritten_one_keeps_its_mode(
    tmp_path: Path,
) -> None:
    """Output files were 0600 whatever the umask, and an overwritten file lost its mode."""
    new = tmp_path / "new.jsonl"
    write_atomically(new, ["{}\n"])
    assert mode(new) == 0o640  # 0666 less the umask's 027
    new.chmod(0o604)
    write_atomically(new, ["[]\n"])
    assert mode(new) == 0o604 and new.read_text() == "[]\n"


def test_a_link_is_written_through_and_stays_a_link(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``-o link`` replaced the symbolic link with a regular file (the file it named untouched)."""
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "out.jsonl"
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    code, _, err = run(capsys, "convert", "--to", "phi-core", str(HISTORY), "-o", str(link))
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text().startswith('{"content":') and mode(target) == 0o640
    assert sorted(path.name for path in tmp_path.iterdir()) == ["link.jsonl", "real"]
    assert [path.name for path in target.parent.iterdir()] == ["out.jsonl"]  # no temporary left


# --- 11. one naming, one wording ------------------------------------------------------------------


def test_a_name_that_is_not_utf8_is_written_one_way(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``caf\\xe9`` in, ``caf\\udce9`` out, in one line."""
    name = os.fsdecode(bytes(tmp_path) + b"/caf\xe9.jsonl")
    Path(name).write_bytes(HISTORY.read_bytes())
    folder = os.fsdecode(bytes(tmp_path) + b"/o\xe9/")
    code, _, err = run(capsys, "convert", "--to", "phi-core", name, "-o", folder)
    assert code == 0
    first = err.splitlines()[0]
    assert "\\udc" not in err and first.count("\\xe9") == 3, first
    assert first.startswith(f"phi-wire: {tmp_path}/caf\\xe9.jsonl: clark-agent -> phi-core")
    assert f"written to {tmp_path}/o\\xe9/caf\\xe9.phi-core.jsonl" in first


@pytest.mark.parametrize(
    ("content", "arguments"),
    [
        (b"junk\n", []),
        (b'{"role":"user","content":[],"timestamp":1}\n{"role": nope}\n', []),
        (
            b'\xef\xbb\xbf{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}\n',
            ["--from", "phi-core"],
        ),
    ],
    ids=["junk", "junk-on-line-2", "byte-order-mark"],
)
def test_bad_json_is_worded_as_validate_words_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes, arguments: list[str]
) -> None:
    """convert said ``invalid JSON: Expecting value`` (Python's words, no column) where
    validate says ``invalid JSON: expected value at line 1 column 1``; a byte order mark was
    ``invalid JSON`` where validate names it."""
    path = tmp_path / "in.jsonl"
    path.write_bytes(content)
    code, _, err = run(capsys, "convert", *arguments, "--to", "clark-agent", str(path))
    assert code == 2 and err.count("\n") == 1, err
    where, _, said = err.removeprefix("phi-wire: ").rstrip("\n").partition(": ")
    format = ["--format", arguments[1]] if arguments else []
    code, out, _ = run(capsys, "validate", *format, str(path))
    wrong = [line for line in out.splitlines() if line.startswith(f"{where}: ")]
    assert code == 1 and len(wrong) == 1, out
    assert wrong[0].endswith(f": {said}"), (wrong[0], said)
    assert "at line 1 column" in said or "byte order mark" in said


def test_one_output_layer_for_both_commands() -> None:
    """validate's names and convert's are printed by one function (``display_name``)."""
    from phi_wire.output import printable
    from phi_wire.validate import display_name

    name = os.fsdecode(b"caf\xe9")
    assert display_name(name) == printable(name) == "caf\\xe9"
    json.dumps(printable(name)).encode("utf-8")  # never a lone surrogate in a JSON record
