"""A JSONL input's batches converted one after the other, all of one type: each line the
source's fast path vouches for by the format folder's dict converter (``_fast``), any other one
read by the source's ``loads`` and converted by the model converter, in runs of consecutive
lines, so that the documents and losses come in line order, as converting the batch's models
would give them. Used for whole inputs (``_files._convert_batches``) and streamed ones
(``_stream``)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from phi_wire.fastpath import FastPath
from phi_wire.formats import find
from phi_wire.recognise import type_in

from ._documents import MODULES, _dumped, _read_documents, _where
from ._fast import (
    AbsentNulls,
    FastConverter,
    FastUnsupported,
    absent_nulls,
    dumped,
    fast_converter,
    line_path,
    parsed,
    runs,
)
from ._inputs import ConvertError, Input
from ._serde_floats import SERDE_READ
from ._types import Conversion, Loss, UnsupportedConversion, loss_counts

__all__ = ["Batch", "Batches"]

_TEXT = operator.itemgetter(1)


@dataclass
class Batch:
    """One batch converted: its documents as the target writes them (no line end), the losses
    of reading them and the converter's (each with its ``file:line``), in line order."""

    written: list[str] = field(default_factory=list)
    read: list[tuple[str, Loss]] = field(default_factory=list)
    losses: list[tuple[str, Loss]] = field(default_factory=list)
    counted: dict[tuple[str, str], int] = field(default_factory=dict)
    """The converter's losses by (kind, reason), in the order each first came, where they are
    counted, not placed (``Batches.places`` false): none of them is made (``PlacedLosses``:
    no pointer written)."""


class Batches:
    """Converts a JSONL input's batches one after the other, all of one type (the first
    document's): each line its source's fast path vouches for by its format folder's dict
    converter (``_fast``), any other line read by the source's ``loads`` and converted by the
    model converter that ``converter_for`` gives for the type (None: this type is not converted
    batch by batch). Runs of consecutive lines go one way or the other, so the documents and
    losses come in line order, as converting the batch's models would give them."""

    def __init__(
        self,
        source: Input,
        format: str,
        target: str,
        converter_for: Callable[[str], Callable[[list[Any]], Conversion[Any]] | None],
        fast: bool,
        places: bool = True,
        fast_for: Callable[[str], FastConverter | None] | None = None,
        undo: Callable[[], None] | None = None,
    ) -> None:
        self.source = source
        self.format = format
        self.target = target
        self._module: Any = None
        self.converter_for = converter_for
        self.use_fast = fast
        """Whether to take the fast path (an input of ``FAST_MIN_BYTES`` or more)."""
        self.fast_for = fast_for or (lambda kind: fast_converter(format, target, kind))
        """The dict converter of a type (by default, from the format folder's table)."""
        self.undo = undo
        """Called when a run is handed back after the dict converter converted it (one of its
        documents cannot be written as the fast path writes): a converter that carries a state
        from run to run takes that run's part back."""
        self.places = places
        """Whether the converter's losses are given their ``file:line`` (else they are only
        counted: ``Batch.counted``)."""
        self.kind: str | None = None
        self.converter: Callable[[list[Any]], Conversion[Any]] | None = None
        self.path: FastPath | None = None
        self.nulls: AbsentNulls | None = None
        self.fast: FastConverter | None = None
        self.vouched = 0
        """The lines converted by the dict converters (the fast path taken)."""

    @property
    def module(self) -> Any:
        """The source's models (imported when a line first takes the model path)."""
        if self._module is None:
            self._module = find(MODULES[self.format], self.format).load()
        return self._module

    def _start(self, first: tuple[int, bytes]) -> bool:
        """The type of the first document (all the batches' type) and what converts it: the
        type its shape has when the fast path for that type vouches for it (``loads`` accepts
        it as that type, so ``_read_documents`` names it so), else what ``loads`` reads it as."""
        guess: str | None = None
        if self.use_fast:
            try:
                guess = type_in(self.format, parsed(first[1]))
            except ValueError:
                guess = None
            if guess is not None:
                self.fast = self.fast_for(guess)
            if self.fast is not None and guess is not None:
                self.path = line_path(self.format, MODULES[self.format], guess, True)
                if self.path is not None and self.path.vouches_line(first[1]):
                    self.kind = guess
        if self.kind is None:
            _, types, _ = _read_documents(self.source, [first], self.module, self.format)
            self.kind = types[0]
            if self.fast is not None and self.kind != guess:
                self.fast = self.path = None
        if self.path is not None:
            self.nulls = absent_nulls(self.format, MODULES[self.format])
        self.converter = self.converter_for(self.kind)
        return self.converter is not None

    def convert(self, batch: list[tuple[int, bytes]]) -> Batch | None:
        """One batch converted; None when a document is of another type than the first one's,
        or the type has no converter here. ``ConvertError`` (one line) at a document that
        cannot be read or converted."""
        if self.kind is None and not self._start(batch[0]):
            return None
        done = Batch()
        for vouched, run in runs(batch, self.path, self.format in SERDE_READ):
            if vouched and self._fast_run(run, done):
                continue
            for part in [[line] for line in run] if vouched and len(run) > 1 else [run]:
                # a run the dict converter handed back: each line by it, or by the models
                if not (vouched and self._fast_run(part, done)) and not self._model_run(part, done):
                    return None
        return done

    def _fast_run(self, run: list[tuple[int, bytes]], done: Batch) -> bool:
        """A run of vouched lines by the dict converter; False (nothing done) when it hands a
        document back, or one cannot be read or written as the fast path reads and writes."""
        assert self.fast is not None and self.kind is not None
        try:
            documents = list(map(parsed, map(_TEXT, run)))
            nulls = self.nulls
            if nulls is not None:
                for (_, text), document in zip(run, documents, strict=True):
                    # ``may_have``'s first look, in C: most lines hold no null at all
                    if b'":null' in text and nulls.may_have(text) and nulls.found(document):
                        return False  # the model path's reading names that null
            converted, losses = self.fast(documents, self.kind)
        except (FastUnsupported, ValueError):
            return False
        try:
            written = list(map(dumped, converted))
        except ValueError:
            if self.undo is not None:
                self.undo()
            return False
        done.written += written
        self._converter_losses(run, losses, done)
        self.vouched += len(run)
        return True

    def _model_run(self, run: list[tuple[int, bytes]], done: Batch) -> bool:
        assert self.converter is not None
        values, types, read = _read_documents(self.source, run, self.module, self.format)
        if any(name != self.kind for name in types):
            return False
        try:
            result = self.converter(values)
        except UnsupportedConversion as error:
            raise ConvertError(f"{self.source.name}: {error}") from None
        del values
        done.written += _dumped(result.value, self.target)[0]
        done.read += read
        self._converter_losses(run, result.losses, done)
        return True

    def _converter_losses(
        self, run: list[tuple[int, bytes]], losses: Sequence[Loss], done: Batch
    ) -> None:
        if not self.places:  # counted (in C), in the order each first came
            counts = loss_counts(losses)
            counted = done.counted
            for key, count in counts.items():
                counted[key] = counted.get(key, 0) + count
            return
        lines = [line for line, _ in run]
        for loss in losses:
            where, pointer = _where(self.source, lines, True, loss.pointer)
            done.losses.append((where, Loss(pointer, loss.kind, loss.reason)))
