"""The sources' digest in every cached and shipped entry's key (runtime/fastpath/_sources.py): in an
installed wheel it comes from the installer's ``RECORD`` without reading a source, while that
record still describes the files; otherwise, and whenever a source changed after the
installation, the sources are read, so an entry made from other sources is never used
(issue 21, goal 2: a fresh installation's first ``loads``).

The package is laid out here as a wheel installs it (real files, the version packages inside it),
with a ``RECORD`` written last as an installer writes it; each check runs in a child interpreter
whose only ``phi_wire`` is that one, and counts the source files it opens (an audit hook).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from corpus import ROOT

import phi_wire
from phi_wire.fastpath import _cache

sys.path.insert(0, str(ROOT / "tools"))
try:
    from stage_package import stage
finally:
    sys.path.pop(0)

CHILD = r"""
import json, sys
import phi_wire.v0_8
from phi_wire.fastpath import _cache
site = sys.argv[1]
opened = []
def count(event, arguments):
    if event == "open" and str(arguments[0]).startswith(site) and str(arguments[0]).endswith(".py"):
        opened.append(str(arguments[0]))
sys.addaudithook(count)
digest = _cache.sources_digest("0.8")
sys.stdout.write(json.dumps({"digest": digest.hex(), "opened": len(opened)}))
"""


def installed(site: Path, before_record: Callable[[Path], None] | None = None) -> Path:
    """The package laid out under ``site`` as a wheel installs it, ``RECORD`` written last, with
    no bytecode (``pip --no-compile``: the first import writes its ``__pycache__`` folders after
    the record; with bytecode, none is written after); ``before_record`` adds files first."""
    shutil.copytree(
        stage(site.parent / "staged"),
        site,
        symlinks=False,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    if before_record is not None:
        before_record(site)
    lines = []
    for path in sorted(site.rglob("*")):
        if path.is_file():
            content = path.read_bytes()
            encoded = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=")
            lines.append(
                f"{path.relative_to(site).as_posix()},sha256={encoded.decode()},{len(content)}"
            )
    record = site / f"phi_wire-{phi_wire.__version__}.dist-info" / "RECORD"
    record.parent.mkdir()
    lines.append(f"{record.relative_to(site).as_posix()},,")
    record.write_text("\n".join(lines) + "\n")
    return record


def digest_in(site: Path) -> tuple[str, int]:
    """(the sources' digest, how many source files were opened to make it) in a child whose
    ``phi_wire`` is the one under ``site``."""
    found = subprocess.run(
        [sys.executable, "-c", CHILD, str(site)],
        env={
            **{key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"},
            "PYTHONPATH": str(site),
        },
        cwd=site.parent,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result = json.loads(found)
    return result["digest"], result["opened"]


def test_an_installed_wheels_digest_reads_no_source(tmp_path: Path) -> None:
    """The installer's record gives the digest: no source file is opened, and the digest is the
    one reading the sources gives (here, in the source tree); again once the first run wrote its
    bytecode."""
    installed(tmp_path / "site")
    for _ in range(2):
        digest, opened = digest_in(tmp_path / "site")
        assert opened == 0
        assert digest == _cache.sources_digest("0.8").hex()
    assert list((tmp_path / "site" / "phi_wire" / "serde").glob("__pycache__/*.pyc"))


def later(path: Path) -> None:
    """Its mtime set after the record's, as any write after the installation sets it."""
    status = path.stat()
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns + 10**10))


def source_edited(site: Path) -> Path:
    path = site / "phi_wire" / "serde" / "_codec.py"
    path.write_bytes(path.read_bytes() + b"# edited\n")
    later(path)
    return path


def model_resized_with_its_time_put_back(site: Path) -> Path:
    """A model rewritten with its old mtime restored: its size tells."""
    path = site / "phi_wire" / "v0_8" / "event.py"
    status = path.stat()
    path.write_bytes(path.read_bytes() + b"\n")
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    return path


def source_added(site: Path) -> Path:
    folder = site / "phi_wire" / "serde"
    (folder / "_added.py").write_bytes(b"ADDED = 1\n")
    later(folder)
    later(folder / "_added.py")
    return folder


def source_removed(site: Path) -> Path:
    path = site / "phi_wire" / "cli" / "_convert_report.py"  # (not imported by the check)
    path.unlink()
    return path


def record_gone(site: Path) -> Path:
    record = next(site.glob("phi_wire-*.dist-info")) / "RECORD"
    record.unlink(missing_ok=True)
    return record


@pytest.mark.parametrize(
    "change",
    [
        source_edited,
        model_resized_with_its_time_put_back,
        source_added,
        source_removed,
        record_gone,
    ],
)
def test_a_source_changed_after_the_installation_is_read(
    change: Callable[[Path], Path], tmp_path: Path
) -> None:
    """Whatever the record no longer describes makes the sources be read: the digest is that of
    the files as they are (never the record's), so an entry made from the old ones is not found."""
    site = tmp_path / "site"
    installed(site)
    before, _ = digest_in(site)
    change(site)
    after, opened = digest_in(site)
    assert opened > 0
    if change is not record_gone:
        assert after != before
    (tmp_path / "record gone").mkdir()
    shutil.copytree(site, tmp_path / "record gone" / "site", symlinks=False)
    record_gone(tmp_path / "record gone" / "site")
    assert after == digest_in(tmp_path / "record gone" / "site")[0]  # what reading them gives
