"""Run plumbing beneath every other part of gamelib (it imports none of them).

Submodules
----------
:mod:`~gamelib.runtime.seeds`
    ``derive_seed(run_seed, *keys)``: per-game/per-batch seeds, stable everywhere.
:mod:`~gamelib.runtime.atomic`
    Atomic writes of bytes, text, JSON and ``.npz`` files.
:mod:`~gamelib.runtime.checkpoint`
    ``CheckpointStore``: a run folder with a manifest and checkpoints; refuses another config.
:mod:`~gamelib.runtime.executor`
    ``Executor``, ``map_ordered``: serial, local processes or Dask; results in input order.
:mod:`~gamelib.runtime.driver`
    ``run_batched``: a resumable batched run whose result does not depend on interruptions,
    workers or checkpoint interval.
:mod:`~gamelib.runtime.interrupt`
    SIGTERM and SIGHUP stop a run like Ctrl-C; a stopped run's processes are all ended.
:mod:`~gamelib.runtime.cli`
    What every command line shares: one ``error:`` line and exit 2, 128 + the signal number.
:mod:`~gamelib.runtime.stages`
    Wall time per stage of a run folder, summed over every invocation.
:mod:`~gamelib.runtime.profiles`
    Named sets of sizes (``quick``, ``paper``), validated once for notebooks and experiments.
:mod:`~gamelib.runtime.report`
    The report files at the top of a run folder: CSV, time-stamp-free PNG, provenance.
:mod:`~gamelib.runtime.kernels`
    ``@kernel``: ``@njit(cache=True)`` without reference counting, for allocation-free hot loops.
:mod:`~gamelib.runtime.bits`
    ``ctpop``, ``cttz``, ``ctlz``: bit counts of board masks as single instructions in numba code.
"""

from gamelib.runtime.atomic import (atomic_write_bytes, atomic_write_json, atomic_write_text,
                                    load_npz, read_json, save_npz_atomic)
from gamelib.runtime.checkpoint import Checkpoint, CheckpointStore, RunConfigMismatch
from gamelib.runtime.driver import BatchContext, RunResult, run_batched
from gamelib.runtime.executor import Executor, map_ordered
from gamelib.runtime.seeds import derive_rng, derive_seed

__all__ = ["atomic_write_bytes", "atomic_write_json", "atomic_write_text", "load_npz",
           "read_json", "save_npz_atomic", "Checkpoint", "CheckpointStore", "RunConfigMismatch",
           "BatchContext", "RunResult", "run_batched", "Executor", "map_ordered", "derive_rng",
           "derive_seed"]
