"""pytest set-up: make tests/ importable (``corpus``), fail early when the corpus is missing, test
the installed package when asked to, run Hypothesis derandomized in CI, and keep the fast path's
compiled code in a folder of the run's own (``private_cache``), never the user's cache.

No background build of ``loads``' fast path during the suite (see the end of this file).

Hypothesis profiles: ``ci`` (derandomized: the same examples every run, so CI cannot fail by
chance; no example database) is used when ``CI`` is set or ``make test`` runs; ``dev`` (random,
explores more over time) otherwise. ``HYPOTHESIS_PROFILE`` picks one explicitly.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import ROOT, fixtures_root
from s3 import s3_server  # noqa: F401 - the S3 server fixture of the remote and Dask tests

# A missing corpus must stop the run, never turn the fixture tests into skips.
fixtures_root()

settings.register_profile("ci", derandomize=True, database=None, deadline=None)
settings.register_profile("dev", deadline=None)
_IN_CI = bool(os.environ.get("CI")) or bool(os.environ.get("PHI_WIRE_TEST_INSTALLED"))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if _IN_CI else "dev"))

if os.environ.get("PHI_WIRE_TEST_INSTALLED"):
    # `make test` installs the wheel into a fresh venv: nothing may come from the source tree.
    import phi_wire

    _location = Path(phi_wire.__file__).resolve()
    if any(folder in _location.parents for folder in (ROOT / "runtime", ROOT / "generated")):
        raise RuntimeError(
            f"phi_wire was imported from the source tree ({_location}), not the wheel"
        )

# loads' fast path is built on a background thread once a process has accepted BUILD_AFTER
# documents of one type the exact way: never in the middle of the suite (no test may depend on
# thread timing). Its own tests set the threshold, and build or prepare it, themselves.
from phi_wire.serde import _shortcut  # noqa: E402 - after the installed-package check above

_shortcut.BUILD_AFTER = 1 << 62


@pytest.fixture(autouse=True)
def private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """``$PHI_WIRE_CACHE_DIR`` for every test: one folder per run, shared by its tests. The
    expressions a wheel ships are left unused (tests of building need a process without one; the
    shipped ones have their own tests: test_fastpath_shipped.py)."""
    folder = tmp_path_factory.getbasetemp() / "phi-wire-cache"
    monkeypatch.setenv("PHI_WIRE_CACHE_DIR", str(folder))
    monkeypatch.setenv("PHI_WIRE_SHIPPED_EXPRESSIONS", "0")
    return folder
