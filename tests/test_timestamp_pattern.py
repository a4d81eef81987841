"""The ``DateTime`` pattern of schemas/phi-core/<version>/common.json (the one pattern of the
registered schemas): chrono's timestamp grammar as
one regular expression that Python's ``re`` and JavaScript's ``RegExp`` (ajv) read alike.

``format: date-time`` is RFC 3339's narrow grammar (no year past 9999, no negative year, no space
or ``UTC``...) and validators disagree on it, so the schema says exactly what phi-core reads. The
pattern is built here from named pieces; the schema must hold exactly this text. Its verdicts are
checked against phi-wire's ``Timestamp`` (which reads as chrono does: runtime/serde/_timestamp.py)
and against node's ``RegExp`` with the ``u`` flag, as ajv compiles it.

Syntax both engines read the same way (and RE2 too: no lookaround, no backreferences): ``[0-9]``,
never ``\\d`` (Python's matches any Unicode digit); explicit whitespace classes, never ``\\s``
(each engine has its own set); ``^`` at the start; the pattern ends with blanks that may include
``\\n``, so Python's ``$`` (which also matches before a final newline) decides as JavaScript's.

Where the pattern and ``Timestamp`` differ, by construction: the pattern checks the year as
written, ``Timestamp`` (like chrono) after the offset moved the date to UTC. Within a day of
chrono's year limits (-262143..=262142) an offset that crosses a limit is judged differently; the
cases are asserted below (``BOUNDARY``).
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from node import run_node

from phi_wire import Timestamp
from schemas import definitions, schema_folders, schemas_in

# Rust's char::is_whitespace (chrono skips these between fields), any number of them.
BLANKS = r"[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*"
DASH = f"{BLANKS}-{BLANKS}"
COLON = f"{BLANKS}:{BLANKS}"

# Two-digit endings of years divisible by 4: without 00 (leap unless a century), with 00.
BY_4_NOT_00 = r"[02468][48]|[2468]0|[13579][26]"
BY_4 = r"[02468][048]|[13579][26]"

# Years as chrono reads them: 1-4 digits, or a sign and any number of digits, within chrono's
# NaiveDate range -262143..=262142 (written with a sign outside 0..=9999).
SIX_DIGITS_UP_TO_262142 = (
    r"1[0-9]{5}|2[0-5][0-9]{4}|26[01][0-9]{3}|2620[0-9]{2}|2621[0-3][0-9]|26214[0-2]"
)
SIX_DIGITS_UP_TO_262143 = SIX_DIGITS_UP_TO_262142.removesuffix("[0-2]") + "[0-3]"
YEAR = (
    rf"[0-9]{{1,4}}|\+0*(?:[0-9]{{1,5}}|{SIX_DIGITS_UP_TO_262142})"
    rf"|-0*(?:[0-9]{{1,5}}|{SIX_DIGITS_UP_TO_262143})"
)
# Leap years (divisible by 4, centuries only when divisible by 400) in the same range: 1-4
# digits; signed, up to 5 digits or 6 digits up to 262140 (the last leap year in range).
LEAP_YEAR_UNSIGNED = rf"[048]|[0-9]{{0,2}}(?:{BY_4_NOT_00})|(?:{BY_4}|[048])?00"
LEAP_YEAR_MAGNITUDE = (
    rf"[048]|[0-9]{{0,3}}(?:{BY_4_NOT_00})|(?:[0-9]?(?:{BY_4})|[048])?00"
    rf"|(?:1[0-9]{{3}}|2[0-5][0-9]{{2}}|26[01][0-9]|2620)(?:{BY_4_NOT_00})"
    r"|2621(?:0[48]|1[26]|2[048]|3[26]|40)"
    rf"|(?:(?:1[0-9]|2[0-5])(?:{BY_4})|26(?:0[048]|1[26]|20))00"
)
LEAP_YEAR = rf"{LEAP_YEAR_UNSIGNED}|[+-]0*(?:{LEAP_YEAR_MAGNITUDE})"

# Month and day, unpadded or padded: 31-day months, 30-day months, February (29: leap years).
DATE = (
    rf"(?:{YEAR}){DASH}(?:(?:0?[13578]|1[02]){DASH}(?:0?[1-9]|[12][0-9]|3[01])"
    rf"|(?:0?[469]|11){DASH}(?:0?[1-9]|[12][0-9]|30)|0?2{DASH}(?:0?[1-9]|1[0-9]|2[0-8]))"
    rf"|(?:{LEAP_YEAR}){DASH}0?2{DASH}29"
)
# Hours 0-23, minutes 0-59, seconds 0-60 (a leap second), any number of fraction digits.
TIME = rf"(?:[01]?[0-9]|2[0-3]){COLON}[0-5]?[0-9]{COLON}(?:[0-5]?[0-9]|60)(?:\.[0-9]+)?"
# UTC in any case, Z or z, or an offset below 24 hours: sign (+, - or U+2212), two-digit hours,
# any run of colons and blanks, two-digit minutes.
OFFSET = (
    rf"[Uu][Tt][Cc]|[Zz]|[+\u2212-](?:[01][0-9]|2[0-3])(?::|{BLANKS.removesuffix('*')})*[0-5][0-9]"
)
PATTERN = rf"^{BLANKS}(?:{DATE})[Tt ]{BLANKS}{TIME}{BLANKS}(?:{OFFSET}){BLANKS}$"

MATCHER = re.compile(PATTERN)  # jsonschema's pattern: re.search, no flags

# (text, Timestamp accepts it): an offset moves the date across chrono's year limits, which the
# pattern (judging the year as written) cannot see.
BOUNDARY = [
    ("+262142-12-31T23:30:00-01:00", False),  # UTC +262143: out of chrono's range
    ("-262143-01-01T00:30:00+01:00", False),  # UTC -262144
    ("+262143-01-01T00:30:00+01:00", True),  # written out of range, UTC +262142-12-31
    ("-262144-12-31T23:30:00-01:00", True),  # UTC -262143-01-01
]


def accepted_by_timestamp(text: str) -> bool:
    try:
        Timestamp(text)
    except ValueError:
        return False
    return True


WITH_DATE_TIME = [folder for folder in schema_folders() if "DateTime" in definitions(folder)]
"""The registered versions with a chrono ``DateTime`` (phi-core's; clark-agent and Operator-Use
write times as numbers)."""


def test_every_pattern_of_the_schemas_is_tested_here() -> None:
    """The pattern below is the only one the registered schemas hold besides pi's
    ``ISOTimestamp`` (proved in tests/test_pi_schemas.py, against ``Date.toISOString()``): a new
    one needs its own proof of the same kind (tests/test_schemas.py checks the shared syntax of
    every pattern)."""
    patterns = {
        (folder, f"{name}{pointer}")
        for folder in schema_folders()
        for name, definition in definitions(folder).items()
        for pointer, node in schemas_in(definition)
        if "pattern" in node
    }
    proved_elsewhere = {
        (folder, "ISOTimestamp") for folder in schema_folders() if folder.startswith("pi/")
    }
    assert patterns == {(folder, "DateTime") for folder in WITH_DATE_TIME} | proved_elsewhere
    assert WITH_DATE_TIME and proved_elsewhere


@pytest.mark.parametrize("folder", WITH_DATE_TIME)
def test_the_schema_holds_this_pattern(folder: str) -> None:
    date_time = definitions(folder)["DateTime"]
    assert "format" not in date_time
    assert date_time["pattern"] == PATTERN, (
        "the schema's DateTime pattern differs from the one built in this test: build it here"
    )


@pytest.mark.parametrize(
    "text",
    [
        "2026-05-25T09:41:07Z",
        "2026-05-25T09:41:07.382Z",
        "2026-05-25T09:41:07.382123Z",
        "2026-05-25T09:41:07.382123456Z",
        "+10000-01-01T00:00:00Z",  # what phi-core writes past 9999
        "-0001-12-31T23:00:00Z",  # and before year 0
        "+262142-12-31T23:59:59.999999999Z",  # chrono's last day
        "-262143-01-01T00:00:00Z",  # and its first
        "2000-02-29T00:00:00Z",
        "2024-02-29T00:00:00Z",
        "0000-02-29T00:00:00Z",
        "-0004-02-29T00:00:00Z",
        "-0400-02-29T00:00:00Z",
        "+10000-02-29T00:00:00Z",  # 10000 is divisible by 400
        "+262140-02-29T00:00:00Z",  # the last leap year in range
        "2026-06-30T23:59:60.5Z",
        "2026-05-25 09:41:07 UTC",
        " 2026 - 5 - 25t 9 : 41 : 7 Z \n",
        "2026-05-25T09:41:07 +02 : 00",
        "2026-05-25T09:41:07\u221202:00",
        "0-1-1T0:0:0Z",
        "+0000000002026-05-25T09:41:07Z",
    ],
)
def test_what_phi_core_writes_and_reads_matches(text: str) -> None:
    assert accepted_by_timestamp(text), "not a timestamp phi-core reads"
    assert MATCHER.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "1900-02-29T00:00:00Z",  # a century not divisible by 400
        "2100-02-29T00:00:00Z",
        "2023-02-29T00:00:00Z",
        "-0100-02-29T00:00:00Z",
        "+10100-02-29T00:00:00Z",
        "2026-04-31T00:00:00Z",
        "2026-02-30T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "2026-00-10T00:00:00Z",
        "2026-01-00T00:00:00Z",
        "2026-05-25T24:00:00Z",
        "2026-05-25T09:60:00Z",
        "2026-05-25T09:41:61Z",
        "2026-05-25T09:41:07",  # no offset
        "2026-05-25T09:41:07+24:00",
        "2026-05-25T09:41:07+02:60",
        "2026-05-25T09:41:07+2:00",
        "2026-05-25T09:41:07+02",
        "2026-05-25\t09:41:07Z",
        "2026-05-25T09:41:07Z\x1c",
        "\uff12\uff10\uff12\uff16-05-25T09:41:07Z",  # full-width digits: Python's \d takes them
        "10000-01-01T00:00:00Z",
        "+262143-01-01T00:00:00Z",
        "-262144-12-31T23:59:59Z",
        "2026-05-25T09:41:07Zabc",
        "2026-05-25T09:41:07Z\nx",
        "1779702067382",
        "",
    ],
)
def test_what_phi_core_rejects_does_not_match(text: str) -> None:
    assert not accepted_by_timestamp(text), "phi-core reads this"
    assert not MATCHER.search(text)


@pytest.mark.parametrize(("text", "timestamp_accepts"), BOUNDARY)
def test_offsets_across_chronos_year_limits_are_the_known_difference(
    text: str, timestamp_accepts: bool
) -> None:
    assert accepted_by_timestamp(text) is timestamp_accepts
    assert bool(MATCHER.search(text)) is not timestamp_accepts


def near_limit(text: str) -> bool:
    """A year within one of chrono's limits, written with a sign: where BOUNDARY cases live."""
    match = re.match(r"[^+\-0-9]*([+-])0*([0-9]+)", text)
    return match is not None and int(match.group(2)) >= 262142


