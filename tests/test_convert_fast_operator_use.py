"""Operator-Use -> phi-core without the models (``FAST_CONVERTERS``, taken by ``phi-wire convert``
for message lines and session files): for every Operator-Use document of both layouts' corpora,
corruptions of them and generated ones, the text written and the losses (file, line, pointer,
kind, reason, in order) are exactly the model path's, and so is an error; and the corpus does take
the fast path (it cannot fall back everywhere unseen).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import fixtures_root
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import phi_wire.convert._fast_whole as fast_whole
import phi_wire.convert._files as convert_files
from phi_wire.convert import Converted, FastUnsupported
from phi_wire.convert._inputs import ConvertError, read_input
from phi_wire.fastpath import fast_path
from phi_wire.formats.operator_use.convert import FAST_CONVERTERS

LAYOUTS = ("d0da87a6", "d1cdaad8")
FIRST_LANE = ("user", "assistant", "tool")


def corpus(layout: str) -> Path:
    return fixtures_root() / "operator-use" / layout


def session_files() -> list[Path]:
    return sorted(path for layout in LAYOUTS for path in (corpus(layout) / "sessions").glob("*"))


def lines_of(path: Path) -> list[str]:
    return [line for line in path.read_text("utf-8").splitlines() if line.strip()]


def session_messages(layout: str, roles: tuple[str, ...] | None = None) -> list[str]:
    """The messages of a layout's session files, each as its writer wrote it (key order kept)."""
    found = []
    for path in sorted((corpus(layout) / "sessions").glob("*")):
        for line in lines_of(path):
            entry = json.loads(line)
            if entry.get("type") == "message" and (
                roles is None or entry["message"].get("role") in roles
            ):
                found.append(
                    json.dumps(entry["message"], ensure_ascii=False, separators=(",", ":"))
                )
    return found


def message_fixtures(layout: str) -> list[Path]:
    return sorted(
        path
        for folder in ("valid", "accepted")
        for path in (corpus(layout) / folder / "AgentMessage").glob("*.json")
    )


def one_line(path: Path) -> str:
    return json.dumps(json.loads(path.read_bytes()), ensure_ascii=False, separators=(",", ":"))


Outcome = Any  # a Converted, or ("error", its one line)


class Both:
    """Converts one input twice (to ``target``), with the fast path and without, and counts the
    fast ones."""

    def __init__(
        self, folder: Path, monkeypatch: pytest.MonkeyPatch, target: str = "phi-core"
    ) -> None:
        self.folder = folder
        self.monkeypatch = monkeypatch
        self.target = target
        self.taken: list[str] = []
        monkeypatch.setattr(fast_whole, "BUILD_MIN_BYTES", 0)  # the corpus is small

    fast_ways: tuple[str, ...] = ("fast_converted",)
    """The functions of ``_fast_whole`` that ``convert_input`` converts without models by: off
    for the model run, counted for the other."""

    def outcome(self, path: Path, given: str | None, fast: bool) -> Outcome:
        for name in self.fast_ways:
            real = getattr(fast_whole, name)

            def counted(*arguments: Any, real: Any = real) -> Any:
                found = real(*arguments) if fast else None
                if found is not None:
                    self.taken.append(path.name)
                return found

            self.monkeypatch.setattr(convert_files, name, counted)
        try:
            return convert_files.convert_input(read_input(str(path)), given, self.target)
        except ConvertError as error:
            return ("error", str(error))
        finally:
            for name in self.fast_ways:
                self.monkeypatch.setattr(convert_files, name, getattr(fast_whole, name))

    def check(
        self, data: bytes | str, name: str = "in.jsonl", given: str | None = "operator-use"
    ) -> Outcome:
        """The outcome of converting ``data``, asserted the same both ways."""
        path = self.folder / name
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        models = self.outcome(path, given, fast=False)
        fast = self.outcome(path, given, fast=True)
        if isinstance(fast, Converted) and isinstance(models, Converted):
            counts = [list(item.loss_counts().items()) for item in (fast, models)]
            assert counts[0] == counts[1]  # counted as it goes: the same, in the same order
            fast = dataclasses.replace(fast, counted=None)
        assert fast == models
        return fast


@pytest.fixture
def both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Both:
    return Both(tmp_path, monkeypatch)


