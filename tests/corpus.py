"""Where the fixture corpora live (phi-core's and other implementations'), and what their
manifests say.

The corpus is read in place (never copied into the repository): ``$PHI_WIRE_FIXTURES`` if set,
else ``../shared/fixtures`` beside the project root. A missing corpus is an error, not a skip.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def fixtures_root() -> Path:
    configured = os.environ.get("PHI_WIRE_FIXTURES")
    root = Path(configured) if configured else ROOT.parent / "shared" / "fixtures"
    if not (root / "phi-core").is_dir():
        raise RuntimeError(
            f"phi-core fixture corpus not found at {root}/phi-core; put shared/ beside the project "
            "or set PHI_WIRE_FIXTURES to the folder that holds phi-core/<version>/"
        )
    return root


@dataclass(frozen=True)
class Fixture:
    version: str  # the implementation's release, e.g. "0.8.0"
    entry: dict[str, Any]  # the manifest record
    implementation: str = "phi-core"  # the corpus folder: phi-core, clark-agent...

    @property
    def id(self) -> str:
        return f"{self.version}:{self.entry['id']}"

    @property
    def kind(self) -> str:
        return str(self.entry["kind"])

    @property
    def type_name(self) -> str:
        return str(self.entry["type"])

    def path(self, key: str) -> Path:
        return fixtures_root() / self.implementation / self.version / self.entry[key]

    def read(self, key: str) -> bytes:
        return self.path(key).read_bytes()


def manifest(version: str, implementation: str = "phi-core") -> list[Fixture]:
    path = fixtures_root() / implementation / version / "manifest.json"
    entries = json.loads(path.read_text(encoding="utf-8"))["fixtures"]
    return [Fixture(version, entry, implementation) for entry in entries]


def fixtures(version: str, kind: str, implementation: str = "phi-core") -> list[Fixture]:
    return [fixture for fixture in manifest(version, implementation) if fixture.kind == kind]


def corpora() -> list[tuple[str, str]]:
    """(implementation, version) of every corpus whose manifest lists fixtures (the
    implementations' corpora; otel-genai's manifests describe files otherwise)."""
    found = []
    for path in sorted(fixtures_root().glob("*/*/manifest.json")):
        if isinstance(json.loads(path.read_text(encoding="utf-8")).get("fixtures"), list):
            found.append((path.parent.parent.name, path.parent.name))
    return found