# Timestamps built from the grammar's pieces: each piece is mostly one chrono reads and sometimes
# one at or past a limit, so that both verdicts are common.
def mostly(
    valid: st.SearchStrategy[str], invalid: st.SearchStrategy[str]
) -> st.SearchStrategy[str]:
    return st.one_of(valid, valid, valid, valid, valid, invalid)


_blank = mostly(
    st.sampled_from(["", "", "", "", " ", "\t", "\n", "\u3000", "\x85", "\u2028"]),
    st.sampled_from(["\x1c", "\ufeff", "\u200b"]),
)
_year = mostly(
    st.one_of(
        st.integers(0, 9999).map(lambda year: f"{year:04d}"),
        st.integers(0, 9999).map(str),
        st.sampled_from(["0", "4", "100", "400", "1900", "2000", "2024"]),
        st.tuples(
            st.sampled_from("+-"),
            st.sampled_from(["", "0", "0000"]),
            st.sampled_from([0, 4, 100, 400, 10000, 10100, 99996, 262140, 262100])
            | st.integers(0, 262141).map(str),
        ).map(lambda parts: f"{parts[0]}{parts[1]}{parts[2]}"),
    ),
    st.sampled_from(["10000", "99999", "+262144", "-262145", "+300000", "2o26", "\uff12"]),
)


