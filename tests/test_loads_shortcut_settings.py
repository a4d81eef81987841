"""``loads``' settings written into the vouched validator (runtime/serde/_shortcut.py,
``JUDGED_AS_LOADS``): the fast path calls it with no keyword (pydantic-core parses keywords on
every call: issue 21, goal 2's steady state), and it judges every document it is handed exactly
as it does when given ``loads``' keywords, which override whatever its configs say.

Over every document of the phi-core 0.8 and 0.10 corpora, the corruptions of
``test_validate_fastpath``, and forms only a lax or by-name reading takes (a number as a string,
``1`` for ``true``, an enum in another case, a field's name for its wire name, a timestamp as a
number), those the expression vouches for: the value down to each leaf's type, or the same
errors. (``test_loads_shortcut`` compares the whole of ``loads`` both ways.)
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pydantic import ValidationError
from pydantic_core import SchemaValidator
from test_loads_shortcut import MODULES, RELEASES, shape
from test_validate_fastpath import corpus_documents, mutations

import phi_wire.v0_8
from phi_wire.base import adapter
from phi_wire.fastpath import document_expression
from phi_wire.serde import _shortcut

LOADS = {"strict": True, "by_alias": True, "by_name": False}
"""The keywords ``loads`` passes pydantic-core (runtime/serde/_codec.py)."""


def snake(found: re.Match[bytes]) -> bytes:
    return re.sub(rb"([A-Z])", lambda upper: b"_" + upper.group(1).lower(), found.group(0))


LAX_FORMS: list[tuple[bytes, bytes | Callable[[re.Match[bytes]], bytes]]] = [
    (rb'(?<=":)(-?[0-9]+)(?=[,}])', rb'"\1"'),  # a number as a string
    (rb'(?<=":)"([0-9]+)"', rb"\1"),  # a string of digits as a number
    (rb'(?<=":)true', b"1"),
    (rb'(?<=":)false', b"0"),
    (rb'(?<=":)"([a-z][a-z_]*)"', lambda found: found.group(0).upper()),  # an enum's case
    (rb'"[a-z]+(?:[A-Z][a-z]+)+"(?=:)', snake),  # a field's name for its wire name
    (rb'(?<=":)"[0-9]{4}-[0-9]{2}-[0-9]{2}T[^"]*"', b"1700000000"),  # a timestamp as a number
]


def lax_forms(document: bytes) -> Iterator[bytes]:
    for pattern, replacement in LAX_FORMS:
        for found in list(re.finditer(pattern, document))[:6]:
            made = replacement(found) if callable(replacement) else found.expand(replacement)
            yield document[: found.start()] + made + document[found.end() :]


def outcome(validate: Callable[..., Any], document: bytes, **keywords: Any) -> Any:
    try:
        value = validate(document, **keywords)
    except ValidationError as error:
        return ("rejected", repr(error.errors(include_url=False)))  # (repr: NaN is no NaN)
    return ("accepted", shape(value))


def test_the_fast_path_calls_its_validator_with_no_keyword(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both ``loads`` (which runs the fast path inline) and ``vouched``."""
    calls: list[dict[str, Any]] = []

    def validate(raw: bytes, **keywords: Any) -> str:
        calls.append(keywords)
        return "value"

    tp = phi_wire.v0_8.AgentEvent
    assert _shortcut.prepare(tp)
    monkeypatch.setattr(_shortcut.shortcut_for(tp), "fast", (lambda raw: True, validate))
    assert phi_wire.v0_8.loads(tp, b'{"type":"AgentEnd"}') == "value"
    assert _shortcut.vouched(tp, b'{"type":"AgentEnd"}') == "value"
    assert calls == [{}, {}]


def test_what_the_fast_path_hands_its_validator_is_judged_as_with_loads_keywords() -> None:
    """Every text the expression vouches for (the only ones the validator is handed) gets the same
    value or errors without keywords as with ``loads``' keywords. The lax forms are ones the
    settings matter for: the type's validator without them takes some that ``loads`` rejects.
    (Where a model's own validator was built first, pydantic-core reuses it inside the vouched
    one, with the model's config: the expression, which vouches for wire names and strict values
    only, is then what keeps the two alike.)"""
    rng = random.Random(20261127)
    validators: dict[tuple[str, str], tuple[SchemaValidator, SchemaValidator, Any]] = {}
    vouched_texts = lax_taken = 0
    for release, version in RELEASES.items():
        for label, type_name, document in corpus_documents(release):
            key = (version, type_name)
            if key not in validators:
                typed = adapter(getattr(MODULES[version], type_name))
                vouched = _shortcut._vouched_validator(typed.validator)
                expression = document_expression(version, type_name, build=True)
                if vouched is None or expression is None:
                    continue
                schema, config = typed.validator.__reduce__()[1][:2]  # type: ignore[index]
                validators[key] = (vouched, SchemaValidator(schema, config), expression)
            vouched, unsettled, expression = validators[key]
            lax = list(lax_forms(document))
            corrupted = mutations(document, rng) if expression.fullmatch(document) else ()
            for text in (document, *lax, *corrupted):
                if expression.fullmatch(text) is None:  # (UTF-8 or not: see _shortcut)
                    continue
                assert outcome(vouched.validate_json, text) == outcome(
                    vouched.validate_json, text, **LOADS
                ), f"{label}: {text[:200]!r}"
                vouched_texts += 1
            lax_taken += sum(
                outcome(unsettled.validate_json, text)[0] == "accepted"
                and outcome(unsettled.validate_json, text, **LOADS)[0] == "rejected"
                for text in lax
            )
    assert vouched_texts > 1000 and lax_taken > 100
