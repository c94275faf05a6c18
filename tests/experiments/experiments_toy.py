"""A toy learner for the run-machinery tests: "games" are random vectors, batches update a
parameter vector. Run as a script it performs (or resumes) a run::

    python experiments_toy.py FOLDER SEED N_BATCHES [WORKERS]

or runs the command line of ``python -m gamelib.experiments`` with the toy registered as
experiment ``toy`` (:func:`registry`)::

    python experiments_toy.py cli toy --workers 2 --out FOLDER ...

The environment variables ``TOY_SLEEP`` (seconds per batch, in the main process) and
``TOY_JOB_SLEEP`` (seconds per game, in the worker) slow it down so that a test can kill it in
the middle.
"""

import os
import sys
import time

import numpy as np

from gamelib.runtime import derive_rng, run_batched
from gamelib.experiments.registry import Registry, RunOptions

CONFIG = {"dim": 16, "games_per_batch": 6, "lr": 0.05}


def init(config, seed):
    return {"params": derive_rng(seed, "init").normal(size=config["dim"]) * 0.1,
            "games": np.int64(0)}


def play(job):
    """One "game": a chaotic function of the parameters and the game's seed."""
    seed, params = job
    rng = np.random.default_rng(seed)
    x = rng.normal(size=params.shape)
    time.sleep(float(os.environ.get("TOY_JOB_SLEEP", "0")))
    return np.tanh(params @ x + rng.normal()) * x


def step(state, ctx):
    n = ctx.config["games_per_batch"]
    first = ctx.index * n
    jobs = [(ctx.derive_seed("game", first + j), state["params"]) for j in range(n)]
    grads = ctx.map(play, jobs)
    params = state["params"] + ctx.config["lr"] * np.sum(grads, axis=0)
    params = params + 1e-3 * ctx.rng("noise").normal(size=params.shape)
    time.sleep(float(os.environ.get("TOY_SLEEP", "0")))
    return {"params": params, "games": state["games"] + n}


def run(folder, seed, n_batches, workers=1, scheduler=None, checkpoint_every=1, keep=()):
    return run_batched(folder, config=CONFIG, seed=seed, n_batches=n_batches, init=init,
                       step=step, workers=workers, scheduler=scheduler,
                       checkpoint_every=checkpoint_every, keep=keep)


PROFILES = {"quick": {"n_batches": 3, "lr": 0.05}, "paper": {"n_batches": 1000, "lr": 0.05}}


def experiment(opts: RunOptions):
    """A registered experiment that really runs the toy learner."""
    config = {**CONFIG, "lr": opts.lr}
    run_batched(opts.out, config=config, seed=opts.seed, n_batches=opts.n_batches,
                init=init, step=step, workers=opts.workers, scheduler=opts.scheduler,
                progress=opts.progress)


def registry() -> Registry:
    """A registry holding only the toy, as experiment ``toy``."""
    reg = Registry()
    reg.register("toy", profiles=PROFILES, description="toy learner")(experiment)
    return reg


if __name__ == "__main__" and sys.argv[1:2] == ["cli"]:
    from gamelib.experiments.cli import main

    raise SystemExit(main(sys.argv[2:], registry()))
if __name__ == "__main__":
    folder, seed, n_batches = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    workers = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    run(folder, seed, n_batches, workers)


def loaded(name: str) -> bool:
    """Whether module ``name`` is imported in this process (a job for the preload test)."""
    return name in sys.modules
