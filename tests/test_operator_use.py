"""Operator-Use (phi_wire.operator_use, d0da87a6, and phi_wire.operator_use_d1cdaad8) against the
corpus its own code wrote (../shared/fixtures/operator-use/<layout>/, manifest.json and README).

How to read a failure:

* valid-canonical: ``loads`` then ``dumps`` must give the file's bytes back, with the writer the
  manifest names (``model_dump_json(exclude_none=True)``; ``fork_from``'s writer keeps None as
  null). A diff means the schema's field order, defaults or types differ from Operator-Use's.
* accepted-noncanonical: the input must load and be written as the canonical file (generated ids
  and times masked). A difference is a lax-mode rule the models do not reproduce.
* rejected: ``loads`` must raise ``WireError`` whose pointer names a place in the input (or the
  missing key under one).
* session-file: the whole file round-trips byte for byte; ``build_session_context`` gives the
  derived context file.
* Deviations (tests/deviations.toml, ``[operator-use.*]``) are asserted; a stale entry fails.
"""

from __future__ import annotations

import json
import tomllib
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from corpus import fixtures_root
from jsonschema import Draft202012Validator

import phi_wire.operator_use as ou
import phi_wire.operator_use_d1cdaad8 as ou1
from phi_wire.errors import WireError
from phi_wire.formats import find, versions
from phi_wire.formats.operator_use.recognise import claim, layout_of, recognise
from phi_wire.pointer import tokens
from schemas import file_validator, schema_files

MODULES: dict[str, ModuleType] = {"d0da87a6": ou, "d1cdaad8": ou1}
DEVIATIONS: dict[str, Any] = tomllib.loads(
    (Path(__file__).parent / "deviations.toml").read_text(encoding="utf-8")
)["operator-use"]


def corpus(layout: str) -> Path:
    return fixtures_root() / "operator-use" / layout


@cache
def manifest(layout: str) -> list[dict[str, Any]]:
    fixtures: list[dict[str, Any]] = json.loads(
        (corpus(layout) / "manifest.json").read_text(encoding="utf-8")
    )["fixtures"]
    return fixtures


def cases(*kinds: str) -> list[Any]:
    return [
        pytest.param(layout, entry, id=f"{layout}:{entry['id']}")
        for layout in MODULES
        for entry in manifest(layout)
        if entry["kind"] in kinds
    ]


def wire_type(module: ModuleType, entry: dict[str, Any]) -> Any:
    return getattr(module, entry["type"])


def without(document: Any, pointers: list[str]) -> Any:
    """``document`` with the values at ``pointers`` replaced by a mask."""
    for pointer in pointers:
        *path, last = tokens(pointer)
        node = document
        for token in path:
            node = node[int(token) if isinstance(node, list) else token]
        node[last] = "<generated>"
    return document


# --- the corpus -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("layout", "entry"), cases("valid-canonical"))
def test_valid_documents_round_trip_byte_for_byte(layout: str, entry: dict[str, Any]) -> None:
    module = MODULES[layout]
    raw = (corpus(layout) / entry["file"]).read_bytes()
    value = module.loads(wire_type(module, entry), raw)
    # the manifest names the writer: fork_from's model_dump_json() keeps None fields as null
    writer = entry.get("writer", "model_dump_json(exclude_none=True)")
    exclude_none = None if "exclude_none=True" in writer else False
    assert module.dumps(value, exclude_none=exclude_none) == raw.decode("utf-8"), (
        "field order, defaults or types differ from Operator-Use's: fix the schema"
    )


@pytest.mark.parametrize(("layout", "entry"), cases("accepted-noncanonical"))
def test_accepted_inputs_are_written_as_operator_use_writes_them(
    layout: str, entry: dict[str, Any]
) -> None:
    module = MODULES[layout]
    value = module.loads(
        wire_type(module, entry), (corpus(layout) / entry["input_file"]).read_bytes()
    )
    written = module.dumps(value)
    expected = (corpus(layout) / entry["canonical_file"]).read_text(encoding="utf-8")
    if entry.get("generated_fields"):
        masked = entry["generated_fields"]
        assert without(json.loads(written), masked) == without(json.loads(expected), masked)
    else:
        assert written == expected, "a lax-mode rule differs from Operator-Use's reader"
    if not entry.get("canonical_is_stable", True):  # NaN/inf written as null: unreadable
        with pytest.raises(WireError):
            module.loads(wire_type(module, entry), written)


def resolves(document: Any, pointer: str) -> bool:
    """The pointer names a value of ``document``, or a key missing under one."""
    node = document
    parts = tokens(pointer)
    for position, token in enumerate(parts):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdecimal() and int(token) < len(node):
            node = node[int(token)]
        else:
            return position == len(parts) - 1 and isinstance(node, dict)
    return True