@pytest.mark.parametrize(
    "path", session_files(), ids=lambda path: f"{path.parent.parent.name}/{path.name}"
)
def test_every_session_file_converts_the_same_without_the_models(path: Path, both: Both) -> None:
    both.check(path.read_bytes(), path.name)
    both.check(path.read_bytes(), path.name, given=None)  # recognised as a session file


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_corpus_message_converts_the_same_without_the_models(layout: str, both: Both) -> None:
    messages = session_messages(layout)
    both.check("".join(line + "\n" for line in messages))  # tool names found across lines
    for index, line in enumerate(messages):
        both.check(line + "\n", f"message-{index}.jsonl")
    for path in message_fixtures(layout):
        both.check(one_line(path) + "\n", path.name + "l")


def test_the_corpus_takes_the_fast_path(both: Both) -> None:
    """The inputs that hold nothing the dict converters give up on are converted by them: every
    session file of message, model, thinking-level, label, leaf and session-info entries (with
    ``fork_from``'s nulls too), and
    the first-lane messages of d0da87a6 (d1cdaad8's hold keys d0da87a6 drops, whose losses the
    model path names; what else is not taken is named in ``_fast_to_phi``)."""
    for path in session_files():
        both.check(path.read_bytes(), path.name)
    for layout in LAYOUTS:
        lines = session_messages(layout, FIRST_LANE)
        both.check("".join(line + "\n" for line in lines), f"{layout}-messages.jsonl")
    assert both.taken == [
        "forked.jsonl",  # fork_from's nulls: the reader's losses
        "linear.jsonl",
        "live_nondeterministic.jsonl",
        "resumed.jsonl",
        "d0da87a6-messages.jsonl",
    ]


