"""serde_json's pretty layout (``to_writer_pretty``, phi-core's ``save_session``): whether a text
is exactly that rendering of its own tokens, checked on the text as it is, without a tree.

The layout of a pretty document is fixed by its tokens: every value of an array or object on a
line of its own, indented two spaces per level; ``": "`` between a key and its value; a comma
ending every line but the last of its container; an empty array or object as ``[]`` or ``{}``;
no blank anywhere else, no line ending after the last line. So a text is that rendering when
each line holds one closing bracket or one (key and) value start, and its indent follows from
the line before: two more after an opening line, the same after a comma, two less (on a closing
bracket) after any other. That relation between neighbouring lines is one regular expression.

What it does not check: the tokens themselves (that they are JSON, and which JSON). A caller
matches the compact form (``_compact``) for that; a text that passes both is the pretty
rendering of that compact form.
"""

from __future__ import annotations

import re

__all__ = ["is_pretty"]

# A string on one line (JSON strings hold no raw newline; what else they hold, the compact form's
# expression judges), a number or literal, a key.
_STRING = rb'"[^"\\\n]*+(?:\\[^\n][^"\\\n]*+)*+"'
_WORD = rb"[-+.0-9A-Za-z]++"
_KEY = _STRING + rb": "
_LEAF = rb"(?:" + _STRING + rb"|" + _WORD + rb"|\{\}|\[\])"
# One line at two spaces or more: group 1 its indent, group 2 that indent less two spaces. An
# opening line is followed by a line two spaces deeper that closes nothing (an empty container
# is written on one line); a line ending in a comma by one as deep that closes nothing; any other
# by a closing bracket two spaces less deep.
_LINE = (
    rb"(  ( *+))(?:"
    + (rb"(?:" + _KEY + rb")?[{\[]\n(?=\1  [^ \n}\]])")
    + (rb"|(?:[}\]]|(?:" + _KEY + rb")?" + _LEAF + rb")")
    + rb"(?:,\n(?=\1[^ \n}\]])|\n(?=\2[}\]])))"
)
# A document: one leaf alone, or an opening bracket, its lines, the closing bracket.
_DOCUMENT = re.compile(rb"(?:" + _LEAF + rb"|[{\[]\n(?=  [^ \n}\]])(?:" + _LINE + rb")*+[}\]])")


def is_pretty(document: bytes | bytearray) -> bool:
    """Whether ``document`` is laid out exactly as serde_json's pretty writer lays out its
    tokens (2-space indent, no trailing newline); its tokens are not judged."""
    return _DOCUMENT.fullmatch(document) is not None