def _number(low: int, high: int, past: int) -> st.SearchStrategy[str]:
    values = st.integers(low, high)
    return mostly(
        values.map(lambda value: f"{value:02d}") | values.map(str),
        st.integers(0, past).map(str) | st.sampled_from(["", "000", "1x"]),
    )


_offset = mostly(
    st.one_of(
        st.sampled_from(["Z", "z", "UTC", "uTc", "+00:00"]),
        st.tuples(
            st.sampled_from(["+", "-", "\u2212"]),
            st.integers(0, 23).map(lambda hours: f"{hours:02d}"),
            st.sampled_from([":", "", " : ", "::", "\t"]),
            st.integers(0, 59).map(lambda minutes: f"{minutes:02d}"),
        ).map("".join),
    ),
    st.sampled_from(["", "GMT", "+01", "+1:00", "+24:00", "-02:60", "ZZ", "+0200x"]),
)


@st.composite
def timestamps(draw: st.DrawFn) -> str:
    def blank() -> str:  # a fresh run of blanks at each place
        return draw(_blank)

    day = draw(mostly(st.sampled_from(["28", "29", "30", "31"]), _number(1, 31, 40)))
    separator = draw(mostly(st.sampled_from(["T", "t", " "]), st.sampled_from(["_", "\t", "TT"])))
    fraction = draw(st.sampled_from(["", "", ".5", ".123", ".1234567891", "."]))
    return (
        f"{blank()}{draw(_year)}{blank()}-{blank()}{draw(_number(1, 12, 20))}{blank()}-{blank()}"
        f"{day}{separator}{blank()}{draw(_number(0, 23, 30))}{blank()}:{blank()}"
        f"{draw(_number(0, 59, 70))}{blank()}:{blank()}{draw(_number(0, 60, 70))}{fraction}"
        f"{blank()}{draw(_offset)}{blank()}"
    )