def objects(document: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(document, dict):
        yield pointer, document
        for key, value in document.items():
            yield from objects(value, f"{pointer}/{key}")
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from objects(value, f"{pointer}/{index}")


def at(document: Any, pointer: str) -> Any:
    for token in pointer.split("/")[1:]:
        document = document[int(token)] if isinstance(document, list) else document[token]
    return document


def compact(document: Any) -> str:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def with_each_object_changed(
    lines: list[str], change: Callable[[dict[str, Any]], None]
) -> Iterator[tuple[str, str]]:
    """For each object of each of the first ten lines in turn: the lines with that one object
    changed."""
    for number, line in enumerate(lines[:10]):
        for pointer, _ in list(objects(json.loads(line))):
            document = json.loads(line)
            change(at(document, pointer))
            changed = [*lines[:number], compact(document), *lines[number + 1 :]]
            yield f"{number}{pointer}", "".join(item + "\n" for item in changed)


def unknown_key(target: dict[str, Any]) -> None:
    target["myAppField"] = {"x": 1}


def a_null(target: dict[str, Any]) -> None:
    for key in list(target)[-1:]:
        target[key] = None


TEXTUAL = {
    "an exponent for an int": (re.compile(r'("(?:input|output)_tokens":)(\d+)'), r"\g<1>\g<2>e0"),
    "an exponent for seconds": (
        re.compile(r'("timestamp":)(\d)(\d+)\.(\d+)'),
        lambda m: f"{m[1]}{m[2]}.{m[3]}{m[4]}e{len(m[3])}",
    ),
    "a long fraction": (re.compile(r'("timestamp":\d+\.\d+)'), r"\g<1>00000000000000000000001"),
    "a float for an int": (re.compile(r'("cache_read_tokens":)(\d+)'), r"\g<1>\g<2>.0"),
    "an int for seconds": (re.compile(r'("timestamp":)(\d+)\.\d+'), r"\g<1>\g<2>"),
    "an escaped letter": (
        re.compile(r'("content":")([A-Za-z])'),
        lambda m: f"{m[1]}\\u{ord(m[2]):04X}",
    ),
    "an escaped slash": (re.compile(r'("content":")'), r"\g<1>\\/"),
    "non-ASCII": (re.compile(r'("content":")'), "\\g<1>é😀ß"),
    "U+2028 raw": (re.compile(r'("content":")'), "\\g<1>a\u2028b\u0085c"),
    "a lone surrogate": (re.compile(r'("content":")'), r"\g<1>\\ud800"),
    "a string for a bool": (re.compile(r'("is_error":)(true|false)'), r'\g<1>"\g<2>"'),
    "a string for seconds": (re.compile(r'("timestamp":)([\d.]+)'), r'\g<1>"\g<2>"'),
    "args reordered": (re.compile(r'("args":\{)'), r'\g<1>"zz":1.5,"aa":[1e400],'),
    "a big float arg": (
        re.compile(r'("args":\{)'),
        r'\g<1>"big":1e16,"small":1e-5,"n":123456789012345678901234,',
    ),
    "duplicate keys": (re.compile(r'("args":\{)'), r'\g<1>"b":1,"a":2,"b":3,'),
    "a tool kind": (re.compile(r'("type":"tool_call")'), r'\g<1>,"kind":"read"'),
    "an untagged block": (re.compile(r'"type":"text",'), ""),
    "a text block tagged thinking": (re.compile(r'"type":"text"'), '"type":"thinking"'),
}
"""Changes made to the JSON text (each where its expression matches)."""


def corruptions(lines: list[str]) -> Iterator[tuple[str, str]]:
    yield from (
        ("unknown key at " + where, text)
        for where, text in with_each_object_changed(lines, unknown_key)
    )
    yield from (
        ("null at " + where, text) for where, text in with_each_object_changed(lines, a_null)
    )
    for name, (pattern, replacement) in TEXTUAL.items():
        changed = [pattern.sub(replacement, line) for line in lines]  # type: ignore[arg-type]
        if changed != lines:
            yield name, "".join(line + "\n" for line in changed)
    yield "a blank line", "\n".join([lines[0], "", *lines[1:]]) + "\n"
    yield "CRLF line ends", "".join(line + "\r\n" for line in lines)


def test_corrupted_message_lines_convert_the_same_without_the_models(both: Both) -> None:
    lines = session_messages("d0da87a6", FIRST_LANE)
    seen = []
    for name, text in corruptions(lines):
        both.check(text)
        seen.append(name)
    assert set(TEXTUAL) <= set(seen), "every change of the text met something to change"
    assert sum(name.startswith("unknown key") for name in seen) > 20
    assert both.taken, "some corruptions (escapes, non-ASCII, reordered args) stay fast"


@pytest.mark.parametrize("name", ["linear.jsonl", "resumed.jsonl"])
def test_corrupted_session_files_convert_the_same_without_the_models(name: str, both: Both) -> None:
    lines = lines_of(corpus("d0da87a6") / "sessions" / name)
    for _, text in corruptions(lines):
        both.check(text, name)
    assert both.taken


def test_an_unknown_key_is_a_dropped_loss_whichever_check_meets_it(both: Both) -> None:
    """What vouching implies for the reader's losses: the fast path does not vouch for a line
    with a key the reader drops (so the model path names it), and the dict converter refuses
    one on its own too (so a laxer expression could not make it skip the loss)."""
    line = session_messages("d0da87a6", ("user",))[0]
    document = json.loads(line)
    document["contents"][0]["myAppField"] = 1
    vouching = fast_path("d0da87a6", ["AgentMessage"], None, True, "operator-use")
    assert vouching is not None
    assert vouching.vouches_line(line.encode())
    assert not vouching.vouches_line(compact(document).encode())
    converted = both.check(compact(document) + "\n")
    assert ("dropped", "/contents/0/myAppField") in [
        (loss.kind, loss.pointer) for _, loss in converted.losses
    ]
    with pytest.raises(FastUnsupported):
        FAST_CONVERTERS["operator-use", "phi-core", "AgentMessage"]([document], "AgentMessage")


def json_values(clean: bool) -> st.SearchStrategy[Any]:
    """Free JSON (tool arguments): ``clean``, numbers Python's ``json`` writes as phi-core
    does; else any (big ints, exponent floats too)."""
    numbers = (
        st.integers(min_value=-(2**63), max_value=2**64 - 1)
        | st.sampled_from([0.0, -0.0, 1.5, 0.1, 1234.5678, 2.5e-4])
        if clean
        else st.integers(min_value=-(2**70), max_value=2**70)
        | st.floats(allow_nan=False, allow_infinity=False)
    )
    return st.recursive(
        st.none() | st.booleans() | numbers | st.text(max_size=8),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
        ),
        max_leaves=8,
    )


texts = st.text(max_size=12)


