"""From a provider's stream to AgentEvents, and the live partial message, as phi-core does it.

phi-core fact (src/agent_loop/streaming.rs, ``stream_assistant_response``): ``Start`` gives
``MessageStart`` with a placeholder assistant message (no content, ``stopReason: stop``, empty
provider, zero usage, stamped now); every text/thinking/tool-call delta gives ``MessageUpdate``
with the matching ``StreamDelta``; ``ToolCallStart``/``ToolCallEnd`` give no event; deltas before
``Start`` are dropped; ``Done`` gives ``MessageEnd``; ``Error`` gives ``MessageStart`` (only when no
``Start`` came) then ``MessageEnd``; a provider failure never raises: it becomes a synthetic error
message (``stopReason: error``, provider ``"unknown"``, the error text in ``error_message``).

Beyond phi-core (whose updates re-send the unchanged placeholder): each ``MessageUpdate`` carries
the partial message assembled so far, block by block by ``content_index`` (a tool call's
arguments are the raw JSON text received so far, parsed into JSON at ``ToolCallEnd``). Only the
block a delta touches is rebuilt, so a stream costs time linear in its length for bounded blocks.
Cancellation (``cancelled()`` turning true) ends the message as phi-core's providers do: an error
event whose message keeps the partial content with ``stopReason: aborted``.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ._helpers import now_ms

__all__ = ["MessageAccumulator", "translate_stream"]


def _default_wire(sample: Any = None) -> ModuleType:
    """The version module that ``sample`` (a generated model) belongs to, else the newest."""
    import importlib

    module = getattr(type(sample), "__module__", "")
    if module.startswith("phi_wire.generated.v"):
        return importlib.import_module("phi_wire." + module.split(".")[2])
    return importlib.import_module("phi_wire")


@dataclass
class _Block:
    kind: str  # "text" | "thinking" | "toolCall"
    text: str = ""
    tool_id: str = ""
    tool_name: str = ""
    arguments: Any = None
    closed: bool = False

    def append(self, delta: str) -> None:
        self.text += delta


class MessageAccumulator:
    """The live partial assistant message of one streamed reply.

    ``feed`` takes provider ``StreamEvent``s (assembled by ``content_index``) or ``AgentEvent``s
    (``MessageStart``/``MessageUpdate``/``MessageEnd``; without an index, a delta extends the last
    block of its kind). ``message`` is the partial message at any point and, after
    ``MessageEnd``/``Done``/``Error``, exactly the final message.
    """

    def __init__(self, *, model: str = "", wire: ModuleType | None = None) -> None:
        self.wire = wire or _default_wire()
        self.model = model
        self.message: Any = None
        self.finished = False
        self._blocks: dict[int, _Block] = {}
        self._order: list[int] = []
        self._cache: dict[int, Any] = {}

    # -- building ------------------------------------------------------------------------------

    def start(self, placeholder: Any | None = None) -> Any:
        """Begin a message (the placeholder phi-core emits at ``Start`` unless one is given)."""
        wire = self.wire
        if placeholder is None:
            placeholder = wire.LlmAssistantMessage(
                content=[],
                stop_reason=wire.StopReason.STOP,
                model=self.model,
                provider="",
                usage=wire.Usage(input=0, output=0),
                timestamp=now_ms(),
            )
        self.message = placeholder
        self.finished = False
        self._blocks.clear()
        self._order.clear()
        self._cache.clear()
        return placeholder

    def finish(self, message: Any) -> Any:
        """End with ``message`` (a bare Message becomes an LLM-lane message, as in phi-core)."""
        if _is_bare(message):
            message = self.wire.LlmMessage.new(message)
        self.message = message
        self.finished = True
        return message

    def _block(self, index: int, kind: str) -> _Block:
        block = self._blocks.get(index)
        if block is None:
            block = self._blocks[index] = _Block(kind)
            self._order.append(index)
        return block

    def _last_index(self, kind: str) -> int:
        for index in reversed(self._order):
            if self._blocks[index].kind == kind:
                return index
        return (max(self._order) + 1) if self._order else 0

    def _content(self, block: _Block) -> Any:
        wire = self.wire
        if block.kind == "text":
            return wire.TextContent.model_construct(type="text", text=block.text)
        if block.kind == "thinking":
            return wire.ThinkingContent.model_construct(
                type="thinking", thinking=block.text, signature=None
            )
        arguments = block.arguments if block.closed else block.text
        return wire.ToolCallContent.model_construct(
            type="toolCall", id=block.tool_id, name=block.tool_name, arguments=arguments
        )

    def _touch(self, index: int) -> Any:
        """Rebuild the touched block only and return a new snapshot of the message."""
        self._cache[index] = self._content(self._blocks[index])
        content = [self._cache[key] for key in sorted(self._order)]
        self.message = self.message.model_copy(update={"content": content})
        return self.message

    def text(self, index: int, delta: str) -> Any:
        self._block(index, "text").append(delta)
        return self._touch(index)

    def thinking(self, index: int, delta: str) -> Any:
        self._block(index, "thinking").append(delta)
        return self._touch(index)

    def tool_start(self, index: int, tool_id: str, name: str) -> Any:
        block = self._block(index, "toolCall")
        block.tool_id, block.tool_name = tool_id, name
        return self._touch(index)

    def tool_delta(self, index: int, delta: str) -> Any:
        self._block(index, "toolCall").append(delta)
        return self._touch(index)

    def tool_end(self, index: int) -> Any:
        block = self._block(index, "toolCall")
        try:
            block.arguments = json.loads(block.text) if block.text else {}
        except ValueError:
            block.arguments = block.text  # not JSON: keep what the provider sent
        block.closed = True
        return self._touch(index)

    # -- feeding -------------------------------------------------------------------------------

    def feed(self, event: Any) -> Any:
        """Apply one provider StreamEvent or AgentEvent; return the current message."""
        kind = getattr(event, "type", None)
        if kind == "Start":
            return self.start()
        if kind in {"TextDelta", "ThinkingDelta", "ToolCallStart", "ToolCallDelta", "ToolCallEnd"}:
            return self._feed_provider_delta(event) if self.message is not None else None
        if kind in {"Done", "Error"}:
            return self.finish(event.message)
        if kind == "MessageStart":
            return self.start(event.message)
        if kind == "MessageUpdate":
            return self._feed_update(event)
        if kind == "MessageEnd":
            return self.finish(event.message)
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


def _is_bare(message: Any) -> bool:
    from ._helpers import MessageHelpers
    from ._wire import LlmMessageBase

    return isinstance(message, MessageHelpers) and not isinstance(message, LlmMessageBase)


def _stream_delta(wire: ModuleType, event: Any) -> Any:
    body = wire.DeltaBody(delta=event.delta)
    if event.type == "TextDelta":
        return wire.TextDelta(text=body)
    if event.type == "ThinkingDelta":
        return wire.ThinkingDelta(thinking=body)
    return wire.ToolCallDelta(tool_call_delta=body)


def _error_message(wire: ModuleType, model: str, text: str, stop: str, content: list[Any]) -> Any:
    return wire.AssistantMessage(
        content=content or [wire.TextContent(text="")],
        stop_reason=stop,
        model=model,
        provider="unknown",
        usage=wire.Usage(input=0, output=0),
        timestamp=now_ms(),
        error_message=text,
    )


def translate_stream(
    events: Iterable[Any],
    *,
    loop_id: str,
    model: str = "",
    wire: ModuleType | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Iterator[Any]:
    """Provider ``StreamEvent``s to ``AgentEvent``s with phi-core's semantics (see the module
    docstring). Never raises for a provider failure: it ends the message with an error message.
    """
    source = iter(events)
    first = next(source, None)
    if first is None:
        return
    wire = wire or _default_wire(first)
    source = itertools.chain([first], source)
    accumulator = MessageAccumulator(model=model, wire=wire)
    started = False
    while True:
        try:
            event = None if _stopped(cancelled) else next(source)
        except StopIteration:
            return
        except Exception as error:  # the provider failed: phi-core never raises here
            failure = _error_message(wire, model, str(error) or type(error).__name__, "error", [])
            yield from _end_with_error(wire, accumulator, loop_id, failure, started)
            return
        if event is None or _stopped(cancelled):  # cancelled before or while waiting
            partial = list(accumulator.message.content) if accumulator.message is not None else []
            failure = _error_message(wire, model, "Cancelled", "aborted", partial)
            yield from _end_with_error(wire, accumulator, loop_id, failure, started)
            return
        kind = event.type
        if kind == "Start":
            started = True
            yield wire.MessageStart(loop_id=loop_id, message=accumulator.start())
        elif kind in {"TextDelta", "ThinkingDelta", "ToolCallDelta"}:
            if started:
                message = accumulator.feed(event)
                yield wire.MessageUpdate(
                    loop_id=loop_id, message=message, delta=_stream_delta(wire, event)
                )
        elif kind in {"ToolCallStart", "ToolCallEnd"}:
            if started:
                accumulator.feed(event)
        elif kind == "Done":
            started = True
            yield wire.MessageEnd(loop_id=loop_id, message=accumulator.finish(event.message))
        elif kind == "Error":
            yield from _end_with_error(wire, accumulator, loop_id, event.message, started)
            started = True


def _stopped(cancelled: Callable[[], bool] | None) -> bool:
    return cancelled is not None and cancelled()


def _end_with_error(
    wire: ModuleType, accumulator: MessageAccumulator, loop_id: str, message: Any, started: bool
) -> Iterator[Any]:
    final = accumulator.finish(message)
    if not started:
        yield wire.MessageStart(loop_id=loop_id, message=final)
    yield wire.MessageEnd(loop_id=loop_id, message=final)