@pytest.mark.parametrize(("layout", "entry"), cases("rejected", "written-unreadable"))
def test_rejected_inputs_raise_wire_error_naming_the_place(
    layout: str, entry: dict[str, Any]
) -> None:
    module = MODULES[layout]
    raw = (corpus(layout) / (entry.get("input_file") or entry["file"])).read_bytes()
    with pytest.raises(WireError) as caught:
        module.loads(wire_type(module, entry), raw)
    error = caught.value
    assert "Traceback" not in str(error)
    if entry["type"] != "SessionFile" and entry.get("error_category") != "json_invalid":
        document = json.loads(raw)
        assert resolves(document, error.pointer), f"{error.pointer!r} is not in the input"
        assert error.pointer in expected_pointers(entry, document), (
            f"{error} does not point where Operator-Use's error does ({entry.get('error_locs')})"
        )


_TYPE_LABELS = {"str", "bytes", "int", "float", "bool"}


def expected_pointers(entry: dict[str, Any], document: Any) -> set[str]:
    """The manifest's dotted error locations (Operator-Use's own) as pointers: a part that is not
    a key or index of the document where it stands is a union tag, a member or a type name."""
    found = set()
    for loc in entry.get("error_locs") or entry.get("readback_error_locs") or [""]:
        node, pointer, tag_used = document, "", False
        parts = [part for part in loc.split(".") if part]
        for position, part in enumerate(parts):
            if (
                isinstance(node, dict)
                and not tag_used
                and part in (node.get("type"), node.get("role"))
            ):
                tag_used = True
            elif isinstance(node, dict) and part in node:
                pointer, node, tag_used = f"{pointer}/{part}", node[part], False
            elif isinstance(node, list) and part.isdecimal():
                pointer, node, tag_used = f"{pointer}/{part}", node[int(part)], False
            elif position == len(parts) - 1 and part.islower() and part not in _TYPE_LABELS:
                pointer += f"/{part}"
        found.add(pointer)
    return found


@pytest.mark.parametrize(("layout", "entry"), cases("session-file"))
def test_session_files_round_trip_whole_and_rebuild_their_context(
    layout: str, entry: dict[str, Any]
) -> None:
    module = MODULES[layout]
    text = (corpus(layout) / entry["file"]).read_text(encoding="utf-8")
    session = module.loads(module.SessionFile, text)
    assert module.dumps(session) == text, "a session file is one document: its bytes come back"
    assert not session.skipped
    assert [line.type for line in session] == entry.get(
        "entry_types", [line.type for line in session]
    )
    if entry.get("context_file"):
        context = module.build_session_context(session)
        expected = (corpus(layout) / entry["context_file"]).read_text(encoding="utf-8")
        assert module.dumps(context) == expected, (
            "build_session_context differs from Operator-Use's"
        )
        assert [m.role for m in context.messages] == [
            m["role"] for m in json.loads(expected)["messages"]
        ]


@pytest.mark.parametrize(("layout", "entry"), cases("derived"))
def test_every_derived_context_names_a_session_the_corpus_has(
    layout: str, entry: dict[str, Any]
) -> None:
    module = MODULES[layout]
    context = module.loads(module.SessionContext, (corpus(layout) / entry["file"]).read_bytes())
    session = module.loads(
        module.SessionFile, (corpus(layout) / entry["source_session"]).read_bytes()
    )
    assert module.dumps(module.build_session_context(session)) == module.dumps(context)


@pytest.mark.parametrize(("layout", "entry"), cases("unserializable"))
def test_values_operator_use_cannot_write_cannot_be_written_either(
    layout: str, entry: dict[str, Any]
) -> None:
    """Only strings reach the models (images and audio are list[str]): raw non-UTF-8 bytes and PIL
    images are refused when the block is built, a lone surrogate when it is written."""
    module = MODULES[layout]
    if "lone_surrogate" in entry["id"]:
        block = module.TextContent(content="bad \ud800 text")
        with pytest.raises(WireError) as caught:
            module.dumps(block)
        assert caught.value.pointer == "/content"
    else:
        with pytest.raises(ValueError):
            module.ImageContent(images=[b"\x89PNG\r\n\x1a\n\xff"])


