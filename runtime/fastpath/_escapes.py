"""pi's JSON strings take every escape (``_js.JS_STRING``), so a line dense with ``\\n`` escapes can
be matched with each of them rewritten as two DEL bytes, which the expression's plain runs take at
their C speed: a tool's output (``seq 1 3000``: an escape every 5 bytes) is matched some three
times faster, where each escape otherwise costs one turn of the string's repeat.

Why the rewritten line ``R`` vouches for nothing its original ``O`` would not. ``R`` is ``O`` with
some ``\\n`` pairs made ``DEL DEL`` (the same length, so offsets hold). In pi's expressions DEL
(0x7f) is taken only by the plain run of a ``JS_STRING`` (no literal, key, number, timestamp or
borrowed string holds one; ``tests/test_fastpath_pi_escapes.py`` walks every expression
``validate`` builds for pi to check it), and a string's quotes are never DEL. So in a match of
``R`` each rewritten pair lies inside a string the expression took as ``JS_STRING``. Read from its
opening quote, that string is, in ``O``, the same plain bytes and whole escapes up to the pair,
then ``\\n`` (one of ``JS_STRING``'s escapes), and so on: ``O``'s string is a ``JS_STRING`` too,
every other part of the match holds the same bytes (a lookahead looks at a value's first bytes,
never inside a string), and the expression matches ``O``. A line ``R``'s match rejects is matched
again as ``O`` (a ``\\\\n``, an escaped backslash then ``n``, becomes ``\\`` and DEL DEL, which
no string takes), so the lines vouched for are exactly those the expression matches as written.

The rewrite pays only where escapes are dense (``bytes.replace`` scans about a byte a
nanosecond): the block is sampled (``SAMPLE_BYTES`` every ``SAMPLE_EVERY``), and only the lines
around a dense sample are rewritten.
"""

from __future__ import annotations

__all__ = ["DENSE_SAMPLE", "SAMPLE_BYTES", "SAMPLE_EVERY", "dense_spans", "rewritten"]

ESCAPE = b"\\n"
"""The escape rewritten: text's line breaks, by far the most frequent one in pi's tool outputs."""
STAND_IN = b"\x7f\x7f"
SAMPLE_EVERY = 8 * 1024
"""One sample of the block's backslashes every this many bytes."""
SAMPLE_BYTES = 512
DENSE_SAMPLE = SAMPLE_BYTES // 16
"""Backslashes in a sample from which its stretch is rewritten: one in 16 bytes, where the
escapes' saving outweighs ``replace``'s scan."""


def dense_spans(block: bytes | bytearray) -> list[tuple[int, int]]:
    """The stretches of whole lines of ``block`` worth rewriting, in order, apart: each the lines
    around consecutive samples that hold ``DENSE_SAMPLE`` backslashes or more (0: the whole
    block; read at each call, so that a test can force the rewrite on or off)."""
    size = len(block)
    least = DENSE_SAMPLE
    if least <= 0:
        return [(0, size)] if size else []
    count = block.count
    dense = [
        start
        for start in range(0, size, SAMPLE_EVERY)
        if count(b"\\", start, start + SAMPLE_BYTES) >= least
    ]
    spans: list[tuple[int, int]] = []
    last = -SAMPLE_EVERY
    for start in dense:
        end = min(size, start + SAMPLE_BYTES)  # the lines up to the sample's end, not further
        if spans and (start - last == SAMPLE_EVERY or spans[-1][1] >= start):
            first = spans.pop()[0]  # the stretch goes on from the sample before
        else:
            first = block.rfind(b"\n", 0, start) + 1
        newline = block.find(b"\n", end - 1)
        spans.append((first, size if newline == -1 else newline + 1))
        last = start
    return spans


def rewritten(block: bytes | bytearray, start: int, end: int) -> bytes | bytearray:
    """``block[start:end]`` with each ``\\n`` escape made two DEL bytes (its length unchanged)."""
    return block[start:end].replace(ESCAPE, STAND_IN)
