"""The primitives every layer of phi-wire shares; this module imports nothing of phi-wire.

* ``adapter(tp)``: the one pydantic ``TypeAdapter`` per wire type that reading, writing and the
  fast path all use, and ``type_name(tp)``;
* the marks a validator function inside the models carries to tell the fast path what it does
  (``FAST_PATH_ROLE``, ``VOUCHED_FORM``), and ``PARSED_AS_VALUE``, the mark of the models serde
  parses through ``serde_json::Value`` (phi-core's ``LlmMessage``: sorted keys, a repeated key's
  last value);
* ``CANONICAL_TIMESTAMP_TEXT``: exactly what chrono writes for a ``DateTime<Utc>``;
* ``jsonl_item_type(tp)``: the line type of a whole-file type (the schema vocabulary's
  ``x-jsonl``: a file of one JSON document per line), for the codecs that read such files.

Why marks: the fast path (``phi_wire.fastpath``) compiles a model's pydantic-core schema into a
regular expression that matches only documents ``loads`` accepts. A Python validator function is
opaque to that compiler, so a function it may look through carries ``FAST_PATH_ROLE`` saying why
that is safe; any other function makes its type ineligible (``loads`` then judges every document).
The fast path's equivalence tests check each promise against ``loads``. ``loads``' own fast path
(``phi_wire.serde``) sends a document that the expression vouches for straight to pydantic-core;
there a function may be replaced by a pydantic-core schema that gives the same result on every
such document without running Python code: the function says which with ``vouched_form``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

from pydantic import TypeAdapter

__all__ = [
    "CANONICAL_TIMESTAMP",
    "CANONICAL_TIMESTAMP_TEXT",
    "FAST_PATH_ROLE",
    "PARSED_AS_VALUE",
    "TRANSPARENT",
    "VOUCHED_FORM",
    "FastPathRole",
    "VouchedForm",
    "adapter",
    "fast_path_role",
    "fast_path_role_of",
    "jsonl_item_type",
    "parsed_as_value",
    "type_name",
    "vouched_form",
]

# By identity: functools.cache would compare type aliases with their (slow) __eq__ on every call.
_ADAPTERS: dict[int, tuple[Any, TypeAdapter[Any]]] = {}


def adapter(tp: Any) -> TypeAdapter[Any]:
    """One TypeAdapter per wire type, built on first use."""
    entry = _ADAPTERS.get(id(tp))
    if entry is None or entry[0] is not tp:
        entry = _ADAPTERS[id(tp)] = (tp, TypeAdapter(tp))  # holding tp keeps its id unique
    return entry[1]


def type_name(tp: Any) -> str:
    return str(getattr(tp, "__name__", tp))


CANONICAL_TIMESTAMP_TEXT = (
    r"[0-9]{4}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)"
    r"|(?:0[13578]|1[02])-31)T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
    r"(?:\.(?:[0-9]{6}|[0-9]{3}|)(?:[1-9][0-9]{2}|0[1-9][0-9]|00[1-9]))?Z"
)
"""What chrono writes for a ``DateTime<Utc>`` on a day every year has (years 0000-9999; AutoSi:
no fraction, or 3, 6 or 9 digits whose last three are not all zero), and nothing else. A text it
matches is its own canonical form; February 29th and every other form take the general path."""

PARSED_AS_VALUE = "__phi_wire_parsed_as_value__"
"""The class attribute (True) of models serde parses through ``serde_json::Value``."""


def parsed_as_value(cls: Any) -> bool:
    """Whether the model class ``cls`` is parsed through ``serde_json::Value``."""
    return isinstance(cls, type) and bool(getattr(cls, PARSED_AS_VALUE, False))


FastPathRole = Literal["transparent", "canonical-timestamp"]

FAST_PATH_ROLE = "__phi_wire_fast_path__"
"""The attribute that holds a validator's role."""

TRANSPARENT: FastPathRole = "transparent"
"""Never rejects a value its inner schema accepts (it may change the value, or accept more)."""

CANONICAL_TIMESTAMP: FastPathRole = "canonical-timestamp"
"""Accepts every canonical chrono ``DateTime<Utc>`` text on a day every year has."""

VOUCHED_FORM = "__phi_wire_vouched_form__"
"""The attribute that holds a validator's replacement on vouched documents."""

VouchedForm = Callable[[Any, Any], Any]
"""Given the validator's inner core schema and the schema's definitions (by ref), the core schema
that replaces the validator (None: it stays)."""

F = TypeVar("F", bound=Callable[..., Any])


def fast_path_role(role: FastPathRole) -> Callable[[F], F]:
    """Decorator: mark a validator function (or class) with its role for the fast path."""

    def mark(function: F) -> F:
        setattr(function, FAST_PATH_ROLE, role)
        return function

    return mark


def vouched_form(form: VouchedForm) -> Callable[[F], F]:
    """Decorator: on a JSON document that ``loads``' fast path vouches for, this validator function
    over an inner schema ``S`` gives what the core schema ``form(S, definitions)`` gives
    (``_shortcut`` builds its validator with the replacement; its equivalence tests check the
    promise)."""

    def mark(function: F) -> F:
        setattr(function, VOUCHED_FORM, form)
        return function

    return mark


def fast_path_role_of(function: Any) -> FastPathRole | None:
    """The role a validator function (or class) declared for the fast path, or None."""
    role: FastPathRole | None = getattr(function, FAST_PATH_ROLE, None)
    return role


_JSONL_ITEMS: dict[int, tuple[Any, Any]] = {}


def jsonl_item_type(tp: Any) -> Any | None:
    """The line type of a JSONL document type (a ``list[T]`` alias whose schema says
    ``x-jsonl``), else None."""
    cached = _JSONL_ITEMS.get(id(tp))
    if cached is not None and cached[0] is tp:
        return cached[1]
    item = None
    value: Any = getattr(tp, "__value__", None)
    for meta in getattr(value, "__metadata__", ()):
        extra = getattr(meta, "json_schema_extra", None)
        if isinstance(extra, dict) and extra.get("x-jsonl"):
            item = value.__args__[0].__args__[0]  # Annotated[list[T], ...] -> T
    _JSONL_ITEMS[id(tp)] = (tp, item)
    return item
