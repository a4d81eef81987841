"""``dumps`` refuses a value of the wrong type however the program's warnings are set
(``phi_wire.serde._written``, issue 21 goal 3).

``dumps`` passes pydantic-core ``warnings=True`` (0.2 us) instead of ``"error"`` (1.0 us) while a
filter of its own, first in ``warnings.filters``, makes pydantic-core's warning about such a
value an error; otherwise it passes the string. pytest puts its own filters first for each test,
so the bool's way is proven in a fresh interpreter.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import pytest

import phi_wire.v0_8 as wire
from phi_wire.serde._written import filter_in_force

WRONG = "wire.TurnId.model_construct(loopId='l', turnIndex='0')"
"""A value of the wrong type: a string where phi-core has an integer."""

FRESH = f"""
import warnings
import phi_wire.v0_8 as wire
from phi_wire.serde._written import filter_in_force

wire.dumps(wire.TurnId(loopId="l", turnIndex=0))  # the writer loaded
assert filter_in_force(), warnings.filters[:3]
try:
    wire.dumps({WRONG})
except wire.WireError as error:
    print("refused:", error)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    {WRONG}.model_dump_json()  # pydantic's own call: a warning, as pydantic gives it
print("warned:", len(caught))
"""


def test_in_a_fresh_interpreter_the_filter_is_first_and_the_value_refused() -> None:
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(FRESH)], capture_output=True, text=True, check=True
    )
    assert "refused: TurnId /: cannot be written as phi-core writes it" in run.stdout
    assert "input_value='0'" in run.stdout
    assert "warned: 1" in run.stdout, run.stdout + run.stderr


@pytest.mark.parametrize("action", ["ignore", "always", "error"])
def test_a_filter_put_before_it_never_lets_the_value_through(action: str) -> None:
    """Whatever a program's own filter says: the string's way, the same refusal."""
    with warnings.catch_warnings():
        warnings.simplefilter(action)
        assert not filter_in_force()
        with pytest.raises(wire.WireError, match="input_value='0'"):
            wire.dumps(wire.TurnId.model_construct(loopId="l", turnIndex="0"))
