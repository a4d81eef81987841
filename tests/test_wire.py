"""Serde facts the models carry (runtime/serde/_wire.py): here Rust's f32."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

import phi_wire.v0_10 as wire
from phi_wire.serde._wire import _round_f32

F32_MAX = float.fromhex("0x1.fffffep+127")
MIDPOINT = 2.0**128 - 2.0**103  # between f32::MAX and 2^128: rounds to the even one, infinity


@pytest.mark.parametrize(
    ("value", "rounded"),
    [
        (F32_MAX, F32_MAX),
        (3.4028235e38, F32_MAX),  # how Rust writes f32::MAX (issue 10: OverflowError)
        (math.nextafter(MIDPOINT, 0.0), F32_MAX),
        (MIDPOINT, math.inf),
        (3.4028236e38, math.inf),
        (-3.4028235e38, -F32_MAX),
        (1e39, math.inf),
        (0.1, 0.10000000149011612),
        (1e-46, 0.0),
    ],
)
def test_f64_to_f32_rounds_as_rusts_cast(value: float, rounded: float) -> None:
    assert _round_f32(value) == rounded


@pytest.mark.parametrize(
    ("temperature", "written"),
    [
        ("3.4028235e38", "3.4028235e+38"),
        ("-3.4028234663852886e38", "-3.4028235e+38"),
        ("3.4028236e38", "null"),  # f32 infinity, which serde_json writes as null
        ("0.1", "0.1"),
    ],
)
def test_f32_near_its_limit_reads_and_writes_as_phi_core(temperature: str, written: str) -> None:
    text = f'{{"model":"m","provider":"p","temperature":{temperature}}}'
    snapshot = wire.loads(wire.LoopConfigSnapshot, text)
    assert wire.dumps(snapshot).endswith(f'"temperature":{written}}}')
    built = wire.LoopConfigSnapshot(model="m", provider="p", temperature=float(temperature))
    assert wire.dumps(built) == wire.dumps(snapshot)


def test_validate_judges_the_file_after_one_holding_f32_max(tmp_path: Any) -> None:
    """Issue 10: `phi-wire validate` printed a traceback on f32::MAX and judged nothing after."""
    from phi_wire.validate import validate

    first = tmp_path / "a.json"
    first.write_text('{"model":"m","provider":"p","temperature":3.4028235e38,"x":[1]}')
    second = tmp_path / "b.json"
    second.write_text('{"model":"m","provider":"p","temperature":"hot"}')
    records = list(validate([str(first), str(second)], version="0.10", type="LoopConfigSnapshot"))
    assert [(Path(record.file).name, record.pointer) for record in records] == [
        ("b.json", "/temperature")
    ]