@settings(max_examples=150)  # drawing dominates (~40 ms an example); samples() adds 12,000
@given(timestamps())
def test_the_pattern_judges_as_timestamp_does(text: str) -> None:
    if near_limit(text):
        return  # the BOUNDARY cases: asserted above
    assert bool(MATCHER.search(text)) is accepted_by_timestamp(text), repr(text)


def samples() -> list[str]:
    """A fixed sample (the same every run) of the grammar's strings and of near misses."""
    rng = random.Random(20261123)
    pieces = [
        "2026",
        "0",
        "+10000",
        "-0001",
        "+262142",
        "-262143",
        "1900",
        "2000",
        "-",
        ":",
        "T",
        "t",
        " ",
        "Z",
        "z",
        "UTC",
        "+02:00",
        "\u221210:30",
        ".",
        "123",
        "02",
        "29",
        "31",
        "60",
        "24",
        "\n",
        "\u3000",
        "\x85",
        "\x1c",
        "\ufeff",
        "\uff12",
        "x",
    ]
    found = ["2026-05-25T09:41:07Z\n", "2026-05-25T09:41:07Z\n\n", *(text for text, _ in BOUNDARY)]
    for _ in range(12000):
        year, month, day = rng.choice(pieces[:8]), rng.randint(0, 13), rng.randint(0, 32)
        text = (
            f"{year}-{month:0{rng.choice([1, 2])}d}-{day:02d}{rng.choice('Tt _')}"
            f"{rng.randint(0, 24)}:{rng.randint(0, 60):02d}:{rng.randint(0, 61):02d}"
            f"{rng.choice(['', '.5', '.123456789012'])}"
            f"{rng.choice(['Z', 'z', ' UTC', '+02:00', '-24:00', ''])}"
        )
        for _ in range(rng.choice([0, 0, 1, 2])):  # insert a random piece somewhere
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice(pieces) + text[at:]
        found.append(text)
    return found


def test_the_pattern_judges_the_samples_as_timestamp_does() -> None:
    texts = [text for text in samples() if not near_limit(text)]
    differ = [text for text in texts if bool(MATCHER.search(text)) != accepted_by_timestamp(text)]
    assert not differ, f"the pattern and Timestamp disagree on {differ[:10]}"


def test_javascript_regexp_judges_as_python_re() -> None:
    """ajv compiles a pattern as ``new RegExp(pattern, "u")`` and tests it unanchored, as
    Python's jsonschema runs ``re.search``: the same verdict on every sample."""
    texts = samples()
    script = """
    const chunks = [];
    for await (const chunk of process.stdin) chunks.push(chunk);
    const { pattern, texts } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const matcher = new RegExp(pattern, "u");
    process.stdout.write(JSON.stringify(texts.map((text) => matcher.test(text))));
    """
    verdicts = run_node(script, {"pattern": PATTERN, "texts": texts})
    python = [bool(MATCHER.search(text)) for text in texts]
    differ = [text for text, js, py in zip(texts, verdicts, python, strict=True) if js != py]
    assert not differ, f"RegExp and re disagree on {differ[:10]}"
    assert 200 < sum(python) < len(texts) - 200, "the sample must hold both verdicts"
