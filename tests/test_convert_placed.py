"""A dict converter's losses keep their places, and their pointers are written only when read
(``phi_wire.convert._placed``, issue 19 "Fast and flat"): a streamed run that only counts its
losses (no ``-v``, json or loss report) writes none, and counts exactly what a listing run lists;
``PlacedLosses`` reads as the list of ``Loss``es it stands for."""

from __future__ import annotations

import collections
import sys
from pathlib import Path
from typing import Any

import pytest
from corpus import fixtures_root

from phi_wire.convert import Loss, loss_counts, pointer_of, streamed
from phi_wire.convert import _stream as convert_stream

STREAMS = sorted((fixtures_root() / "clark-agent" / "0.4.0" / "streams").glob("*.jsonl"))
HISTORY = sorted((fixtures_root() / "clark-agent" / "0.4.0" / "history").glob("*.jsonl"))


def test_placed_losses_read_as_their_list() -> None:
    from phi_wire.convert import PlacedLosses  # (the other test runs on a package without it)

    places: list[Any] = [(None, 0), ((None, 1), "content"), ((((None, 2), "a/b"), 3), "~x")]
    placed = PlacedLosses()
    expected = []
    for index, place in enumerate(places):
        kind = ("dropped", "invented", "changed")[index]
        placed.lose((place, kind, f"reason {index % 2}"))
        expected.append(Loss(pointer_of(place), kind, f"reason {index % 2}"))
    assert list(placed) == expected and placed == expected and len(placed) == 3
    assert placed[2] == expected[2] and placed[1:] == expected[1:]
    assert placed.counts() == loss_counts(expected)
    assert [loss.pointer for loss in placed] == ["/0", "/1/content", "/2/a~1b/3/~0x"]


def _counting_pointers(monkeypatch: pytest.MonkeyPatch) -> collections.Counter[str]:
    """Every module's ``pointer_of`` (the function, wherever it was imported to) counted."""
    calls: collections.Counter[str] = collections.Counter()
    original = pointer_of

    def counted(place: Any) -> str:
        calls["pointer_of"] += 1
        return original(place)

    for module in list(sys.modules.values()):
        if getattr(module, "pointer_of", None) is original:
            monkeypatch.setattr(module, "pointer_of", counted)
    return calls


def _run(path: Path, keep: bool) -> tuple[list[str], Any]:
    stream = streamed(str(path), "clark-agent", "phi-core", None, keep=keep)
    assert stream is not None
    written = [document for batch in stream.batches() for document in batch]
    return written, stream.converted()


@pytest.mark.parametrize("path", [*STREAMS, *HISTORY], ids=lambda path: path.name)
def test_a_run_that_counts_its_losses_writes_no_pointer(
    monkeypatch: pytest.MonkeyPatch, path: Path
) -> None:
    """The fast path taken (any size), a count-only run writes no pointer; it writes the same
    documents and counts the losses a listing run lists, which writes one pointer per loss of
    the dict converters."""
    monkeypatch.setattr(convert_stream, "FAST_MIN_BYTES", 0)
    _run(path, keep=True)  # every module the run uses imported before pointer_of is counted
    calls = _counting_pointers(monkeypatch)
    counted_written, counted = _run(path, keep=False)
    assert calls["pointer_of"] == 0
    listed_written, listed = _run(path, keep=True)
    assert calls["pointer_of"] > 0
    assert counted_written == listed_written
    assert list(counted.loss_counts().items()) == list(listed.loss_counts().items())
    assert sum(listed.loss_counts().values()) == len(listed.losses) > 0


def test_a_pair_without_phi_core_keeps_the_first_steps_placed_losses() -> None:
    """``via_hub`` (a dict converter of a pair without phi-core: first step, then second) adds
    the second step's losses to the first step's ``PlacedLosses`` (noted ``VIA_HUB``), so no
    pointer of the first step is written unless the losses are read. On the merged tree before
    this test it listed them (``[*losses, ...]``, every pointer written): it knew only
    the loss columns of an earlier design."""
    from phi_wire.convert import VIA_HUB, PlacedLosses, via_hub

    def first(documents: list[dict[str, Any]], kind: str) -> tuple[list[dict[str, Any]], Any]:
        placed = PlacedLosses()
        placed.lose(((None, 0), "dropped", "first"))
        return documents, placed

    def second(documents: list[dict[str, Any]], kind: str) -> tuple[list[dict[str, Any]], Any]:
        return documents, [Loss("/0/x", "changed", "second")]

    out, losses = via_hub(first, second)([{"a": 1}], "AgentMessage")
    assert out == [{"a": 1}]
    assert isinstance(losses, PlacedLosses)
    assert list(losses) == [
        Loss("/0", "dropped", "first"),
        Loss("/0/x", "changed", f"second {VIA_HUB}"),
    ]


def test_a_placed_second_step_is_noted_without_a_pointer_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A second step's placed losses added with a note (``extend``) are kept as they are: adding
    and counting them writes no pointer and rebuilds no entry (main's ``extend`` read each as a
    ``Loss``, a pointer each; this branch's first one rebuilt each with its reason noted); read,
    they are the noted list, the same reason noted only where the second step lost it."""
    from phi_wire.convert import PlacedLosses

    first, second = PlacedLosses(), PlacedLosses()
    first.lose(((None, 0), "dropped", "same"))
    first.lose(((None, 1), "key", "changed", "first"))
    second.lose(((None, 0), "dropped", "same"))
    second.lose((((None, 2), "content"), 1, "invented", "second"))
    calls = _counting_pointers(monkeypatch)
    first.extend(second, "(noted)")
    counts = first.counts()
    assert calls["pointer_of"] == 0
    assert first.entries[2:] == second.entries  # kept as they are: none rebuilt to note it
    expected = [
        Loss("/0", "dropped", "same"),
        Loss("/1/key", "changed", "first"),
        Loss("/0", "dropped", "same (noted)"),
        Loss("/2/content/1", "invented", "second (noted)"),
    ]
    assert list(first) == expected and len(first) == 4
    assert [first[index] for index in range(-4, 4)] == expected + expected
    assert first[1:3] == expected[1:3]
    assert counts == loss_counts(expected)
    assert list(counts) == list(loss_counts(expected))
    first.lose(((None, 3), "dropped", "same"))  # after the noted ones: not noted
    assert first[4] == Loss("/3", "dropped", "same") and list(first)[4] == first[4]
    assert first.counts() == loss_counts([*expected, first[4]])
