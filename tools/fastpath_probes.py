"""Write ``runtime/fastpath/probes.json``: the documents a fast-path expression loaded from the
cache is tried on before use (``runtime/fastpath/_probes.py``).

For each version of a format with a fast path (phi-core's; clark-agent's and Operator-Use's,
from the same examples converted by phi-wire, keyed ``clark-agent 0.4``, ``operator-use
d0da87a6``):

* ``accepted``: per wire type, documents phi-core writes: values of ``examples/`` (the session
  and the event log) that the version reads as that type and writes back as they are, the
  smallest of each variant, at most ``MAX_ACCEPTED`` per type;
* ``rejected``: near-misses of the accepted documents of at most ``NEAR_MISS_SOURCE_BYTES`` (an
  unknown tag, each key's value of another JSON kind, each key left out) and the few in
  ``WRITTEN``, each kept only if ``loads`` rejects it as the type it was made from, and listed
  with the wire types that do read it (it is no probe of their expressions).

Writing checks the probes against expressions built afresh (each covered type alone, for
``loads`` and for lines): the cache must load each back, that is, each matches every accepted
document of its type and no byte of a rejected text that applies to it (``validate``'s automatic
expressions are checked by the tests). That takes a minute; ``--check`` only compares the file
with what would be written (seconds).

    .venv/bin/python tools/fastpath_probes.py [--check]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "runtime" / "fastpath" / "probes.json"
MAX_ACCEPTED = 12
NEAR_MISS_SOURCE_BYTES = 1_600
TAGS = ("type", "role", "kind")
WRITTEN = (
    '{"type":"TurnStarx","nonsense":1}',  # issue 17, defect 13
    '{"type":"TurnStart"}',
    '{"role":"user"}',
    '{"role":"usr","content":"hi","timestamp":1}',
    '{"nonsense":1}',
    "{}",
    "[]",
    "[{}]",
    '"x"',
    "0",
    "null",
    "true",
)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _values(node: Any) -> Iterator[Any]:
    """Every object and array of a document, itself first."""
    if isinstance(node, dict | list):
        yield node
        for item in node.values() if isinstance(node, dict) else node:
            yield from _values(item)


def _examples() -> list[Any]:
    session = json.loads((ROOT / "examples" / "session.json").read_text(encoding="utf-8"))
    events = (ROOT / "examples" / "events.jsonl").read_text(encoding="utf-8").splitlines()
    return [session, *(json.loads(line) for line in events if line.strip())]


def _reads(wire: Any, name: str, text: str) -> Any:
    """The value ``loads`` reads ``text`` as, or None when it rejects it."""
    try:
        return wire.loads(getattr(wire, name), text)
    except wire.WireError:
        return None


def _clark_examples() -> list[Any]:
    """The event log of ``examples/`` converted to clark-agent by phi-wire's converter, as
    clark-agent's serde writes it (its events, and the messages inside them)."""
    from phi_wire import clark_agent, v0_10
    from phi_wire.formats.clark_agent.convert import from_phi_core

    events = (ROOT / "examples" / "events.jsonl").read_text(encoding="utf-8").splitlines()
    converted = from_phi_core([v0_10.loads(v0_10.AgentEvent, line) for line in events if line])
    return [json.loads(clark_agent.dumps(event)) for event in converted.value]


def _operator_use_examples() -> list[Any]:
    """The messages of ``examples/``'s event log converted to Operator-Use by phi-wire's converter,
    as Operator-Use writes them, alone and as a session file's entries."""
    from phi_wire import operator_use, v0_10
    from phi_wire.formats.operator_use.convert import from_phi_core, session_from_phi_core

    events = (ROOT / "examples" / "events.jsonl").read_text(encoding="utf-8").splitlines()
    messages = [
        v0_10.loads(v0_10.AgentMessage, json.dumps(event["message"]))
        for event in map(json.loads, filter(None, events))
        if "message" in event
    ]
    converted = from_phi_core(messages)
    session = session_from_phi_core(messages, "/home/user/project", name="examples")
    entries = [json.loads(line) for line in operator_use.dumps(session.value).splitlines()]
    return [json.loads(operator_use.dumps(message)) for message in converted.value] + entries


EXAMPLES = {
    "phi-core": _examples,
    "clark-agent": _clark_examples,
    "operator-use": _operator_use_examples,
}
"""Per format with a fast path (``phi_wire.fastpath.FORMATS``): the documents its probes come
from."""


def _accepted(wire: Any, names: list[str], format: str = "phi-core") -> dict[str, list[str]]:
    """Per type, the documents of ``examples/`` that the version writes back as they are."""
    examples = EXAMPLES[format]()
    texts = sorted({_compact(value) for document in examples for value in _values(document)})
    found: dict[str, dict[str, str]] = {}
    for text in texts:
        for name in names:
            value = _reads(wire, name, text)
            if value is None or wire.dumps(value) != text:
                continue
            parsed = json.loads(text)
            tag = next(
                (f"{k}={parsed[k]}" for k in TAGS if isinstance(parsed, dict) and k in parsed), ""
            )
            best = found.setdefault(name, {})
            if tag not in best or (len(text), text) < (len(best[tag]), best[tag]):
                best[tag] = text
    return {
        name: sorted(by_tag.values(), key=lambda text: (len(text), text))[:MAX_ACCEPTED]
        for name, by_tag in sorted(found.items())
    }


