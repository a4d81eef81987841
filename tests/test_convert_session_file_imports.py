"""Issue 19, "Fast and flat": an Operator-Use session file written without models from a JSONL
file of clark-agent history rows (through phi-core) imports no model, as the dict conversions of
``test_convert_imports`` do. On main its writer's modules imported Operator-Use's and phi-core's
generated models, pydantic's ``BaseModel`` and the engine (about 0.15 s of each run); the
writer's tables now live in a module that imports none (``operator_use.session_files``), and what
the writer needs of the model path (the stop-reason table, the custom message an extension message
becomes, a usage's empty cost) in model-free homes (``operator_use._from_phi_words``). From
phi-core's own text the check that a line is what phi-core writes (``fastpath.canonical_path``)
still builds its expression from the models each run: not counted here."""

from __future__ import annotations

from pathlib import Path

from test_convert_imports import _input, heavy, imported

import phi_wire.formats.operator_use.convert as operator_use_convert
import phi_wire.formats.operator_use.session_files as session_files
import phi_wire.operator_use as operator_use
from phi_wire.convert._fast_whole import BUILD_MIN_BYTES
from phi_wire.formats.operator_use._entries_from_phi import NO_COST


def test_a_session_file_written_without_models_imports_none(tmp_path: Path) -> None:
    """The second run (the first builds and caches the fast path's expression, which reads the
    models) of ``--to operator-use`` on a file streamed a batch at a time imports none of
    ``MODELS_AND_ENGINE``, and writes what the first run wrote. Fails on main:
    ``phi_wire.operator_use``, ``phi_wire.v0_10``, ``pydantic.main``, ``phi_wire.base`` and
    ``phi_wire.serde`` were imported."""
    source = "clark-agent"  # phi-core's own text: its strict expression reads the models
    given = _input(tmp_path, source)
    text = given.read_bytes()  # past BUILD_MIN_BYTES: the first run builds the expression
    given.write_bytes(text * (BUILD_MIN_BYTES // len(text) + 1))
    arguments = ["convert", "--from", source, "--to", "operator-use", str(given)]
    first = tmp_path / "first.jsonl"
    second = tmp_path / "second.jsonl"
    status_first, _ = imported(tmp_path, [*arguments, "-o", str(first)])
    status, modules = imported(tmp_path, [*arguments, "-o", str(second)])
    assert status_first == status == 0
    assert first.read_bytes() == second.read_bytes()
    assert heavy(modules) == [], heavy(modules)


def test_the_empty_cost_written_out_is_the_readers_default() -> None:
    """The cost the writer fills in without the models is ``UsageCost()``'s JSON."""
    assert operator_use.UsageCost().model_dump(mode="json") == NO_COST


def test_the_converters_tables_are_the_model_free_modules() -> None:
    """``convert`` offers the very tables ``session_files`` holds (one home each)."""
    assert operator_use_convert.FAST_SESSION_FILES is session_files.FAST_SESSION_FILES
    assert operator_use_convert.STREAMED_SESSION_FILES is session_files.STREAMED_SESSION_FILES
