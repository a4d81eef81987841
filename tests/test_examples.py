"""examples/ holds sample data that phi-wire made itself; it must be what the script writes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from phi_wire import dumps

ROOT = Path(__file__).resolve().parent.parent


def test_sample_data_is_up_to_date() -> None:
    spec = importlib.util.spec_from_file_location(
        "make_examples", ROOT / "examples" / "make_examples.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, text in module.render().items():
        on_disk = (ROOT / "examples" / name).read_text(encoding="utf-8")
        assert on_disk == text, f"examples/{name} is stale: run python examples/make_examples.py"


def test_streaming_example_serves_the_sample_events_over_sse() -> None:
    from sse_server import serve_asgi

    from examples.streaming_server import app
    from phi_wire.sse import events

    lines = (ROOT / "examples" / "events.jsonl").read_text(encoding="utf-8").splitlines()
    with serve_asgi(app) as base:  # uvicorn on 127.0.0.1, as the example's client runs it
        received = [dumps(event) for event in events(f"{base}/events")]
    assert received == lines