def _other_kind(value: Any) -> Any:
    """A value of another JSON kind than ``value``."""
    if isinstance(value, str):
        return 0
    if isinstance(value, bool) or value is None or isinstance(value, list | dict):
        return "0" if isinstance(value, bool) else 0
    return "0"


def _near_misses(text: str) -> Iterator[str]:
    document = json.loads(text)
    if not isinstance(document, dict):
        return
    for key in TAGS:
        tag = document.get(key)
        if isinstance(tag, str) and tag:
            yield _compact({**document, key: tag[:-1] + ("y" if tag.endswith("x") else "x")})
    for key, value in document.items():
        yield _compact({**document, key: _other_kind(value)})
        yield _compact({k: v for k, v in document.items() if k != key})


def _rejected(wire: Any, accepted: dict[str, list[str]]) -> list[str]:
    made: dict[str, None] = dict.fromkeys(WRITTEN)
    for name, documents in accepted.items():
        for document in documents:
            if len(document) <= NEAR_MISS_SOURCE_BYTES:
                for text in _near_misses(document):
                    if _reads(wire, name, text) is None:
                        made.setdefault(text)
    return sorted(made, key=lambda text: (len(text), text))


def probes() -> dict[str, Any]:
    """``documents`` (each real document once), ``rejected`` (the texts), and per version:
    ``accepted`` (per type, the indices of its documents) and ``valid_as`` (per type, the indices
    of the rejected texts it reads: no probes of its expressions)."""
    from phi_wire.fastpath import probes_key
    from phi_wire.formats import versions

    wires = {  # the fast path's formats and versions
        probes_key(format, entry.version): entry.load()
        for format in EXAMPLES
        for entry in versions(format)
    }
    formats = {
        probes_key(format, entry.version): format
        for format in EXAMPLES
        for entry in versions(format)
    }
    accepted: dict[str, dict[str, list[str]]] = {}
    rejected: dict[str, None] = {}
    for version, wire in wires.items():
        accepted[version] = _accepted(wire, sorted(wire.WIRE_TYPES), formats[version])
        rejected.update(dict.fromkeys(_rejected(wire, accepted[version])))
    documents = sorted(
        {text for found in accepted.values() for texts in found.values() for text in texts},
        key=lambda text: (len(text), text),
    )
    texts = sorted(rejected, key=lambda text: (len(text), text))
    index = {text: number for number, text in enumerate(documents)}
    by_version: dict[str, Any] = {}
    for version, wire in wires.items():
        valid_as = {
            name: [n for n, text in enumerate(texts) if _reads(wire, name, text) is not None]
            for name in sorted(wire.WIRE_TYPES)
        }
        by_version[version] = {
            "accepted": {
                name: [index[t] for t in found] for name, found in accepted[version].items()
            },
            "valid_as": {name: numbers for name, numbers in valid_as.items() if numbers},
        }
    return {"documents": documents, "rejected": texts, "versions": by_version}


def _text(found: dict[str, Any]) -> str:
    """The file: a line per document, probe or type (readable diffs), compact JSON within."""

    def lines(items: list[str], indent: str) -> str:
        return ",\n".join(indent + item for item in items)

    shared = [
        f'"{key}": [\n{lines([_compact(text) for text in found[key]], " ")}\n]'
        for key in ("documents", "rejected")
    ]
    versions = [
        f" {_compact(version)}: {{\n"
        + ",\n".join(
            f'  "{key}": {{\n'
            + lines(
                [f"{_compact(name)}: {_compact(value)}" for name, value in kept[key].items()], "   "
            )
            + "\n  }"
            for key in ("accepted", "valid_as")
        )
        + "\n }"
        for version, kept in found["versions"].items()
    ]
    return "{\n" + ",\n".join([*shared, '"versions": {\n' + ",\n".join(versions) + "\n}"]) + "\n}\n"


def _verify(found: dict[str, Any]) -> list[str]:
    """The expressions, each covered type's alone (for ``loads`` and for lines), that the cache
    refuses when it loads them back: built afresh into a scratch cache, then loaded as a later
    run would (validate's automatic expressions are the tests')."""
    from phi_wire.fastpath import document_expression, fast_path

    wrong: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        os.environ["PHI_WIRE_CACHE_DIR"] = folder
        for key, kept in found["versions"].items():
            format, _, version = key.rpartition(" ")
            format = format or "phi-core"
            for name in kept["accepted"]:
                if format == "phi-core":  # loads' own expressions: phi-core's only
                    built = document_expression(version, name, True)
                    if built is not None and document_expression(version, name, False) is None:
                        wrong.append(f"{key} {name} (loads)")
                lines = fast_path(version, [name], None, True, format)
                if lines is not None and fast_path(version, [name], None, False, format) is None:
                    wrong.append(f"{key} {name} (lines)")
    return wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 if it differs")
    args = parser.parse_args(argv)
    text = _text(probes())
    if args.check:
        if OUTPUT.read_text(encoding="utf-8") != text:
            print(f"{OUTPUT} is out of date: run tools/fastpath_probes.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    wrong = _verify(json.loads(text))
    for line in wrong:
        print(f"not sound against its probes: {line}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
