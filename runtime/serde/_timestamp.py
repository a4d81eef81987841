"""chrono's ``DateTime<Utc>`` as a ``str`` that keeps its nanoseconds.

Serde fact: chrono writes ``DateTime<Utc>`` as RFC 3339 in UTC with ``Z`` and 0, 3, 6 or 9
fraction digits (``SecondsFormat::AutoSi``); it reads RFC 3339 leniently
(``parse_rfc3339_relaxed``): any offset (converted to UTC), ``t``/``z``/space separators,
a `` UTC`` suffix, unpadded fields,
blanks between items, a leap second (``:60``) and more than 9 fraction digits (truncated).
Python's ``datetime`` keeps only microseconds, so the canonical text itself is the value here.

Reading JSON, chrono's own output costs one regular expression and no parsing: ``CANONICAL``
matches exactly the text chrono writes (on a day every year has; February 29th takes the general
path), and ``from_canonical`` wraps such text without running any Python code.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import time
from collections.abc import Callable
from typing import Any

from pydantic import GetCoreSchemaHandler
from pydantic_core import PydanticCustomError, core_schema

from ..primitives import (
    CANONICAL_TIMESTAMP,
    CANONICAL_TIMESTAMP_TEXT,
    fast_path_role,
    vouched_form,
)

__all__ = ["CANONICAL", "Timestamp", "from_canonical", "from_json_text"]

_NANOS_PER_SECOND = 1_000_000_000

# The fields of a canonical-looking text (unix_nanos reads them).
_CANONICAL = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{3}|\d{6}|\d{9}))?Z\Z", re.ASCII
)

CANONICAL = CANONICAL_TIMESTAMP_TEXT
"""What chrono writes for a ``DateTime<Utc>`` on a day every year has (``phi_wire.primitives``)."""

_canonical_match = re.compile(CANONICAL + r"\Z").match

# Rust's char::is_whitespace (Unicode White_Space); Python's \s also takes \x1c-\x1f.
_WS = "[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"

# parse_rfc3339_relaxed: Item::Space("") lets blanks stand between the numeric items and after
# the whole; between an offset's hours and minutes any run of colons and blanks may stand.
_RELAXED = re.compile(
    r"""WS*(?P<year>[+-]\d+|\d{1,4})WS*-WS*(?P<month>\d{1,2})WS*-WS*(?P<day>\d{1,2})
        [Tt ]
        WS*(?P<hour>\d{1,2})WS*:WS*(?P<minute>\d{1,2})WS*:WS*(?P<second>\d{1,2})
        (?:\.(?P<fraction>\d+))?
        WS*(?:(?P<utc>[Uu][Tt][Cc])|(?P<zulu>[Zz])|(?P<sign>[+\-\u2212])(?P<oh>\d\d)(?::|WS)*(?P<om>[0-5]\d))
        WS*\Z""".replace("WS", _WS),
    re.VERBOSE | re.ASCII,  # \d: ASCII digits only, as chrono reads them
)


def _fraction_text(nanos: int) -> str:
    """chrono's AutoSi: none for 0, else 3, 6 or 9 digits, the fewest that are exact."""
    if nanos == 0:
        return ""
    if nanos % 1_000_000 == 0:
        return f".{nanos // 1_000_000:03d}"
    if nanos % 1_000 == 0:
        return f".{nanos // 1_000:06d}"
    return f".{nanos:09d}"


