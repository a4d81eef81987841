"""From a provider's stream to AgentEvents, and the live partial message, as phi-core does it.

phi-core fact (src/agent_loop/streaming.rs, ``stream_assistant_response``), event by event:
``Start`` gives ``MessageStart`` with a placeholder assistant message (no content,
``stopReason: stop``, empty provider, zero usage, stamped now); every text/thinking/tool-call
delta gives ``MessageUpdate`` with the matching ``StreamDelta`` (deltas before any ``Start``,
``Done`` or ``Error`` are dropped); ``ToolCallStart``/``ToolCallEnd`` give no event; ``Done``
gives ``MessageEnd``; ``Error`` gives ``MessageStart`` (only when none of ``Start``/``Done``/
``Error`` came before) then ``MessageEnd``; messages are wrapped with ``LlmMessage::new`` (no
turnId). The function returns the final ``Message`` and never fails: when the provider itself
fails (here: its iterator raises, ends without ``Done``/``Error``, or ``cancelled()`` turns true)
no further event is sent and the result is a synthetic error message (``stopReason: error``,
one empty text block, provider ``"unknown"``, zero usage, the error text in ``error_message``;
``"Cancelled"`` for a cancellation, as ``ProviderError::Cancelled`` prints).

Beyond phi-core: the result is ``StreamTranslation.message``; ``end_failed=True`` also closes a
failed message in the stream (``MessageStart`` if none was sent, then ``MessageEnd`` with the
synthetic message) for consumers that only see events. And where phi-core's updates re-send the
unchanged placeholder, each ``MessageUpdate`` here carries the partial message assembled so far,
block by block by ``content_index`` (a tool call's arguments are the raw JSON text received so
far, parsed into JSON at ``ToolCallEnd``). A delta rebuilds only the block it touches, so a
stream costs time linear in its length apart from copying that block's text into the snapshot
(Python strings are immutable; each snapshot owns its text).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from phi_wire.formats import newest, version_of

from .helpers import LlmMessageHelpers, MessageHelpers, llm_message, now_ms

__all__ = [
    "AsyncStreamTranslation",
    "MessageAccumulator",
    "StreamTranslation",
    "atranslate_stream",
    "translate_stream",
]

_DELTAS = frozenset({"TextDelta", "ThinkingDelta", "ToolCallDelta"})
_TOOL_EDGES = frozenset({"ToolCallStart", "ToolCallEnd"})
CANCELLED = "Cancelled"
"""``error_message`` of a cancelled stream: ``ProviderError::Cancelled``'s Display text."""
UNFINISHED = "provider stream ended without Done or Error"


def version_module(sample: Any = None) -> ModuleType:
    """The version module (``phi_wire.v0_8``...) that ``sample``, a generated model, belongs
    to; the newest phi-core version's when it is not one."""
    entry = version_of(sample) if sample is not None else None
    return (entry or newest()).load()


@dataclass
class _Block:
    kind: str  # "text" | "thinking" | "toolCall"
    text: str = ""
    tool_id: str = ""
    tool_name: str = ""
    arguments: Any = None
    closed: bool = False


