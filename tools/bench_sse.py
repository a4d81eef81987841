"""Benchmark SSE decoding with typed validation, and the linearity of stream accumulation.

    python tools/bench_sse.py [--repeat 7] [--copies 40]

1. An SSE body holding phi-core's fixture event stream ``--copies`` times is read from an
   in-memory ``httpx.Response`` (no network noise), in 64 KiB chunks as a socket gives them,
   five ways, interleaved, ``--repeat`` times: the baseline (httpx-sse + ``json.loads`` per
   event), ``phi_wire.sse.events`` (bounded message framing, its fields, ``loads(AgentEvent,
   ...)`` and resume bookkeeping: the real client path) with ``loads``' fast path ready (made
   ready first with ``phi_wire.prepare``, as a long-running reader would), the same with the
   fast path off (every event judged the exact way, as before the fast path is built), httpx-sse
   + pydantic's ``validate_json`` into the same models without phi-wire's serde checks (the
   ceiling of any decode into pydantic models), and httpx-sse alone. Medians in events/s and
   the typed/baseline ratio are printed (issue 13's goal: >= 0.5x), then the per-event cost of
   ``json.loads`` and ``loads`` on their own, in the same interleaved rounds.
2. ``translate_stream`` over provider streams of N and 10N deltas (thinking, text and tool-call
   blocks; then one single text block): a time ratio near 10 means accumulation is linear
   (issue 13's goal).
"""

from __future__ import annotations

import argparse
import collections
import gc
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import httpx
from httpx_sse import EventSource

import phi_wire.v0_8 as wire
from phi_wire.base import adapter
from phi_wire.sse import events, sse_body

ROOT = Path(__file__).resolve().parent.parent


def fixture_lines(fixtures: Path) -> list[str]:
    path = fixtures / "phi-core" / "0.8.0" / "streams" / "events.main_session.jsonl"
    return path.read_text(encoding="utf-8").split("\n")[:-1]


CHUNK = 65536


def response(body: bytes) -> httpx.Response:
    chunks = [body[start : start + CHUNK] for start in range(0, len(body), CHUNK)]
    return httpx.Response(
        200,
        headers={"content-type": "text/event-stream"},
        content=iter(chunks),
        request=httpx.Request("GET", "http://127.0.0.1/events"),
    )


def baseline(body: bytes) -> int:
    """What a client without phi-wire does: httpx-sse, then json.loads per event."""
    return sum(1 for sse in EventSource(response(body)).iter_sse() if json.loads(sse.data))


def typed(body: bytes, count: int, event_type: Any = wire.AgentEvent) -> int:
    """phi_wire.sse.events, told which event is the last: the end of a response is otherwise a
    drop to resume from, and an in-memory body has no server to reconnect to."""
    delivered = 0

    def last(_: object) -> bool:
        nonlocal delivered
        delivered += 1
        return delivered == count

    return sum(1 for _ in events(response(body), event_type, until=last))


# The same type under another name: only phi-core's own public types have a fast path, so this
# one is always judged the exact way (as every event is before the fast path is built).
EXACT = Annotated[wire.AgentEvent, "the exact path"]


def exact_path(body: bytes, count: int) -> int:
    """``typed`` with every event judged the exact way."""
    return typed(body, count, EXACT)


def pydantic_only(body: bytes) -> int:
    """The ceiling of any decode into the generated models: httpx-sse, then pydantic's own
    validate_json per event, without the serde checks loads adds (repeated keys, numbers)."""
    validate = adapter(wire.AgentEvent).validate_json
    return sum(1 for sse in EventSource(response(body)).iter_sse() if validate(sse.data))


def decode_only(body: bytes) -> int:
    return sum(1 for _ in EventSource(response(body)).iter_sse())


