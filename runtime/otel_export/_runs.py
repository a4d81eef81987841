"""A persisted transcript as agent runs: what the conventions' agent span (one per run), inference
spans (one per model call) and tool spans (one per tool execution) are made of. Every format is
read through phi-core (``phi_wire.convert``): a phi-core ``Session`` is a run per loop, an event
stream a run per loop id (its messages those of its ``MessageEnd`` events, its system prompt and
tools those of its first ``TurnRequest``, its times its ``AgentStart`` and ``AgentEnd``), a
message list (a clark-agent history, an Operator-Use session...) one run."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from phi_wire.convert import Document, convert_file

__all__ = ["Run", "rfc3339_ns", "runs_of"]


@dataclass
class Run:
    """One agent run: its messages (phi-core's JSON, in order), and what else the transcript
    says of it."""

    id: str
    messages: list[dict[str, Any]]
    conversation: str | None = None
    agent: str | None = None
    system_prompt: str | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)
    start_ns: int | None = None
    end_ns: int | None = None
    model: str | None = None
    provider: str | None = None


def rfc3339_ns(text: str) -> int | None:
    """Nanoseconds since the epoch of an RFC 3339 UTC time (``2026-05-25T09:41:07.386712788Z``:
    nine fraction digits kept), None if it is not one."""
    import calendar
    import time

    head, _, rest = text.partition(".")
    fraction = rest.rstrip("Zz") if rest else ""
    head = head.rstrip("Zz")
    try:
        seconds = calendar.timegm(time.strptime(head, "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return None
    if fraction and not fraction.isdigit():
        return None
    return seconds * 1_000_000_000 + int((fraction + "000000000")[:9] or 0)


def runs_of(path: str | os.PathLike[str]) -> list[Run]:
    """The runs of the transcript at ``path`` (any format ``phi-wire convert`` reads)."""
    documents = [
        json.loads(item.text)
        for item in convert_file(path, target="phi-core")
        if isinstance(item, Document)
    ]
    name = os.fspath(path)
    if len(documents) == 1 and isinstance(documents[0], dict) and "loops" in documents[0]:
        return _session_runs(documents[0])
    if documents and all(_is_event(document) for document in documents):
        return _stream_runs(documents)
    messages = [document for document in documents if isinstance(document, dict)]
    return [Run(id=name, messages=messages)] if messages else []


def _is_event(document: Any) -> bool:
    return (
        isinstance(document, dict)
        and isinstance(document.get("type"), str)
        and "role" not in document
    )


def _session_runs(session: dict[str, Any]) -> list[Run]:
    runs = []
    for loop in session["loops"]:
        config = loop.get("config") if isinstance(loop.get("config"), dict) else {}
        started = loop.get("started_at")
        ended = loop.get("ended_at")
        request: dict[str, Any] = next(
            (
                item["event"]["payload"]
                for item in loop.get("events") or []
                if isinstance(item, dict) and (item.get("event") or {}).get("type") == "TurnRequest"
            ),
            {},
        )
        runs.append(
            Run(
                id=loop["loop_id"],
                tools=list(request.get("tools") or []),
                messages=list(loop["messages"]),
                conversation=session.get("session_id"),
                agent=session.get("agent_id"),
                system_prompt=request.get("system_prompt") or None,
                start_ns=rfc3339_ns(started) if isinstance(started, str) else None,
                end_ns=rfc3339_ns(ended) if isinstance(ended, str) else None,
                model=config.get("model") if isinstance(config.get("model"), str) else None,
                provider=config.get("provider")
                if isinstance(config.get("provider"), str)
                else None,
            )
        )
    return runs


def _stream_runs(events: list[dict[str, Any]]) -> list[Run]:
    runs: dict[str, Run] = {}
    for event in events:
        loop = event.get("loop_id")
        if not isinstance(loop, str):
            continue
        run = runs.setdefault(loop, Run(id=loop, messages=[]))
        kind = event["type"]
        stamp = event.get("timestamp")
        at = rfc3339_ns(stamp) if isinstance(stamp, str) else None
        if kind == "AgentStart":
            run.conversation = event.get("session_id")
            run.agent = event.get("agent_id")
            run.start_ns = at
            snapshot = event.get("config_snapshot") or {}
            run.model = snapshot.get("model")
            run.provider = snapshot.get("provider")
        elif kind == "AgentEnd":
            run.end_ns = at
        elif kind == "MessageEnd":
            run.messages.append(event["message"])
        elif kind == "TurnRequest" and run.system_prompt is None:
            payload = event["payload"]
            run.system_prompt = payload.get("system_prompt") or None
            run.tools = list(payload.get("tools") or [])
    return list(runs.values())  # a run without messages (its input rejected) is a run too