@st.composite
def blocks(draw: st.DrawFn, clean: bool) -> dict[str, Any]:
    kinds = ["text", "thinking", "tool_call", "tool_result", "image", "audio"]
    kind = draw(st.sampled_from(kinds))
    block: dict[str, Any] = {"type": kind}
    free = st.dictionaries(st.text(max_size=4), json_values(clean), max_size=3)
    images = ["iVBORw0KGgo=", "/9j/AA", "R0lGOD", "not base64!", "https://x"]
    fields: dict[str, st.SearchStrategy[Any]] = {
        "text": {"content": texts},
        "thinking": {"content": texts, "signature": texts},
        "tool_call": {
            "id": st.sampled_from(["t1", "t2"]),
            "name": texts,
            "kind": st.sampled_from(["read", "execute"]),
            "args": free,
            "metadata": free,
        },
        "tool_result": {
            "id": st.sampled_from(["t1", "t2", "t3"]),
            "content": texts,
            "is_error": st.booleans(),
            "terminate": st.booleans(),
            "metadata": free,
        },
        "image": {"images": st.lists(st.sampled_from(images), max_size=2)},
        "audio": {"audio": st.lists(texts, max_size=2)},
    }[kind]
    for key, values in fields.items():
        if clean and key in ("kind", "terminate"):  # what the fast path leaves to loads
            continue
        if clean or draw(st.booleans()):  # clean: no block pydantic's smart union must guess
            block[key] = draw(values)
    return block


@st.composite
def messages(draw: st.DrawFn, clean: bool) -> dict[str, Any]:
    role = draw(st.sampled_from(FIRST_LANE))
    seconds = (
        st.floats(min_value=1e9, max_value=2e9) | st.integers(0, 2**53)
        if clean
        else st.floats(min_value=-1.0, max_value=2e16, allow_nan=False) | st.integers(0, 2**60)
    )
    message: dict[str, Any] = {
        "role": role,
        "contents": draw(st.lists(blocks(clean), max_size=3)),
        "id": draw(texts),
        "timestamp": draw(seconds),
    }
    if role == "assistant":
        counts = st.integers(0, 10**6) if clean else st.integers(min_value=-5, max_value=2**65)
        costs = [0.0, -0.0, 1.5] if clean else [0, 0.0, -0.0, 1.5, 3]
        usage = {
            key: draw(counts)
            for key in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
            if draw(st.booleans())
        }
        usage["cost"] = {"total": draw(st.sampled_from(costs))}
        message["usage"] = usage
        message["stop_reason"] = draw(st.sampled_from(["stop", "tool_calls", "content_filter"]))
        message["error"] = draw(st.sampled_from(["", "boom"]))
    if not clean and draw(st.integers(0, 9)) == 0:
        message[draw(st.sampled_from(["extra", "id", "timestamp"]))] = None
    return message


EXAMPLES = settings(
    max_examples=150,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@EXAMPLES
@given(st.lists(messages(clean=False), min_size=1, max_size=4))
def test_generated_messages_convert_the_same_without_the_models(
    both: Both, generated: list[dict[str, Any]]
) -> None:
    both.check("".join(compact(message) + "\n" for message in generated))


def test_generated_clean_messages_take_the_fast_path_and_convert_the_same(both: Both) -> None:
    """Messages of nothing the models read differently: the same both ways, and most of them
    fast (the fast path's expression leaves some shapes to ``loads``: deep free values...)."""
    inputs: list[str] = []

    @EXAMPLES
    @given(st.lists(messages(clean=True), min_size=1, max_size=4))
    def converted(generated: list[dict[str, Any]]) -> None:
        inputs.append(f"{len(inputs)}.jsonl")
        both.check("".join(compact(message) + "\n" for message in generated), inputs[-1])

    converted()
    assert len(both.taken) >= len(inputs) // 2


def test_an_unknown_key_off_the_active_branch_is_still_a_dropped_loss(both: Both) -> None:
    """A message entry off the active branch makes no message, but its reader still drops the
    keys it does not know: the losses name them, fast or not (the dict converter checks every
    message entry's message, not only the branch's)."""
    lines = lines_of(corpus("d0da87a6") / "sessions" / "resumed.jsonl")
    last = json.loads(lines[-1])
    off_branch = last["message"]["contents"][0]
    off_branch["myAppField"] = 1
    leaf = {"id": "deadbeef", "timestamp": last["timestamp"] + 1, "parent_id": last["id"]}
    leaf |= {"type": "leaf", "target_id": json.loads(lines[2])["id"]}  # back to the 2nd message
    text = "".join(line + "\n" for line in [*lines[:-1], compact(last), compact(leaf)])
    converted = both.check(text, "resumed.jsonl")
    with pytest.raises(FastUnsupported):  # the converter itself: not only the vouching
        entries = [json.loads(line) for line in text.splitlines()]
        FAST_CONVERTERS["operator-use", "phi-core", "SessionFile"](entries, "SessionFile")
    where = f"{both.folder / 'resumed.jsonl'}:{len(lines)}"
    assert (where, "/message/contents/0/myAppField") in [
        (place, loss.pointer) for place, loss in converted.losses
    ]
