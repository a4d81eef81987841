"""``phi-wire validate --dask [ADDRESS]`` and ``phi-wire convert --dask [ADDRESS]``: the run on a
Dask cluster (``phi_wire.dask``), the scheduler at ADDRESS or a ``LocalCluster`` of this
machine's cores, with Dask's own progress bar on a terminal, reported as a local run is; a
scheduler that cannot be reached, or a cluster that lost every worker, is one line and exit
status 2."""

from __future__ import annotations

import argparse
import logging
import re
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, nullcontext, redirect_stdout
from typing import TYPE_CHECKING, Any

from phi_wire.remote import MissingExtra

from ._shared import Output, UsageError

if TYPE_CHECKING:
    from distributed import Client

    from phi_wire.convert import AtomicFile, Named, Outputs
    from phi_wire.validate import Record, Validation

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


def _gathered(client: Client, futures: Any, show_progress: bool) -> Any:
    """The results of ``futures``, Dask's progress bar on standard error while they come (on a
    terminal); a cluster that lost its workers or its scheduler: one line."""
    from distributed import KilledWorker

    try:
        if show_progress and sys.stderr.isatty():
            from distributed.diagnostics.progressbar import progress

            with redirect_stdout(sys.stderr):  # Dask draws on stdout: the report goes there
                progress(futures)
        return client.gather(futures)
    except KilledWorker as error:
        raise UsageError(f"the Dask cluster lost its workers: {error}") from None
    except OSError as error:
        raise UsageError(f"the Dask scheduler went away: {error}") from None


def convert_on_dask(
    args: argparse.Namespace,
    output: Output,
    named: tuple[list[Named], list[str], list[str], frozenset[Any]],
    outputs: Outputs,
    loss_file: AtomicFile | None,
) -> int:
    """``phi-wire convert --dask``: the inputs (walked here: ``named`` is the inputs, the walk's
    errors, every name, the inputs' identities) converted and written by the cluster's workers,
    one task per input; the report and exit status of a local run, from the outcomes in input
    order."""
    from phi_wire import dask as on_dask

    from ._convert_report import ConvertReport

    started = time.perf_counter()
    inputs, walk_errors, names, seen = named
    try:
        on_dask.require()
    except MissingExtra as error:
        raise UsageError(str(error)) from None
    with loss_file if loss_file is not None else nullcontext():
        report = ConvertReport(
            output,
            json=args.output_format == "json",
            verbose=args.verbose,
            quiet=args.quiet,
            file=loss_file,
            names=names,
            before_note=lambda: None,
        )
        for line in walk_errors:
            report.error(line)
        tag = on_dask.new_tag()  # the run's temporaries, removed when it ends (a killed worker's)
        with (
            connected(args.dask) as client,
            on_dask.swept(on_dask.temporaries_in(outputs), tag, client),
        ):
            try:
                outcomes_bag, _, _ = on_dask.conversion_graph(
                    inputs,
                    walk_errors,
                    outputs,
                    args.source,
                    args.target[0],
                    args.target[1],
                    seen,
                    tag,
                )
            except OSError as error:
                raise UsageError(f"{outputs.folder}: cannot create the folder ({error})") from None
            futures = client.compute(outcomes_bag, optimize_graph=False) if inputs else None
            outcomes = _gathered(client, futures, not args.quiet) if inputs else []
        for outcome in outcomes:
            output.stop_if_interrupted()
            if outcome.converted is None:
                report.error(outcome.error, outcome.name if outcome.error_is_output else None)
                continue
            if outcome.written == "-":
                output.text(outcome.converted.text)
            report.converted(outcome.name, outcome.converted, outcome.written)
        lost = report.with_losses
        status = 2 if report.errors else 1 if args.fail_on_loss and lost else 0
        status = report.finish(status, args.fail_on_loss, time.perf_counter() - started)
        output.flush()
    return status
