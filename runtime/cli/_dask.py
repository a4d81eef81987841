"""``phi-wire validate --dask [ADDRESS]``: the run on a Dask cluster (``phi_wire.dask``), the
scheduler at ADDRESS or a ``LocalCluster`` of this machine's cores, with Dask's own progress bar
on a terminal; a scheduler that cannot be reached, or a cluster that lost every worker, is one
line and exit status 2."""

from __future__ import annotations

import argparse
import logging
import re
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, redirect_stdout
from typing import TYPE_CHECKING, Any

from phi_wire.validate import Record, Validation

from ._shared import UsageError

if TYPE_CHECKING:
    from distributed import Client

LOCAL = "local"
"""``--dask`` without an address: a ``LocalCluster`` started for the run."""
_ADDRESS = re.compile(r"^(?:(?:tcp|tls|ucx|inproc|ws|wss)://.+|[\w.-]+:\d+)$")


def is_address(value: str) -> bool:
    """Whether ``--dask``'s value is a scheduler's address (``tcp://host:8786``, ``host:8786``),
    not the first path (``--dask logs/``: the option takes no value then)."""
    return value == LOCAL or _ADDRESS.match(value) is not None


@contextmanager
def connected(address: str) -> Iterator[Client]:
    """A client of the scheduler at ``address``, or of a ``LocalCluster`` of one single-threaded
    worker process per core (judging holds the GIL) that ends with the run."""
    from phi_wire import dask as on_dask

    on_dask.require()
    from dask.config import get
    from distributed import Client, LocalCluster

    with ExitStack() as stack:
        if address == LOCAL:
            cluster = LocalCluster(
                n_workers=on_dask.default_workers(),
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",  # any free port (none without bokeh)
                silence_logs=logging.ERROR,  # its workers' warnings are not the report's
            )
            stack.enter_context(cluster)
            target: Any = cluster
        else:
            target = address
        try:
            client = Client(target, timeout=get("distributed.comm.timeouts.connect"))
        except (OSError, TimeoutError, ValueError) as error:
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise UsageError(f"cannot reach the Dask scheduler at {address}: {reason}") from None
        stack.enter_context(client)
        yield client


def validate_on_dask(
    args: argparse.Namespace, address: str, show_progress: bool
) -> tuple[Validation, list[Record]]:
    """The run of ``args`` on the cluster: the run (tally and files filled in) and its records,
    in input order."""
    from phi_wire import dask as on_dask

    on_dask.require()
    from distributed import KilledWorker

    with connected(address) as client:
        try:
            run = on_dask.validate(
                args.paths,
                format=args.format,
                version=args.version,
                type=args.type,
                strict=args.strict,
                max_problems=args.max_problems,
                max_document_bytes=args.max_document_bytes,
                all_folders=args.all_folders,
                include=args.include,
                exclude=args.exclude,
                client=client,
            )
        except ValueError as error:
            raise UsageError(str(error)) from None
        futures = client.compute([run.records, run.summary])
        try:
            if show_progress and sys.stderr.isatty():
                from distributed.diagnostics.progressbar import progress

                with redirect_stdout(sys.stderr):  # Dask draws on stdout: records go there
                    progress(futures)
            records, summary = client.gather(futures)
        except KilledWorker as error:
            raise UsageError(f"the Dask cluster lost its workers: {error}") from None
        except OSError as error:
            raise UsageError(f"the Dask scheduler went away: {error}") from None
        run.settled(list(records), summary)
        return run.run, list(records)
