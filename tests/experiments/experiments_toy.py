"""A toy learner for the run-machinery tests: "games" are random vectors, batches update a
parameter vector. Run as a script it performs (or resumes) a run::

    python experiments_toy.py FOLDER SEED N_BATCHES [WORKERS]

The environment variable ``TOY_SLEEP`` (seconds per batch) slows it down so that a test can kill
it in the middle.
"""

import os
import sys
import time

import numpy as np

from gamelib.runtime import derive_rng, run_batched

CONFIG = {"dim": 16, "games_per_batch": 6, "lr": 0.05}


def init(config, seed):
    return {"params": derive_rng(seed, "init").normal(size=config["dim"]) * 0.1,
            "games": np.int64(0)}


def play(job):
    """One "game": a chaotic function of the parameters and the game's seed."""
    seed, params = job
    rng = np.random.default_rng(seed)
    x = rng.normal(size=params.shape)
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


if __name__ == "__main__":
    folder, seed, n_batches = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    workers = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    run(folder, seed, n_batches, workers)
