"""Which invalid documents ``loads`` searches for all their problems, and which it judges up to
the first invalid item of each array (``_fail_fast``; the same verdict either way).

pydantic builds an error, with a copy of its input, for every failing item of every array: a
300 kB session of 100,000 empty loops makes a million errors and half a gigabyte, a 96 kB Turn of
32,000 empty arrays took 3.3 s. A value makes at most some 10 errors (an empty object where a
model with 10 required fields belongs), each item at least 2 bytes. So a document is searched in
full when it holds few values (at most ``FULL_REPORT_VALUES``: some 25,000 errors, a tenth of a
second), or when its values are as sparse as real documents' (phi-core's sessions hold one per
45 bytes: at most one per ``FULL_REPORT_BYTES_PER_VALUE`` bytes, up to ``FULL_REPORT_MAX_VALUES``
values, a session of about 1 MB). Any document under 100 kB is then judged in well under 0.2 s,
and a real session of a megabyte with one bad value still gets its whole report.
"""

from __future__ import annotations

__all__ = [
    "FULL_REPORT_BYTES_PER_VALUE",
    "FULL_REPORT_MAX_VALUES",
    "FULL_REPORT_VALUES",
    "searched_in_full",
]

FULL_REPORT_VALUES = 2_500
"""A document of up to this many JSON values is searched in full, however dense."""
FULL_REPORT_MAX_VALUES = 20_000
"""A document of more values than this is never searched in full."""
FULL_REPORT_BYTES_PER_VALUE = 40
"""Between the two, a document is searched in full when it has at least this many bytes per
value (so, under 100 kB, never more values than ``FULL_REPORT_VALUES``)."""


def searched_in_full(raw: bytes) -> bool:
    """Whether an invalid ``raw`` is searched for all its problems. Its values are counted from
    above, at C speed: each value but the first follows a comma or opens a non-empty array or
    object."""
    if len(raw) <= 2 * FULL_REPORT_VALUES:  # a value and its comma take two bytes at least
        return True
    opened = raw.count(b"[") + raw.count(b"{") - raw.count(b"[]") - raw.count(b"{}")
    values = raw.count(b",") + opened
    if values <= FULL_REPORT_VALUES:
        return True
    return values <= FULL_REPORT_MAX_VALUES and len(raw) >= FULL_REPORT_BYTES_PER_VALUE * values
