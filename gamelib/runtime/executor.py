"""Run independent jobs serially, on the local cores, or on a Dask cluster; results in order.

:class:`Executor` runs many maps (e.g. one per batch of a long run) on one process pool or one
Dask client; :func:`map_ordered` is its one-shot form. Where the jobs run never changes the
results: each job gets everything it needs (including its seed, see
:mod:`gamelib.runtime.seeds`) from its item, and results come back in the order of the items.

Choice of executor (first rule that applies):

1. ``scheduler`` given (an address such as ``"tcp://10.0.0.5:8786"`` or a
   ``distributed.Client``): the jobs run on that Dask cluster.
2. ``workers == 1``: serially in this process (no pickling; easiest to debug and profile).
3. The environment variable ``DASK_SCHEDULER_ADDRESS`` is set: that Dask cluster.
4. Otherwise a :class:`concurrent.futures.ProcessPoolExecutor` with ``workers`` processes
   (default: the cores this process may use; serially if that is one).

Dask workers must be able to import ``gamelib`` (the same version) and whatever module defines
``fn``; the cluster's own configuration decides how many jobs run at once.

Local processes are started with the ``forkserver`` method (``spawn`` where it does not exist),
not ``fork``: forking a process that has already started threads -- numba's threading layer,
BLAS pools, Dask's or tqdm's threads -- can deadlock the child, and numba's compiled-function
state does not survive a fork reliably. The price is that ``fn`` and the items must be
picklable by reference (module-level functions, not lambdas or functions defined in a notebook),
and that workers need the modules of ``fn``. The forkserver is told to import, when it starts, the
``gamelib`` modules (and numpy and numba) that the process starting the first pool has loaded
(:func:`process_context`): each worker is then forked with them already imported, instead of
importing numba and ``gamelib`` again (two to three seconds of CPU per worker). Importing
compiles nothing: numba functions with ``cache=True`` are loaded from the on-disk cache at a
worker's first call.

Stopping: an exception or an interrupt in the middle of a map (Ctrl-C, or SIGTERM/SIGHUP, which
the executor turns into :class:`~gamelib.runtime.interrupt.Terminated` while its pool is open
unless the program handles them itself) terminates the pool's workers instead of waiting for
their jobs; the workers ignore SIGINT, so that Ctrl-C reaches only the process that owns the pool.
"""

from __future__ import annotations

import concurrent.futures.process as _futures_process
import contextlib
import multiprocessing
import os
import pickle
import signal
import threading
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Iterable

from tqdm import tqdm

from gamelib.runtime.interrupt import terminate_on_signals

SCHEDULER_ENV = "DASK_SCHEDULER_ADDRESS"
CHUNKS_PER_SLOT = 4
START_METHOD = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() \
    else "spawn"
#: Seconds a terminated worker gets to exit before it is killed.
TERMINATE_GRACE = 2.0


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS reports it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def process_context() -> multiprocessing.context.BaseContext:
    """The multiprocessing context of local pools (:data:`START_METHOD`). With ``forkserver``,
    the server started by the first pool of this process imports the ``gamelib`` modules loaded
    here by then, and numpy and numba, so that the workers it forks start with them (the list is
    fixed when the server starts; a module it lacks is imported by the worker that needs it)."""
    import sys

    context = multiprocessing.get_context(START_METHOD)
    if START_METHOD == "forkserver":
        loaded = sorted(name for name in list(sys.modules) if (name == "gamelib" or name.startswith(
            "gamelib.")) and not name.endswith("__main__"))
        context.set_forkserver_preload(["__main__", "numpy", "numba", *loaded])
    return context


def _apply_chunk(fn: Callable, chunk: list, start: int, total: int) -> list:
    """Run ``fn`` on a chunk of items; an exception gets a note naming the failing job."""
    results = []
    for offset, item in enumerate(chunk):
        try:
            results.append(fn(item))
        except Exception as err:
            err.add_note(f"in job {start + offset} of {total}")
            raise
    return results


