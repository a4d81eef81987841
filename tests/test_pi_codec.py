"""pi's codec (runtime/formats/pi/): what ``JSON.parse`` and ``JSON.stringify`` do, byte for byte,
and what ``SessionManager.open()`` does to a file, beyond what the corpora show.

* Numbers are ``Number.prototype.toString``'s (``6e-7``, ``1e+21``, ``0.00007500000000000001``):
  checked against node itself on thousands of doubles, and strings (lone surrogates, control
  characters, non-BMP) against node's ``JSON.stringify``;
* key order: a document read keeps its order at every depth (array-index keys first, as a
  JavaScript object holds them); an object built in Python is written in pi's constructor order
  (the schema's ``properties``), a key set later after the others;
* absent is not null: an optional key read as null where pi's type has no null is refused at its
  pointer (the model could not write it back), a null pi does write (a root entry's ``parentId``)
  is kept;
* a session file: refused without its header (pi's own message), a v1 file migrated as pi
  migrates it, a problem on a line named by that line.
"""

from __future__ import annotations

import json
import math
import random
import struct

import pytest
from node import run_node

import phi_wire.pi as pi
import phi_wire.pi_0_73 as pi_0_73
from phi_wire.formats.pi.js_number import number_text

# --- numbers and strings against node ------------------------------------------------------------

NODE_TO_STRING = """
import { readFileSync } from "node:fs";
const input = JSON.parse(readFileSync(0, "utf8"));
const view = new DataView(new ArrayBuffer(8));
const numbers = input.bits.map((hex) => {
  view.setBigUint64(0, BigInt("0x" + hex));
  return JSON.stringify(view.getFloat64(0));
});
const strings = input.strings.map((s) => JSON.stringify(s));
process.stdout.write(JSON.stringify({ numbers, strings }));
"""


def doubles(count: int) -> list[float]:
    """Doubles of every magnitude (random bit patterns, seeded), and the edges of the layout
    rules (1e-7 .. 1e21, negative zero, integers past 2^53)."""
    chosen = random.Random(20)
    found = [
        struct.unpack(">d", chosen.getrandbits(64).to_bytes(8, "big"))[0] for _ in range(count)
    ]
    found += [chosen.uniform(-1e4, 1e4) * 10.0 ** chosen.randint(-12, 25) for _ in range(count)]
    for exponent in range(-9, 24):
        for mantissa in (1.0, 1.5, 7.000000000000001, 9.999999999999998):
            found.append(mantissa * 10.0**exponent)
    found += [0.0, -0.0, 6e-7, 1e21, 1e20, 7.500000000000001e-5, 2.0**53 + 2, float("inf")]
    return [value for value in found if not math.isnan(value)]


def test_numbers_are_written_as_node_writes_them() -> None:
    values = doubles(2000)
    strings = [
        "",
        'a"b\\c',
        "\x00\x1f\x7f\u2028\u2029\ufeff/",
        "\ud800",
        "x\udfffy",
        "😀",
        "\ud83d\ude00",
    ]
    bits = [struct.pack(">d", value).hex() for value in values]
    answer = run_node(NODE_TO_STRING, {"bits": bits, "strings": strings})
    wrong = [
        (value, ours, theirs)
        for value, ours, theirs in zip(
            values, map(number_text, values), answer["numbers"], strict=True
        )
        if ours != theirs
    ]
    assert not wrong, wrong[:5]
    assert len(values) > 4000
    written = [
        pi.dumps(pi.loads(pi.TextContent, json.dumps({"type": "text", "text": s}))) for s in strings
    ]
    assert written == [f'{{"type":"text","text":{text}}}' for text in answer["strings"]]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("6e-7", "6e-7"),
        ("1e21", "1e+21"),
        ("0.00007500000000000001", "0.00007500000000000001"),
        ("1.0", "1"),
        ("-0.0", "0"),
        ("100000000000000000000", "100000000000000000000"),
        ("9007199254740993", "9007199254740992"),
        ("1.5E-10", "1.5e-10"),
    ],
)
def test_a_number_read_is_written_as_pi_writes_it(text: str, expected: str) -> None:
    """``JSON.parse`` reads every number as a double; ``JSON.stringify`` writes it back."""
    usage = '{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":'
    cost = f'{{"input":{text},"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}}'
    written = pi.dumps(pi.loads(pi.Usage, usage + cost))
    assert written == usage + cost.replace(text, expected, 1)


def test_a_number_too_large_for_a_double_is_refused() -> None:
    with pytest.raises(pi.WireError, match="too large for a double"):
        pi.loads(pi.Usage, '{"input":1e999,"output":0,"cacheRead":0,"cacheWrite":0,"cost":{}}')


# --- key order -----------------------------------------------------------------------------------

FAUX = (
    '{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"t",'
    '"arguments":{"b":1,"a":{"z":0,"y":1}}}],"api":"faux","provider":"faux","model":"m",'
    '"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,'
    '"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},'
    '"stopReason":"toolUse","errorMessage":"e","responseId":"r","timestamp":1}'
)
"""The faux provider's order: errorMessage and responseId before timestamp."""


def test_a_document_keeps_its_key_order_at_every_depth() -> None:
    message = pi.loads(pi.AssistantMessage, FAUX)
    assert pi.dumps(message) == FAUX
    message.stop_reason = pi.StopReason.ERROR  # a key set again keeps its place
    assert pi.dumps(message) == FAUX.replace('"toolUse"', '"error"')


def test_array_index_keys_come_first_as_in_javascript() -> None:
    """``JSON.stringify(JSON.parse('{"b":1,"2":2}'))`` is ``{"2":2,"b":1}``."""
    text = '{"type":"toolCall","id":"c","name":"t","arguments":{"b":1,"2":2,"01":3,"1":4}}'
    written = pi.dumps(pi.loads(pi.ToolCall, text))
    assert written.endswith('"arguments":{"1":4,"2":2,"b":1,"01":3}}')


