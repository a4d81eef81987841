"""Every JSON document of the corpus of each registered version, with the wire type it is judged
as: what the cross-language tests (``tests/test_typescript.py``) feed to ``tsc``, to the generated
JavaScript validators and to Python's jsonschema, for any format the registry lists.

A registered version (``phi_wire.formats.VERSIONS``) finds its corpus by name:
``<fixtures>/<format>/<release>/`` where the release is the version itself (a commit, Operator-Use's
``d0da87a6``) or a release of it (``0.10`` -> ``0.10.0``). A version without a corpus is an error.

Which text of a fixture is a document, by the manifest's kind:

* ``valid-canonical``, ``session-file``, ``derived``, ``written-unreadable``: ``file``, written by
  the implementation itself (the first three can be read back: ``WRITTEN``);
* ``accepted-noncanonical``: ``input_file`` and ``canonical_file``;
* ``rejected``: ``input_file``;
* ``unserializable``: none (the implementation could not write the value).

JSON Lines files are one document per line: a fixture whose ``format`` (``canonical_format`` for
the canonical file) says ``jsonl``, and every file of a type that *is* a JSON Lines document
(``x-jsonl``: an Operator-Use ``SessionFile``), whose lines are judged as its item type
(``SessionFileEntry``). Text that is not UTF-8 is skipped: neither ``JSON.parse`` nor a schema
sees it.

OpenTelemetry GenAI's corpus is laid out otherwise (``otel-genai/instrumented/`` and
``otel-genai/spec/``, each with its own manifest: ``otel_genai_corpus``): each message document
is a fixture of its attribute's type, ``valid-canonical`` (the emitters wrote it; phi-wire writes
its bytes back) when the official schema of that version, read from the corpus, accepts it, else
``rejected``; each item of a valid document (a message, a part, a tool) is a document of the
item's type too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any, NamedTuple

from corpus import Fixture, fixtures_root, manifest
from jsonschema import Draft202012Validator

from phi_wire.formats import WireVersion
from schemas import jsonl_item_type

WRITTEN = ("valid-canonical", "session-file", "derived")
"""The kinds whose files the implementation wrote and reads back: valid documents."""
KINDS = (*WRITTEN, "accepted-noncanonical", "rejected", "written-unreadable")
"""Every kind with a document (``unserializable`` has none)."""
FILE_KEYS = {"accepted-noncanonical": ("input_file", "canonical_file"), "rejected": ("input_file",)}
"""The manifest keys naming a kind's documents; ``file`` for the others."""


class Document(NamedTuple):
    fixture: Fixture
    type_name: str
    """The wire type the text is judged as (a session file's line: its entry type)."""
    text: str
    where: str
    """``file``, ``input_file`` or ``canonical_file``, with ``:<line>`` for a JSON Lines line."""


def release_of(entry: WireVersion) -> str:
    """The corpus folder of a registered version: ``0.10`` -> ``0.10.0``, ``d0da87a6`` itself."""
    folder = fixtures_root() / entry.format
    found = sorted(
        path.name
        for path in (folder.iterdir() if folder.is_dir() else ())
        if (path / "manifest.json").is_file()
        and (path.name == entry.version or path.name.startswith(f"{entry.version}."))
    )
    if len(found) != 1:
        raise RuntimeError(
            f"{entry.label}: expected one corpus at {folder}/{entry.version}[.*], found {found}"
        )
    return found[0]


OTEL_TYPES = {
    "gen_ai.input.messages": ("InputMessages", "ChatMessage"),
    "gen_ai.output.messages": ("OutputMessages", "OutputMessage"),
    "gen_ai.system_instructions": ("SystemInstructions", "SystemInstructionPart"),
    "gen_ai.tool.definitions": ("ToolDefinitions", "ToolDefinition"),
}
"""Each attribute's document type and its items' type."""


@cache
def _official(version: str, attribute: str) -> Draft202012Validator:
    folder = "schemas-2026-05" if version == "2026-05" else "schemas"
    name = "gen-ai-" + attribute.removeprefix("gen_ai.").replace(".", "-").replace("_", "-")
    path = fixtures_root() / "otel-genai" / "spec" / folder / f"{name}.json"
    return Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))


def otel_genai_corpus(entry: WireVersion) -> list[Fixture]:
    """OpenTelemetry GenAI's message documents as fixtures of ``entry``'s version."""
    root = fixtures_root() / "otel-genai"
    found: list[Fixture] = []
    for part, kind_key, path_key in (("instrumented", "kind", "file"), ("spec", "kind", "path")):
        listed = json.loads((root / part / "manifest.json").read_text(encoding="utf-8"))["files"]
        for item in listed:
            if item[kind_key] not in ("message_attribute", "message"):
                continue
            text = (root / part / item[path_key]).read_text(encoding="utf-8")
            valid = _official(entry.version, item["attribute"]).is_valid(json.loads(text))
            record: dict[str, Any] = {
                "id": item[path_key],
                "kind": "valid-canonical" if valid else "rejected",
                "type": OTEL_TYPES[item["attribute"]][0],
                "attribute": item["attribute"],
                "file" if valid else "input_file": item[path_key],
            }
            found.append(Fixture(part, record, "otel-genai"))
    return found