def _ignore_sigint() -> None:
    """Pool initializer: Ctrl-C is for the process that owns the pool (which then terminates
    the workers), not for each worker, which would print a traceback of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def terminate_pool(pool: ProcessPoolExecutor, grace: float = TERMINATE_GRACE) -> None:
    """Stop ``pool`` without waiting for its running jobs: SIGTERM, then SIGKILL after
    ``grace`` seconds; then wait (up to ``grace`` seconds) for the pool's manager thread to end.

    The last step closes a race of Python 3.11's ``concurrent.futures`` at interpreter exit: its
    exit hook wakes every pool's manager thread without the pool's lock, and a manager thread
    that is closing its wake-up pipe at that moment makes the hook write to a closed descriptor
    (``OSError: [Errno 9] Bad file descriptor`` printed after the run has stopped cleanly). Once
    the thread has ended its pipe is marked closed, and the pool is taken out of the hook's list
    (``concurrent.futures.process._threads_wakeups``, a private table: absent, nothing is done)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    for process in processes:
        with contextlib.suppress(OSError, ValueError):
            process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(OSError, ValueError):
            process.join(grace)
            if process.is_alive():
                process.kill()
                process.join()
    if manager is not None and manager is not threading.current_thread():
        manager.join(grace)
        # and the exit hook no longer wakes it (the interpreter still joins the thread if it
        # has not ended: it is not a daemon)
        getattr(_futures_process, "_threads_wakeups", {}).pop(manager, None)


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
    workers = workers or available_cores()
    return ("serial", None) if workers == 1 else ("processes", workers)


