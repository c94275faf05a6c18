"""Run independent jobs serially, on the local cores, or on a Dask cluster; results in order.

:func:`map_ordered` is the one entry point. Where the jobs run never changes the results: each
job gets everything it needs (including its seed, see :mod:`gamelib.experiments.seeds`) from
its item, and results come back in the order of the items.

Choice of executor (first rule that applies):

1. ``scheduler`` given (an address such as ``"tcp://10.0.0.5:8786"`` or a
   ``distributed.Client``): the jobs run on that Dask cluster.
2. ``workers == 1``: serially in this process (no pickling; easiest to debug and profile).
3. The environment variable ``DASK_SCHEDULER_ADDRESS`` is set: that Dask cluster.
4. Otherwise a :class:`concurrent.futures.ProcessPoolExecutor` with ``workers`` processes
   (default: the cores this process may use).

Local processes are started with the ``forkserver`` method (``spawn`` where it does not exist),
not ``fork``: forking a process that has already started threads -- numba's threading layer,
BLAS pools, Dask's or tqdm's threads -- can deadlock the child, and numba's compiled-function
state does not survive a fork reliably. The price is that ``fn`` and the items must be
picklable by reference (module-level functions, not lambdas or functions defined in a notebook),
and that workers import the modules they need (numba functions with ``cache=True`` load from
the on-disk cache instead of recompiling).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from typing import Any, Callable, Iterable

from tqdm import tqdm

SCHEDULER_ENV = "DASK_SCHEDULER_ADDRESS"
START_METHOD = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() \
    else "spawn"


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS reports it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _apply_chunk(fn: Callable, chunk: list) -> list:
    return [fn(item) for item in chunk]


def _plan(workers, scheduler) -> tuple[str, Any]:
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive integer or None, got {workers!r}")
    if scheduler is not None:
        if isinstance(scheduler, str) and not scheduler.strip():
            raise ValueError("scheduler address is empty")
        return "dask", scheduler
    if workers == 1:
        return "serial", None
    address = os.environ.get(SCHEDULER_ENV, "").strip()
    if address:
        return "dask", address
    return "processes", workers or available_cores()


def describe_executor(workers: int | None = None, scheduler=None) -> str:
    """Where :func:`map_ordered` would run with these arguments, e.g. ``"2 local processes"``."""
    kind, target = _plan(workers, scheduler)
    if kind == "serial":
        return "serial (this process)"
    if kind == "processes":
        return f"{target} local processes ({START_METHOD})"
    address = target if isinstance(target, str) else target.scheduler.address
    return f"Dask cluster at {address}"


def map_ordered(fn: Callable[[Any], Any], items: Iterable, workers: int | None = None,
                scheduler=None, *, chunksize: int = 1, progress: bool = False,
                desc: str | None = None) -> list:
    """``[fn(item) for item in items]``, computed serially, in local processes or on Dask.

    Parameters
    ----------
    fn : callable
        A module-level function of one item (it must pickle by reference for processes).
    items : iterable
        The jobs' inputs (materialized into a list).
    workers : int, optional
        Local processes (default: all available cores); ``1`` runs serially in this process.
        Ignored on a Dask cluster, whose workers are set up by whoever started it.
    scheduler : str or distributed.Client, optional
        Dask scheduler address (or a connected client); default: the environment variable
        ``DASK_SCHEDULER_ADDRESS`` unless ``workers == 1``. See the module docstring.
    chunksize : int
        Items per job sent to a worker (larger chunks cut overhead for many small jobs; results
        do not depend on it).
    progress : bool
        Show a tqdm bar (count, rate, ETA) on stderr.
    desc : str, optional
        Label of the bar.

    Returns
    -------
    list
        ``fn(item)`` for every item, in the order of ``items``.

    Raises
    ------
    Exception
        The first exception raised by a job, with a note naming the job's item index; the
        remaining jobs are cancelled.
    """
    items = list(items)
    if isinstance(chunksize, bool) or not isinstance(chunksize, int) or chunksize < 1:
        raise ValueError(f"chunksize must be a positive integer, got {chunksize!r}")
    kind, target = _plan(workers, scheduler)
    chunks = [items[i:i + chunksize] for i in range(0, len(items), chunksize)]
    with tqdm(total=len(items), desc=desc, disable=not progress, unit="job",
              dynamic_ncols=True) as bar:
        if kind == "serial" or not items:
            return _run_serial(fn, items, bar)
        if kind == "processes":
            return _run_processes(fn, chunks, chunksize, target, bar)
        return _run_dask(fn, chunks, chunksize, target, bar)


def _run_serial(fn, items, bar) -> list:
    results = []
    for index, item in enumerate(items):
        try:
            results.append(fn(item))
        except Exception as err:
            err.add_note(f"in job {index} of {len(items)}")
            raise
        bar.update(1)
    return results


def _run_processes(fn, chunks, chunksize, n_workers, bar) -> list:
    try:
        pickle.dumps(fn)
    except Exception as err:
        raise ValueError(f"{fn!r} cannot be sent to worker processes ({err}); use a function "
                         f"defined at module level in an importable module, or workers=1") \
            from None
    context = multiprocessing.get_context(START_METHOD)
    with ProcessPoolExecutor(max_workers=min(n_workers, len(chunks)),
                             mp_context=context) as pool:
        futures = [pool.submit(_apply_chunk, fn, chunk) for chunk in chunks]
        index_of = {future: i for i, future in enumerate(futures)}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for future in done:
                err = future.exception()
                if err is not None:
                    for other in pending:
                        other.cancel()
                    err.add_note(f"in the chunk starting at job {index_of[future] * chunksize}")
                    raise err
                bar.update(len(chunks[index_of[future]]))
        return [result for future in futures for result in future.result()]


def _run_dask(fn, chunks, chunksize, target, bar) -> list:
    from distributed import Client, as_completed

    own = not isinstance(target, Client)
    client = Client(target, set_as_default=False) if own else target
    try:
        futures = [client.submit(_apply_chunk, fn, chunk, pure=False) for chunk in chunks]
        index_of = {future.key: i for i, future in enumerate(futures)}
        for future in as_completed(futures):
            if future.status == "error":
                err = future.exception()
                client.cancel(futures)
                err.add_note(f"in the chunk starting at job {index_of[future.key] * chunksize}")
                raise err
            bar.update(len(chunks[index_of[future.key]]))
        return [result for chunk in client.gather(futures) for result in chunk]
    finally:
        if own:
            client.close()
