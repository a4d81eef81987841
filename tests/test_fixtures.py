"""phi-core's own JSON, judged by phi-wire: the compatibility proof.

Every record of ``<corpus>/phi-core/<version>/manifest.json`` becomes one test case:

* ``valid-canonical``: ``dumps(loads(T, doc)) == doc`` byte for byte (JSONL per line, sessions
  with ``pretty=True``) and the document is valid under ``schema(T)``, format checking on;
* ``accepted-noncanonical``: ``dumps(loads(T, input)) == canonical``, and the canonical form is
  valid under ``schema(T)``;
* ``rejected``: ``loads`` raises ``WireError``, and ``schema(T)`` rejects the input too.

Where phi-wire deliberately differs, the fixture id is listed in ``tests/deviations.toml`` with the
reason; the listed behaviour is asserted instead, and an entry that no longer applies fails. To add
a phi-core version, give it a ``phi_wire.v<major>_<minor>`` module and add it to ``MODULES``.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from corpus import Fixture, fixtures

import phi_wire.v0_8
import phi_wire.v0_10
from schemas import bundled_validator, strict_json

MODULES: dict[str, ModuleType] = {"0.8.0": phi_wire.v0_8, "0.10.0": phi_wire.v0_10}

DEVIATIONS = tomllib.loads((Path(__file__).parent / "deviations.toml").read_text(encoding="utf-8"))


def cases(kind: str) -> list[Any]:
    return [
        pytest.param(fixture, id=fixture.id)
        for version in MODULES
        for fixture in fixtures(version, kind)
    ]


def wire_type(fixture: Fixture) -> tuple[ModuleType, Any]:
    module = MODULES[fixture.version]
    return module, getattr(module, fixture.type_name)


def schema_version(fixture: Fixture) -> str:
    """The schema folder of the fixture's release (``phi-core/0.10``)."""
    return f"phi-core/{fixture.version.rsplit('.', 1)[0]}"


def documents(fixture: Fixture) -> list[tuple[str, bool]]:
    """(text, pretty) for each document of a valid fixture file."""
    text = fixture.read("file").decode("utf-8")
    if fixture.entry["format"] == "jsonl":
        assert text.endswith("\n"), "a JSONL fixture ends every line with \\n"
        return [(line, False) for line in text[:-1].split("\n")]
    return [(text, fixture.entry["format"].startswith("json-pretty"))]


@pytest.mark.parametrize("fixture", cases("valid-canonical"))
def test_valid_fixture_round_trips_byte_exact(fixture: Fixture) -> None:
    module, tp = wire_type(fixture)
    validator = bundled_validator(schema_version(fixture), fixture.type_name)
    for number, (text, pretty) in enumerate(documents(fixture), start=1):
        written = module.dumps(module.loads(tp, text), pretty=pretty)
        assert written == text, f"document {number}: phi-wire writes other bytes than phi-core"
        errors = [error.message for error in validator.iter_errors(strict_json(text))]
        assert not errors, f"document {number}: schema({fixture.type_name}) rejects it: {errors}"


@pytest.mark.parametrize("fixture", cases("accepted-noncanonical"))
def test_accepted_fixture_is_rewritten_as_phi_core_does(fixture: Fixture) -> None:
    module, tp = wire_type(fixture)
    deviation = DEVIATIONS["loads"].get(fixture.entry["id"])
    if deviation is not None:
        with pytest.raises(module.WireError):
            module.loads(tp, fixture.read("input_file"))
        return
    written = module.dumps(module.loads(tp, fixture.read("input_file")))
    assert written == fixture.read("canonical_file").decode("utf-8")


@pytest.mark.parametrize("fixture", cases("accepted-noncanonical"))
def test_accepted_fixture_canonical_form_is_valid_under_the_schema(fixture: Fixture) -> None:
    """What phi-core writes back is valid, timestamps past year 9999 included (``+10000-...``,
    which RFC 3339's ``format: date-time`` rejected)."""
    if fixture.entry["id"] in DEVIATIONS["loads"]:
        return
    validator = bundled_validator(schema_version(fixture), fixture.type_name)
    errors = [e.message for e in validator.iter_errors(strict_json(fixture.read("canonical_file")))]
    assert not errors, f"schema({fixture.type_name}) rejects phi-core's own output: {errors}"


@pytest.mark.parametrize("fixture", cases("rejected"))
def test_rejected_fixture_is_rejected(fixture: Fixture) -> None:
    module, tp = wire_type(fixture)
    raw = fixture.read("input_file")
    with pytest.raises(module.WireError) as caught:
        module.loads(tp, raw)
    assert isinstance(caught.value, ValueError)
    assert str(caught.value).startswith(fixture.type_name), str(caught.value)

    try:
        document = strict_json(raw)
    except ValueError:
        return  # not JSON at all: nothing for a schema to judge
    schema_accepts = bundled_validator(schema_version(fixture), fixture.type_name).is_valid(
        document
    )
    listed = fixture.entry["id"] in DEVIATIONS["schema"]
    if listed:
        assert schema_accepts, (
            "listed in deviations.toml [schema] but the schema now rejects it: remove the entry"
        )
    else:
        assert not schema_accepts, (
            f"schema({fixture.type_name}) accepts what phi-core rejects "
            f"({fixture.entry['error']}); "
            "tighten the schema or list the fixture in deviations.toml [schema] with the reason"
        )


def test_every_deviation_names_a_known_fixture() -> None:
    known = {
        fixture.entry["id"]
        for version in MODULES
        for kind in ("valid-canonical", "accepted-noncanonical", "rejected")
        for fixture in fixtures(version, kind)
    }
    listed = set(DEVIATIONS["loads"]) | set(DEVIATIONS["schema"])
    assert listed <= known, f"deviations.toml lists unknown fixtures: {sorted(listed - known)}"
    for section in ("loads", "schema"):
        for fixture_id, entry in DEVIATIONS[section].items():
            assert entry.get("reason"), f"{section}.{fixture_id} needs a reason"
