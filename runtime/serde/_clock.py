"""Timestamps that serde fills in with the current time when the key is missing.

Serde fact: clark-agent's message timestamps are ``Option<u64>`` with
``#[serde(default = "default_timestamp")]``: a *missing* key reads as ``Some(now)``, the current
UNIX time in milliseconds (``SystemTime::now()``), while an explicit ``null`` reads as ``None``.
The schema marks such a property ``x-serde-default: "now-unix-ms"``; ``WireModel`` turns the
marker into a default factory, so a model built in Python without a timestamp is stamped now too.
"""

from __future__ import annotations

import time

__all__ = ["DEFAULT_FACTORIES", "now_unix_ms"]


def now_unix_ms() -> int:
    """``SystemTime::now()`` since the UNIX epoch, in whole milliseconds (truncated, as
    ``as_millis`` does)."""
    return time.time_ns() // 1_000_000


DEFAULT_FACTORIES = {"now-unix-ms": now_unix_ms}
"""The values ``x-serde-default`` may take, and the function each stands for."""
