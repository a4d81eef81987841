"""phi-core's helper API on the generated models: ``Message::user``, ``Usage::combine`` and more.

Behaviour facts carried over from phi-core (src/types/{content,usage,agent_message}.rs,
src/provider/traits.rs, src/agent_loop/helpers.rs):

* ``Message::role`` is ``"user"``, ``"assistant"`` or ``"toolResult"``; ``AgentMessage::role``
  of an extension is its own free-form ``role``.
* ``is_context_overflow`` is true only for an assistant message with ``stopReason: error`` whose
  ``error_message`` contains one of ``OVERFLOW_PHRASES`` (phi-core lower-cases the text first).
* ``Usage::combine`` adds all six counters (past u64::MAX: ``WireError``); ``cache_hit_rate`` is
  ``cache_read / (input + cache_read + cache_write)``, 0.0 when that is 0; ``estimated_cost``
  charges per million tokens and never charges ``reasoning`` (a part of ``output``) twice.
* ``AgentMessage::timestamp`` is the message's timestamp, 0 for an extension; ``as_llm`` is the
  bare Message or None; ``with_turn_id`` is a no-op for an extension.
* One-way rule: a ``Message`` becomes an LLM-lane ``AgentMessage`` (``LlmMessage::new``,
  ``From<Message>``); nothing turns an ``ExtensionMessage`` into one.
* ``default_convert_to_llm`` keeps ``as_llm()`` of every message that has one, in order.

Design: the classes here are base classes of the generated models (``base-class-map`` in
pyproject.toml), so every parsed or built message has the methods. phi-core also hangs
constructors on its *enums* (``Message::user``, ``LlmMessage::new``); in Python those names are
type aliases of unions, which carry no methods, so the constructors are plain functions
(``llm_message``, and each version module's ``user_message``) and classmethods of the concrete
classes (``UserMessage.user``, ``ExtensionMessage.new``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self

from phi_wire.serde import LlmMessageBase, WireModel

__all__ = [
    "OVERFLOW_PHRASES",
    "CostRates",
    "ExtensionHelpers",
    "LlmMessageHelpers",
    "MessageHelpers",
    "UsageHelpers",
    "convert_to_llm",
    "is_context_overflow_message",
    "llm_message",
    "now_ms",
]

OVERFLOW_PHRASES: tuple[str, ...] = (
    "prompt is too long",  # Anthropic
    "input is too long",  # AWS Bedrock
    "exceeds the context window",  # OpenAI (Completions and Responses)
    "exceeds the maximum",  # Google Gemini
    "maximum prompt length",  # xAI
    "reduce the length of the messages",  # Groq
    "maximum context length",  # OpenRouter
    "exceeds the limit of",  # GitHub Copilot
    "exceeds the available context size",  # llama.cpp
    "greater than the context length",  # LM Studio
    "context window exceeds limit",  # MiniMax
    "exceeded model token limit",  # Kimi
    "context length exceeded",  # generic
    "context_length_exceeded",  # generic, underscore form
    "too many tokens",  # generic
    "token limit exceeded",  # generic
)
"""Provider error phrases that mean "the context window overflowed" (phi-core's list, in order)."""


def is_context_overflow_message(text: str) -> bool:
    """True when an error text reports a context overflow (case-insensitive phrase match)."""
    lower = text.lower()
    return any(phrase in lower for phrase in OVERFLOW_PHRASES)


def now_ms() -> int:
    """Unix milliseconds, as phi-core's ``now_ms()`` stamps messages."""
    return time.time_ns() // 1_000_000


RESPOND_JSON_TOOL = "respond_json"
"""The tool a model calls to answer with structured output; ``extract_json`` prefers its call."""


class MessageHelpers(WireModel):
    """Base of ``UserMessage``, ``AssistantMessage`` and ``ToolResultMessage`` (and so of the
    LLM-lane variants, which extend them)."""

    if TYPE_CHECKING:  # declared by every generated subclass
        role: str
        content: list[Any]
        timestamp: int

    @classmethod
    def user(cls, text: str) -> Self:
        """``Message::user(text)``: a user message with one text block, stamped now.

        Call it on ``Message`` or ``UserMessage``.
        """
        if cls.model_fields["role"].default != "user":
            raise TypeError(f"{cls.__name__} is not a user message; call Message.user")
        return cls.model_validate(
            {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": now_ms()}
        )

    def _blocks(self, kind: str) -> list[Any]:
        return [block for block in self.content if block.type == kind]

    @property
    def text(self) -> str:
        """The text blocks, concatenated."""
        return "".join(block.text for block in self._blocks("text"))

    @property
    def thinking(self) -> str:
        """The thinking blocks, concatenated."""
        return "".join(block.thinking for block in self._blocks("thinking"))

    @property
    def tool_calls(self) -> list[Any]:
        """The tool-call blocks, in order."""
        return self._blocks("toolCall")

    def is_context_overflow(self) -> bool:
        """``Message::is_context_overflow``: an error reply whose text reports an overflow."""
        error = getattr(self, "error_message", None)
        return (
            self.role == "assistant"
            and getattr(self, "stop_reason", None) == "error"
            and isinstance(error, str)
            and is_context_overflow_message(error)
        )

    def extract_json(self) -> Any:
        """Structured output: the arguments of a ``respond_json`` tool call if there is one, else
        the concatenated text parsed as JSON; ``None`` when neither holds JSON."""
        for call in self.tool_calls:
            if call.name == RESPOND_JSON_TOOL:
                return call.arguments
        try:
            return json.loads(self.text)
        except ValueError:
            return None


def _llm_variant(message_class: type[MessageHelpers]) -> type[LlmMessageHelpers]:
    """The LLM-lane class generated for a bare Message class (``UserMessage`` ->
    ``LlmUserMessage``) in the same generated package."""
    package = message_class.__module__.rpartition(".")[0]
    for sub in message_class.__subclasses__():
        if issubclass(sub, LlmMessageHelpers) and sub.__module__.rpartition(".")[0] == package:
            return sub
    raise TypeError(f"{message_class.__name__} has no LLM-lane variant")


class LlmMessageHelpers(LlmMessageBase):
    """Base of the LlmMessage variants (via ``LlmMeta``): the LLM lane of ``AgentMessage``."""

    if TYPE_CHECKING:  # declared by LlmMeta
        turn_id: Any

    def as_llm(self) -> MessageHelpers:
        """``AgentMessage::as_llm``: the bare ``Message`` inside, metadata dropped."""
        bare = next(base for base in type(self).__mro__[1:] if issubclass(base, MessageHelpers))
        values = {name: getattr(self, name) for name in bare.model_fields}
        return bare.model_construct(self.model_fields_set & values.keys(), **values)

    def with_turn_id(self, turn_id: Any) -> Self:
        """``AgentMessage::with_turn_id``: a copy stamped with ``turn_id`` (None clears it)."""
        copy = self.model_copy()
        copy.turn_id = turn_id  # validated, as every assignment is
        return copy

    @classmethod
    def new(cls, message: MessageHelpers, turn_id: Any = None) -> LlmMessageHelpers:
        """``LlmMessage::new``: ``llm_message(message, turn_id)``, whichever variant this is."""
        return llm_message(message, turn_id)

    @classmethod
    def with_turn(cls, message: MessageHelpers, turn_id: Any) -> LlmMessageHelpers:
        """``LlmMessage::with_turn(message, turn_id)``."""
        return llm_message(message, turn_id)


def llm_message(message: MessageHelpers, turn_id: Any = None) -> LlmMessageHelpers:
    """``LlmMessage::new`` / ``with_turn`` (and ``From<Message> for AgentMessage``): a bare
    ``Message`` into the LLM lane, as the variant matching its role, of its own version.

    Only a bare Message can: an ``ExtensionMessage`` (not a ``MessageHelpers``, so a type checker
    rejects it too) or an LLM-lane message is refused with ``TypeError``.
    """
    if not isinstance(message, MessageHelpers) or isinstance(message, LlmMessageBase):
        raise TypeError(f"only a bare Message becomes an LlmMessage, not {type(message).__name__}")
    fields = {name: getattr(message, name) for name in type(message).model_fields}
    return _llm_variant(type(message)).model_validate({**fields, "turn_id": turn_id})


class ExtensionHelpers(WireModel):
    """Base of ``ExtensionMessage``: the lane that never reaches the model."""

    @classmethod
    def new(cls, kind: str, data: Any) -> Self:
        """``ExtensionMessage::new(kind, data)``: role ``"extension"``."""
        return cls.model_validate({"role": "extension", "kind": kind, "data": data})

    def as_llm(self) -> None:
        """Never an LLM message."""
        return None

    @property
    def turn_id(self) -> None:
        """Extensions carry no turn."""
        return None

    @property
    def timestamp(self) -> int:
        """``AgentMessage::timestamp`` of an extension: 0."""
        return 0

    def with_turn_id(self, turn_id: Any) -> Self:
        """No-op: extension messages carry no turn."""
        del turn_id
        return self


@dataclass(frozen=True)
class CostRates:
    """Dollars per million tokens (phi-core's ``CostConfig``)."""

    input_per_million: float = 0.0
    output_per_million: float = 0.0
    cache_read_per_million: float = 0.0
    cache_write_per_million: float = 0.0


class UsageHelpers(WireModel):
    """Base of ``Usage``."""

    if TYPE_CHECKING:  # declared by the generated Usage
        input: int
        output: int
        reasoning: int
        cache_read: int
        cache_write: int
        total_tokens: int

    def combine(self, other: Self) -> Self:
        """``Usage::combine``: the six counters added; also ``usage + other`` and ``sum()``.

        phi-core adds with ``+``, which panics past u64::MAX in a debug build and wraps around in
        a release build; here a sum past u64::MAX raises ``WireError`` naming the counter.
        """
        names = type(self).model_fields
        return type(self).model_validate(
            {name: getattr(self, name) + getattr(other, name) for name in names}
        )

    def __add__(self, other: object) -> Self:
        if not isinstance(other, type(self)):
            return NotImplemented
        return self.combine(other)

    def __radd__(self, other: object) -> Self:
        if other == 0:  # sum(usages) starts from 0
            return self
        return NotImplemented

    def cache_hit_rate(self) -> float:
        """Share of prompt tokens served from cache; 0.0 when there were none."""
        total = self.input + self.cache_read + self.cache_write
        return self.cache_read / total if total else 0.0

    def estimated_cost(self, rates: CostRates) -> float:
        """Dollars for this usage; reasoning is part of output and not charged again."""
        million = 1_000_000.0
        return (
            self.input / million * rates.input_per_million
            + self.output / million * rates.output_per_million
            + self.cache_read / million * rates.cache_read_per_million
            + self.cache_write / million * rates.cache_write_per_million
        )


def convert_to_llm(messages: Iterable[Any]) -> list[MessageHelpers]:
    """phi-core's ``default_convert_to_llm``: the bare Messages of the LLM lane, in order."""
    return [message.as_llm() for message in messages if isinstance(message, LlmMessageHelpers)]