def corpus(entry: WireVersion, *kinds: str) -> list[Fixture]:
    """The fixtures of a registered version's corpus (of ``kinds``, or all)."""
    if entry.format == "otel-genai":
        every = otel_genai_corpus(entry)
        return [fixture for fixture in every if not kinds or fixture.kind in kinds]
    every = manifest(release_of(entry), entry.format)
    return [fixture for fixture in every if not kinds or fixture.kind in kinds]


def is_jsonl(fixture: Fixture, key: str) -> bool:
    shown = fixture.entry.get("canonical_format" if key == "canonical_file" else "format")
    return str(shown or "").startswith("jsonl")


def has_text(entry: WireVersion, fixture: Fixture) -> bool:
    """Whether the fixture has a document: every file does but a JSON Lines file without a line
    (an empty session file), and not-UTF-8 text."""
    for key in FILE_KEYS.get(fixture.kind, ("file",)):
        if key not in fixture.entry:
            continue
        raw = fixture.read(key)
        lines = jsonl_item_type(entry.folder, fixture.type_name) or is_jsonl(fixture, key)
        if (raw or not lines) and raw.decode("utf-8", "ignore").encode() == raw:
            return True
    return False


def documents(entry: WireVersion, *kinds: str) -> Iterator[Document]:
    """Every document of the version's corpus (of ``kinds``, or of every kind in ``KINDS``)."""
    for fixture in corpus(entry, *(kinds or KINDS)):
        line_type = jsonl_item_type(entry.folder, fixture.type_name)
        for key in FILE_KEYS.get(fixture.kind, ("file",)):
            if key not in fixture.entry:
                continue
            try:
                text = fixture.read(key).decode("utf-8")
            except UnicodeDecodeError:
                continue
            if entry.format == "pi":
                yield from pi_documents(fixture, key, text)
                continue
            if "attribute" in fixture.entry:
                yield Document(fixture, fixture.type_name, text, key)
                if fixture.kind in WRITTEN:  # then its messages, parts or tools
                    item_type = OTEL_TYPES[fixture.entry["attribute"]][1]
                    for number, item in enumerate(json.loads(text)):
                        item_text = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
                        yield Document(fixture, item_type, item_text, f"{key}/{number}")
                continue
            if line_type is None and not is_jsonl(fixture, key):
                yield Document(fixture, fixture.type_name, text, key)
                continue
            lines = text.split("\n")
            if lines[-1] == "":
                lines.pop()  # the newline that ends the last line
            for number, line in enumerate(lines, start=1):
                yield Document(fixture, line_type or fixture.type_name, line, f"{key}:{number}")


def pi_documents(fixture: Fixture, key: str, text: str) -> Iterator[Document]:
    """A pi fixture's documents, typed as tests/test_pi_schemas.py types them: a session file's
    lines as pi's loader reads them (blank and non-JSON lines skipped, a v1/v2 file's lines as
    ``LegacyFileEntry``), a stream's header line as ``SessionHeader``, the RPC output's lines as
    ``RpcOutputLine``; an ``agent_end`` cut out of an AgentSession stream as
    ``AgentSessionEvent``."""
    type_name = fixture.type_name
    if not text.endswith("\n") and "\n" not in text:
        source = str((fixture.entry.get("source") or {}).get("file", ""))
        if type_name == "AgentEvent" and source.startswith("streams/pi-coding-agent."):
            type_name = "AgentSessionEvent"
        if not fixture.entry.get("format", "").startswith("jsonl") and key == "file":
            yield Document(fixture, type_name, text, key)
            return
    lines = text.split("\n")
    if type_name == "Session":
        found = []
        for number, line in enumerate(lines, start=1):
            if line.strip():
                try:
                    found.append((number, line, json.loads(line)))
                except ValueError:
                    continue  # skipped by pi's loader (and listed by loads)
        legacy = found[0][2].get("version", 1) < 3
        for number, line, _ in found:
            line_type = "LegacyFileEntry" if legacy else "FileEntry"
            yield Document(fixture, line_type, line, f"{key}:{number}")
        return
    if lines[-1] == "":
        lines.pop()
    line_type = {"RpcOutput": "RpcOutputLine"}.get(type_name, type_name)
    for number, line in enumerate(lines, start=1):
        header = number == 1 and line.startswith('{"type":"session"')
        yield Document(fixture, "SessionHeader" if header else line_type, line, f"{key}:{number}")