def _year_text(year: int) -> str:
    if 0 <= year <= 9999:
        return f"{year:04d}"
    return f"{year:+05d}"


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 in the proleptic Gregorian calendar, for any year."""
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    days += 719468
    era = days // 146097
    doe = days - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (month <= 2), month, day


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _format(year: int, month: int, day: int, hms: tuple[int, int, int], nanos: int) -> str:
    hour, minute, second = hms
    return (
        f"{_year_text(year)}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
        f"{_fraction_text(nanos)}Z"
    )


def _out_of_range() -> PydanticCustomError:
    return PydanticCustomError(
        "timestamp_range", "expected an RFC 3339 date-time in range (input is out of range)"
    )


def normalize_timestamp(text: str) -> str:
    """Return chrono's canonical text for an RFC 3339 input it accepts, else raise."""
    if _canonical_match(text) is not None:
        return text
    relaxed = _RELAXED.match(text)
    if relaxed is None:
        raise PydanticCustomError(
            "timestamp_parsing",
            "expected an RFC 3339 date-time (YYYY-MM-DDTHH:MM:SS[.fraction] with Z or an offset)",
        )
    parts = relaxed.groupdict()
    year, month, day = int(parts["year"]), int(parts["month"]), int(parts["day"])
    hour, minute, second = int(parts["hour"]), int(parts["minute"]), int(parts["second"])
    nanos = int((parts["fraction"] or "")[:9].ljust(9, "0"))
    if not (1 <= month <= 12 and 1 <= day <= _days_in_month(year, month)):
        raise _out_of_range()
    if hour > 23 or minute > 59 or second > 60:
        raise _out_of_range()
    leap = second == 60
    if leap:  # chrono keeps a leap second as second 59 plus a second's worth of nanoseconds
        second = 59
    offset = 0
    if parts["sign"]:
        offset = int(parts["oh"]) * 3600 + int(parts["om"]) * 60
        if parts["sign"] != "+":
            offset = -offset
        if offset >= 86400 or offset <= -86400:
            raise _out_of_range()
    seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    seconds -= offset
    days, seconds_of_day = divmod(seconds, 86400)
    year, month, day = _civil_from_days(days)
    if not -262143 <= year <= 262142:  # chrono's NaiveDate range
        raise _out_of_range()
    hms = (seconds_of_day // 3600, seconds_of_day // 60 % 60, seconds_of_day % 60 + leap)
    return _format(year, month, day, hms, nanos)


class Timestamp(str):
    """A chrono ``DateTime<Utc>`` held as its canonical RFC 3339 text (nanoseconds kept).

    Build one with ``Timestamp(text)`` (any RFC 3339 that chrono reads), ``Timestamp.now()``,
    ``Timestamp.from_datetime(dt)`` or ``Timestamp.from_unix_nanos(ns)``; read it back with
    ``to_datetime()`` (microseconds) or ``unix_nanos``.
    """

    __slots__ = ()

    def __new__(cls, text: str) -> Timestamp:
        """Read RFC 3339 text as chrono does, normalised to what chrono writes."""
        return str.__new__(cls, normalize_timestamp(text))

    @classmethod
    def _trusted(cls, canonical: str) -> Timestamp:
        return str.__new__(cls, canonical)

    @classmethod
    def from_unix_nanos(cls, nanos: int) -> Timestamp:
        seconds, fraction = divmod(nanos, _NANOS_PER_SECOND)
        days, seconds_of_day = divmod(seconds, 86400)
        hms = (seconds_of_day // 3600, seconds_of_day // 60 % 60, seconds_of_day % 60)
        return cls._trusted(_format(*_civil_from_days(days), hms, fraction))

    @classmethod
    def now(cls) -> Timestamp:
        """The current time with nanoseconds, like ``Utc::now()``."""
        return cls.from_unix_nanos(time.time_ns())

    @classmethod
    def from_datetime(cls, value: dt.datetime) -> Timestamp:
        """An aware datetime (naive ones are rejected, as chrono rejects offset-less text)."""
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError("a naive datetime has no offset; chrono's DateTime<Utc> needs one")
        delta = value - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
        micros = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
        return cls.from_unix_nanos(micros * 1000)

    @property
    def unix_nanos(self) -> int:
        """Nanoseconds since the Unix epoch (a leap second counts as the second before it)."""
        match = _CANONICAL.match(self)
        if match is None:  # years outside 0..9999 or a leap second: take the general path
            relaxed = _RELAXED.match(self)
            assert relaxed is not None
            groups = relaxed.groupdict()
            year, month, day = int(groups["year"]), int(groups["month"]), int(groups["day"])
            hour, minute, second = int(groups["hour"]), int(groups["minute"]), int(groups["second"])
            fraction = groups["fraction"] or ""
        else:
            year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
            fraction = match.group(7) or ""
        nanos = int(fraction.ljust(9, "0")) + max(0, second - 59) * _NANOS_PER_SECOND
        seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60
        return (seconds + min(second, 59)) * _NANOS_PER_SECOND + nanos

    def to_datetime(self) -> dt.datetime:
        """An aware UTC datetime (truncated to microseconds; years 1..9999 only)."""
        seconds, nanos = divmod(self.unix_nanos, _NANOS_PER_SECOND)
        epoch = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
        return epoch + dt.timedelta(seconds=seconds, microseconds=nanos // 1000)

    @classmethod
    def _from_python(cls, value: Any) -> Timestamp:
        """A model field given in Python: a Timestamp, RFC 3339 text or an aware datetime."""
        if isinstance(value, Timestamp):
            return value
        if isinstance(value, str):
            return cls(value)
        if isinstance(value, dt.datetime):
            try:
                return cls.from_datetime(value)
            except ValueError as error:
                raise PydanticCustomError("timestamp_naive", str(error)) from None
        raise PydanticCustomError(
            "timestamp_type", "expected an RFC 3339 string, a Timestamp or an aware datetime"
        )

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> Any:
        from_text = core_schema.no_info_after_validator_function(
            from_json_text, core_schema.str_schema()
        )
        return core_schema.json_or_python_schema(
            json_schema=from_text,
            python_schema=core_schema.no_info_plain_validator_function(cls._from_python),
            serialization=core_schema.to_string_ser_schema(),
        )


from_canonical: Callable[[str], Timestamp] = functools.partial(str.__new__, Timestamp)
"""``Timestamp`` of a text known to match ``CANONICAL``, built without running Python code (a C
function bound to its arguments): what ``loads`` uses once the fast path's expression has
proven every timestamp of a document canonical."""


def _wrapped_natively(text_schema: Any, definitions: Any) -> Any:
    return core_schema.no_info_after_validator_function(from_canonical, text_schema)


@fast_path_role(CANONICAL_TIMESTAMP)
@vouched_form(_wrapped_natively)  # a vouched document's timestamps all match CANONICAL
def from_json_text(text: str) -> Timestamp:
    """A JSON string as a ``Timestamp`` (the models' validator): chrono's own output costs one
    match; any other form is read as ``Timestamp(text)`` reads it."""
    if _canonical_match(text) is not None:
        return from_canonical(text)
    return Timestamp(text)
