"""phi_wire.convert (runtime/convert/): the dispatch every converter plugs into."""

from __future__ import annotations

import pytest

import phi_wire.v0_10 as phi
from phi_wire.convert import Conversion, UnsupportedConversion, convert


def test_a_value_converted_to_its_own_format_is_unchanged_and_loses_nothing() -> None:
    usage = phi.Usage(input=1, output=2)
    assert convert(usage, target="phi-core") == Conversion(usage, ())


def test_unknown_formats_and_values_are_clear_errors() -> None:
    with pytest.raises(UnsupportedConversion, match="unknown format 'yoagent'"):
        convert(phi.Usage(input=1, output=2), target="yoagent")
    with pytest.raises(UnsupportedConversion, match="not a wire type"):
        convert({"input": 1}, target="phi-core")