class MessageAccumulator:
    """The live partial assistant message of one streamed reply.

    ``feed`` takes provider ``StreamEvent``s (assembled by ``content_index``) or ``AgentEvent``s
    (``MessageStart``/``MessageUpdate``/``MessageEnd``; phi-core's own updates carry no index, so
    a delta extends the last block of its kind). ``message`` is the partial message at any point
    and, once ``finished`` (``MessageEnd``/``Done``/``Error``), exactly the final message; deltas
    after that leave it unchanged.
    """

    def __init__(self, *, model: str = "", wire: ModuleType | None = None) -> None:
        self.wire = wire or version_module()
        self.model = model
        self.message: Any = None
        self.finished = False
        self._blocks: dict[int, _Block] = {}
        self._content: dict[int, Any] = {}  # built blocks, in index order
        self._last = -1

    # -- building ------------------------------------------------------------------------------

    def start(self, placeholder: Any | None = None) -> Any:
        """Begin a message: ``placeholder``, or the one phi-core sends at ``Start``."""
        if placeholder is None:
            placeholder = self.wire.LlmAssistantMessage(
                content=[],
                stop_reason="stop",
                model=self.model,
                provider="",
                usage=self.wire.Usage(input=0, output=0),
                timestamp=now_ms(),
            )
        self.message = placeholder
        self.finished = False
        self._blocks.clear()
        self._content.clear()
        self._last = -1
        return placeholder

    def finish(self, message: Any) -> Any:
        """End with ``message``; a bare Message enters the LLM lane (``LlmMessage::new``)."""
        if isinstance(message, MessageHelpers) and not isinstance(message, LlmMessageHelpers):
            message = llm_message(message)
        self.message = message
        self.finished = True
        return message

    def _block(self, index: int, kind: str) -> _Block:
        block = self._blocks.get(index)
        if block is None:
            block = self._blocks[index] = _Block(kind)
        return block

    def _last_index(self, kind: str) -> int:
        for index in sorted(self._blocks, reverse=True):
            if self._blocks[index].kind == kind:
                return index
        return max(self._blocks, default=-1) + 1

    def _build(self, block: _Block) -> Any:
        # Validating constructors: pydantic-core builds these small models faster than
        # model_construct does, and arguments get JsonValue's checks.
        wire = self.wire
        if block.kind == "text":
            return wire.TextContent(text=block.text)
        if block.kind == "thinking":
            return wire.ThinkingContent(thinking=block.text)
        arguments = block.arguments if block.closed else block.text
        return wire.ToolCallContent(id=block.tool_id, name=block.tool_name, arguments=arguments)

    def _touch(self, index: int) -> Any:
        """Rebuild the touched block only; the message becomes a new snapshot."""
        if self.finished or self.message is None:
            return self.message
        new = index not in self._content
        self._content[index] = self._build(self._blocks[index])
        if new and index < self._last:  # a block opened before an existing one: keep index order
            self._content = dict(sorted(self._content.items()))
        self._last = max(self._last, index)
        content = list(self._content.values())
        self.message = self.message.model_copy(update={"content": content})
        return self.message

    def text(self, index: int, delta: str) -> Any:
        """Append reply text to block ``index``."""
        self._block(index, "text").text += delta
        return self._touch(index)

    def thinking(self, index: int, delta: str) -> Any:
        """Append chain-of-thought to block ``index``."""
        self._block(index, "thinking").text += delta
        return self._touch(index)

    def tool_start(self, index: int, tool_id: str, name: str) -> Any:
        """Open tool call ``index``."""
        block = self._block(index, "toolCall")
        block.tool_id, block.tool_name = tool_id, name
        return self._touch(index)

    def tool_delta(self, index: int, delta: str) -> Any:
        """Append a fragment of tool call ``index``'s arguments JSON."""
        self._block(index, "toolCall").text += delta
        return self._touch(index)

    def tool_end(self, index: int) -> Any:
        """Close tool call ``index``: its arguments become JSON (kept as text if invalid)."""
        block = self._block(index, "toolCall")
        try:
            block.arguments = json.loads(block.text) if block.text else {}
        except ValueError:
            block.arguments = block.text
        block.closed = True
        return self._touch(index)

    # -- feeding -------------------------------------------------------------------------------

    def feed(self, event: Any) -> Any:
        """Apply one provider StreamEvent or AgentEvent; return the current message."""
        kind = getattr(event, "type", None)
        if kind == "Start":
            return self.start()
        if kind in _DELTAS or kind in _TOOL_EDGES:
            return self._feed_provider_delta(event)
        if kind in {"Done", "Error", "MessageEnd"}:
            return self.finish(event.message)
        if kind == "MessageStart":
            return self.start(event.message)
        if kind == "MessageUpdate":
            return self._feed_update(event)
        return self.message

    def _feed_provider_delta(self, event: Any) -> Any:
        index = event.content_index
        if event.type == "TextDelta":
            return self.text(index, event.delta)
        if event.type == "ThinkingDelta":
            return self.thinking(index, event.delta)
        if event.type == "ToolCallStart":
            return self.tool_start(index, event.id, event.name)
        if event.type == "ToolCallDelta":
            return self.tool_delta(index, event.delta)
        return self.tool_end(index)

    def _feed_update(self, event: Any) -> Any:
        if self.finished:
            return self.message
        if self.message is None:
            self.start(event.message)
        if getattr(event.message, "content", None):
            self.message = event.message  # an assembled snapshot (phi-wire's translator)
            return self.message
        delta = event.delta  # phi-core's placeholder: assemble from the delta
        if getattr(delta, "text", None) is not None:
            return self.text(self._last_index("text"), delta.text.delta)
        if getattr(delta, "thinking", None) is not None:
            return self.thinking(self._last_index("thinking"), delta.thinking.delta)
        return self.tool_delta(self._last_index("toolCall"), delta.tool_call_delta.delta)


