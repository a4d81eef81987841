"""The command line on pi's files beyond ``validate`` (tests/test_pi_validate.py): ``convert``,
whose pi converters are not written yet, says so on one line, never with a traceback; the library's
``convert`` raises ``UnsupportedConversion`` the same way.
"""

from __future__ import annotations

import pytest
from command import run
from corpus import fixtures_root

import phi_wire.pi as pi
from phi_wire.convert import UnsupportedConversion, convert


@pytest.mark.parametrize(
    "name", ["sessions/linear.jsonl", "valid/Message/Message.user.string_content.json"]
)
def test_converting_a_pi_file_says_pi_is_not_converted_yet(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    path = fixtures_root() / "pi" / "1.5.2" / name
    code, out, err = run(capsys, "convert", "--from", "pi", "--to", "phi-core", str(path))
    assert code == 2 and not out, out
    assert err == f"phi-wire: {path}: pi is not converted yet (no converter)\n", err


def test_converting_into_pi_says_so_too(capsys: pytest.CaptureFixture[str]) -> None:
    path = fixtures_root() / "pi" / "1.5.2" / "sessions" / "linear.jsonl"
    code, _, err = run(capsys, "convert", "--to", "pi", str(path))
    assert code == 2 and err.count("\n") == 1 and "pi is not converted yet" in err, err


def test_the_librarys_convert_raises_unsupported_conversion() -> None:
    message = pi.loads(pi.UserMessage, '{"role":"user","content":"hi","timestamp":1}')
    with pytest.raises(UnsupportedConversion, match="not converted yet"):
        convert(message, target="phi-core")
