"""A file whose JSON more than one format writes takes the format of its folder: what the other
files beside it are. A `{"type": "agent_start"}` is clark-agent's and pi-agent-core's alike; in a
folder of pi's events it is pi's, and is never called valid clark-agent beside them.

The rule (docs/validate.md, "Formats"): a file whose documents are only *possible* claims of
their formats (``Recognised.also`` names the others that fit) is judged as the fitting format the
other files of its folder show most: first the one most of them are *certainly* in, then the one
whose JSON most of them have, then ``ORDER``. The formats it did not take stay named as ones that
could have written it (``also``). Only the files directly in the same folder count, looked at as
recognition looks at a file (a JSON document whole, a JSONL file by its first lines), at most
``FOLDER_FILES`` of them and ``FOLDER_HEAD_BYTES`` of each (gzip: inflated): the work is bounded,
and done once per folder per run and process, only when an ambiguous file is met. A URL's folder is
the prefix it is in (``phi_wire.remote``).
"""

from __future__ import annotations

import os
import zlib
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from phi_wire import remote
from phi_wire.recognise import (
    ORDER,
    Recognised,
    parse,
    recognise,
    recognise_documents,
    recognise_lines,
)

from ._plan import first_documents
from ._walk import is_json_name

__all__ = ["FOLDER_FILES", "FOLDER_HEAD_BYTES", "folder_claims", "forget_folders", "settled"]

FOLDER_FILES = 256
"""The files of a folder looked at (the first, by name)."""
FOLDER_HEAD_BYTES = 64 * 1024
"""The bytes of each looked at: a whole document up to this size, else a JSONL file's first
lines."""
_GZIP_MAGIC = b"\x1f\x8b"


class FolderClaims:
    """What the files of one folder are: per format, how many are certainly its, and how many
    have its JSON (certainly or possibly)."""

    def __init__(self) -> None:
        self.certain: Counter[str] = Counter()
        self.fitting: Counter[str] = Counter()

    def add(self, found: Recognised) -> None:
        if found.certain:
            self.certain[found.format] += 1
        for format in (found.format, *found.also):
            self.fitting[format] += 1

    def best(self, formats: Iterable[str]) -> str | None:
        """The one of ``formats`` the folder shows most (None: it shows none of them)."""
        shown = [format for format in formats if self.fitting[format]]
        if not shown:
            return None
        return max(
            shown, key=lambda name: (self.certain[name], self.fitting[name], -ORDER.index(name))
        )


def _head(path: str) -> bytes | None:
    """The first ``FOLDER_HEAD_BYTES`` (and one more) of a file, inflated if gzip; None if it
    cannot be read."""
    try:
        if remote.is_url(path):
            with remote.open_url(path) as stored:
                raw = stored.read(FOLDER_HEAD_BYTES + 1)
        else:
            with open(path, "rb") as handle:
                raw = handle.read(FOLDER_HEAD_BYTES + 1)
    except OSError:
        return None
    if raw.startswith(_GZIP_MAGIC):
        try:
            return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, FOLDER_HEAD_BYTES + 1)
        except zlib.error:
            return None
    return raw


def _file_claim(path: str) -> Recognised | None:
    """What one file of the folder is, as recognition sees it (None: nothing, or unreadable)."""
    head = _head(path)
    if head is None or not head.strip():
        return None
    if len(head) <= FOLDER_HEAD_BYTES:
        try:
            return recognise(parse(head))
        except (ValueError, RecursionError):
            pass  # JSONL, or not JSON: its lines
    return recognise_lines(first_documents(head))


@lru_cache(maxsize=64)
def folder_claims(folder: str) -> FolderClaims:
    """What the files directly in ``folder`` (JSON names, not hidden) are."""
    claims = FolderClaims()
    try:
        if remote.is_url(folder):
            listed = (entry.url for entry in remote.children(folder))
            names = sorted(url for url in listed if _json_file(url.rpartition("/")[2]))
        else:
            names = _folder_files(folder)
    except OSError:
        return claims
    for path in names[:FOLDER_FILES]:
        found_claim = _file_claim(path)
        if found_claim is not None:
            claims.add(found_claim)
    return claims


def _json_file(name: str) -> bool:
    return is_json_name(name) and not name.startswith(".")


def _folder_files(folder: str) -> list[str]:
    """The JSON files directly in a local folder, sorted (``OSError`` if it cannot be read)."""
    with os.scandir(folder) as listing:
        return sorted(entry.path for entry in listing if _json_file(entry.name))


def forget_folders() -> None:
    """Forget what folders were found to hold (at the start of a run: their files may have
    changed since the last run in this process)."""
    folder_claims.cache_clear()


def settled(
    found: Recognised | None, file: str, documents: Callable[[], list[Any]], lines: bool
) -> Recognised | None:
    """``found`` (what ``documents`` were recognised as: a .json file's one document, or a JSONL
    file's first lines with ``lines``), or when it is only a possible claim, the fitting format
    its folder shows most (with the formats it did not take in ``also``)."""
    if found is None or found.certain or not found.also or file == "-":
        return found
    fitting = (found.format, *found.also)
    best = folder_claims(os.path.dirname(file) or ".").best(fitting)
    if best is None or best == found.format:
        return found
    among = (best,)
    if lines:
        taken = recognise_lines(documents(), among=among)
    else:
        taken = recognise_documents(documents(), among=among)
    if taken is None:
        return found
    also = tuple(format for format in ORDER if format in fitting and format != best)
    return taken._replace(certain=False, also=also)
