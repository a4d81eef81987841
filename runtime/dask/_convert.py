"""Converting an archive on a Dask cluster: what ``phi-wire convert`` writes, file for file and
byte for byte, each input converted by a worker that reads it (a local file or an ``s3://...``
object) and writes its output atomically where ``phi_wire.convert.plan_outputs`` says.

One task per input file, not per byte range: a conversion needs the whole file (an event
stream's events need each other, a session file is one document, the output's layout, JSON or
JSONL, is known once the input is read) and ``phi-wire convert`` writes one output per input, so
ranges would change the outputs. Each task's result is small (where the output went, the losses,
the counts; never the converted text, except for standard output), the losses are counted per
kind on the cluster (a tree of tasks, as validate's summary), and the loss report is written by
a task too. A task is pure in effect: run twice (a worker lost after writing, before reporting),
it writes the same bytes under the same name, so a lost worker costs a recomputed task, never an
output lost or written twice.
"""

from __future__ import annotations

import dataclasses
import json
import os
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from phi_wire import remote
from phi_wire.convert import (
    AtomicFile,
    Converted,
    ConvertError,
    Named,
    Outputs,
    convert_input,
    inputs_named,
    plan_outputs,
    read_input,
    write_atomically,
)

from ._extra import require
from ._sweep import new_tag, swept

if TYPE_CHECKING:
    from dask.bag import Bag
    from dask.delayed import Delayed
    from distributed import Client

__all__ = [
    "KINDS",
    "REDUCE_EVERY",
    "ConvertTotals",
    "DaskConversion",
    "Outcome",
    "convert",
    "temporaries_in",
]

KINDS = ("dropped", "invented", "changed")
REDUCE_EVERY = 16
"""Outcomes' totals joined per task of the totals' tree reduction."""


class Outcome(NamedTuple):
    """One input's conversion: what was converted (its text left out once written) and where
    it went (``-``: standard output, the text kept), or the one line saying why not."""

    name: str
    converted: Converted | None
    written: str
    error: str = ""
    """``file:line: what`` (an input not converted), or what went wrong writing ``name``'s
    output (``error_is_output``)."""
    error_is_output: bool = False


@dataclasses.dataclass
class ConvertTotals:
    """What a run adds up to, counted on the cluster: inputs, converted, errors, documents,
    losses, the inputs with losses, and the losses per kind."""

    inputs: int = 0
    converted: int = 0
    errors: int = 0
    documents: int = 0
    losses: int = 0
    inputs_with_losses: int = 0
    kinds: dict[str, int] = dataclasses.field(default_factory=lambda: dict.fromkeys(KINDS, 0))

    def joined(self, other: ConvertTotals) -> ConvertTotals:
        kinds = dict(self.kinds)
        for kind, count in other.kinds.items():
            kinds[kind] = kinds.get(kind, 0) + count
        return ConvertTotals(
            self.inputs + other.inputs,
            self.converted + other.converted,
            self.errors + other.errors,
            self.documents + other.documents,
            self.losses + other.losses,
            self.inputs_with_losses + other.inputs_with_losses,
            kinds,
        )


def convert_one(
    named: Named,
    size: int | None,
    source: str | None,
    target: str,
    version: str | None,
    outputs: Outputs,
    inputs_seen: frozenset[Any],
    tag: str = "",
) -> Outcome:
    """One input read, converted and written where ``outputs`` says (as ``phi-wire convert``
    does it): its ``Outcome``. ``size``: a URL's size from the listing (one GET reads it);
    ``inputs_seen``: the inputs' identities (``(device, inode)``, or a URL), never written over;
    ``tag``: the run's, in the names of the temporaries (swept when the run ends)."""
    name, under = named
    try:
        converted = convert_input(read_input(name, size), source, target, version)
    except ConvertError as error:
        return Outcome(name, None, "", str(error))
    where = outputs.path_for(name, under, converted.lines)
    if where is None:
        return Outcome(name, converted, "-")
    if _identity(where) in inputs_seen:
        return Outcome(
            name, None, "", f"{where}: the output would overwrite the input: not written", True
        )
    try:
        if isinstance(where, Path):  # a URL's object needs no folder
            where.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(where, [converted.text], tag)
    except OSError as error:
        reason = error.strerror or error
        return Outcome(name, None, "", f"{where}: cannot write ({reason}): not written", True)
    written = dataclasses.replace(converted, text="", documents_written=[])
    return Outcome(name, written, str(where))