class Executor:
    """Where jobs run: serially, in a pool of local processes, or on a Dask cluster.

    The pool (or the Dask client) is started at the first :meth:`map` and reused by the next
    ones until :meth:`close`; use the executor as a context manager.

    Parameters
    ----------
    workers : int, optional
        Local processes (default: all available cores); ``1`` runs serially in this process.
        Ignored on a Dask cluster, whose workers are set up by whoever started it.
    scheduler : str or distributed.Client, optional
        Dask scheduler address (or a connected client, which is not closed here); default:
        the environment variable ``DASK_SCHEDULER_ADDRESS`` unless ``workers == 1``. See the
        module docstring.
    """

    def __init__(self, workers: int | None = None, scheduler=None):
        self.kind, self._target = _plan(workers, scheduler)
        self._pool = None
        self._client = None
        self._signals = contextlib.ExitStack()

    @property
    def description(self) -> str:
        """Where the jobs run, e.g. ``"2 local processes (forkserver)"``."""
        if self.kind == "serial":
            return "serial (this process)"
        if self.kind == "processes":
            return f"{self._target} local processes ({START_METHOD})"
        address = self._target if isinstance(self._target, str) else \
            self._target.scheduler.address
        return f"Dask cluster at {address}"

    def check(self, timeout: float = 5.0) -> None:
        """Make sure a Dask scheduler given by address answers (nothing to check otherwise).

        Raises
        ------
        ConnectionError
            Naming the address, when no scheduler answers within ``timeout`` seconds (the first
            :meth:`map` would otherwise wait for 30 s before failing).
        ValueError
            When the address cannot be parsed.
        """
        if self.kind != "dask" or not isinstance(self._target, str) or self._client is not None:
            return
        from distributed import Client

        try:
            Client(self._target, timeout=timeout, set_as_default=False).close()
        except ValueError as err:
            raise ValueError(f"bad Dask scheduler address {self._target!r}: {err}") from None
        except (OSError, TimeoutError) as err:
            raise ConnectionError(f"no Dask scheduler answers at {self._target} within "
                                  f"{timeout:g} s ({err})") from None

    def map(self, fn: Callable[[Any], Any], items: Iterable, *, chunksize: int | None = None,
            progress: bool = False, desc: str | None = None) -> list:
        """``[fn(item) for item in items]``, computed by this executor, in input order.

        Parameters
        ----------
        fn : callable
            A function of one item. For local processes it must pickle by reference (a
            module-level function of an importable module).
        items : iterable
            The jobs' inputs (materialized into a list).
        chunksize : int, optional
            Items sent to a worker at a time. Default: about four chunks per worker process or
            Dask thread, which keeps the per-job overhead (about a millisecond for a single job
            sent to a process) small and the load balanced. Results never depend on it.
        progress : bool
            Show a tqdm bar (count, rate, ETA) on stderr.
        desc : str, optional
            Label of the bar.

        Raises
        ------
        Exception
            The first exception raised by a job, with a note naming the job (``in job 3 of
            10``); the jobs not yet started are cancelled.
        """
        items = list(items)
        if chunksize is not None and (isinstance(chunksize, bool) or
                                      not isinstance(chunksize, int) or chunksize < 1):
            raise ValueError(f"chunksize must be a positive integer or None, got {chunksize!r}")
        with tqdm(total=len(items), desc=desc, disable=not progress, unit="job",
                  dynamic_ncols=True) as bar:
            if self.kind == "serial" or not items:
                results = _apply_chunk(fn, items, 0, len(items))
                bar.update(len(items))
                return results
            if self.kind == "processes":
                try:
                    pickle.dumps(fn)
                except Exception as err:
                    raise ValueError(f"{fn!r} cannot be sent to worker processes ({err}); use a "
                                     f"function defined at module level in an importable "
                                     f"module, or workers=1") from None
            slots = self._start()
            size = chunksize or max(1, -(-len(items) // (CHUNKS_PER_SLOT * slots)))
            chunks = [(items[i:i + size], i) for i in range(0, len(items), size)]
            if self.kind == "processes":
                return self._run_processes(fn, chunks, len(items), bar)
            return self._run_dask(fn, chunks, len(items), bar)

    def _start(self) -> int:
        """Start the pool or connect the client if needed; returns the parallel slots."""
        if self.kind == "processes":
            if self._pool is None:
                context = process_context()
                self._signals.enter_context(terminate_on_signals(only_if_default=True))
                self._pool = ProcessPoolExecutor(max_workers=self._target, mp_context=context,
                                                 initializer=_ignore_sigint)
            return self._target
        from distributed import Client

        if self._client is None:
            self._client = self._target if isinstance(self._target, Client) else \
                Client(self._target, set_as_default=False)
        return max(1, sum(self._client.nthreads().values()))

    def _run_processes(self, fn, chunks, total, bar) -> list:
        futures = [self._pool.submit(_apply_chunk, fn, chunk, start, total)
                   for chunk, start in chunks]
        index_of = {future: i for i, future in enumerate(futures)}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for future in done:
                err = future.exception()
                if err is not None:
                    for other in pending:
                        other.cancel()
                    if isinstance(err, BrokenProcessPool):
                        self._pool.shutdown(wait=False, cancel_futures=True)
                        self._pool = None
                        err.add_note(f"a worker process died running the chunk of jobs "
                                     f"starting at {chunks[index_of[future]][1]}")
                    raise err
                bar.update(len(chunks[index_of[future]][0]))
        return [result for future in futures for result in future.result()]

    def _run_dask(self, fn, chunks, total, bar) -> list:
        from distributed import as_completed

        client = self._client
        futures = [client.submit(_apply_chunk, fn, chunk, start, total, pure=False)
                   for chunk, start in chunks]
        index_of = {future.key: i for i, future in enumerate(futures)}
        for future in as_completed(futures, loop=client.loop):
            if future.status == "error":
                err = future.exception()
                client.cancel(futures)
                raise err
            bar.update(len(chunks[index_of[future.key]][0]))
        return [result for chunk in client.gather(futures) for result in chunk]

    def close(self, terminate: bool = False) -> None:
        """Stop the pool, or close the Dask client if this executor opened it (idempotent).

        ``terminate``: stop the workers at once (SIGTERM, then SIGKILL) instead of letting them
        finish their jobs; :meth:`__exit__` does so when the block ends with an exception.
        """
        try:
            if self._pool is not None:
                pool, self._pool = self._pool, None
                if terminate:
                    terminate_pool(pool)
                else:
                    pool.shutdown(wait=True, cancel_futures=True)
            if self._client is not None:
                client, self._client = self._client, None
                if client is not self._target:
                    client.close()
        finally:
            self._signals.close()

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, exc_type, *exc) -> None:
        self.close(terminate=exc_type is not None)


def map_ordered(fn: Callable[[Any], Any], items: Iterable, workers: int | None = None,
                scheduler=None, *, chunksize: int | None = None, progress: bool = False,
                desc: str | None = None) -> list:
    """``[fn(item) for item in items]``, computed serially, in local processes or on Dask.

    A one-shot :class:`Executor`: ``Executor(workers, scheduler).map(fn, items, ...)``, closed
    afterwards. For many maps in a row, keep one :class:`Executor` open instead (starting a
    process pool costs about a second).

    Returns
    -------
    list
        ``fn(item)`` for every item, in the order of ``items``.
    """
    with Executor(workers, scheduler) as executor:
        return executor.map(fn, items, chunksize=chunksize, progress=progress, desc=desc)

