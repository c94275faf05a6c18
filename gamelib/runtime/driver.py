"""A resumable run made of numbered batches (e.g. 100 self-play games and one update each).

The run's state is a dict of numpy arrays -- parameters and counters, but no random-generator
state: batch ``k`` draws its randomness from seeds derived from ``(run seed, k)`` (or from
``(run seed, game index)``), see :class:`BatchContext`. The state after batch ``k`` is therefore a
function of the run seed, the config and ``k`` only, so

* a run killed at any moment and started again resumes from its latest checkpoint and ends with
  exactly (bit for bit) the state of an uninterrupted run;
* the number of workers, the executor and the checkpoint interval never change the numbers.

For this to hold, ``init`` and ``step`` must be deterministic functions of their arguments and
everything that carries over between batches must be in the state dict.

Example (M self-play games per update, as PGLeaf's M = 100)::

    def init(config, seed):
        return {"theta": initial_parameters(derive_rng(seed, "init")), "games": np.int64(0)}

    def step(state, ctx):
        m, first = ctx.config["M"], ctx.index * ctx.config["M"]
        jobs = [(state["theta"], ctx.derive_seed("game", first + j)) for j in range(m)]
        episodes = ctx.map(self_play_game, jobs)       # parallel, results in order
        return {"theta": update(state["theta"], episodes, ctx.config),
                "games": state["games"] + m}

    result = run_batched(out, config=cfg, seed=0, n_batches=1000, init=init, step=step,
                         keep=(10, 100, 1000))       # parameters after 1k/10k/100k games
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import numpy as np
from tqdm import tqdm

from gamelib.runtime.checkpoint import CheckpointStore
from gamelib.runtime.executor import Executor
from gamelib.runtime.seeds import derive_rng, derive_seed


@dataclass(frozen=True)
class BatchContext:
    """What a step function knows about its batch.

    Attributes
    ----------
    config : dict
        The run config (plain JSON values, identical on a fresh and on a resumed run).
    run_seed : int
        The run seed.
    index : int
        0-based batch number.
    executor : Executor, optional
        Where :meth:`map` runs jobs (it never changes results); None: serially.
    """

    config: dict
    run_seed: int
    index: int
    executor: Executor | None = None

    @property
    def seed(self) -> int:
        """The batch's seed, ``derive_seed(run_seed, "batch", index)``."""
        return derive_seed(self.run_seed, "batch", self.index)

    def derive_seed(self, *keys, bits: int = 63) -> int:
        """A run-level seed ``derive_seed(run_seed, *keys, bits=bits)``, e.g.
        ``ctx.derive_seed("game", game_index)`` for a game numbered across the whole run."""
        return derive_seed(self.run_seed, *keys, bits=bits)

    def rng(self, *keys) -> np.random.Generator:
        """A generator for this batch: ``derive_rng(run_seed, "batch", index, *keys)``."""
        return derive_rng(self.run_seed, "batch", self.index, *keys)

    def map(self, fn: Callable, items: Iterable, *, chunksize: int | None = None) -> list:
        """``[fn(item) for item in items]`` on the run's executor, in input order (see
        :meth:`gamelib.runtime.executor.Executor.map`)."""
        executor = self.executor if self.executor is not None else Executor(workers=1)
        return executor.map(fn, items, chunksize=chunksize)


@dataclass(frozen=True)
class RunResult:
    """The end of :func:`run_batched`.

    Attributes
    ----------
    state : dict of str to numpy.ndarray
        State after the last batch.
    completed : int
        Batches done (the requested ``n_batches``).
    resumed_from : int
        Batches already done when this call started (0 for a fresh run).
    folder : Path
        The run folder.
    """

    state: dict
    completed: int
    resumed_from: int
    folder: Path


def _as_state(value, where: str) -> dict[str, np.ndarray]:
    if not isinstance(value, Mapping):
        raise TypeError(f"{where} must return a dict of numpy arrays, got "
                        f"{type(value).__name__}")
    state = {}
    for name, array in value.items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"{where} returned a state key {name!r}; keys must be non-empty str")
        array = np.asarray(array)
        if array.dtype.hasobject:
            raise TypeError(f"{where} returned state {name!r} with dtype object; use numeric "
                            f"arrays")
        state[name] = array
    return state


def run_batched(folder, *, config: Mapping[str, Any], seed: int, n_batches: int,
                init: Callable[[dict, int], Mapping[str, np.ndarray]],
                step: Callable[[dict, BatchContext], Mapping[str, np.ndarray]],
                checkpoint_every: int = 1, keep: Iterable[int] = (), keep_last: int = 2,
                workers: int | None = None, scheduler=None, progress: bool = False,
                desc: str | None = None) -> RunResult:
    """Run (or resume) batches ``0 .. n_batches-1`` with checkpoints in ``folder``.

    Parameters
    ----------
    folder : str or Path
        Run folder (see :class:`~gamelib.runtime.checkpoint.CheckpointStore`). Its identity
        is ``{"config": config, "seed": seed}``: another config or seed there is an error.
    config : mapping
        JSON-serializable settings that define the results.
    seed : int
        Run seed.
    n_batches : int
        Batches the run should have when this call returns. Not part of the identity: a finished
        run can be extended by asking for more batches (it is not given to ``step``, so results
        never depend on it).
    init : callable
        ``init(config, seed) -> state``: the state before batch 0.
    step : callable
        ``step(state, ctx) -> state``: process batch ``ctx.index``; may use ``ctx.map`` to spread
        independent games over the executor. It may modify the arrays it is given.
    checkpoint_every : int
        Checkpoint after every this many batches (and always after the last one).
    keep : iterable of int
        Batch counts whose checkpoints are kept for good, tagged ``"batch-<count>"`` (e.g. the
        paper's 1,000/10,000/100,000-game parameters).
    keep_last : int
        Untagged checkpoints kept.
    workers, scheduler
        Executor for ``ctx.map`` (see :class:`~gamelib.runtime.executor.Executor`); one
        process pool or Dask client serves the whole run.
    progress : bool
        Show a tqdm bar over batches.
    desc : str, optional
        Its label.

    Returns
    -------
    RunResult
    """
    for name, value, low in (("n_batches", n_batches, 0), ("checkpoint_every",
                                                           checkpoint_every, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    keep = set(keep)
    if any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in keep):
        raise ValueError(f"keep must hold positive batch counts, got {sorted(keep, key=str)}")
    with CheckpointStore(folder, {"config": dict(config), "seed": seed},
                         keep_last=keep_last) as store:
        if store.completed > n_batches:
            raise ValueError(f"run folder {store.folder} already has {store.completed} batches, "
                             f"more than the {n_batches} requested")
        run_config = store.config["config"]
        latest = store.latest()
        if latest is None:
            state, completed = _as_state(init(run_config, seed), "init"), 0
        else:
            state, completed = latest.arrays, latest.completed
        resumed_from = completed
        with Executor(workers, scheduler) as executor, \
                tqdm(total=n_batches, initial=completed, desc=desc, unit="batch",
                     disable=not progress, dynamic_ncols=True) as bar:
            for index in range(completed, n_batches):
                ctx = BatchContext(run_config, seed, index, executor)
                state = _as_state(step(state, ctx), f"step (batch {index})")
                done = index + 1
                if done % checkpoint_every == 0 or done == n_batches or done in keep:
                    store.save(done, state, meta={"batches": done},
                               tag=f"batch-{done}" if done in keep else None)
                bar.update(1)
        return RunResult(state, n_batches, resumed_from, store.folder)