def test_an_object_built_in_python_is_written_in_pis_constructor_order() -> None:
    usage = pi.Usage(
        total_tokens=2,
        cost=pi.UsageCost(total=0, cache_write=0, cache_read=0, output=0, input=0),
        cache_write=0,
        cache_read=0,
        output=1,
        input=1,
    )
    assert pi.dumps(usage) == (
        '{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,'
        '"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}'
    )
    read = pi.loads(pi.Usage, pi.dumps(usage))
    read.reasoning = 5  # set later: appended, as a JavaScript assignment appends it
    assert pi.dumps(read).endswith('"total":0},"reasoning":5}')


# --- absent is not null ---------------------------------------------------------------------------


def test_null_where_pis_type_has_none_is_refused_at_its_pointer() -> None:
    with pytest.raises(pi.WireError) as refused:
        pi.loads(pi.AssistantMessage, FAUX.replace('"errorMessage":"e"', '"errorMessage":null'))
    assert refused.value.problems[0].pointer == "/errorMessage"
    assert "never writes null" in str(refused.value)


def test_a_null_pi_writes_is_kept() -> None:
    entry = (
        '{"type":"model_change","id":"a1b2c3d4","parentId":null,'
        '"timestamp":"2026-01-01T00:00:00.000Z","provider":"faux","modelId":"m"}'
    )
    assert pi.dumps(pi.loads(pi.SessionEntry, entry)) == entry


def test_an_optional_key_left_out_stays_out() -> None:
    message = pi.loads(pi.AssistantMessage, FAUX.replace('"errorMessage":"e",', ""))
    assert message.error_message is None
    assert '"errorMessage"' not in pi.dumps(message)


# --- session files --------------------------------------------------------------------------------

HEADER_V1 = '{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}'


def test_a_file_without_its_header_is_refused_with_pis_reason() -> None:
    headless = (
        '{"type":"model_change","id":"a1b2c3d4","parentId":null,'
        '"timestamp":"2026-01-01T00:00:00.000Z","provider":"faux","modelId":"m"}\n'
    )
    for module in (pi, pi_0_73):
        with pytest.raises(module.WireError, match="Session file is not a valid pi session"):
            module.loads(module.Session, headless)


def test_a_v1_file_is_migrated_as_pi_migrates_it() -> None:
    """ids and parentIds appended in file order, the compaction's line index replaced by that
    entry's id, hookMessage renamed custom, the header's version appended: and the file written
    as pi's _rewriteFile writes it."""
    user = (
        '{"type":"message","timestamp":"2026-01-01T00:00:01.000Z",'
        '"message":{"role":"user","content":"hi","timestamp":1}}'
    )
    hook = (
        '{"type":"message","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"hookMessage",'
        '"customType":"k","content":"c","display":true,"timestamp":2}}'
    )
    compaction = (
        '{"type":"compaction","timestamp":"2026-01-01T00:00:03.000Z","summary":"s",'
        '"firstKeptEntryIndex":2,"tokensBefore":5}'
    )
    text = "\n".join([HEADER_V1, user, hook, compaction]) + "\n"
    session = pi.loads(pi.Session, text)
    assert session.migrated_from == 1
    lines = [json.loads(line) for line in pi.dumps(session).splitlines()]
    assert list(lines[0]) == ["type", "id", "timestamp", "cwd", "version"]
    assert lines[0]["version"] == 3
    ids = [line["id"] for line in lines[1:]]
    assert all(len(found) == 8 and int(found, 16) >= 0 for found in ids) and len(set(ids)) == 3
    assert [line["parentId"] for line in lines[1:]] == [None, ids[0], ids[1]]
    assert list(lines[1])[-2:] == ["id", "parentId"]
    assert lines[2]["message"]["role"] == "custom"
    assert "firstKeptEntryIndex" not in lines[3] and lines[3]["firstKeptEntryId"] == ids[1]
    assert list(lines[3])[-1] == "firstKeptEntryId"


def test_a_problem_in_a_session_file_names_its_line() -> None:
    header = HEADER_V1.replace('"cwd":"/w"}', '"cwd":"/w","version":3}')
    good = (
        '{"type":"label","id":"a1b2c3d4","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z",'
        '"targetId":"x","label":"l"}'
    )
    bad = good.replace('"label":"l"', '"label":"l","extra":1').replace("a1b2c3d4", "b1b2c3d4")
    with pytest.raises(pi.WireError) as refused:
        pi.loads(pi.Session, "\n".join([header, good, bad]) + "\n")
    assert refused.value.line == 3
    assert refused.value.problems[0].pointer == "/extra"
    assert refused.value.problems[0].message.startswith("line 3: ")


def test_a_tag_value_that_is_also_a_key_is_not_taken_for_the_key() -> None:
    """A label entry (``{"type": "label", "label": ...}``): pydantic's location names the branch
    ``label``, which is also a key; each problem points where it is."""
    entry = (
        '{"type":"label","id":"a1b2c3d4","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z",'
        '"targetId":"x","label":"l"}'
    )
    cases = {
        entry.replace('"label":"l"', '"label":"l","extra":1'): "/extra",
        entry.replace('"label":"l"', '"label":3'): "/label",
        entry.replace('"targetId":"x",', ""): "",
    }
    for text, pointer in cases.items():
        with pytest.raises(pi.WireError) as refused:
            pi.loads(pi.SessionEntry, text)
        assert [p.pointer for p in refused.value.problems] == [pointer], refused.value.problems
