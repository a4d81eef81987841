"""``phi_wire.validate``: judge persisted JSON as strictly as phi-core reads it, at scale.

    from phi_wire.validate import validate

    run = validate(["sessions/", "logs/events.jsonl.gz"], version="0.10")
    for record in run:  # one Record per problem, in input order
        print(record.text())  # file:line: Type Variant /json/pointer: what was expected, found
    print(run.tally.valid, run.tally.invalid, run.tally.input_errors)

Inputs (``_inputs``): files, folders and ``-`` (stdin); ``.json`` files hold one document,
``.jsonl``/``.ndjson`` one per line, any of them gzipped. Each document's type is detected from
its keys (``_detect``) unless ``type`` names one, and it is judged exactly as ``loads`` judges it
(``_judge``; with ``strict``, also whether phi-core would write it so), unless the fast path
vouches for it (``_fastpath``: an expression compiled from the models that matches only documents
``loads`` accepts, cached between runs by ``_cache``). ``jobs`` > 1 spreads the work over
processes (``_parallel``). The ``phi-wire validate`` command (``phi_wire.cli``) prints this.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from phi_wire.formats import find, newest

from ._detect import detect_raw as detect
from ._fastpath import fast_path_for
from ._inputs import find_files, input_size, is_lines_file
from ._parallel import default_jobs, judge_files
from ._records import InputError, Record, Tally

__all__ = [
    "FAST_BUILD_MIN_BYTES",
    "InputError",
    "Record",
    "Tally",
    "Validation",
    "default_jobs",
    "detect",
    "validate",
]

FAST_BUILD_MIN_BYTES = 16 * 1024 * 1024
"""Inputs from this size on build the fast path when it is not cached (compiling it takes about a
second; ``loads`` judges some 10 MB a second)."""


def prepare_fast_paths(version: str, forced: str | None, names: list[str]) -> None:
    """Load the fast paths the inputs need from the cache, or build one when its inputs are worth
    a second of compiling: one for JSONL lines, one for whole .json documents (one with a type)."""
    sizes = {True: 0, False: 0}  # lines or not: bytes
    for name in names:
        if name != "-":
            sizes[is_lines_file(name)] += input_size(name)
    if forced is not None:
        fast_path_for(version, forced, build=sum(sizes.values()) >= FAST_BUILD_MIN_BYTES)
        return
    for lines, size in sizes.items():
        if size:
            fast_path_for(version, None, build=size >= FAST_BUILD_MIN_BYTES, lines=lines)


class Validation:
    """One run of the validator: iterate it for the records; ``tally`` counts as it goes."""

    def __init__(
        self,
        paths: Iterable[str],
        version: str,
        type: str | None,
        strict: bool,
        jobs: int,
        on_progress: Callable[[int], None] | None,
    ) -> None:
        self.names = list(find_files(paths))
        self.version = version
        self.type = type
        self.strict = strict
        self.jobs = jobs
        self.on_progress = on_progress
        self.tally = Tally()

    @property
    def total_bytes(self) -> int:
        """The bytes the named files hold (stdin not counted; gzip: uncompressed)."""
        return sum(input_size(name) for name in self.names if name != "-")

    def __iter__(self) -> Iterator[Record]:
        tally = self.tally
        if not self.strict:
            prepare_fast_paths(self.version, self.type, self.names)
        for outcome in judge_files(self.names, self.version, self.type, self.strict, self.jobs):
            if outcome is None:  # a file starts
                tally.files += 1
                continue
            if isinstance(outcome, InputError):
                tally.input_errors.append(str(outcome))
                yield Record(str(outcome), 0, "", "", "", str(outcome), True, whole_file=True)
                continue
            tally.documents += outcome.documents
            tally.invalid += outcome.invalid
            tally.bytes += outcome.size
            if self.on_progress is not None:
                self.on_progress(outcome.size)
            for record in outcome.records:
                if record.unreadable:
                    tally.input_errors.append(record.text())
                yield record


def validate(
    paths: Iterable[str],
    *,
    version: str | None = None,
    type: str | None = None,
    strict: bool = False,
    jobs: int = 1,
    on_progress: Callable[[int], None] | None = None,
) -> Validation:
    """Judge the documents in ``paths`` (files, folders, ``-`` for stdin) as phi-core ``version``
    (default: the newest) reads them; iterate the result for one ``Record`` per problem.

    ``type`` judges every document as that wire type (else each one's type is detected);
    ``strict`` also flags what phi-core accepts but never writes; ``jobs`` worker processes;
    ``on_progress(bytes)`` is called as each chunk of input is done. A missing path raises
    ``InputError``; a file that cannot be read yields a record with ``whole_file`` set.
    """
    entry = newest() if version is None else find(version)
    return Validation(paths, entry.version, type, strict, jobs, on_progress)
