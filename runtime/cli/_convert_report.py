"""What ``phi-wire convert`` reports: each input's losses and each error, as text on standard
error, or as JSON records (``--output-format json``: on standard output; ``--loss-report FILE``:
in a file written whole at the end of the run, whichever form the terminal gets).

The JSON records, one per line, as ``phi-wire validate --output-format json`` writes its own:

* a loss: ``{"file", "line", "pointer", "kind", "reason"}``: ``kind`` is ``dropped``,
  ``invented`` or ``changed``; ``line`` the input's line the pointer starts from (0: the input
  as a whole); ``pointer`` a JSON pointer into that line's document (``""``: all of it);
* an error (an input not converted, an output not written): the same fields, ``kind``
  ``"error"``, ``pointer`` ``""``, ``reason`` the one line said in text after ``file:line:``;
* after each input's losses, ``{"file": {"file", "source", "target", "documents", "entries",
  "written", "losses"}}`` (``written``: the output's path, ``-`` for standard output);
* last, ``{"summary": {...}}``: the counts (inputs, converted, errors, documents, losses, by
  kind), ``fail_on_loss``, the exit ``status`` and ``elapsed_s``.

File names are written as every message names them (``phi_wire.output.printable``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from phi_wire.output import printable

from ._shared import Output, plural

if TYPE_CHECKING:  # imported when the command runs (``_convert``), not at every start-up
    from phi_wire.convert import AtomicFile, Converted

__all__ = ["ConvertReport"]

KINDS = ("dropped", "invented", "changed")
_LINE = re.compile(r"(\d+): ")


class ConvertReport:
    """The report of one run, fed as it goes: ``error``, ``converted``, then ``finish``.
    ``json``: records on standard output (else text on standard error); ``file``: the same
    records into a ``--loss-report`` file (committed by ``finish``); ``names``: the inputs named,
    to tell a file's name from the rest of an error's line; ``before_note``: called before a
    line goes to standard error (the progress bar clears its line)."""

    def __init__(
        self,
        output: Output,
        *,
        json: bool,
        verbose: bool,
        quiet: bool,
        file: AtomicFile | None,
        names: Sequence[str],
        before_note: Callable[[], None],
    ) -> None:
        self.output = output
        self.json = json
        self.verbose = verbose
        self.quiet = quiet
        self.file = file
        self.names = sorted(set(names), key=len, reverse=True)
        self.before_note = before_note
        self.inputs = self.converted_inputs = self.errors = self.documents = 0
        self.losses = 0
        self.with_losses = 0
        self.kinds = dict.fromkeys(KINDS, 0)
        self.file_error: str | None = None
        """Why the loss report could not be written, once it could not."""

    # --- what the run feeds ---------------------------------------------------------------------

    def error(self, text: str, file: str | None = None) -> None:
        """One line that says what could not be done (``file:line: what``), or ``text`` about
        ``file`` (an output not written: ``out.jsonl: cannot write...``)."""
        self.errors += 1
        if file is None:
            file, line, reason = self._split(text)
        else:
            line, reason = 0, text
        if self.json or self.file is not None:
            self._record(self._loss_record(file, line, "", "error", reason))
        if not self.json:
            self._note(text)

    def converted(self, name: str, converted: Converted, written: str) -> None:
        """An input converted and written (``written``: where; ``-``: standard output)."""
        self.converted_inputs += 1
        self.documents += converted.documents
        counts = converted.loss_counts()
        lost = sum(counts.values())
        self.losses += lost
        self.with_losses += bool(lost)
        for (kind, _), count in counts.items():
            self.kinds[kind] = self.kinds.get(kind, 0) + count
        if self.json or self.file is not None:
            for where, loss in converted.losses:
                line = where[len(name) + 1 :] if where.startswith(name + ":") else ""
                number = int(line) if line.isdecimal() else 0
                self._record(self._loss_record(name, number, loss.pointer, loss.kind, loss.reason))
            self._record({"file": self._file_record(name, converted, written)})
        if not self.json and not self.quiet:
            self._summarise(name, converted, "standard output" if written == "-" else written)

    def finish(self, status: int, fail_on_loss: bool, elapsed: float) -> int:
        """The summary record, and the loss report in place; the run's exit status: ``status``,
        or 2 when the loss report could not be written (said in one line)."""
        summary: dict[str, Any] = {
            "inputs": self.converted_inputs + self.errors,
            "converted": self.converted_inputs,
            "errors": self.errors,
            "documents": self.documents,
            "losses": self.losses,
            "inputs_with_losses": self.with_losses,
            "kinds": self.kinds,
            "fail_on_loss": fail_on_loss,
            "status": status,
            "elapsed_s": round(elapsed, 3),
        }
        self._record({"summary": summary})
        if self.file is not None:
            try:
                self.file.commit()
            except OSError as error:
                self._file_failed(error)
        if self.file_error is not None:
            self._note(self.file_error)
            return 2
        return status

    # --- how it is said -------------------------------------------------------------------------

    def _split(self, text: str) -> tuple[str, int, str]:
        """(file, line, the rest) of a line ``file:line: what`` or ``file: what``."""
        for name in self.names:
            if text.startswith(name + ":"):
                rest = text[len(name) + 1 :].lstrip()
                match = _LINE.match(rest)
                if match is not None:
                    return name, int(match[1]), rest[match.end() :]
                return name, 0, rest
        return "", 0, text

    @staticmethod
    def _loss_record(file: str, line: int, pointer: str, kind: str, reason: str) -> dict[str, Any]:
        return {
            "file": printable(file),
            "line": line,
            "pointer": pointer,
            "kind": kind,
            "reason": printable(reason),
        }

    @staticmethod
    def _file_record(name: str, converted: Converted, written: str) -> dict[str, Any]:
        return {
            "file": printable(name),
            "source": converted.source,
            "target": converted.target,
            "documents": converted.documents,
            "entries": converted.entries,
            "written": printable(written),
            "losses": sum(converted.loss_counts().values()),
        }

    def _record(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False)
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (a key's escape): written as JSON's escape
            line = json.dumps(record)
        if self.file is not None:
            try:
                self.file.write(line + "\n")
            except OSError as error:
                self._file_failed(error)
        if self.json:
            self.output.line(line)

    def _file_failed(self, error: OSError) -> None:
        """The loss report cannot be written: nothing of it is left, the run will say so."""
        assert self.file is not None
        self.file.abort()
        self.file_error = (
            f"{self.file.path}: cannot write the loss report ({error.strerror or error}): "
            "not written"
        )
        self.file = None

    def _note(self, text: str) -> None:
        self.before_note()
        self.output.note(text)

    def _summarise(self, name: str, converted: Converted, written: str) -> None:
        """One input's losses on standard error: counted by kind and reason (``verbose``: each
        one's ``file:line /pointer`` too)."""
        counts = converted.loss_counts()
        read = plural(converted.documents, "document")
        if converted.entries:
            read = f"a session file of {plural(converted.entries, 'entry', 'entries')}"
        what = f"{name}: {converted.source} -> {converted.target}, {read}, written to {written}: "
        if not counts:
            self._note(what + "nothing lost")
            return
        self._note(what + plural(sum(counts.values()), "loss", "losses"))
        places: dict[tuple[str, str], list[tuple[str, str]]] = {}
        if self.verbose:  # the losses are kept one by one (``keep``)
            for where, loss in converted.losses:
                places.setdefault((loss.kind, loss.reason), []).append((where, loss.pointer))
        for (kind, reason), count in sorted(counts.items(), key=lambda item: -item[1]):
            self.output.note(f"  {count:,} {kind}: {reason}")
            for where, pointer in places.get((kind, reason), ()):
                self.output.note(f"    {where} {pointer or '/'}")
