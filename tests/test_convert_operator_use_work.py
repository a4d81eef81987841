"""What Operator-Use's dict converters to phi-core do per run (issue 19, "Fast and flat"): a fast
conversion of a session file or of message lines, to phi-core or on through it to clark-agent,
imports no model (the shapes it checks documents against are plain data, each equal to its
model's), and a run that only counts its losses adds none by its pointer and writes no pointer
(each loss is kept with its place, ``PlacedLosses``), counting exactly what a listing run lists."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_convert_fast_operator_use import corpus, session_messages
from test_convert_imports import heavy, imported
from test_convert_placed import _counting_pointers

import phi_wire.convert._fast_whole as fast_whole
import phi_wire.operator_use as ou
from phi_wire.convert import VIA_HUB, Losses, convert_input, read_input

TARGETS = ("phi-core", "clark-agent")


def big_session(folder: Path, size: int = 1_200_000) -> Path:
    """The corpus' linear session, its entries (but the header) repeated in one chain, each
    with a fresh id and the one before it as its parent, past ``size`` bytes (past the size
    from which a run builds the fast path's expression: it is then taken in any cache)."""
    header, *body = (corpus("d0da87a6") / "sessions" / "linear.jsonl").read_text().splitlines()
    entries = [json.loads(line) for line in body]
    lines = [header]
    total, number, parent = len(header), 0, None
    while total < size:
        for entry in entries:
            number += 1
            copy: dict[str, Any] = {}
            for key, value in entry.items():  # in the writer's order: the fast path's
                if key != "parent_id":
                    copy[key] = f"{number:08x}" if key == "id" else value
                if key == "timestamp" and parent is not None:
                    copy["parent_id"] = parent
            parent = copy["id"]
            line = json.dumps(copy, separators=(",", ":"), ensure_ascii=False)
            lines.append(line)
            total += len(line) + 1
    path = folder / "session.jsonl"
    path.write_text("".join(line + "\n" for line in lines), "utf-8")
    return path


def message_lines(folder: Path, size: int = 1_200_000) -> Path:
    lines = session_messages("d0da87a6")
    text = "".join(line + "\n" for line in lines)
    path = folder / "messages.jsonl"
    path.write_text(text * (size // len(text) + 1), "utf-8")
    return path


def test_the_wire_shapes_are_the_models() -> None:
    """Every shape the dict converter checks is its model's: keys, nullable keys (and whether
    the writer skips their None), and the closed sets and the order of the cost's keys."""
    from phi_wire.formats.operator_use import _wire_shapes as shapes  # (not on main)

    for shape in shapes.SHAPES:
        assert shapes.shape_of(getattr(ou, shape.name)) == shape
    assert tuple(ou.UsageCost.model_fields) == shapes.COST_KEYS
    assert {reason.value for reason in ou.StopReason} == shapes.STOP_REASONS
    assert {kind.value for kind in ou.ToolKind} == shapes.TOOL_KINDS


@pytest.mark.parametrize("made", [big_session, message_lines], ids=["session", "messages"])
@pytest.mark.parametrize("target", TARGETS)
def test_a_fast_conversion_imports_no_model(tmp_path: Path, made: Any, target: str) -> None:
    """The second run (the first may build the fast path's expression, which reads the models)
    imports none of the models, pydantic's ``BaseModel`` or the engine, and writes what the
    first wrote."""
    given = made(tmp_path)
    arguments = ["convert", "--from", "operator-use", "--to", target, str(given)]
    first, _ = imported(tmp_path, [*arguments, "-o", str(tmp_path / "first.jsonl")])
    status, modules = imported(tmp_path, [*arguments, "-o", str(tmp_path / "second.jsonl")])
    assert first == status == 0
    assert (tmp_path / "first.jsonl").read_bytes() == (tmp_path / "second.jsonl").read_bytes()
    assert heavy(modules) == [], heavy(modules)
    assert "phi_wire.formats.operator_use._fast_to_phi" in modules  # the dict converter ran


def _counting_adds(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """The losses added by their pointer (``Losses.add``), counted."""
    calls = {"add": 0}
    real = Losses.add

    def counted(self: Any, *arguments: Any) -> None:
        calls["add"] += 1
        real(self, *arguments)

    monkeypatch.setattr(Losses, "add", counted)
    return calls


@pytest.mark.parametrize("target", TARGETS)
def test_a_session_file_run_that_counts_its_losses_writes_no_pointer(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, target: str
) -> None:
    """The session file taken by the dict converter: counting its losses adds none by pointer
    and writes no pointer, of either step's (to clark-agent, the second step's are placed too:
    before, it wrote one per loss as it found them, 77,000 in 30 MB); listing them writes one
    per loss and counts the same, in the same order."""
    monkeypatch.setattr(fast_whole, "BUILD_MIN_BYTES", 0)
    path = big_session(tmp_path, 200_000)
    convert_input(read_input(str(path)), "operator-use", target)  # every module imported
    adds = _counting_adds(monkeypatch)
    pointers = _counting_pointers(monkeypatch)
    converted = convert_input(read_input(str(path)), "operator-use", target)
    assert converted.entries > 100
    counted = converted.loss_counts()
    second = sum(count for (_, reason), count in counted.items() if reason.endswith(VIA_HUB))
    assert adds["add"] == 0 and pointers["pointer_of"] == 0
    assert (second > 0) == (target == "clark-agent")
    listed = converted.losses
    first_step = [loss for _, loss in listed if not loss.reason.endswith(VIA_HUB)]
    assert pointers["pointer_of"] == second + len(first_step)
    assert len(first_step) > converted.entries and adds["add"] == 0
    in_order: dict[tuple[str, str], int] = {}
    for _, loss in listed:
        in_order[loss.kind, loss.reason] = in_order.get((loss.kind, loss.reason), 0) + 1
    assert list(counted.items()) == list(in_order.items())


def _chain_variants(tmp_path: Path) -> list[list[str]]:
    """Session files as lines: the corpus' (chains or not), a long chain, and that chain with a
    null parent id, a null meta, a label, a leaf in the middle and one at the end (then not a
    chain), a broken link and an id twice (not chains)."""
    files = [
        path.read_text("utf-8").splitlines()
        for path in sorted((corpus("d0da87a6") / "sessions").glob("*.jsonl"))
    ]
    chain = big_session(tmp_path, 30_000).read_text("utf-8").splitlines()
    files.append(chain)
    entries = [json.loads(line) for line in chain]

    def varied(index: int, **changes: Any) -> list[str]:
        changed = [dict(entry) for entry in entries]
        changed[index].update(changes)
        return [json.dumps(entry, separators=(",", ":")) for entry in changed]

    message = next(index for index, entry in enumerate(entries) if entry["type"] == "message")
    files.append(varied(message, parent_id=None))
    files.append(varied(message, meta=None))
    files.append(varied(len(entries) - 1, type="leaf", target_id=entries[3]["id"]))
    files.append(varied(message, parent_id="nothing"))
    files.append(varied(message, id=entries[1]["id"]))
    last = {"id": "ffffffff", "timestamp": 1.5, "parent_id": entries[-1]["id"], "type": "leaf"}
    files.append([*chain, json.dumps({**last, "target_id": entries[2]["id"]})])
    label = {"id": "fffffffe", "timestamp": 1.5, "parent_id": entries[-1]["id"], "type": "label"}
    files.append([*chain, json.dumps({**label, "target_id": entries[2]["id"], "label": "x"})])
    return files


def test_a_chain_in_one_pass_gives_what_the_tree_walk_gives(tmp_path: Path) -> None:
    """A session file that is one chain (``_chain_sources``, one pass) gives the sources and
    the losses, in order, that walking its tree gives (``_tree_sources``: ``context_parts``
    and ``session_sources``), or is refused alike; the corpus' files and variants of a long
    chain (nulls, labels, leaves, broken links, an id twice) among them."""
    import phi_wire.formats.operator_use._fast_to_phi as fast_to_phi
    from phi_wire.convert import FastUnsupported, PlacedLosses

    chains = 0
    for lines in _chain_variants(tmp_path):
        documents = [json.loads(line) for line in lines]
        if not fast_to_phi._is_chain(documents):
            continue
        chains += 1
        outcomes = []
        for sources in (fast_to_phi._chain_sources, fast_to_phi._tree_sources):
            losses = PlacedLosses()
            try:
                made = sources(json.loads(json.dumps(documents)), losses)
            except FastUnsupported:
                outcomes.append(None)
                continue
            outcomes.append((made, list(losses)))
        assert outcomes[0] == outcomes[1]
    assert chains >= 5


def test_a_chain_takes_no_tree_walk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A session file written as one chain is converted without walking its tree
    (``context_parts`` is not called) and writes what the model path writes."""
    import phi_wire.formats.operator_use._fast_to_phi as fast_to_phi

    monkeypatch.setattr(fast_whole, "BUILD_MIN_BYTES", 0)
    path = big_session(tmp_path, 200_000)
    walks = {"context_parts": 0}
    real = fast_to_phi.context_parts

    def counted(entries: Any) -> Any:
        walks["context_parts"] += 1
        return real(entries)

    monkeypatch.setattr(fast_to_phi, "context_parts", counted)
    fast = convert_input(read_input(str(path)), "operator-use", "phi-core")
    assert walks["context_parts"] == 0
    monkeypatch.setattr(fast_whole, "fast_converted", lambda *arguments: None)
    import phi_wire.convert._files as convert_files

    monkeypatch.setattr(convert_files, "fast_converted", lambda *arguments: None)
    slow = convert_input(read_input(str(path)), "operator-use", "phi-core")
    assert fast.text == slow.text and list(fast.losses) == list(slow.losses)


def test_placed_losses_of_a_parent_and_key_read_as_their_list() -> None:
    """A loss added as (parent, key, kind, reason) reads as the loss at ``(parent, key)``,
    beside those added as (place, kind, reason) and those ``extend`` adds with their pointers
    written (noted when a note is given), in the order they came; counted alike."""
    from phi_wire.convert import Loss, PlacedLosses, loss_counts, pointer_of

    placed = PlacedLosses()
    placed.lose(((None, 3), "message", "dropped", "a"))
    placed.lose(((None, 4), "changed", "b"))
    placed.lose(((((None, 5), "message"), "usage"), "a/b", "dropped", "a"))
    placed.extend([Loss("/7/x", "invented", "c")], "(noted)")
    placed.extend([Loss("/8", "dropped", "a")])
    expected = [
        Loss("/3/message", "dropped", "a"),
        Loss(pointer_of((None, 4)), "changed", "b"),
        Loss("/5/message/usage/a~1b", "dropped", "a"),
        Loss("/7/x", "invented", "c (noted)"),
        Loss("/8", "dropped", "a"),
    ]
    assert list(placed) == expected and placed == expected and len(placed) == 5
    assert placed[2] == expected[2] and placed[3:] == expected[3:]
    assert list(placed.counts().items()) == list(loss_counts(expected).items())