class _Translator:
    """The state of one ``stream_assistant_response``: provider events in, AgentEvents out."""

    def __init__(self, wire: ModuleType, loop_id: str, model: str, end_failed: bool) -> None:
        self.wire = wire
        self.loop_id = loop_id
        self.model = model
        self.end_failed = end_failed
        self.accumulator = MessageAccumulator(model=model, wire=wire)
        self.opened = False  # phi-core's ``partial_message.is_some()``
        self.result: Any = None  # the final bare Message once known

    def push(self, event: Any) -> list[Any]:
        wire, kind = self.wire, event.type
        if kind == "Start":
            self.opened = True
            return [wire.MessageStart(loop_id=self.loop_id, message=self.accumulator.start())]
        if kind in _DELTAS:
            if not self.opened:
                return []
            message = self.accumulator.feed(event)
            delta = _delta(wire, kind, event.delta)
            return [wire.MessageUpdate(loop_id=self.loop_id, message=message, delta=delta)]
        if kind in _TOOL_EDGES:
            if self.opened:
                self.accumulator.feed(event)
            return []
        if kind in {"Done", "Error"}:
            return self._end(event.message, start=kind == "Error" and not self.opened)
        return []

    def _end(self, message: Any, *, start: bool) -> list[Any]:
        self.opened = True
        self.result = message
        final = self.accumulator.finish(message)
        end = self.wire.MessageEnd(loop_id=self.loop_id, message=final)
        if start:
            return [self.wire.MessageStart(loop_id=self.loop_id, message=final), end]
        return [end]

    def fail(self, text: str) -> list[Any]:
        """The provider failed: phi-core's synthetic error message is the result; with
        ``end_failed`` a message left open (or none at all) is closed with it."""
        synthetic = self.wire.AssistantMessage(
            content=[self.wire.TextContent(text="")],
            stop_reason="error",
            model=self.model,
            provider="unknown",
            usage=self.wire.Usage(input=0, output=0),
            timestamp=now_ms(),
            error_message=text,
        )
        already_closed = self.opened and self.accumulator.finished
        if not self.end_failed or already_closed:
            self.result = synthetic
            return []
        return self._end(synthetic, start=not self.opened)

    def close(self) -> list[Any]:
        """The provider's stream ended: without Done or Error that is a failure too."""
        return [] if self.result is not None else self.fail(UNFINISHED)


def _delta(wire: ModuleType, kind: str, text: str) -> Any:
    body = wire.DeltaBody(delta=text)
    if kind == "TextDelta":
        return wire.TextDelta(text=body)
    if kind == "ThinkingDelta":
        return wire.ThinkingDelta(thinking=body)
    return wire.ToolCallDelta(tool_call_delta=body)


