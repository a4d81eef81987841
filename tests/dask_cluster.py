"""A small Dask cluster for the Dask tests: a ``LocalCluster`` of 2 single-threaded worker
processes on 127.0.0.1, and a worker plugin that kills its worker once, at a
chosen moment, to test what the run loses (nothing)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from distributed import LocalCluster
from distributed.diagnostics.plugin import WorkerPlugin


def local_cluster() -> LocalCluster:
    return LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=":0",  # any free port (none without bokeh)
        silence_logs=40,  # errors only: a killed worker's restart is expected here
    )


class KillOnce(WorkerPlugin):
    """Kills the worker process (``os._exit``: no goodbye to the scheduler) the first time any
    worker finishes a task whose key starts with ``prefix``, before the result is reported; logs
    every such task finished (one line each) to count the recomputed ones."""

    name = "kill-once"

    def __init__(self, folder: Path, prefix: str) -> None:
        self.flag = str(folder / "killed")
        self.log = str(folder / "finished")
        self.prefix = prefix

    def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
        name = key if isinstance(key, str) else str(key[0]) if isinstance(key, tuple) else ""
        if finish != "memory" or not name.startswith(self.prefix):
            return
        with open(self.log, "a", encoding="utf-8") as log:
            log.write(name + "\n")
        try:
            descriptor = os.open(self.flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return  # killed once already
        os.close(descriptor)
        os._exit(1)
