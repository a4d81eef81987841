"""What reading objects costs in requests: the listing that found them gives their size and ETag,
so an object is read without a HEAD request first (s3fs asks one for the ETag it pins the reads
to, unless told it): validating or converting a prefix of N objects asks ``info`` once (what the
URL named is), not once or twice per object. Counted on s3fs's own ``_info``, against the S3
server of ``tests/s3.py``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import s3fs
from command import run
from corpus import fixtures_root
from s3 import S3

from phi_wire.validate import validate

MESSAGES = fixtures_root() / "clark-agent" / "0.4.0" / "valid" / "AgentMessage"


def test_a_listed_object_is_read_without_a_head_request(
    s3_server: S3,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    bucket = s3_server.bucket()
    s3_server.upload(MESSAGES, f"s3://{bucket}/in")
    asked: list[str] = []
    info = s3fs.S3FileSystem._info

    async def counted(self: Any, path: str, *args: Any, **options: Any) -> Any:
        asked.append(path)
        return await info(self, path, *args, **options)

    monkeypatch.setattr(s3fs.S3FileSystem, "_info", counted)
    s3fs.S3FileSystem.clear_instance_cache()  # an instance made before binds the old _info
    run_ = validate(f"s3://{bucket}/in/")
    records = list(run_)
    assert run_.tally.files == len(list(MESSAGES.iterdir())) > 20
    assert not [r for r in records if r.kind == "input"]
    assert asked == [f"{bucket}/in/"] or asked == [f"{bucket}/in"]
    asked.clear()
    code, _, err = run(
        capsys, "convert", "--to", "phi-core", "--quiet", f"s3://{bucket}/in/", "-o", str(tmp_path)
    )
    assert code == 0, err
    assert len(list(tmp_path.iterdir())) == run_.tally.files
    assert len(asked) == 1