def test_the_forked_file_keeps_both_writers_per_line() -> None:
    """fork_from writes copied lines with null; later appends omit None: each line keeps its
    writer, a single entry read alone is written the exclude_none way."""
    text = (corpus("d0da87a6") / "sessions" / "forked.jsonl").read_text(encoding="utf-8")
    session = ou.loads(ou.SessionFile, text)
    styles = [session.writes_nulls(entry) for entry in session]
    lines = text.splitlines()
    assert styles == ['"parent_id":null' in line or '"meta":null' in line for line in lines]
    single = ou.loads(ou.SessionFileEntry, lines[1])
    assert '"parent_id":null' not in ou.dumps(single)
    assert ou.dumps(single, exclude_none=False) == lines[1]
    session.set_writes_nulls(session[1], False)
    assert ou.dumps(session).splitlines()[1] == ou.dumps(single)


def test_a_session_file_with_invalid_lines_lists_what_operator_use_skips() -> None:
    path = (
        corpus("d0da87a6")
        / "accepted"
        / "SessionFile"
        / "SessionFile.skips_invalid_lines.input.jsonl"
    )
    assert "session_file_errors" in DEVIATIONS["behaviour"]  # skipped lines are listed, not silent
    session = ou.loads(ou.SessionFile, path.read_text(encoding="utf-8"))
    assert [error.line for error in session.skipped] == [5, 6, 7]
    assert all(isinstance(error, WireError) for error in session.skipped)
    assert session.skipped[2].pointer == "/timestamp"


def test_d1cdaad8_files_load_in_the_d0da87a6_module_and_round_trip_in_their_own() -> None:
    text = (corpus("d1cdaad8") / "sessions" / "linear_entries.jsonl").read_text(encoding="utf-8")
    assert ou1.dumps(ou1.loads(ou1.SessionFile, text)) == text
    older = ou.dumps(ou.loads(ou.SessionFile, text))
    assert older != text and '"role":"user","contents"' in older  # role first in d0da87a6
    assert ou.layout("d1cdaad8") is ou1 and ou1.layout("d0da87a6c0ffee") is ou
    assert find("d1cdaad8b6f3791453730ee8daa4f8a2f0491b99", "operator-use").module == ou1.__name__


def test_layout_of_tells_the_layouts_apart() -> None:
    for layout in MODULES:
        for entry in manifest(layout):
            if entry["kind"] == "valid-canonical" and entry["type"] != "SessionFile":
                document = json.loads((corpus(layout) / entry["file"]).read_bytes())
                if (
                    layout == "d1cdaad8"
                    and entry["type"]
                    in ("AgentMessage", "Content", "MessageMeta", "SessionFileEntry")
                    and (layout_of(document) != layout)
                ):
                    assert (
                        json.loads(ou.dumps(ou.loads(wire_type(ou, entry), json.dumps(document))))
                        == document
                    )
                elif layout == "d0da87a6":
                    assert layout_of(document) == "d0da87a6", entry["id"]


def test_recognise_names_the_type_of_every_document_of_the_corpus() -> None:
    recognisable = {
        "SessionFileEntry",
        "AgentMessage",
        "Content",
        "Usage",
        "UsageCost",
        "SessionContext",
    }
    for layout in MODULES:
        for entry in manifest(layout):
            if entry["kind"] in ("valid-canonical", "derived") and entry["type"] in recognisable:
                document = json.loads((corpus(layout) / entry["file"]).read_bytes())
                if entry["type"] == "Content" and document == {"type": "text", "content": ""}:
                    continue
                assert recognise(document) == entry["type"], entry["id"]


def test_recognise_leaves_other_formats_alone() -> None:
    """phi-core's documents are not Operator-Use's: only a bare string that is one of its enums
    too ("error", "medium") has its shape, and only as a possible claim (phi_wire.recognise
    settles such overlaps)."""
    others = fixtures_root() / "phi-core" / "0.10.0" / "valid"
    documents = [json.loads(path.read_bytes()) for path in sorted(others.rglob("*.json"))[:400]]
    assert documents
    claimed = [d for d in documents if recognise(d) is not None]
    assert all(isinstance(d, str) for d in claimed), claimed
    assert all(claim(d) == (recognise(d), False) for d in claimed), claimed


def test_recognise_on_the_other_implementations_samples() -> None:
    """Only the Operator-Use sample is Operator-Use: pi's v3 session (ISO timestamps), clark-agent's
    history rows (content, stop_reason) and the rest are not."""
    found: dict[str, set[str | None]] = {}
    for path in sorted((fixtures_root() / "others").rglob("*.json*")):
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".jsonl":
            documents = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            loaded = json.loads(text)
            documents = loaded if isinstance(loaded, list) else [loaded]
        found[path.name] = {recognise(document) for document in documents}
    sample = "operator-use.session.generated.jsonl"
    assert found.pop(sample) == {"SessionFileEntry"}
    assert len(found) > 10 and all(names == {None} for names in found.values()), found


