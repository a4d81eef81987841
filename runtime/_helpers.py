"""phi-core's helper API on the generated models: ``Message::user``, ``Usage::combine`` and more.

Behaviour facts carried over from phi-core (src/types/{content,usage,agent_message}.rs,
src/provider/traits.rs): ``is_context_overflow`` is true only for an assistant message with
``stopReason: error`` whose ``error_message`` contains one of the known provider phrases (case
does not matter); ``cache_hit_rate`` is ``cache_read / (input + cache_read + cache_write)``;
``estimated_cost`` charges per million tokens and never charges ``reasoning`` twice (it is part
of ``output``); a ``Message`` becomes an LLM-lane ``AgentMessage`` (``LlmMessage.new``) while an
``ExtensionMessage`` never can.

The classes here are base classes of generated models (``base-class-map`` in pyproject.toml), so
every parsed or built message has the methods; ``install`` attaches the constructors that phi-core
hangs on the ``Message`` and ``LlmMessage`` enums to the public type aliases.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Self

from ._wire import LlmMessageBase, WireModel

__all__ = [
    "OVERFLOW_PHRASES",
    "CostRates",
    "ExtensionHelpers",
    "LlmMessageHelpers",
    "MessageHelpers",
    "UsageHelpers",
    "convert_to_llm",
    "install",
    "is_context_overflow_message",
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


def _blocks(message: Any, kind: str) -> list[Any]:
    return [block for block in message.content if block.type == kind]


class MessageHelpers(WireModel):
    """Base of ``UserMessage``, ``AssistantMessage`` and ``ToolResultMessage``."""

    @classmethod
    def user(cls, text: str) -> Any:
        """``Message::user(text)``: a user message with one text block, stamped now.

        Call it on the public ``Message`` alias or on ``UserMessage``.
        """
        return cls._variant("user").model_validate(
            {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": now_ms()}
        )

    @classmethod
    def _variant(cls, role: str) -> type[MessageHelpers]:
        """The bare Message class for ``role`` in the same generated module as ``cls``."""
        module = __import__(cls.__module__, fromlist=["UserMessage"])
        names = {
            "user": "UserMessage",
            "assistant": "AssistantMessage",
            "toolResult": "ToolResultMessage",
        }
        name = names[role]
        variant: type[MessageHelpers] = getattr(module, name)
        return variant

    @property
    def text(self) -> str:
        """The concatenated text blocks."""
        return "".join(block.text for block in _blocks(self, "text"))

    @property
    def thinking(self) -> str:
        """The concatenated thinking blocks."""
        return "".join(block.thinking for block in _blocks(self, "thinking"))

    @property
    def tool_calls(self) -> list[Any]:
        """The tool-call blocks, in order."""
        return _blocks(self, "toolCall")

    def is_context_overflow(self) -> bool:
        """phi-core's ``Message::is_context_overflow``: an error reply that reports an overflow."""
        return (
            getattr(self, "role", None) == "assistant"
            and getattr(self, "stop_reason", None) == "error"
            and isinstance(getattr(self, "error_message", None), str)
            and is_context_overflow_message(self.error_message)  # type: ignore[attr-defined]
        )

    def extract_json(self) -> Any:
        """Structured output: the arguments of a ``respond_json`` tool call if there is one, else
        the concatenated text parsed as JSON; ``None`` when neither holds JSON."""
        for call in self.tool_calls:
            if call.name == "respond_json":
                return call.arguments
        try:
            return json.loads(self.text)
        except ValueError:
            return None


class LlmMessageHelpers(LlmMessageBase):
    """Base of the LlmMessage variants (via ``LlmMeta``): the LLM lane of ``AgentMessage``."""

    def as_llm(self) -> Any:
        """The bare ``Message`` inside (``AgentMessage::as_llm``): metadata dropped."""
        bare = next(base for base in type(self).__mro__[1:] if issubclass(base, MessageHelpers))
        return bare.model_validate({name: getattr(self, name) for name in bare.model_fields})

    def with_turn_id(self, turn_id: Any) -> Self:
        """A copy stamped with ``turn_id`` (``None`` clears it)."""
        return self.model_copy(update={"turn_id": turn_id})

    @classmethod
    def new(cls, message: Any, turn_id: Any = None) -> Any:
        """``LlmMessage::new`` / ``with_turn``: a bare ``Message`` into the LLM lane.

        Only a Message can: an ``ExtensionMessage`` is refused, so UI-only content never reaches
        the model's context.
        """
        if not isinstance(message, MessageHelpers) or isinstance(message, LlmMessageBase):
            raise TypeError(
                f"only a bare Message becomes an LlmMessage, not {type(message).__name__}"
            )
        llm = next(
            sub for sub in type(message).__subclasses__() if issubclass(sub, LlmMessageHelpers)
        )
        fields = {name: getattr(message, name) for name in type(message).model_fields}
        return llm.model_validate({**fields, "turn_id": turn_id})

    @classmethod
    def with_turn(cls, message: Any, turn_id: Any) -> Any:
        """``LlmMessage::with_turn(message, turn_id)``."""
        return cls.new(message, turn_id)


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
        return None

    @property
    def timestamp(self) -> None:
        return None

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

    def combine(self, other: Self) -> Self:
        """Field-by-field sum (``Usage::combine``); also ``usage + other``."""
        names = type(self).model_fields
        return type(self).model_validate(
            {name: getattr(self, name) + getattr(other, name) for name in names}
        )

    def __add__(self, other: Self) -> Self:
        return self.combine(other)

    def cache_hit_rate(self) -> float:
        """Share of input tokens served from cache; 0.0 when there was no input."""
        total: int = self.input + self.cache_read + self.cache_write  # type: ignore[attr-defined]
        cached: int = self.cache_read  # type: ignore[attr-defined]
        return cached / total if total else 0.0

    def estimated_cost(self, rates: CostRates) -> float:
        """Dollars for this usage; reasoning is part of output and not charged again."""
        million = 1_000_000.0
        cost: float = (
            self.input / million * rates.input_per_million  # type: ignore[attr-defined]
            + self.output / million * rates.output_per_million  # type: ignore[attr-defined]
            + self.cache_read / million * rates.cache_read_per_million  # type: ignore[attr-defined]
            + self.cache_write / million * rates.cache_write_per_million  # type: ignore[attr-defined]
        )
        return cost


def convert_to_llm(messages: Iterable[Any]) -> list[Any]:
    """phi-core's ``default_convert_to_llm``: the bare Messages of the LLM lane, in order."""
    return [message.as_llm() for message in messages if isinstance(message, LlmMessageHelpers)]


def install(namespace: dict[str, Any], names: Sequence[str] = ("Message", "LlmMessage")) -> None:
    """Hang phi-core's enum constructors on the public aliases of one version module:
    ``Message.user(text)``, ``LlmMessage.new(message)``, ``LlmMessage.with_turn(message, id)``.

    The aliases are typing constructs that forbid new attributes, hence ``object.__setattr__``.
    """
    user_message = namespace["UserMessage"]
    llm = namespace["LlmUserMessage"]
    constructors = {
        "Message": {"user": user_message.user},
        "LlmMessage": {"new": llm.new, "with_turn": llm.with_turn},
    }
    for name in names:
        for attribute, function in constructors[name].items():
            object.__setattr__(namespace[name], attribute, function)
