"""Running the workshop's node tools from the tests: node itself, and the packages pinned in
``tools/typescript/package-lock.json`` (installed by ``make``: ``npm ci``).

Missing tools are a failure with the command that fixes it, never a skip: CI must run these tests.
Scripts get their input as JSON on stdin and answer with JSON on stdout; nothing touches the
network (the tests' scripts load files only).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from corpus import ROOT

TOOLS = ROOT / "tools" / "typescript"
NODE_MODULES = TOOLS / "node_modules"
PACKAGE = ROOT / "generated" / "typescript"
"""The npm package tools/codegen writes: types, validators, schemas."""

INSTALL_HINT = "run `make node-tools` (npm ci in tools/typescript) first"


def node() -> str:
    found = shutil.which("node")
    if found is None:
        raise RuntimeError("node is not installed; the TypeScript tests need node 20 or later")
    return found


def require_node_modules() -> Path:
    """tools/typescript/node_modules, installed from the lock file; an error naming the fix."""
    if not (NODE_MODULES / ".package-lock.json").is_file():
        raise RuntimeError(f"{NODE_MODULES} is missing: {INSTALL_HINT}")
    return NODE_MODULES


def run_node(script: str, payload: Any, *, timeout: float = 600) -> Any:
    """Run an ES module ``script`` with ``payload`` as JSON on stdin; its JSON stdout, parsed.

    The script runs in tools/typescript, so bare imports (``ajv``) resolve to the pinned packages.
    """
    require_node_modules()
    result = subprocess.run(
        [node(), "--input-type=module", "--eval", script],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=TOOLS,
        timeout=timeout,
        check=False,
    )
    if result.returncode != 0:
        raise AssertionError(f"node failed (exit {result.returncode}):\n{result.stderr[-4000:]}")
    return json.loads(result.stdout)


def tsc(project: Path, *, timeout: float = 600) -> tuple[int, str]:
    """``tsc -p project`` with the pinned compiler: (exit status, its diagnostics)."""
    compiler = require_node_modules() / "typescript" / "bin" / "tsc"
    result = subprocess.run(
        [node(), str(compiler), "-p", str(project), "--pretty", "false"],
        capture_output=True,
        text=True,
        cwd=project if project.is_dir() else project.parent,
        timeout=timeout,
        check=False,
    )
    return result.returncode, result.stdout + result.stderr
