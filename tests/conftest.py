"""pytest set-up: make tests/ importable (``corpus``) and fail early when the corpus is missing."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import fixtures_root

# A missing corpus must stop the run, never turn the fixture tests into skips.
fixtures_root()
