"""phi-core 0.8 wire types, with ``loads``, ``dumps`` and ``schema`` for them."""

from __future__ import annotations

from ._codec import dumps, loads
from ._errors import Problem, WireError
from ._schema import schema_for
from ._timestamp import Timestamp
from .generated.v0_8.agent_message import (
    AgentMessage,
    ExtensionMessage,
    LlmAssistantMessage,
    LlmMessage,
    LlmMeta,
    LlmToolResultMessage,
    LlmUserMessage,
    NodeId,
    NodeTag,
    TagKind,
    TurnId,
)
from .generated.v0_8.config import ApiProtocol, LoopConfigSnapshot, ThinkingLevel
from .generated.v0_8.content import (
    Content,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCallContent,
)
from .generated.v0_8.event import (
    AgentEnd,
    AgentEvent,
    AgentStart,
    BranchContinuation,
    CompactionEnded,
    CompactionStarted,
    ContinuationKind,
    ContinuationTag,
    DeltaBody,
    InputRejected,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ParallelLoopEnd,
    ParallelLoopStart,
    ProgressMessage,
    PrunApplied,
    RerunContinuation,
    RevertApplied,
    RevertCategory,
    SimpleContinuation,
    StreamDelta,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    ToolResult,
    TurnEnd,
    TurnStart,
    TurnTrigger,
)
from .generated.v0_8.message import (
    AssistantMessage,
    Message,
    StopReason,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from .generated.v0_8.session import (
    ChildLoopRef,
    CompactedSection,
    CompactionBlock,
    ExplicitFormation,
    FirstLoopFormation,
    FormationTimestamp,
    InactivityTimeoutBody,
    InactivityTimeoutFormation,
    LoopEvent,
    LoopRecord,
    LoopStatus,
    ParallelGroupRecord,
    Session,
    SessionFormation,
    SessionScope,
    SpawnRef,
    Turn,
    TurnRange,
)

PHI_CORE_VERSION = "0.8"
"""The phi-core minor version whose wire format this module speaks."""


def schema(tp: object) -> dict[str, object]:
    """A self-contained JSON Schema (draft 2020-12) for the wire type ``tp``."""
    return schema_for(PHI_CORE_VERSION, tp)