class _Translation:
    """What the sync and async translations share: options, state and the pending events."""

    def __init__(
        self,
        *,
        loop_id: str,
        model: str,
        wire: ModuleType | None,
        cancelled: Callable[[], bool] | None,
        end_failed: bool,
    ) -> None:
        self._options = (loop_id, model, wire, end_failed)
        self._cancelled = cancelled or (lambda: False)
        self._translator: _Translator | None = None
        self._pending: deque[Any] = deque()
        self._done = False

    @property
    def message(self) -> Any:
        """The final bare ``Message`` (what phi-core's ``stream_assistant_response`` returns)
        once the iteration is over; None before."""
        return self._translator.result if self._translator is not None and self._done else None

    def _state(self, sample: Any) -> _Translator:
        if self._translator is None:
            loop_id, model, wire, end_failed = self._options
            self._translator = _Translator(
                wire or version_module(sample), loop_id, model, end_failed
            )
        return self._translator

    def _received(self, event: Any) -> list[Any]:
        if self._cancelled():
            return self._failed(CANCELLED)
        return self._state(event).push(event)

    def _failed(self, text: str) -> list[Any]:
        self._done = True
        return self._state(None).fail(text)

    def _ended(self) -> list[Any]:
        self._done = True
        return self._state(None).close()


class StreamTranslation(_Translation, Iterator[Any]):
    """The AgentEvents of one provider stream, made as they are read; see ``message``."""

    def __init__(self, events: Iterable[Any], **options: Any) -> None:
        super().__init__(**options)
        self._source = iter(events)

    def __next__(self) -> Any:
        while not self._pending:
            if self._done:
                raise StopIteration
            self._pending.extend(self._step())
        return self._pending.popleft()

    def _step(self) -> list[Any]:
        if self._cancelled():
            return self._failed(CANCELLED)
        try:
            event = next(self._source)
        except StopIteration:
            return self._ended()
        except Exception as error:  # the provider failed: phi-core never raises here
            return self._failed(str(error) or type(error).__name__)
        return self._received(event)


class AsyncStreamTranslation(_Translation, AsyncIterator[Any]):
    """The async twin of ``StreamTranslation``: an async provider stream in."""

    def __init__(self, events: AsyncIterable[Any], **options: Any) -> None:
        super().__init__(**options)
        self._source = aiter(events)

    async def __anext__(self) -> Any:
        while not self._pending:
            if self._done:
                raise StopAsyncIteration
            self._pending.extend(await self._step())
        return self._pending.popleft()

    async def _step(self) -> list[Any]:
        if self._cancelled():
            return self._failed(CANCELLED)
        try:
            event = await anext(self._source)
        except StopAsyncIteration:
            return self._ended()
        except Exception as error:
            return self._failed(str(error) or type(error).__name__)
        return self._received(event)


def translate_stream(
    events: Iterable[Any],
    *,
    loop_id: str,
    model: str = "",
    wire: ModuleType | None = None,
    cancelled: Callable[[], bool] | None = None,
    end_failed: bool = False,
) -> StreamTranslation:
    """Provider ``StreamEvent``s to ``AgentEvent``s with phi-core's semantics (module docstring);
    never raises for a provider failure. ``model`` names the model in placeholders and synthetic
    messages; ``wire`` is the version module (default: that of the first event); ``cancelled``
    is polled before and after each provider event."""
    return StreamTranslation(
        events, loop_id=loop_id, model=model, wire=wire, cancelled=cancelled, end_failed=end_failed
    )


def atranslate_stream(
    events: AsyncIterable[Any],
    *,
    loop_id: str,
    model: str = "",
    wire: ModuleType | None = None,
    cancelled: Callable[[], bool] | None = None,
    end_failed: bool = False,
) -> AsyncStreamTranslation:
    """The async twin of ``translate_stream``."""
    return AsyncStreamTranslation(
        events, loop_id=loop_id, model=model, wire=wire, cancelled=cancelled, end_failed=end_failed
    )
