"""``loads``' vouched validator built from the core schema codegen wrote out
(``generated/python/phi-core/<version>/_vouched.py``, by ``tools/codegen_vouched.py``; used by
runtime/serde/_shortcut.py), not from a ``TypeAdapter`` (issue 21, goal 2: a fresh process's
first documents).

- The written schema is the one ``_shortcut`` builds at run time from the type's adapter, for
  every public phi-core type of 0.8 and 0.10 that has one (exactly the types whose expression a
  wheel ships), up to what pydantic-core's validator never reads (``NOT_READ_BY_VALIDATOR``) and
  the process ids in refs: so the two validators judge alike, and a drift of the models, the
  vouched forms or the writer fails here (as ``tools/codegen --check`` does).
- Both validators give the same value or errors on every corpus document, its corruptions and
  lax forms.
- A fresh process's first vouched document builds no ``TypeAdapter``; the exact path builds it
  for the first document the fast path does not vouch for.
- Other pydantic versions than the written ones take the adapter's way.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from corpus import ROOT
from pydantic.fields import FieldInfo
from test_loads_shortcut import MODULES, RELEASES, event_lines
from test_loads_shortcut_settings import lax_forms, outcome
from test_validate_fastpath import corpus_documents, mutations

import phi_wire.v0_8
import phi_wire.v0_10
from phi_wire.formats import VERSIONS
from phi_wire.serde import _shortcut, vouched_schema
from phi_wire.serde._definitions import collect_definitions

sys.path.insert(0, str(ROOT / "tools"))
import codegen_vouched

from phi_wire.fastpath._shipped import SHIPPED

PHI_CORE = {entry.version: entry.module for entry in VERSIONS if entry.format == "phi-core"}
_PROCESS_ID = re.compile(r":[0-9]+\Z")


def comparable(node: Any) -> Any:
    """A core schema as pydantic-core's validator reads it: every ``definition-ref`` replaced by
    the schema it names (pydantic keeps a model's schema in a ``definitions`` node or inline
    depending on what the process built before: either way, the same validator), without the
    keys the validator never reads, refs without pydantic's process ids, a ``partial`` by its
    function and arguments, a lenient field's default (``FieldInfo.get_default``) by the default
    it gives; every other object itself (classes, functions, enum members: by identity or their
    own equality)."""
    found: dict[str, Any] = {}
    collect_definitions(node, found)
    _with_refs(node, found)
    return _comparable(node, {_PROCESS_ID.sub("", ref): item for ref, item in found.items()}, ())


def _with_refs(node: Any, found: dict[str, Any]) -> None:
    """Also the schemas that carry a ``ref`` where they stand (a ``definition-ref`` may name
    those too)."""
    if isinstance(node, dict):
        if isinstance(node.get("type"), str) and isinstance(node.get("ref"), str):
            found.setdefault(node["ref"], node)
        for value in node.values():
            _with_refs(value, found)
    elif isinstance(node, list | tuple):
        for item in node:
            _with_refs(item, found)


def _comparable(node: Any, definitions: dict[str, Any], within: tuple[str, ...]) -> Any:
    if isinstance(node, dict):
        kind = node.get("type")
        if kind == "definitions":
            return _comparable(node["schema"], definitions, within)
        if kind == "definition-ref":
            ref = _PROCESS_ID.sub("", node["schema_ref"])
            if ref in within:
                return ("recursive", ref)
            return _comparable(definitions[ref], definitions, within)
        schema = isinstance(kind, str)
        if schema and isinstance(node.get("ref"), str):
            within = (*within, _PROCESS_ID.sub("", node["ref"]))
        return {
            key: _PROCESS_ID.sub("", value)
            if schema and key == "ref" and isinstance(value, str)
            else _comparable(value, definitions, within)
            for key, value in node.items()
            if not (schema and key in codegen_vouched.NOT_READ_BY_VALIDATOR)
        }
    if isinstance(node, list):
        return [_comparable(item, definitions, within) for item in node]
    if isinstance(node, tuple):
        return tuple(_comparable(item, definitions, within) for item in node)
    if isinstance(node, functools.partial):
        function, arguments = (
            _comparable(part, definitions, within) for part in (node.func, node.args)
        )
        keywords = {
            key: _comparable(value, definitions, within) for key, value in node.keywords.items()
        }
        return ("partial", function, arguments, keywords)
    bound = getattr(node, "__self__", None)
    if isinstance(bound, FieldInfo):
        taken = bound.default_factory_takes_validated_data
        return ("field", node.__name__, bound.default, bound.default_factory, taken)
    return node


def public_types() -> list[tuple[str, str]]:
    return [
        (version, name)
        for version, module in (("0.8", phi_wire.v0_8), ("0.10", phi_wire.v0_10))
        for name in module.__all__
        if _shortcut.shortcut_for(getattr(module, name)).version == version
    ]


def written(version: str) -> Any:
    return __import__(f"{PHI_CORE[version]}._vouched", fromlist=["VOUCHED"])


def test_the_written_types_are_the_ones_a_wheel_ships_an_expression_for() -> None:
    everywhere = {(version, name) for version in PHI_CORE for name in codegen_vouched.TYPES}
    assert everywhere == set(SHIPPED)
    assert {(v, name) for v in PHI_CORE for name in written(v).VOUCHED} == set(SHIPPED)


@pytest.mark.parametrize(("version", "name"), public_types())
def test_the_written_schema_is_the_one_built_at_run_time(version: str, name: str) -> None:
    made = written(version).VOUCHED.get(name)
    if (version, name) not in SHIPPED:
        assert made is None  # (its expression is not at hand for a first document)
        return
    built = vouched_schema(getattr(sys.modules[PHI_CORE[version]], name))
    assert built is not None
    assert comparable(made()) == comparable(built)


def test_the_comparison_sees_a_drift() -> None:
    """The test above can fail: one literal changed, or one key the validator reads left out."""
    schema, config = written("0.8").VOUCHED["AgentEvent"]()
    assert comparable((schema, config)) == comparable(vouched_schema(phi_wire.v0_8.AgentEvent))
    changed = copy.deepcopy(schema)
    changed["schema"]["choices"]["AgentEnd"]["schema"]["fields"]["loop_id"]["schema"] = {
        "type": "str",
        "strict": False,
    }
    assert comparable((changed, config)) != comparable((schema, config))
    assert comparable((schema, {**config, "strict": False})) != comparable((schema, config))


def test_both_validators_judge_every_corpus_text_alike() -> None:
    """The written validator against the adapter's, on every document of both corpora, their
    corruptions and lax forms: the same value, down to each leaf's type, or the same errors."""
    rng = random.Random(20261127)
    pairs: dict[str, tuple[Any, Any]] = {}
    judged = 0
    for release, version in RELEASES.items():
        for label, type_name, document in corpus_documents(release):
            if (version, type_name) not in SHIPPED:
                continue
            if type_name not in pairs:
                tp = getattr(MODULES[version], type_name)
                from_adapter = _shortcut._vouched_validator(_shortcut._built_adapter(tp).validator)
                from_literals = _shortcut._written_validator(version, type_name)
                assert from_adapter is not None and from_literals is not None
                pairs[f"{version} {type_name}"] = (from_adapter, from_literals)
            from_adapter, from_literals = pairs[f"{version} {type_name}"]
            for text in (document, *lax_forms(document), *mutations(document, rng)):
                assert outcome(from_literals.validate_json, text) == outcome(
                    from_adapter.validate_json, text
                ), f"{label}: {text[:200]!r}"
                judged += 1
    assert judged > 1000


