"""A worker killed mid-write leaves its temporary behind: ``.NAME.TAG.RANDOM.tmp`` beside an
output file, a temporary key beside an object, or the local folder an object was staged in
before its upload (on the worker's machine); never a partial file under the final name. A Dask
conversion names its temporaries with a tag of its own (``new_tag``), and once it ends, whether
it finished or not, removes what carries that tag (``swept``): never a user's file, nor a
temporary of another run writing into the same folder at the same time.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING

from phi_wire import remote

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["new_tag", "sweep", "sweep_staging", "swept"]


def new_tag() -> str:
    """A run's tag: in each of its temporaries' names, and nowhere else."""
    return f"phi-wire-{uuid.uuid4().hex}"


def sweep(place: str, tag: str, under: bool) -> list[str]:
    """Every temporary of the run ``tag`` removed from the folder or URL prefix ``place`` (and
    its sub-folders when ``under``): the names removed. What cannot be listed or removed is
    left (a sweep never fails the run it ends)."""
    removed: list[str] = []
    if remote.is_url(place):
        prefix = place if place.endswith("/") else place + "/"
        try:
            found = remote.files_under(prefix) if under else remote.children(prefix)
        except OSError:
            return removed
        for entry in found:
            if remote.is_temporary(entry.url.rpartition("/")[2], tag):
                with suppress(OSError):
                    remote.remove(entry.url)
                    removed.append(entry.url)
        return removed
    for folder, _, names in os.walk(place) if under else [(place, [], _names(place))]:
        for name in names:
            if remote.is_temporary(name, tag):
                with suppress(OSError):
                    os.unlink(os.path.join(folder, name))
                    removed.append(os.path.join(folder, name))
    return removed


def _names(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def sweep_staging(tag: str) -> list[str]:
    """The local folders this machine staged the run's uploads in, removed (a worker killed
    before its upload leaves one): their names."""
    start = remote.staging_prefix(tag)
    folders = [path for path in Path(tempfile.gettempdir()).glob(start + "*") if path.is_dir()]
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    return [str(folder) for folder in folders]


@contextmanager
def swept(places: list[tuple[str, bool]], tag: str, client: Client | None) -> Iterator[None]:
    """On leaving (the run done, failed or interrupted), the run's temporaries removed from each
    ``(place, under)`` (``sweep``), and its staging folders from this machine and from each
    worker's (the cluster's workers, when ``client`` is given)."""
    try:
        yield
    finally:
        for place, under in places:
            sweep(place, tag, under)
        sweep_staging(tag)
        if client is not None:
            with suppress(Exception):  # a cluster gone: its machines' temporary folders stay
                client.run(sweep_staging, tag)
