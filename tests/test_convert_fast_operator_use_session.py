"""An Operator-Use session file converted without the models (to phi-core, and to clark-agent
through it): what the fast path holds and builds, beside what ``test_convert_fast_operator_use``
and ``test_convert_fast_via_hub`` prove of its output (the same text and losses as the model
path's). A run that only counts the losses (no ``-v``, no report) makes no ``Loss`` object: they
are kept placed (``PlacedLosses``) and made when read.
"""

from __future__ import annotations

import gc
import json
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_convert_fast_operator_use import Both, compact, corpus, messages

import phi_wire.convert._fast_whole as fast_whole
import phi_wire.convert._files as convert_files
import phi_wire.formats.operator_use._fast_to_phi as fast_to_phi
import phi_wire.formats.operator_use.session_tree as session_tree
import phi_wire.operator_use as ou
from phi_wire.convert import (
    Converted,
    FastUnsupported,
    Loss,
    convert_input,
    read_input,
)

TARGETS = ("phi-core", "clark-agent")


_CODE = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)
"""Not followed: classes, modules and functions (their globals reach the whole process)."""


def reachable(root: object) -> Iterator[object]:
    """Every object reachable from ``root`` but through code (``gc.get_referents``: tracked by
    the collector or not, as a tuple of strings may no longer be)."""
    seen = {id(root)}
    pending = [root]
    while pending:
        found = pending.pop()
        yield found
        for item in gc.get_referents(found):
            if id(item) not in seen and not isinstance(item, _CODE):
                seen.add(id(item))
                pending.append(item)


def session_file(tmp_path: Path, name: str = "linear.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes((corpus("d0da87a6") / "sessions" / name).read_bytes())
    return path


def converted_fast(path: Path, target: str, monkeypatch: pytest.MonkeyPatch) -> Converted:
    monkeypatch.setattr(fast_whole, "BUILD_MIN_BYTES", 0)  # the corpus is small
    taken: list[bool] = []
    real = fast_whole.fast_converted

    def counted(*arguments: Any) -> Any:
        found = real(*arguments)
        taken.append(found is not None)
        return found

    monkeypatch.setattr(convert_files, "fast_converted", counted)
    converted = convert_input(read_input(str(path)), "operator-use", target)
    assert taken == [True], "the session file takes the fast path"
    return converted


@pytest.mark.parametrize("target", TARGETS)
def test_a_run_that_counts_the_losses_makes_no_loss_object(
    target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before its losses are read, nothing reachable from the conversion is a ``Loss`` (main
    held one per loss: 165,682 on 10 MB, the collector walked them all); they are counted all
    the same, and made once read, the same as the model path's (``Both``)."""
    path = session_file(tmp_path)
    converted = converted_fast(path, target, monkeypatch)
    assert not [item for item in reachable(converted) if isinstance(item, Loss)]
    counts = converted.loss_counts()
    assert sum(counts.values()) > 20
    placed = converted.losses
    assert len(placed) == sum(counts.values())
    assert all(isinstance(loss, Loss) for _, loss in placed)
    Both(tmp_path, monkeypatch, target).check(path.read_bytes(), path.name)


class Entry:
    """An entry as the tree walk reads it (its fields as attributes)."""

    def __init__(self, type: str, id: Any, parent_id: Any, target_id: Any = None) -> None:
        self.type = type
        self.id = id
        self.parent_id = parent_id
        self.target_id = target_id

    def __repr__(self) -> str:
        return f"Entry({self.type!r}, {self.id!r}, {self.parent_id!r}, {self.target_id!r})"


_IDS = st.sampled_from(["a", "b", "c", "d", "", None])
_ENTRIES = st.builds(
    Entry,
    st.sampled_from(["message", "message", "leaf", "session", "model_change", "label"]),
    _IDS,
    _IDS,
    _IDS,
)


def chains(entries: list[Entry]) -> list[Entry]:
    """Entries rewritten as a chain (each the child of the one before), most of the time."""
    previous: Any = None
    for index, entry in enumerate(entries):
        if entry.type != "session":
            entry.id = entry.id if entry.id else f"id{index}"
            entry.parent_id = previous
            previous = entry.id
    return entries


@given(st.lists(_ENTRIES, max_size=12).map(chains) | st.lists(_ENTRIES, max_size=12))
def test_the_ordered_pass_finds_the_branch_the_walk_finds(entries: list[Entry]) -> None:
    """``_chained`` (one ordered pass, for entries written one after the other) gives exactly
    what walking the parent ids from the leaf gives, or leaves it to the walk."""
    walked = session_tree._walked([entry for entry in entries if entry.type != "session"])
    assert session_tree._active_branch(entries) == walked


def test_a_chain_is_found_without_a_dict_of_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    entries = chains(
        [Entry("session", "h", None)] + [Entry("message", None, None) for _ in range(50)]
    )
    walks: list[int] = []
    monkeypatch.setattr(session_tree, "_walked", lambda body: walks.append(len(body)) or [])
    assert session_tree._active_branch(entries) == entries[1:]
    assert walks == []
    entries[-1].type = "leaf"  # its target the leaf: walked
    session_tree._active_branch(entries)
    assert walks == [50]


@settings(max_examples=100, deadline=None)
@given(messages(clean=True))
def test_a_message_is_made_its_writers_form_in_place(message: dict[str, Any]) -> None:
    """``_message`` fills the defaults into the dict it is given (no copy of the message, its
    usage, cost or blocks): what it returns is that dict, equal to what Operator-Use's writer
    writes of the model its reader reads (timestamps as the floats pydantic reads)."""
    text = compact(message)
    try:
        written = json.loads(ou.dumps(ou.loads(ou.AgentMessage, text)))
    except ou.WireError:
        return
    given = json.loads(text)
    try:
        made = fast_to_phi._message(given)
    except FastUnsupported:
        return  # what the models read otherwise: the model path's
    assert made is given
    assert made == written
