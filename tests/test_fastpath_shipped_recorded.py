"""A shipped expression that the installer's ``RECORD`` vouches for (runtime/fastpath/_shipped.py,
``_sources.recorded_unchanged``) is loaded without its SHA-256 and probes, as phi_wire's own code
is trusted (issue 21, goal 2: 3-4 ms of a fresh process's first ``loads``); once the entry was
written after the installation, or resized, or the record does not list it, every check runs
again, and a damaged or forged entry is ignored.

The package is laid out as a wheel installs it (``test_fastpath_sources.installed``), with the
entries ``make wheel`` ships written into it before its ``RECORD``; each case runs in a child whose
only ``phi_wire`` is that one, counting the big digests computed and the probes run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from test_fastpath_shipped import dot_star_with_its_digest, flip_last_code_byte, truncated
from test_fastpath_sources import installed, later

from phi_wire.fastpath import _shipped

CHILD = r"""
import hashlib, json, sys
from phi_wire.fastpath import _cache, _shipped
hashed, probed = [], []
real_sha256, real_sound = hashlib.sha256, _cache.sound

def counting_sha256(*data):
    if data and bytes(data[0][:18]) == b"phi-wire fast path":  # an entry's (not a key's)
        hashed.append(len(data[0]))
    return real_sha256(*data)

def counting_sound(*arguments):
    probed.append(1)
    return real_sound(*arguments)

hashlib.sha256, _cache.sound = counting_sha256, counting_sound
found = _shipped.load_shipped("0.8", ["AgentEvent"], False, True)
found = {"found": found is not None, "hashed": len(hashed), "probed": len(probed)}
sys.stdout.write(json.dumps(found))
"""


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("shipped")
    assert _shipped.write_shipped(folder)
    return folder


def site_with_entries(tmp_path: Path, made: Path) -> Path:
    def ship(site: Path) -> None:
        folder = site / "phi_wire" / "fastpath" / "shipped-expressions"
        shutil.rmtree(folder, ignore_errors=True)  # (a tree's own, from an earlier make wheel)
        shutil.copytree(made, folder)

    site = tmp_path / "site"
    installed(site, ship)
    return site


def loaded_in(site: Path) -> dict[str, object]:
    found = subprocess.run(
        [sys.executable, "-c", CHILD],
        env={
            **os.environ,
            "PYTHONPATH": str(site),
            "PHI_WIRE_SHIPPED_EXPRESSIONS": "1",
            "PHI_WIRE_CACHE_DIR": str(site.parent / "empty cache"),
        },
        cwd=site.parent,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result: dict[str, object] = json.loads(found)
    return result


def entry(site: Path) -> Path:
    """0.8's events entry, by its key there."""
    folder = site / "phi_wire" / "fastpath" / "shipped-expressions"
    script = (
        "from phi_wire.fastpath import _shipped; "
        "print(_shipped.shipped_name('0.8', ['AgentEvent'], False, True))"
    )
    named = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": str(site)},
        cwd=site.parent,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return folder / named


def test_an_entry_the_record_vouches_for_is_used_without_its_digest_and_probes(
    tmp_path: Path, made: Path
) -> None:
    """Regression: every shipped entry's 2 MB were hashed and probed at each fresh start."""
    site = site_with_entries(tmp_path, made)
    assert loaded_in(site) == {"found": True, "hashed": 0, "probed": 0}


def edited(damage: Callable[[Path], None]) -> Callable[[Path], None]:
    def written_after_the_installation(path: Path) -> None:
        damage(path)
        later(path)

    written_after_the_installation.__name__ = damage.__name__
    return written_after_the_installation


def resized_with_its_time_put_back(path: Path) -> None:
    status = path.stat()
    truncated(path)
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))


def not_in_the_record(path: Path) -> None:
    record = next((path.parents[3]).glob("phi_wire-*.dist-info/RECORD"))
    relative = path.relative_to(path.parents[3]).as_posix()
    kept = [line for line in record.read_text().splitlines() if not line.startswith(relative + ",")]
    status = record.stat()
    record.write_text("\n".join(kept) + "\n")
    os.utime(record, ns=(status.st_atime_ns, status.st_mtime_ns))


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (edited(flip_last_code_byte), {"found": False, "hashed": 1, "probed": 0}),
        (edited(dot_star_with_its_digest), {"found": False, "hashed": 1, "probed": 1}),
        (resized_with_its_time_put_back, {"found": False, "hashed": 1, "probed": 0}),
        (not_in_the_record, {"found": True, "hashed": 1, "probed": 1}),
    ],
    ids=["edited", "forged with its digest", "resized, time put back", "not in the record"],
)
def test_an_entry_the_record_does_not_vouch_for_gets_every_check(
    tmp_path: Path, made: Path, damage: Callable[[Path], None], expected: dict[str, object]
) -> None:
    site = site_with_entries(tmp_path, made)
    damage(entry(site))
    assert loaded_in(site) == expected