def _identity(name: str | Path) -> tuple[int, int] | str | None:
    if isinstance(name, str) and remote.is_url(name):
        return name
    if name == "-":
        return None
    try:
        found = os.stat(name)
    except (OSError, ValueError):
        return None
    return found.st_dev, found.st_ino


def totals_of(outcome: Outcome) -> ConvertTotals:
    """One outcome counted."""
    if outcome.converted is None:
        return ConvertTotals(inputs=1, errors=1)
    losses = outcome.converted.losses
    kinds = dict.fromkeys(KINDS, 0)
    for _, loss in losses:
        kinds[loss.kind] = kinds.get(loss.kind, 0) + 1
    return ConvertTotals(
        1, 1, 0, outcome.converted.documents, len(losses), int(bool(losses)), kinds
    )


def _joined(parts: list[ConvertTotals]) -> ConvertTotals:
    total = ConvertTotals()
    for part in parts:
        total = total.joined(part)
    return total


def write_loss_report(
    where: str,
    outcomes: Sequence[Outcome],
    walk_errors: Sequence[str],
    totals: ConvertTotals,
    tag: str = "",
) -> str:
    """The loss report at ``where`` (a path or a URL), whole or not at all: one JSON record per
    line, as ``phi-wire convert --loss-report`` writes them: each error (``kind`` ``"error"``),
    each loss (``file``, ``line``, ``pointer``, ``kind``, ``reason``), then ``{"summary": ...}``
    with the totals. Returns ``where``."""
    with AtomicFile(where, tag) as report:
        for line in walk_errors:
            report.write(_record("", 0, "", "error", line))
        for outcome in outcomes:
            if outcome.converted is None:
                report.write(_record(outcome.name, 0, "", "error", outcome.error))
                continue
            prefix = outcome.name + ":"
            for place, loss in outcome.converted.losses:
                line = place.removeprefix(prefix) if place.startswith(prefix) else ""
                number = int(line) if line.isdecimal() else 0
                report.write(_record(outcome.name, number, loss.pointer, loss.kind, loss.reason))
        report.write(json.dumps({"summary": dataclasses.asdict(totals)}) + "\n")
        report.commit()
    return where


def _record(file: str, line: int, pointer: str, kind: str, reason: str) -> str:
    fields = {"file": file, "line": line, "pointer": pointer, "kind": kind, "reason": reason}
    return json.dumps(fields) + "\n"


class DaskConversion:
    """A conversion as Dask collections: ``outcomes`` (a bag of ``Outcome``, in input order;
    computing it writes the outputs), ``totals`` (a delayed ``ConvertTotals``), ``report`` (a
    delayed path of the loss report, or None). ``compute()`` computes them in one pass."""

    def __init__(
        self,
        inputs: list[Named],
        walk_errors: list[str],
        outputs: Outputs,
        graph: tuple[Bag, Delayed, Delayed | None],
        client: Client | None,
        sweeping: tuple[str, list[tuple[str, bool]]] = ("", []),
    ) -> None:
        self.inputs = inputs
        self.walk_errors = walk_errors
        """One line for each thing named that could not be walked (an input error)."""
        self.outputs = outputs
        self.outcomes, self.totals, self.report = graph
        self.client = client
        self.tag, self.places = sweeping
        """The run's tag in its temporaries' names, and where they may be (``temporaries_in``):
        what a worker killed mid-write left there is removed when ``compute`` ends."""

    def compute(self) -> tuple[list[Outcome], ConvertTotals]:
        """The outcomes (in input order) and the totals (the walk's errors counted in); the
        outputs and the loss report written."""
        from dask.base import compute

        wanted: list[Any] = [self.outcomes, self.totals]
        if self.report is not None:
            wanted.append(self.report)
        # unoptimised: Dask optimises a bag's graph apart from a delayed's, and would fuse each
        # conversion into the bag's tasks while the totals ran it again (every input converted
        # and written twice)
        with swept(self.places, self.tag, self.client):
            if self.client is not None:
                results = self.client.gather(self.client.compute(wanted, optimize_graph=False))
            else:
                results = compute(*wanted, optimize_graph=False)
        return list(results[0]), results[1]


