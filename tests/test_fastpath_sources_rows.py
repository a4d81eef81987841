"""The installer's ``RECORD`` read without the csv module when it holds nothing csv treats
specially (``_sources._rows``, 0.3 ms of a fresh process's first ``loads``): the same rows as
``csv.reader`` for every text, those special characters included (derandomized property test)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from phi_wire.fastpath import _sources

_PIECES = st.sampled_from(
    ["phi_wire/a.py", "sha256=AbC-_", "123", ",", "\n", "\r\n", "\r", '"', '""', "\0", " ", "é", ""]
)


def with_csv(text: str) -> tuple[tuple[str, str, str], ...]:
    return tuple((row[0], row[1], row[2]) for row in csv.reader(io.StringIO(text)) if len(row) == 3)


def outcome(read: Callable[[str], object], text: str) -> object:
    """The rows, or the csv error (a record the caller then does not use)."""
    try:
        return read(text)
    except csv.Error:
        return csv.Error


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_rows_are_csvs_rows(text: str) -> None:
    assert outcome(_sources._rows, text) == outcome(with_csv, text)


def test_a_real_record_is_read_without_csv_alike() -> None:
    lines = [
        "phi_wire/__init__.py,sha256=2b2b2b,1234",
        "phi_wire/fastpath/_cache.py,sha256=x-y_z,99",
        "phi_wire-0.2.0.dist-info/RECORD,,",
        '"phi_wire/odd,name.py",sha256=q,1',
        "",
    ]
    plain = "\n".join(line for line in lines if '"' not in line)
    assert _sources._rows(plain) == with_csv(plain)
    assert len(_sources._rows(plain)) == 3
    quoted = "\n".join(lines)
    assert _sources._rows(quoted) == with_csv(quoted)
    assert ("phi_wire/odd,name.py", "sha256=q", "1") in _sources._rows(quoted)
