"""Which files under a folder a run reads, by ``--include`` and ``--exclude`` glob patterns: a
folder of stored documents often holds other JSON too (``manifest.json``, ``package.json``, JSON
Schemas), which no format's reader would be given.

The matching rule (``phi-wire validate --help`` and docs/validate.md say the same):

* A path is matched as it stands under the folder named on the command line, with ``/`` between
  names: in ``phi-wire validate corpus/``, the file ``corpus/pi/valid/a.json`` is
  ``pi/valid/a.json``. Files named on the command line are always read.
* A pattern without a ``/`` matches a file's or a folder's own name, at any depth
  (``manifest.json``, ``*.schema.json``, ``rejected``); a pattern with one matches the whole
  path from the named folder (``pi/*/valid``, ``**/streams/*.jsonl``). ``*``, ``?`` and
  ``[...]`` match within one name (case-sensitive); ``**`` matches any number of folders,
  none included. A pattern that ends in ``/`` matches folders only.
* A pattern that matches a folder matches everything in it. ``--exclude``: a matching file is
  not read, a matching folder not walked. ``--include`` (when given): only the files that match
  one of the patterns are read. Exclusion wins.

Each name is matched with the standard library's ``fnmatch.fnmatchcase``; only the splitting into
names and ``**`` are done here.
"""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase
from typing import NamedTuple

__all__ = ["Selection"]


class _Pattern(NamedTuple):
    names: tuple[str, ...]
    """The pattern's names, split at ``/`` (``**``: any number of folders)."""
    anywhere: bool
    """No ``/`` in it: it matches one name at any depth."""
    folders_only: bool
    """It ends in ``/``."""

    @classmethod
    def of(cls, text: str) -> _Pattern:
        folders_only = text.endswith("/")
        text = text.strip("/")
        names = tuple(name for name in text.split("/") if name not in ("", "."))
        return cls(names or ("*",), "/" not in text, folders_only)

    def matches(self, names: Sequence[str], folder: bool) -> bool:
        """Whether the path ``names`` (a file's or, with ``folder``, a folder's) matches."""
        if self.folders_only and not folder:
            return False
        if self.anywhere:
            return fnmatchcase(names[-1], self.names[0])
        return _match(self.names, tuple(names))


def _match(pattern: tuple[str, ...], names: tuple[str, ...]) -> bool:
    if not pattern:
        return not names
    if pattern[0] == "**":
        return any(_match(pattern[1:], names[skip:]) for skip in range(len(names) + 1))
    return bool(names) and fnmatchcase(names[0], pattern[0]) and _match(pattern[1:], names[1:])


class Selection:
    """``--include`` and ``--exclude`` patterns, asked about paths under a named folder (as
    tuples of names from it)."""

    def __init__(self, include: Sequence[str] = (), exclude: Sequence[str] = ()) -> None:
        self.include = tuple(_Pattern.of(text) for text in include)
        self.exclude = tuple(_Pattern.of(text) for text in exclude)

    def __bool__(self) -> bool:
        return bool(self.include or self.exclude)

    def skips_folder(self, names: Sequence[str]) -> bool:
        """Whether a folder (and all it holds) is excluded."""
        return any(pattern.matches(names, folder=True) for pattern in self.exclude)

    def reads_file(self, names: Sequence[str]) -> bool:
        """Whether a file is read: excluded by no pattern, and included by one when any are
        given (a file is included when it, or a folder it is in, matches)."""
        if any(pattern.matches(names, folder=False) for pattern in self.exclude):
            return False
        if not self.include:
            return True
        return any(
            pattern.matches(names[:depth], folder=depth < len(names))
            for pattern in self.include
            for depth in range(1, len(names) + 1)
        )
