"""An Operator-Use session file converted without the models (to phi-core, and to clark-agent
through it): what the fast path holds and builds, beside what ``test_convert_fast_operator_use``
and ``test_convert_fast_via_hub`` prove of its output (the same text and losses as the model
path's). A run that only counts the losses (no ``-v``, no report) makes no ``Loss`` object: they
are kept as columns (``LossColumns``) and made when read.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_convert_fast_operator_use import Both, corpus

import phi_wire.convert._fast_whole as fast_whole
import phi_wire.convert._files as convert_files
from phi_wire.convert import (
    VIA_HUB,
    Converted,
    Loss,
    LossColumns,
    convert_input,
    loss_counts,
    read_input,
    via_hub,
)

TARGETS = ("phi-core", "clark-agent")


def reachable(root: object) -> Iterator[object]:
    """Every object reachable from ``root`` (``gc.get_referents``: tracked by the collector or
    not, as a tuple of strings may no longer be)."""
    seen = {id(root)}
    pending = [root]
    while pending:
        found = pending.pop()
        yield found
        for item in gc.get_referents(found):
            if id(item) not in seen and not isinstance(item, type):
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


def test_loss_columns_read_as_the_list_of_their_losses() -> None:
    listed = [
        Loss("/1/id", "dropped", "a"),
        Loss("/2/timestamp", "changed", "b"),
        Loss("/1/meta", "dropped", "a"),
        Loss("", "invented", "a"),
    ]
    columns = LossColumns()
    for loss in listed:
        columns.add(*loss)
    assert list(columns) == listed
    assert len(columns) == 4
    assert columns[1] == listed[1] and columns[-1] == listed[-1]
    assert list(columns[1:3]) == listed[1:3]
    assert all(type(loss) is Loss for loss in columns)
    assert loss_counts(columns) == loss_counts(listed)
    assert list(loss_counts(columns).items()) == [
        (("dropped", "a"), 2),
        (("changed", "b"), 1),
        (("invented", "a"), 1),
    ]


def test_the_second_step_through_phi_core_keeps_the_first_steps_columns() -> None:
    """``via_hub`` adds the second step's losses (noted) to the first's columns instead of
    making a list of every ``Loss``; a list from the first step stays a list."""

    def first_columns(documents: list[dict[str, Any]], kind: str) -> Any:
        columns = LossColumns()
        columns.add("/0/id", "dropped", "first")
        return documents, columns

    def first_list(documents: list[dict[str, Any]], kind: str) -> Any:
        return documents, [Loss("/0/id", "dropped", "first")]

    def second(documents: list[dict[str, Any]], kind: str) -> Any:
        return documents, [Loss("/0/model", "dropped", "second")]

    for first in (first_columns, first_list):
        _, losses = via_hub(first, second)([{}], "SessionFile")
        assert isinstance(losses, LossColumns) == (first is first_columns)
        assert [loss.reason.split()[0] for loss in losses] == ["first", "second"]
        assert list(losses)[1].reason == f"second {VIA_HUB}"
