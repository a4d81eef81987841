"""chrono's DateTime<Utc> (runtime/serde/_timestamp.py): read leniently, written with 0/3/6/9
digits."""

from __future__ import annotations

import datetime as dt

import pytest

from phi_wire import Timestamp


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("2026-05-25T09:41:07Z", "2026-05-25T09:41:07Z"),
        ("2026-05-25T09:41:07.000Z", "2026-05-25T09:41:07Z"),
        ("2026-05-25T09:41:07.100000Z", "2026-05-25T09:41:07.100Z"),
        ("2026-05-25T09:41:07.123400Z", "2026-05-25T09:41:07.123400Z"),
        ("2026-05-25T09:41:07.123456789Z", "2026-05-25T09:41:07.123456789Z"),
        ("2026-05-25T09:41:07.1234567891Z", "2026-05-25T09:41:07.123456789Z"),
        ("2026-05-25 09:41:07+0200", "2026-05-25T07:41:07Z"),
        ("2026-05-24T23:30:00-10:00", "2026-05-25T09:30:00Z"),
        ("2026-06-30T23:59:60.5Z", "2026-06-30T23:59:60.500Z"),
        ("2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"),
        ("+10000-01-01T00:00:00.000+00:00", "+10000-01-01T00:00:00Z"),
        ("2026-05-25T09:41:07.382 UTC", "2026-05-25T09:41:07.382Z"),
        # chrono's relaxed grammar: blanks between items and after, colons-or-blanks inside an
        # offset, a Unicode minus, lower case, unpadded fields, signed years
        ("2026-05-25T09:41:07 +02 : 00", "2026-05-25T07:41:07Z"),
        ("2026-05-25T09:41:07+02::00", "2026-05-25T07:41:07Z"),
        ("2026-05-25T09:41:07\u221202:00", "2026-05-25T11:41:07Z"),
        (" 2026 - 05 - 25T 09 : 41 : 07 Z \n", "2026-05-25T09:41:07Z"),
        ("2026-05-25t09:41:07utc\u3000", "2026-05-25T09:41:07Z"),
        ("0-1-1T0:0:0Z", "0000-01-01T00:00:00Z"),
        ("-0001-01-01T00:00:00Z", "-0001-01-01T00:00:00Z"),
        ("2026-06-30T13:59:60-10:00", "2026-06-30T23:59:60Z"),
    ],
)
def test_accepted_forms_are_normalised_like_chrono(text: str, canonical: str) -> None:
    assert Timestamp(text) == canonical


@pytest.mark.parametrize(
    "text",
    [
        "2026-05-25T09:41:07",
        "2026-02-30T00:00:00Z",
        "2023-02-29T00:00:00Z",
        "2026-05-25T24:00:00Z",
        "2026-05-25T09:41:07Zabc",
        "1779702067382",
        "",
        "2026-05-25T09:41:07+02:60",  # offset minutes past 59
        "2026-05-25T09:41:07+2:00",  # offset hours need two digits
        "2026-05-25T09:41:07+02",  # and minutes are mandatory
        "2026-05-25\t09:41:07Z",  # the date-time separator is T, t or a space, nothing else
        "2026-05-25T09:41:07Z\x1c",  # Python's \s, not Rust's whitespace
        "\uff12\uff10\uff12\uff16-05-25T09:41:07Z",  # digits are ASCII digits
        "10000-01-01T00:00:00Z",  # five unsigned year digits
        "+262143-01-01T00:00:00Z",  # past chrono's year range
    ],
)
def test_rejected_forms(text: str) -> None:
    with pytest.raises(ValueError):
        Timestamp(text)


def test_nanoseconds_survive_and_convert() -> None:
    stamp = Timestamp.from_unix_nanos(1_779_702_067_386_712_788)
    assert stamp == "2026-05-25T09:41:07.386712788Z"
    assert stamp.unix_nanos == 1_779_702_067_386_712_788
    assert stamp.to_datetime() == dt.datetime(2026, 5, 25, 9, 41, 7, 386712, tzinfo=dt.UTC)
    assert Timestamp.from_datetime(
        dt.datetime(2026, 5, 25, 11, 41, 7, 500000, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    ) == ("2026-05-25T09:41:07.500Z")
    assert Timestamp.now().endswith("Z")
    with pytest.raises(ValueError):
        Timestamp.from_datetime(dt.datetime(2026, 5, 25))


def test_models_take_datetimes_from_python() -> None:
    from phi_wire import TurnStart, TurnTrigger, WireError, dumps

    event = TurnStart(
        loop_id="l",
        turn_index=0,
        timestamp=dt.datetime(2026, 5, 25, tzinfo=dt.UTC),
        triggered_by=TurnTrigger.USER,
    )
    assert '"timestamp":"2026-05-25T00:00:00Z"' in dumps(event)
    with pytest.raises(WireError, match="/timestamp: expected an RFC 3339 date-time"):
        TurnStart(loop_id="l", turn_index=0, timestamp="yesterday", triggered_by=TurnTrigger.USER)
    with pytest.raises(WireError, match="/timestamp: a naive datetime has no offset"):
        TurnStart(
            loop_id="l",
            turn_index=0,
            timestamp=dt.datetime(2026, 5, 25),  # naive on purpose
            triggered_by=TurnTrigger.USER,
        )
    with pytest.raises(WireError, match="/timestamp: expected an RFC 3339 string, a Timestamp"):
        TurnStart(loop_id="l", turn_index=0, timestamp=1779702067, triggered_by=TurnTrigger.USER)
