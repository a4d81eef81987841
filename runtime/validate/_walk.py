"""Which files a run reads: the paths named, and under each folder named the files whose names
say JSON (``.json``, ``.jsonl``, ``.ndjson``, each optionally ``.gz``, in any letter case), in
sorted order.

Under a folder, hidden entries (a name starting with ``.``: ``.git``, ``.venv``,
``.hypothesis``...) and vendored folders (``node_modules``, ``__pycache__``, ``site-packages``,
and any folder holding a Python environment's ``pyvenv.cfg``) are skipped unless
``all_folders``; a path named explicitly is always read. ``--include``/``--exclude`` patterns
(``_select``) choose among the files under a folder. What cannot be walked is reported, never
skipped in silence: a path that does not exist, a folder that cannot be read, a symbolic link that
leads back into a folder it is in, a folder named that holds nothing to read.

A URL (``s3://bucket/prefix/``, ``phi_wire.remote``) is walked the same way: an object is a
file named, a prefix a folder (its keys split at ``/`` are the names the rules above look at), and
a glob (``s3://bucket/2025-*/*.jsonl.gz``) stands for what it matches, as a shell's glob does.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

from phi_wire import remote

from ._records import INPUT, NOTE, Record
from ._select import Selection

__all__ = [
    "DOCUMENT",
    "LINES",
    "SKIPPED_FOLDERS",
    "Walk",
    "is_json_name",
    "named_layout",
]

LINES = "lines"
"""One document per line (JSONL)."""
DOCUMENT = "document"
"""The whole file is one document."""

_DOCUMENT_SUFFIXES = (".json",)
_LINES_SUFFIXES = (".jsonl", ".ndjson")

SKIPPED_FOLDERS = frozenset(
    {"node_modules", "__pycache__", "site-packages", "dist-packages", "bower_components"}
)
"""Folders of other people's files, skipped under a folder (as are hidden ones and Python
environments) unless ``all_folders``."""


def named_layout(name: str) -> str | None:
    """The layout a file's name says: ``LINES`` for .jsonl/.ndjson, ``DOCUMENT`` for .json
    (either optionally .gz, in any letter case); None for other names and stdin."""
    base = name.lower().removesuffix(".gz")
    if base.endswith(_LINES_SUFFIXES):
        return LINES
    if base.endswith(_DOCUMENT_SUFFIXES):
        return DOCUMENT
    return None


def is_json_name(name: str) -> bool:
    return named_layout(name) is not None


def _folder_id(status: os.stat_result) -> tuple[int, int]:
    return status.st_dev, status.st_ino


class Walk:
    """The files to read (names in order) and what could not be walked (records)."""

    def __init__(
        self,
        paths: Iterable[str],
        all_folders: bool = False,
        selection: Selection | None = None,
        nothing: str = "nothing to validate",
    ) -> None:
        self.all_folders = all_folders
        self.nothing = nothing
        """What a folder with no file to read is said to have (``nothing to convert``...)."""
        self.selection = selection or Selection()
        """The ``--include``/``--exclude`` patterns, for the files under a folder named."""
        self.left_out = 0
        """Files (and folders) under the folders named that the patterns left out."""
        self.entries: list[str | Record] = []
        """File names (``-`` for stdin) and ``INPUT``/``NOTE`` records, in the order found."""
        for name in paths:
            self._add(name)

    @property
    def names(self) -> list[str]:
        return [entry for entry in self.entries if isinstance(entry, str)]

    @property
    def records(self) -> list[Record]:
        return [entry for entry in self.entries if isinstance(entry, Record)]

    def _add(self, name: str) -> None:
        if name == "-":
            self.entries.append(name)
            return
        if remote.is_url(name):
            self._add_url(name)
            return
        try:
            status = os.stat(name)
        except OSError as error:
            reason = "no such file or folder" if isinstance(error, FileNotFoundError) else None
            self._error(name, reason or f"cannot read ({error.strerror or error})")
            return
        if not stat.S_ISDIR(status.st_mode):
            self.entries.append(name)
            return
        before = len(self.entries)
        left_out = self.left_out
        skipped: list[str] = []
        self._walk(name, [_folder_id(status)], {_folder_id(status): name}, skipped, ())
        self._nothing_found(name, before, left_out, skipped)

    def _nothing_found(self, name: str, before: int, left_out: int, skipped: list[str]) -> None:
        """An error for a folder named in which the walk found no file to read."""
        if not any(isinstance(entry, str) for entry in self.entries[before:]):
            found = "no .json, .jsonl or .ndjson files in this folder"
            if self.left_out > left_out:
                found = "--include/--exclude left out every file in this folder"
            more = ""
            if skipped:
                shown = ", ".join(os.path.basename(folder) for folder in skipped[:3])
                more = f"; skipped {len(skipped)} hidden or vendored: {shown}" + (
                    "..." if len(skipped) > 3 else ""
                )
            self._error(name, f"{self.nothing}: {found}{more}")

    def _add_url(self, name: str) -> None:
        """An object, a prefix (walked as a folder), or a glob (each match as if named)."""
        try:
            if remote.has_glob(name):
                matches = remote.glob(name)
                if not matches:
                    self._error(name, "no such file or folder: the pattern matches nothing")
                for kind, url in matches:
                    if kind == "file":
                        self.entries.append(url)
                    else:
                        self._walk_url(url)
                return
            kind, _ = remote.entry(name)
        except FileNotFoundError:
            self._error(name, "no such file or folder")
            return
        except OSError as error:
            self._error(name, f"cannot read ({error.strerror or error})")
            return
        if kind == "file":
            self.entries.append(name)
        else:
            self._walk_url(name)

    def _walk_url(self, prefix: str) -> None:
        """The objects under a prefix, by the rules of a folder: JSON names, hidden and vendored
        folders skipped (a Python environment: a folder holding ``pyvenv.cfg``), the patterns."""
        before, left_out = len(self.entries), self.left_out
        try:
            found = remote.files_under(prefix)
        except OSError as error:
            self._error(prefix, f"cannot read folder ({error.strerror or error})")
            return
        base = prefix.rstrip("/") + "/"
        keys = [entry.url.removeprefix(base).split("/") for entry in found]
        environments = {tuple(names[:-1]) for names in keys if names[-1] == "pyvenv.cfg"}
        skipped: dict[str, None] = {}
        for entry, names in zip(found, keys, strict=True):
            if not is_json_name(names[-1]):
                continue
            folders = [tuple(names[:depth]) for depth in range(1, len(names))]
            hidden = next((path for path in folders if self._hidden(path, environments)), None)
            if hidden is not None:
                skipped[base + "/".join(hidden)] = None
                continue
            if names[-1].startswith(".") and not self.all_folders:
                continue
            if any(self.selection.skips_folder(path) for path in folders):
                self.left_out += 1
            elif self.selection.reads_file(names):
                self.entries.append(entry.url)
            else:
                self.left_out += 1
        self._nothing_found(prefix, before, left_out, list(skipped))

    def _hidden(self, folder: tuple[str, ...], environments: set[tuple[str, ...]]) -> bool:
        """Whether a folder under a prefix is skipped (hidden, vendored, an environment)."""
        if self.all_folders:
            return False
        name = folder[-1]
        return name.startswith(".") or name in SKIPPED_FOLDERS or folder in environments

    def _error(self, name: str, message: str, kind: str = INPUT) -> None:
        self.entries.append(Record(name, 0, "", "", "", message, kind))

    def _skipped(self, entry: os.DirEntry[str]) -> bool:
        if self.all_folders:
            return False
        if entry.name.startswith(".") or entry.name in SKIPPED_FOLDERS:
            return True
        return os.path.exists(os.path.join(entry.path, "pyvenv.cfg"))

    def _walk(
        self,
        folder: str,
        ancestors: list[tuple[int, int]],
        seen: dict[tuple[int, int], str],
        skipped: list[str],
        relative: tuple[str, ...],
    ) -> None:
        """Depth first, entries sorted by name (the order of sorted full paths); ``relative``:
        the folder's names under the folder named (what the patterns are matched against)."""
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as error:
            self._error(folder, f"cannot read folder ({error.strerror or error})")
            return
        for entry in entries:
            try:
                is_folder = entry.is_dir()  # through symbolic links
            except OSError:
                is_folder = False
            names = (*relative, entry.name)
            if not is_folder:
                if is_json_name(entry.name) and (
                    self.all_folders or not entry.name.startswith(".")
                ):
                    if self.selection.reads_file(names):
                        self.entries.append(entry.path)
                    else:
                        self.left_out += 1
                continue
            if self._skipped(entry):
                skipped.append(entry.path)
                continue
            if self.selection.skips_folder(names):
                self.left_out += 1
                continue
            try:
                identity = _folder_id(entry.stat())
            except OSError as error:
                self._error(entry.path, f"cannot read folder ({error.strerror or error})")
                continue
            if identity in ancestors:
                self._error(
                    entry.path,
                    f"symbolic link loop: leads back to {seen[identity]}, not followed",
                )
                continue
            if identity in seen:
                self._error(entry.path, f"the same folder as {seen[identity]}: read once", NOTE)
                continue
            seen[identity] = entry.path
            self._walk(entry.path, [*ancestors, identity], seen, skipped, names)
