"""An S3-compatible server on 127.0.0.1 for the remote and Dask tests: moto's
``ThreadedMotoServer`` (as s3fs's own tests use it), started by the tests themselves, and the
environment that points s3fs (and every process started after it: Dask's workers, the command)
at it: ``AWS_ENDPOINT_URL`` and test credentials, no user configuration read. Nothing is mocked:
the code under test speaks HTTP to a real server.
"""

from __future__ import annotations

import itertools
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    # no user configuration: files that do not exist (as on a machine without ~/.aws)
    "AWS_CONFIG_FILE": "/nonexistent/phi-wire-tests/aws-config",
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/phi-wire-tests/aws-credentials",
}
_UNSET = ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3")
_BUCKETS = itertools.count()


class S3:
    """The server's address, and ways to put test data in it (through s3fs, as a user would)."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint

    def filesystem(self) -> Any:
        import s3fs

        return s3fs.S3FileSystem(endpoint_url=self.endpoint, skip_instance_cache=True)

    def bucket(self) -> str:
        """A new, empty bucket's name."""
        name = f"bucket-{os.getpid()}-{next(_BUCKETS)}"
        self.filesystem().mkdir(name)
        return name

    def upload(self, local: Path, url: str) -> None:
        """A local file, or a folder's files (recursively), to ``s3://...``."""
        fs = self.filesystem()
        if local.is_dir():
            for path in sorted(local.rglob("*")):
                if path.is_file():
                    fs.pipe(
                        url.rstrip("/") + "/" + path.relative_to(local).as_posix(),
                        path.read_bytes(),
                    )
        else:
            fs.pipe(url, local.read_bytes())

    def put(self, url: str, data: bytes) -> None:
        self.filesystem().pipe(url, data)


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3]:
    """One server for the session, on a free port of 127.0.0.1; stopped at the end."""
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    saved = {name: os.environ.get(name) for name in (*_ENVIRONMENT, *_UNSET, "AWS_ENDPOINT_URL")}
    os.environ.update(_ENVIRONMENT, AWS_ENDPOINT_URL=endpoint)
    for name in _UNSET:
        os.environ.pop(name, None)
    try:
        yield S3(endpoint)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        server.stop()