def convert(
    paths: str | Sequence[str],
    *,
    target: str,
    out: str,
    source: str | None = None,
    version: str | None = None,
    client: Client | None = None,
    loss_report: str | None = None,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> DaskConversion:
    """Convert ``paths`` (files, folders, globs, URLs) to ``target`` (its ``version``: the
    newest by default) on a Dask cluster, each input's output written under the folder ``out``
    (a path or a URL prefix) as ``phi-wire convert -o OUT/`` names it; ``loss_report``: where
    the loss report goes (a path or a URL; None: none). ``client``: the cluster's (None:
    Dask's default scheduler). The paths are walked here (listings give the objects' sizes: no
    request per object before its read); the workers read, convert and write.
    ``MissingExtra`` without dask (or, for a URL, fsspec); ``OutputRefused`` when two inputs'
    outputs would be one file (nothing written)."""
    require()
    names = [paths] if isinstance(paths, str) else list(paths)
    if "-" in names:
        raise ValueError("standard input (-) cannot be read by a cluster's workers: name files")
    inputs, walk_errors = inputs_named(names, include, exclude)
    folder = out if out.endswith("/") else out + "/"
    outputs = plan_outputs([(n.name, n.under) for n in inputs], True, folder, target)
    seen = frozenset(
        found for found in map(_identity, [*names, *(n.name for n in inputs)]) if found
    )
    tag = new_tag()
    outcomes, totals, done = conversion_graph(
        inputs, walk_errors, outputs, source, target, version, seen, tag
    )
    report = None
    if loss_report is not None:
        from dask.delayed import delayed

        report = delayed(write_loss_report, pure=False)(loss_report, done, walk_errors, totals, tag)
    places = temporaries_in(outputs, loss_report)
    graph = (outcomes, totals, report)
    return DaskConversion(inputs, walk_errors, outputs, graph, client, (tag, places))


def temporaries_in(outputs: Outputs, loss_report: str | None = None) -> list[tuple[str, bool]]:
    """Where a run's temporaries can be, as ``(place, under)`` pairs for ``swept``: the output
    folder or prefix with its sub-folders, else the folder of the output file (and of the loss
    report) alone."""
    places: list[tuple[str, bool]] = []
    if outputs.url is not None:
        url = outputs.url
        places.append((url, True) if outputs.url_folder else (url.rpartition("/")[0] + "/", False))
    elif outputs.folder is not None:
        places.append((str(outputs.folder), True))
    elif outputs.file is not None:
        places.append((os.path.dirname(os.path.realpath(outputs.file)), False))
    if loss_report is not None:
        if remote.is_url(loss_report):
            places.append((loss_report.rpartition("/")[0] + "/", False))
        else:
            places.append((os.path.dirname(os.path.realpath(loss_report)), False))
    return places


def conversion_graph(
    inputs: list[Named],
    walk_errors: list[str],
    outputs: Outputs,
    source: str | None,
    target: str,
    version: str | None,
    inputs_seen: frozenset[Any],
    tag: str = "",
) -> tuple[Bag, Delayed, list[Delayed]]:
    """The tasks: one ``convert_one`` per input (keys ``convert-RUN-I``; the third item), the
    outcomes as a bag (one partition per input), and a tree of tasks adding up their totals
    with the walk's errors. ``tag``: in the names of the run's temporaries (``new_tag``; the
    caller sweeps them, ``swept``)."""
    from dask.bag import from_delayed
    from dask.delayed import delayed

    if outputs.folder is not None:
        outputs.folder.mkdir(parents=True, exist_ok=True)
    run_id = uuid.uuid4().hex
    done = [
        delayed(convert_one, pure=True)(
            named,
            _known_size(named.name),
            source,
            target,
            version,
            outputs,
            inputs_seen,
            tag,
            dask_key_name=f"convert-{run_id}-{i}",
        )
        for i, named in enumerate(inputs)
    ]
    totals: list[Any] = [delayed(totals_of, pure=True)(outcome) for outcome in done]
    totals.insert(0, ConvertTotals(inputs=len(walk_errors), errors=len(walk_errors)))
    while len(totals) > 1:
        totals = [
            delayed(_joined, pure=True)(totals[i : i + REDUCE_EVERY])
            for i in range(0, len(totals), REDUCE_EVERY)
        ]
    total = totals[0] if len(done) else delayed(totals[0])
    outcomes = from_delayed([delayed(_as_list, pure=True)(outcome) for outcome in done])
    return outcomes, total, done


def _as_list(outcome: Outcome) -> list[Outcome]:
    return [outcome]


def _known_size(name: str) -> int | None:
    """A URL's size from the listing that found it (the workers ask nothing more)."""
    if not remote.is_url(name):
        return None
    try:
        return remote.size(name)
    except OSError:
        return None
