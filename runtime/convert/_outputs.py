"""Where each input's output goes, settled before anything is converted or written: standard
output, one file, or a folder; two inputs whose outputs would be one file are refused then, not
found out when the second overwrites the first.

* ``-o`` absent or ``-``: standard output, for one input only.
* A name ending ``/`` (or an existing folder) is a folder, created if need be; so is any ``-o``
  given several inputs or a folder, unless its name is a file's: ending ``.json``, ``.jsonl``,
  ``.ndjson`` or ``.gz``, or an existing file (refused: several outputs cannot be one file).
* Any other name is one input's output file (``.gz``: written gzipped, ``phi_wire.convert``'s
  writer); a loop of symbolic links there is refused at once.
* In a folder, each output is named after its input (``output_name``); a file found under a
  folder named keeps its path under it. The suffix (``.json`` or ``.jsonl``) is known only once
  the input is read, so two inputs clash when their names agree but for it: ``a/h.jsonl`` and
  ``b/h.jsonl`` (both ``h.phi-core.jsonl``), or ``h.json`` and ``h.jsonl``, in one folder.
* ``-o`` may be a URL (``s3://bucket/out/``; the ``remote`` extra): by the same rules, a prefix
  (a name ending ``/``, or one that holds objects) for a folder, else one object; nothing is
  created before the outputs are written (an object store has no folders).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from phi_wire import remote

from ._write import resolved

__all__ = [
    "FILE_SUFFIXES",
    "OutputRefused",
    "Outputs",
    "output_name",
    "output_url",
    "plan_outputs",
]

FILE_SUFFIXES = (".json", ".jsonl", ".ndjson", ".gz")
"""A name ending so is a file's, never taken for a folder to create."""


class OutputRefused(Exception):
    """An output that cannot be written as asked, said before anything is: the message is one
    line naming it."""


def output_name(
    source: str, target: str, jsonl: bool, folder: Path, under: str | None = None
) -> Path:
    """Where an input's output goes in a folder: its name with the target format before the
    suffix (``history.jsonl`` -> ``history.phi-core.jsonl``); stdin is ``stdin``; a file found
    under a folder named keeps its path under it (``under``: ``a/history.jsonl`` ->
    ``a/history.phi-core.jsonl``)."""
    stem = _stem(source, target, folder, under)
    return stem.with_name(f"{stem.name}.{'jsonl' if jsonl else 'json'}")


def output_url(source: str, target: str, jsonl: bool, folder: str, under: str | None = None) -> str:
    """``output_name`` in a folder that is a URL's prefix (``s3://bucket/out/``)."""
    scheme, _, path = folder.partition("://")
    return f"{scheme}://{output_name(source, target, jsonl, Path(path), under).as_posix()}"


def _stem(source: str, target: str, folder: Path, under: str | None) -> Path:
    """``output_name`` without its last suffix: ``folder/a/history.phi-core``."""
    base = "stdin" if source == "-" else Path(source).name
    for suffix in (".gz", ".jsonl", ".ndjson", ".json"):
        base = base.removesuffix(suffix)
    if under is not None:
        folder = folder / Path(under).parent
    return folder / f"{base}.{target}"


@dataclass(frozen=True)
class Outputs:
    """Where a run's outputs go: into ``folder``, to ``file``, to ``url`` (a URL: a prefix
    when ``url_folder``, else one object), or (none of them) standard output."""

    target: str
    folder: Path | None = None
    file: Path | None = None
    url: str | None = None
    url_folder: bool = False

    def path_for(self, name: str, under: str | None, jsonl: bool) -> Path | str | None:
        """The file an input's output goes to: a ``Path``, a URL (``str``), or None (standard
        output)."""
        if self.url is not None:
            if self.url_folder:
                return output_url(name, self.target, jsonl, self.url, under)
            return self.url
        if self.folder is not None:
            return output_name(name, self.target, jsonl, self.folder, under)
        return self.file


def _is_folder_name(output: str) -> bool:
    return output.endswith(("/", os.sep)) or os.path.isdir(output)


def plan_outputs(
    inputs: Sequence[tuple[str, str | None]], several: bool, output: str | None, target: str
) -> Outputs:
    """Where the outputs of ``inputs`` (name, path under a folder named) go, given ``-o
    output`` (None or ``-``: standard output); ``several``: more than one input was named, or
    a folder. ``OutputRefused`` when that cannot be done as asked; the folder is not created
    here."""
    if output is None or output == "-":
        if several:
            raise OutputRefused("several inputs need -o FOLDER (where their outputs go)")
        return Outputs(target)
    shown = output
    if remote.is_url(output):
        return _plan_url(inputs, several, output, target)
    if _is_folder_name(output):
        if os.path.exists(output) and not os.path.isdir(output):
            raise OutputRefused(f"{shown}: not a folder (a file is there)")
        folder = Path(output)
    elif several:
        if output.lower().endswith(FILE_SUFFIXES) or os.path.lexists(output):
            raise OutputRefused(
                f"{shown}: several inputs need a folder, and this names a file (for a folder of "
                "that name, end it with /)"
            )
        folder = Path(output)
    else:
        try:
            resolved(output)
        except OSError as error:
            raise OutputRefused(f"{shown}: cannot write there ({error.strerror})") from None
        return Outputs(target, file=Path(output))
    _refuse_clashes(inputs, target, folder)
    return Outputs(target, folder=folder)


def _plan_url(
    inputs: Sequence[tuple[str, str | None]], several: bool, output: str, target: str
) -> Outputs:
    """``plan_outputs`` for a URL: a prefix (named with a final ``/``, or holding objects)
    takes the outputs by the rules of a folder, else it is one object."""
    try:
        remote.require(output)
        kind = "folder" if output.endswith("/") else remote.entry(output)[0]
    except remote.MissingExtra as error:
        raise OutputRefused(str(error)) from None
    except FileNotFoundError:
        kind = "none"
    except OSError as error:
        raise OutputRefused(f"{output}: cannot write there ({error})") from None
    if kind != "folder" and several:
        if output.lower().endswith(FILE_SUFFIXES) or kind == "file":
            raise OutputRefused(
                f"{output}: several inputs need a folder, and this names a file (for a folder of "
                "that name, end it with /)"
            )
        kind = "folder"
    if kind != "folder":
        return Outputs(target, url=output)
    scheme, _, path = output.partition("://")
    _refuse_clashes(inputs, target, Path(path), f"{scheme}://")
    return Outputs(target, url=output.rstrip("/") + "/", url_folder=True)


def _refuse_clashes(
    inputs: Sequence[tuple[str, str | None]], target: str, folder: Path, scheme: str = ""
) -> None:
    """``OutputRefused`` naming the first two inputs whose outputs would be one file."""
    seen: dict[Path, str] = {}
    for name, under in inputs:
        stem = _stem(name, target, folder, under)
        if stem in seen:
            raise OutputRefused(
                f"{seen[stem]} and {name} would both be written as {scheme}{stem}.json or .jsonl, "
                "one over the other (nothing was written): convert them into separate folders, "
                "or name the folder that holds them (each file found under it keeps its path "
                "under -o)"
            )
        seen[stem] = name
