"""Benchmark SSE decoding with typed validation, and the linearity of stream accumulation.

    python tools/bench_sse.py [--repeat 7] [--copies 40]

1. An SSE body holding the fixture event stream ``--copies`` times is decoded in memory (httpx
   Response + httpx-sse, as ``phi_wire.sse.events`` does) and each event is either handed to
   ``json.loads`` (the baseline) or validated with ``loads(AgentEvent, ...)``. Both run side by
   side, interleaved; medians and the events/s ratio are printed (goal: typed >= 0.9x baseline).
2. ``translate_stream`` runs over a provider stream of N text/thinking/tool-call deltas and over
   one 10x longer; a time ratio near 10 means accumulation is linear.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from httpx_sse import EventSource

import phi_wire.v0_8 as wire
from phi_wire.sse import sse_body

ROOT = Path(__file__).resolve().parent.parent


def sse_payload(fixtures: Path, copies: int) -> tuple[bytes, int]:
    lines = (
        (fixtures / "phi-core" / "0.8.0" / "streams" / "events.main_session.jsonl")
        .read_text()
        .split("\n")[:-1]
    )
    events = [wire.loads(wire.AgentEvent, line) for line in lines] * copies
    return b"".join(sse_body(events)), len(events)


def decode(body: bytes, handle: Callable[[str], Any]) -> int:
    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)
    count = 0
    for sse in EventSource(response).iter_sse():
        handle(sse.data)
        count += 1
    return count


def median_seconds(function: Callable[[], object], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return samples


def provider_stream(deltas: int) -> list[Any]:
    """A reply of three blocks (thinking, text, tool call) sharing ``deltas`` deltas."""
    third = deltas // 3
    stream: list[Any] = [wire.StreamStart()]
    stream += [wire.StreamThinkingDelta(content_index=0, delta="thought ") for _ in range(third)]
    stream += [wire.StreamTextDelta(content_index=1, delta="word ") for _ in range(third)]
    stream.append(wire.StreamToolCallStart(content_index=2, id="c", name="bash"))
    stream += [wire.StreamToolCallDelta(content_index=2, delta='"x",') for _ in range(third)]
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


def translate_seconds(deltas: int, repeat: int) -> float:
    """Events are consumed as they come (as an SSE server does), not kept: every MessageUpdate
    holds its own snapshot of the growing message, so keeping them all costs quadratic memory."""
    stream = provider_stream(deltas)

    def consume() -> None:
        collections.deque(wire.translate_stream(stream, loop_id="l", model="m"), maxlen=0)

    return statistics.median(median_seconds(consume, repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--copies", type=int, default=40)
    default = os.environ.get("PHI_WIRE_FIXTURES", str(ROOT.parent / "shared" / "fixtures"))
    parser.add_argument("--fixtures", type=Path, default=Path(default))
    args = parser.parse_args()

    body, count = sse_payload(args.fixtures, args.copies)
    cases: dict[str, Callable[[], object]] = {
        "SSE + json.loads": lambda: decode(body, json.loads),
        "SSE + loads(AgentEvent)": lambda: decode(
            body, lambda data: wire.loads(wire.AgentEvent, data)
        ),
    }
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.repeat):
        for name, function in cases.items():
            samples[name] += median_seconds(function, 1)
    size = len(body) / 1e6
    print(f"SSE body: {count} events, {size:.2f} MB; median of {args.repeat} interleaved runs")
    rates = {}
    for name, values in samples.items():
        seconds = statistics.median(values)
        rates[name] = count / seconds
        print(f"  {name:25s} {seconds * 1e3:8.1f} ms  {rates[name]:9.0f} events/s")
    ratio = rates["SSE + loads(AgentEvent)"] / rates["SSE + json.loads"]
    print(f"  typed / baseline throughput: {ratio:.2f}x (goal >= 0.9x)")

    small, large = 3_000, 30_000
    short, long = (
        translate_seconds(small, args.repeat),
        translate_seconds(large, max(3, args.repeat // 2)),
    )
    print(
        f"translate_stream: {small} deltas {short * 1e3:.1f} ms, {large} deltas {long * 1e3:.1f} ms"
    )
    print(f"  10x longer stream took {long / short:.1f}x the time (linear: about 10x)")


if __name__ == "__main__":
    main()