def test_another_pydantic_takes_the_adapters_way(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _shortcut._written_validator("0.8", "AgentEvent") is not None
    monkeypatch.setattr(_shortcut, "_installed_pydantic", lambda: ("2.99.0", "2.99.0"))
    assert _shortcut._written_validator("0.8", "AgentEvent") is None
    validator = _shortcut._validator_for(phi_wire.v0_8.AgentEvent, "0.8", "AgentEvent")
    assert validator is not None  # the adapter's way
    line = event_lines()[0]
    assert outcome(validator.validate_json, line)[0] == "accepted"


def test_with_pydantic_plugins_on_the_written_schema_is_not_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A plugin wraps the adapter's validator (and the fast path then stays off, as before): the
    written schema, which would pass the plugin by, is not used either."""
    from pydantic.plugin import _loader

    monkeypatch.setattr(_loader, "get_plugins", lambda: [object()])
    assert _shortcut._written_validator("0.8", "AgentEvent") is None


_FIRST_DOCUMENT = r"""
import json, sys
import pydantic

built = []
real = pydantic.TypeAdapter.__init__

def counting(self, *args, **keywords):
    built.append(repr(args[0] if args else keywords)[:80])
    real(self, *args, **keywords)

pydantic.TypeAdapter.__init__ = counting
import phi_wire.v0_8 as wire
from phi_wire.serde import _shortcut

first = wire.loads(wire.AgentEvent, sys.argv[1].encode())
fast = _shortcut.shortcut_for(wire.AgentEvent).fast is not None
at_first = list(built)
try:
    wire.loads(wire.AgentEvent, b'{"type":"AgentEnd"}')  # invalid: the exact path
except wire.WireError:
    pass
print(json.dumps({"fast": fast, "first": at_first, "after an invalid one": len(built)}))
"""


def test_a_fresh_process_builds_no_type_adapter_for_its_first_vouched_document(
    tmp_path: Path,
) -> None:
    """With the expression cached (as a wheel ships it), a fresh process's first ``loads`` of a
    vouched document builds its validator from the written schema: no ``TypeAdapter`` (13 ms of
    a first document's ~35; regression: main built ``TypeAdapter(AgentEvent)``). The exact path
    builds it on the first document the fast path does not take."""
    environment = {**os.environ, "PHI_WIRE_CACHE_DIR": str(tmp_path / "cache")}
    prepare = "import phi_wire.v0_8 as wire; assert wire.prepare(wire.AgentEvent)"
    subprocess.run([sys.executable, "-c", prepare], env=environment, check=True, timeout=600)
    finished = subprocess.run(
        [sys.executable, "-c", _FIRST_DOCUMENT, event_lines()[0].decode()],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
    found = json.loads(finished.stdout)
    assert found == {"fast": True, "first": [], "after an invalid one": 1}