def test_a_parent_cycle_ends_the_branch_instead_of_looping() -> None:
    """Deviation (deviations.toml [operator-use.behaviour.parent_cycle]): d0da87a6 loops forever."""
    assert "parent_cycle" in DEVIATIONS["behaviour"]
    lines = [
        '{"type":"session","version":3,"id":"s","timestamp":1.0,"cwd":"/p"}',
        '{"id":"a","timestamp":2.0,"parent_id":"b","type":"message","message":{"role":"user","contents":[],"id":"m1","timestamp":2.0}}',
        '{"id":"b","timestamp":3.0,"parent_id":"a","type":"message","message":{"role":"user","contents":[],"id":"m2","timestamp":3.0}}',
    ]
    context = ou.build_session_context(ou.loads(ou.SessionFile, "\n".join(lines) + "\n"))
    assert [message.id for message in context.messages] == ["m1", "m2"]


def test_a_dangling_parent_truncates_the_context_as_operator_use_does() -> None:
    """create_branched_session (d0da87a6) drops label entries but keeps the children's parent_id:
    the branch ends at the dangling parent."""
    lines = [
        '{"type":"session","version":3,"id":"s","timestamp":1.0,"cwd":"/p"}',
        '{"id":"a","timestamp":2.0,"type":"message","message":{"role":"user","contents":[],"id":"m1","timestamp":2.0}}',
        '{"id":"c","timestamp":4.0,"parent_id":"dropped-label","type":"message","message":{"role":"user","contents":[],"id":"m2","timestamp":4.0}}',
    ]
    context = ou.build_session_context(ou.loads(ou.SessionFile, "\n".join(lines) + "\n"))
    assert [message.id for message in context.messages] == ["m2"]


# --- the schemas' verdicts on the corpus (the schema files' own rules, for every registered
# folder: tests/test_schemas.py; the JavaScript validators: tests/test_typescript.py) -------------


def schema_documents(layout: str) -> dict[str, dict[str, Any]]:
    return schema_files(f"operator-use/{layout}")


def validator(layout: str, type_name: str) -> Draft202012Validator:
    """Through the files themselves (relative refs, the dialect registered, nothing fetched)."""
    return file_validator(f"operator-use/{layout}", type_name)


@pytest.mark.parametrize(
    ("layout", "entry"),
    cases("valid-canonical", "accepted-noncanonical", "derived", "session-file"),
)
def test_what_operator_use_writes_passes_the_schema(layout: str, entry: dict[str, Any]) -> None:
    """A session file (JSON Lines) line by line, each line a SessionFileEntry."""
    if not entry.get("canonical_is_stable", True):
        return  # written with null for NaN: Operator-Use cannot read it back either
    raw = (corpus(layout) / (entry.get("file") or entry["canonical_file"])).read_bytes()
    if entry["type"] == "SessionFile":
        lines = [json.loads(line) for line in raw.decode("utf-8").splitlines()]
        judged = [(number, "SessionFileEntry", line) for number, line in enumerate(lines, 1)]
    else:
        judged = [(1, entry["type"], json.loads(raw))]
    for number, type_name, document in judged:
        errors = list(validator(layout, type_name).iter_errors(document))
        assert not errors, f"line {number}: {[error.message for error in errors[:3]]}"


@pytest.mark.parametrize(("layout", "entry"), cases("rejected"))
def test_the_schema_rejects_what_operator_use_rejects(layout: str, entry: dict[str, Any]) -> None:
    listed = DEVIATIONS["schema"].get(entry["id"])
    raw = (corpus(layout) / entry["input_file"]).read_bytes()
    if entry["type"] == "SessionFile":
        return  # a file, not a JSON document: its lines are entries
    try:
        document = json.loads(raw)
    except ValueError:
        assert listed, f"not JSON: list {entry['id']} in deviations.toml [operator-use.schema]"
        return
    accepted = validator(layout, entry["type"]).is_valid(document)
    if listed:
        assert accepted, "listed in [operator-use.schema] but the schema rejects it: remove it"
    else:
        assert not accepted, (
            f"the schema accepts what Operator-Use rejects ({entry.get('error_title')})"
        )


def test_every_operator_use_deviation_names_a_fixture_and_a_reason() -> None:
    known = {entry["id"] for layout in MODULES for entry in manifest(layout)}
    assert set(DEVIATIONS["schema"]) <= known
    for section in DEVIATIONS.values():
        assert all(item.get("reason") for item in section.values())


def test_the_registry_lists_both_layouts() -> None:
    assert [entry.version for entry in versions("operator-use")] == ["d0da87a6", "d1cdaad8"]
    assert ou.VERSION == "d0da87a6" and ou1.VERSION == "d1cdaad8" and ou.FORMAT == "operator-use"
    assert ou.schema("Usage")["$defs"] or ou.schema("Usage")
