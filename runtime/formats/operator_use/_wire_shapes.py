"""Operator-Use fact (d0da87a6, the layout phi-wire writes): the keys each object of a message or
a session file may hold, which of them may be null, and the closed sets of a few texts, as plain
data: the dict converter to phi-core (``_fast_to_phi``) checks documents against them without
importing the models (a fast conversion imports none). They are the generated models' own
(``shape_of`` reads a model's; a test holds every shape here equal to its model's)."""

from __future__ import annotations

from typing import Any, NamedTuple

from .recognise import UNIT_ENUMS

__all__ = [
    "COST_KEYS",
    "STOP_REASONS",
    "TOOL_KINDS",
    "Shape",
    "shape_of",
]


class Shape(NamedTuple):
    """What a model's reader takes of an object: its wire keys (any other key is one it drops),
    and those that may be null (None is their default), each with whether its writer skips a
    None (a null its reader reads as absent is then a loss)."""

    name: str
    keys: frozenset[str]
    nullable: dict[str, bool]


def shape_of(model: Any) -> Shape:
    """A generated model's ``Shape``, read from its fields."""
    nullable = {}
    for name, field in model.model_fields.items():
        if field.default is None and field.default_factory is None:
            extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
            nullable[field.alias or name] = extra.get("x-skip-serializing-if") == "is_none"
    keys = frozenset(field.alias or name for name, field in model.model_fields.items())
    return Shape(model.__name__, keys, nullable)


def _shape(name: str, keys: str, /, **nullable: bool) -> Shape:
    return Shape(name, frozenset(keys.split()), nullable)


USER_MESSAGE = _shape("UserMessage", "contents id role timestamp")
ASSISTANT_MESSAGE = _shape("AssistantMessage", "contents error id role stop_reason timestamp usage")
TOOL_MESSAGE = _shape("ToolMessage", "contents id role timestamp")
TEXT_CONTENT = _shape("TextContent", "content type")
THINKING_CONTENT = _shape("ThinkingContent", "content signature type")
TOOL_CALL_CONTENT = _shape("ToolCallContent", "args id kind metadata name type", kind=True)
TOOL_RESULT_CONTENT = _shape("ToolResultContent", "content id is_error metadata terminate type")
IMAGE_CONTENT = _shape("ImageContent", "images type")
AUDIO_CONTENT = _shape("AudioContent", "audio type")
USAGE = _shape("Usage", "cache_read_tokens cache_write_tokens cost input_tokens output_tokens")
USAGE_COST = _shape("UsageCost", "cache_read cache_write input output total")
MESSAGE_META = _shape(
    "MessageMeta", "attachments reactions reply_to", reply_to=True, attachments=True, reactions=True
)
MESSAGE_ATTACHMENT = _shape("MessageAttachment", "mime_type path", mime_type=True)
MESSAGE_ENTRY = _shape(
    "MessageEntry", "id message meta parent_id timestamp type", parent_id=True, meta=True
)
MODEL_CHANGE_ENTRY = _shape(
    "ModelChangeEntry", "id model_id parent_id provider_id timestamp type", parent_id=True
)
THINKING_LEVEL_CHANGE_ENTRY = _shape(
    "ThinkingLevelChangeEntry", "id parent_id thinking_level timestamp type", parent_id=True
)
LABEL_ENTRY = _shape(
    "LabelEntry", "id label parent_id target_id timestamp type", parent_id=True, label=True
)
LEAF_ENTRY = _shape(
    "LeafEntry", "id parent_id target_id timestamp type", parent_id=True, target_id=True
)
SESSION_INFO_ENTRY = _shape(
    "SessionInfoEntry", "id name parent_id timestamp type", parent_id=True, name=True
)
SESSION_HEADER = _shape(
    "SessionHeader", "cwd id parent_session timestamp type version", parent_session=True
)

SHAPES = (
    USER_MESSAGE,
    ASSISTANT_MESSAGE,
    TOOL_MESSAGE,
    TEXT_CONTENT,
    THINKING_CONTENT,
    TOOL_CALL_CONTENT,
    TOOL_RESULT_CONTENT,
    IMAGE_CONTENT,
    AUDIO_CONTENT,
    USAGE,
    USAGE_COST,
    MESSAGE_META,
    MESSAGE_ATTACHMENT,
    MESSAGE_ENTRY,
    MODEL_CHANGE_ENTRY,
    THINKING_LEVEL_CHANGE_ENTRY,
    LABEL_ENTRY,
    LEAF_ENTRY,
    SESSION_INFO_ENTRY,
    SESSION_HEADER,
)
"""Every shape here (a test compares each with ``shape_of`` its model)."""

COST_KEYS = ("input", "output", "cache_read", "cache_write", "total")
"""``UsageCost``'s fields in their declared order (the order its writer writes them)."""
STOP_REASONS = frozenset(UNIT_ENUMS["StopReason"])
"""``StopReason``'s values (recognition's list of them)."""
TOOL_KINDS = frozenset(UNIT_ENUMS["ToolKind"])
"""``ToolKind``'s values (recognition's list of them)."""