def seconds(function: Callable[[], object]) -> float:
    """Seconds ``function`` takes, started with nothing left for the garbage collector: the
    collections a case sets off are its own cost, not the next case's."""
    gc.collect()
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def provider_stream(deltas: int, single_block: bool) -> list[Any]:
    """A reply of ``deltas`` deltas: in three blocks (thinking, text, tool call) or one."""
    stream: list[Any] = [wire.StreamStart()]
    if single_block:
        stream += [wire.StreamTextDelta(content_index=0, delta="word ") for _ in range(deltas)]
    else:
        third = deltas // 3
        stream += [wire.StreamThinkingDelta(content_index=0, delta="thought ")] * third
        stream += [wire.StreamTextDelta(content_index=1, delta="word ")] * third
        stream.append(wire.StreamToolCallStart(content_index=2, id="c", name="bash"))
        stream += [wire.StreamToolCallDelta(content_index=2, delta='"x",')] * third
        stream.append(wire.StreamToolCallEnd(content_index=2))
    done = wire.AssistantMessage(
        content=[],
        stop_reason="stop",
        model="m",
        provider="p",
        usage=wire.Usage(input=0, output=0),
        timestamp=0,
    )
    stream.append(wire.StreamDone(message=done))
    return stream


def translate_seconds(deltas: int, single_block: bool, repeat: int) -> float:
    """Events are consumed as they come (as an SSE server does), not kept: every MessageUpdate
    holds its own snapshot of the growing message, so keeping them all costs quadratic memory."""
    stream = provider_stream(deltas, single_block)

    def consume() -> None:
        translation = wire.translate_stream(stream, loop_id="l", model="m")
        collections.deque(translation, maxlen=0)

    return statistics.median(seconds(consume) for _ in range(repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--copies", type=int, default=40)
    default = os.environ.get("PHI_WIRE_FIXTURES", str(ROOT.parent / "shared" / "fixtures"))
    parser.add_argument("--fixtures", type=Path, default=Path(default))
    args = parser.parse_args()

    lines = fixture_lines(args.fixtures)
    assert wire.prepare(wire.AgentEvent)  # loaded from the cache, or built now (once)
    assert not wire.prepare(EXACT)
    stream = [wire.loads(wire.AgentEvent, line) for line in lines] * args.copies
    body = b"".join(sse_body(stream))
    count = len(stream)
    raw = [line.encode() for line in lines] * args.copies
    cases: dict[str, Callable[[], object]] = {
        "httpx-sse + json.loads": lambda: baseline(body),
        "phi_wire.sse.events": lambda: typed(body, count),
        "events, exact path": lambda: exact_path(body, count),
        "httpx-sse + validate_json": lambda: pydantic_only(body),
        "httpx-sse decode only": lambda: decode_only(body),
        "json.loads alone": lambda: [json.loads(line) for line in raw],
        "loads(AgentEvent) alone": lambda: [wire.loads(wire.AgentEvent, line) for line in raw],
    }
    assert baseline(body) == typed(body, count) == pydantic_only(body) == count
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.repeat):
        for name, function in cases.items():
            samples[name].append(seconds(function))
    print(
        f"SSE body: {count} events, {len(body) / 1e6:.2f} MB in {CHUNK // 1024} KiB chunks; "
        f"median of {args.repeat} interleaved runs"
    )
    rate = {}
    for name, values in samples.items():
        median = statistics.median(values)
        rate[name] = count / median
        print(f"  {name:26s} {median * 1e3:8.1f} ms  {rate[name]:9.0f} events/s")
    base = rate["httpx-sse + json.loads"]
    print(
        f"  typed / baseline throughput: {rate['phi_wire.sse.events'] / base:.2f}x (goal >= 0.5x); "
        f"exact path {rate['events, exact path'] / base:.2f}x"
    )
    ceiling = rate["httpx-sse + validate_json"] / base
    print(f"  pydantic models alone, no serde checks / baseline: {ceiling:.2f}x (the ceiling)")
    json_us = 1e6 / rate["json.loads alone"]
    loads_us = 1e6 / rate["loads(AgentEvent) alone"]
    print(
        f"  per event on its own: json.loads {json_us:.1f} us, "
        f"loads(AgentEvent) {loads_us:.1f} us ({json_us / loads_us:.2f}x json.loads)"
    )

    small, large = 3_000, 30_000
    for single in (False, True):
        short = translate_seconds(small, single, args.repeat)
        long = translate_seconds(large, single, max(3, args.repeat // 2))
        shape = "one text block" if single else "3 blocks"
        print(
            f"translate_stream ({shape}): {small} deltas {short * 1e3:.1f} ms "
            f"({short / small * 1e6:.1f} us each), {large} deltas {long * 1e3:.1f} ms "
            f"({long / large * 1e6:.1f} us each): 10x longer took {long / short:.1f}x"
        )


if __name__ == "__main__":
    main()
