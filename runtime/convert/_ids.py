"""The ids a conversion invents (an Operator-Use message's uuid, a session file's header id and
8-hex-digit entry ids), derived from what is converted, never random: the same input converted
twice gives the same bytes, and two documents get different ids.

* A uuid is ``uuid5(NAMESPACE, "<input name>\\n<position>\\n<content>")``: the input's name (a
  file's path as given, hashed as its bytes, UTF-8 or not; ``-`` for standard input, "" for a
  value converted in memory), the document's position in it (a JSON pointer) and its content
  (its JSON).
* An entry id is the ``n``\\ th value of an affine permutation of the 32-bit numbers keyed by a
  uuid5 of the input's name and the session's content: no two entries of one file share one.
"""

from __future__ import annotations

import hashlib
import uuid

__all__ = ["NAMESPACE", "DerivedId", "DerivedIds", "EntryIds", "derived_id"]

NAMESPACE = uuid.UUID("6f1c7a9e-3b52-5d08-9c41-2e7d5a0b8f13")
"""The namespace of every id phi-wire invents (uuid5): fixed, so ids are the same on every run."""


_NAMESPACE_BYTES = NAMESPACE.bytes


def derived_id(name: str, position: str, content: str) -> str:
    """A uuid (version 5) made from the input's name, a document's position and its content:
    ``str(uuid.uuid5(NAMESPACE, ...))``, written without its ``UUID`` object (a converted file
    derives one per message)."""
    return _uuid5_text(
        hashlib.sha1(_NAMESPACE_BYTES + _utf8(f"{name}\n{position}\n{content}")).digest()
    )


class DerivedId:
    """``derived_id(name, position, content)`` of a content given line by line (``add``: the
    lines joined by line ends), never held whole: a session file's header id, of all its
    messages."""

    __slots__ = ("_hash", "_started")

    def __init__(self, name: str, position: str) -> None:
        self._hash = hashlib.sha1(_NAMESPACE_BYTES + _utf8(f"{name}\n{position}\n"))
        self._started = False

    def add(self, line: bytes) -> None:
        """The content's next line (UTF-8)."""
        if self._started:
            self._hash.update(b"\n")
        self._started = True
        self._hash.update(line)

    def add_lines(self, lines: list[bytes]) -> None:
        """The content's next lines: ``add`` of each, in one update of the hash."""
        if lines:
            self._hash.update(b"\n".join([b"", *lines]) if self._started else b"\n".join(lines))
            self._started = True

    def id(self) -> str:
        """The id of the content given so far."""
        return _uuid5_text(self._hash.digest())


class DerivedIds:
    """``derived_id(name, position, content)`` of many documents of one input, the name's part
    of the hash taken once (``of``: a document's index, its pointer ``/<index>``, and its content
    as UTF-8 bytes, or text): a converted file derives one per message."""

    __slots__ = ("_named",)

    def __init__(self, name: str) -> None:
        self._named = hashlib.sha1(_NAMESPACE_BYTES + _utf8(f"{name}\n"))

    def of(self, index: int, content: str | bytes) -> str:
        """``derived_id(name, f"/{index}", content)``."""
        digest = self._named.copy()
        seed = content if isinstance(content, bytes) else _utf8(content)
        digest.update(b"/%d\n%b" % (index, seed))  # one update: a message's id costs little
        text = digest.hexdigest()
        return (
            f"{text[:8]}-{text[8:12]}-5{text[13:16]}-{_VARIANT[text[16]]}{text[17:20]}-"
            f"{text[20:32]}"
        )


_VARIANT = {digit: "89ab"[int(digit, 16) & 3] for digit in "0123456789abcdef"}
"""A uuid's 17th hex digit, its two top bits made RFC 4122's variant (``10``)."""


def _utf8(text: str) -> bytes:
    """A seed's bytes: UTF-8, a file name's undecodable bytes as they were (``os.fsdecode`` made
    them lone surrogates, which UTF-8 cannot encode: ``caf\\xe9.jsonl``'s ``\\udce9`` is byte
    ``0xe9`` again)."""
    return text.encode("utf-8", "surrogateescape")


def _uuid5_text(sha1: bytes) -> str:
    digest = bytearray(sha1)
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    text = digest[:16].hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


class EntryIds:
    """Eight-hex-digit ids for one file's entries, ``ids(n)`` the ``n``\\ th's: distinct for up
    to 2**32 entries, the same for the same input."""

    __slots__ = ("multiplier", "offset")

    def __init__(self, name: str, content: str) -> None:
        digest = hashlib.sha1(_NAMESPACE_BYTES + _utf8(f"entry ids\n{name}\n{content}")).digest()
        key = uuid.UUID(bytes=digest[:16], version=5).int  # uuid5's, of the name's own bytes
        self.multiplier = (key & 0xFFFFFFFF) | 1  # odd: a permutation of the 32-bit numbers
        self.offset = (key >> 32) & 0xFFFFFFFF

    def __call__(self, index: int) -> str:
        return f"{(self.multiplier * index + self.offset) & 0xFFFFFFFF:08x}"

    def ascii(self, index: int) -> bytes:
        """``ids(index)`` as bytes (a writer that writes an entry's bytes)."""
        return b"%08x" % ((self.multiplier * index + self.offset) & 0xFFFFFFFF)
