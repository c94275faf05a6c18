"""Long, resumable, parallel experiment runs (engine-independent machinery).

Submodules
----------
:mod:`~gamelib.experiments.seeds`
    ``derive_seed(run_seed, *keys)``: per-game/per-batch seeds, stable everywhere.
:mod:`~gamelib.experiments.atomic`
    Atomic writes of bytes, text, JSON and ``.npz`` files.
:mod:`~gamelib.experiments.checkpoint`
    ``CheckpointStore``: a run folder with a manifest and checkpoints; refuses another config.
:mod:`~gamelib.experiments.executor`
    ``Executor``, ``map_ordered``: serial, local processes or Dask; results in input order.
:mod:`~gamelib.experiments.driver`
    ``run_batched``: a resumable batched run whose result does not depend on interruptions,
    workers or checkpoint interval.
:mod:`~gamelib.experiments.registry`, :mod:`~gamelib.experiments.cli`
    The experiments of ``python -m gamelib.experiments`` and its command line.
"""

from gamelib.experiments.atomic import (atomic_write_bytes, atomic_write_json, atomic_write_text,
                                        load_npz, read_json, save_npz_atomic)
from gamelib.experiments.checkpoint import Checkpoint, CheckpointStore, RunConfigMismatch
from gamelib.experiments.driver import BatchContext, RunResult, run_batched
from gamelib.experiments.executor import Executor, map_ordered
from gamelib.experiments.registry import RunOptions, register
from gamelib.experiments.seeds import derive_rng, derive_seed

__all__ = ["atomic_write_bytes", "atomic_write_json", "atomic_write_text", "load_npz",
           "read_json", "save_npz_atomic", "Checkpoint", "CheckpointStore", "RunConfigMismatch",
           "BatchContext", "RunResult", "run_batched", "Executor", "map_ordered", "RunOptions",
           "register", "derive_rng", "derive_seed"]
