"""How pi's ``SessionManager.open()`` reads a session file, and the migrations it performs before
rewriting one (pi-coding-agent 0.73 and 1.5 alike; docs/pi.md, "Sessions").

* Loading: the text is trimmed (JavaScript's ``trim``), split on ``\\n``; blank lines and lines
  ``JSON.parse`` refuses are skipped (a trailing ``\\r`` is whitespace to it).
* The first value must be the session header (``type: "session"``): 1.5 throws ``Session file is
  not a valid pi session`` otherwise; 0.73 replaced the file with a fresh header, losing its
  content, which phi-wire never does: both refuse it.
* Migration, on JSON values in place, with JavaScript's key semantics (a key set anew is
  appended, an existing one keeps its place): below version 2 (v1: no ``version``, no ids), every
  entry after the header gets a random 8-hex ``id`` and the ``parentId`` of the entry before it
  (null for the first), both appended; a compaction's ``firstKeptEntryIndex`` (a line of the file,
  header 0) is deleted and, unless it named the header, replaced by ``firstKeptEntryId``, that
  entry's new id (appended). Below version 3: a message entry's role ``hookMessage`` becomes
  ``custom``. The header's ``version`` becomes 3. pi then rewrites the file; a v3 file is left as
  it is.
"""

from __future__ import annotations

import uuid
from typing import Any, NamedTuple

from .js_json import JsonTextError, parse
from .lines import UnreadLine

__all__ = ["CURRENT_VERSION", "JS_BLANKS", "Loaded", "NotASession", "load", "migrate"]

CURRENT_VERSION = 3
"""pi's ``CURRENT_SESSION_VERSION`` (0.73 and 1.5)."""

JS_BLANKS = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
"""What JavaScript's ``String.prototype.trim`` removes (WhiteSpace and LineTerminator)."""


class NotASession(ValueError):
    """A file pi's ``SessionManager.open()`` cannot open (``line``: where the reason is)."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


class Loaded(NamedTuple):
    """A session file as pi's loader reads it."""

    values: list[Any]
    """Each JSON value read, in file order (the header first)."""
    lines: list[int]
    """The file line (1-based) of each value."""
    unread: list[UnreadLine]
    """The lines skipped: blank, or not JSON."""
    refused: list[tuple[int, JsonTextError]]
    """The lines skipped because ``JSON.parse`` refuses them: (line, why)."""
    around: tuple[str, str]
    """The blanks the loader trims before and after the content."""
    endings: list[str]
    """What follows each value on its line (``"\r"`` in a CRLF file), kept while pi keeps the
    file as it is."""


def load(text: str) -> Loaded:
    """``loadEntriesFromFile``: the values of a session file's text; ``NotASession`` when it has
    none or its first is not a session header."""
    content = text.strip(JS_BLANKS)
    first_line = text[: len(text) - len(text.lstrip(JS_BLANKS))].count("\n") + 1
    lead = text[: len(text) - len(text.lstrip(JS_BLANKS))]
    trail = text[len(text.rstrip(JS_BLANKS)) :] if content else ""
    loaded = Loaded([], [], [], [], (lead, trail), [])
    for number, line in enumerate(content.split("\n") if content else [], start=first_line):
        if not line.strip(JS_BLANKS):
            loaded.unread.append(UnreadLine(len(loaded.values), line))
            continue
        try:
            value = parse(line)
        except JsonTextError as error:
            loaded.unread.append(UnreadLine(len(loaded.values), line))
            loaded.refused.append((number, error))
            continue
        loaded.values.append(value)
        loaded.endings.append(line[len(line.rstrip(JS_BLANKS)) :])
        loaded.lines.append(number)
    if not loaded.values:
        raise NotASession("no line of the file is JSON: not a pi session", None)
    header = loaded.values[0]
    if not isinstance(header, dict) or header.get("type") != "session":
        raise NotASession(
            "Session file is not a valid pi session: its first entry is not the session header "
            '({"type":"session",...}); pi 1.5 refuses to open it (0.73 would replace the file by '
            "a new session)",
            loaded.lines[0],
        )
    return loaded


def version_of(header: dict[str, Any]) -> int | None:
    """The header's session version (an absent one is 1), None when it is not a number."""
    version = header.get("version", 1)
    if isinstance(version, bool) or not isinstance(version, int | float):
        return None
    return int(version) if float(version).is_integer() else None


def migrate(values: list[Any]) -> int | None:
    """``migrateSessionEntries`` on the values of a file whose header is ``values[0]``: the version
    migrated from (the file is then rewritten), or None when it needs no migration."""
    header = values[0]
    version = version_of(header)
    if version is None or version >= CURRENT_VERSION:
        return None
    if version < 2:
        _v1_to_v2(values)
    _v2_to_v3(values)
    return version


def _new_id(taken: set[str]) -> str:
    """pi's ``generateId``: 8 hex digits of a random UUID, not yet used in the file."""
    while True:
        candidate = uuid.uuid4().hex[:8]
        if candidate not in taken:
            taken.add(candidate)
            return candidate


def _v1_to_v2(values: list[Any]) -> None:
    taken: set[str] = set()
    previous: str | None = None
    for entry in values:
        if not isinstance(entry, dict):
            continue
        if entry.get("type") == "session":
            entry["version"] = 2
            continue
        entry["id"] = _new_id(taken)
        entry["parentId"] = previous
        previous = entry["id"]
        if entry.get("type") == "compaction" and _is_number(entry.get("firstKeptEntryIndex")):
            index = entry.pop("firstKeptEntryIndex")
            target = values[index] if 0 <= index < len(values) and index == int(index) else None
            kept = target.get("id") if isinstance(target, dict) else None
            if isinstance(target, dict) and target.get("type") != "session" and kept is not None:
                entry["firstKeptEntryId"] = kept  # undefined (so not written) if not yet given


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _v2_to_v3(values: list[Any]) -> None:
    for entry in values:
        if not isinstance(entry, dict):
            continue
        if entry.get("type") == "session":
            entry["version"] = CURRENT_VERSION
            continue
        message = entry.get("message")
        if (
            entry.get("type") == "message"
            and isinstance(message, dict)
            and message.get("role") == "hookMessage"
        ):
            message["role"] = "custom"
