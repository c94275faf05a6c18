"""Stage 3: every variant learns from the training positions, measured after every epoch."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gamelib.evaluation import shogi as E
from gamelib.runtime.checkpoint import CheckpointStore
from gamelib.runtime.driver import run_batched
from gamelib.runtime.seeds import derive_seed
from gamelib.learn import bonanza_shogi as bs
from gamelib.experiments.bonanza_shogi.config import variant_settings
from gamelib.experiments.bonanza_shogi.data import (Split, initial_theta)


# ----------------------------------------------------------------------------- 3. training
HISTORY_COLUMNS = ("epoch", "steps", "positions_searched", "J_batch", "J_train",
                   "agreement_train", "J_test", "agreement_test", "piece_sum", "hand_sum",
                   "nonzero_weights", "l1_norm")


def _history_row(v, epoch, steps, searched, j_batch, data: Split, settings, constraint,
                 map_fn) -> np.ndarray:
    kw = dict(settings=settings.search, chunk_size=settings.chunk_size, map_fn=map_fn)
    tr = bs.evaluate(v, data.positions, data.train_eval, **kw)
    te = bs.evaluate(v, data.positions, data.test, **kw)
    mat = bs.material_indices()
    rest = np.ones(v.size, dtype=bool)
    rest[mat] = False
    return np.array([epoch, steps, searched, j_batch, tr["J_per_position"], tr["agreement"],
                     te["J_per_position"], te["agreement"], v[mat].sum(),
                     v[bs.material_indices("hand")].sum(), np.count_nonzero(v[rest]),
                     np.abs(v[rest]).sum()])


def _train_config(variant, sizes, records_sha) -> dict:
    return {"experiment": "bonanza", "stage": "train", "variant": variant,
            "learner": variant_settings(variant, sizes).as_dict(), "records_sha256": records_sha,
            "test_fraction": sizes["test_fraction"], "n_train_eval": sizes["n_train_eval"],
            "init": {"function": "gamelib.evaluation.shogi.initial_theta", "scale": 1e-4,
                     "layout": E.LAYOUT_NAME, "n_features": E.N_FEATURES}}


def train_variant(folder, variant: str, data: Split, sizes, seed: int, records_sha: str, *,
                  workers=None, scheduler=None, progress=False):
    """Run (or resume) one learner; returns the :class:`~gamelib.runtime.driver.RunResult`
    (state: ``theta`` and ``history``, one row of :data:`HISTORY_COLUMNS` per epoch)."""
    settings = variant_settings(variant, sizes)
    n = data.train.size
    spe = settings.steps_per_epoch(n)
    if spe == 1:
        spe = settings.refresh_every
    elif spe % settings.refresh_every:
        raise ValueError(f"refresh_every {settings.refresh_every} must divide the "
                         f"{spe} steps of an epoch")
    batch_seed = derive_seed(seed, "batches")

    def init(cfg, run_seed):
        v = initial_theta(run_seed)
        con = bs.constraint_of(settings, v)
        row = _history_row(v, 0, 0, 0, np.nan, data, settings, con, None)
        return {"theta": v, "history": row[None, :]}

    def step(state, ctx):
        v = state["theta"]
        con = bs.constraint_of(settings, initial_theta(ctx.run_seed))
        v, counts = bs.learn_steps(v, data.positions, data.train, settings, ctx.index * spe,
                                   spe, batch_seed, constraint=con, map_fn=ctx.map)
        last = state["history"][-1]
        row = _history_row(v, ctx.index + 1, last[1] + spe,
                           last[2] + counts["positions_searched"], counts["J_batch"] / spe,
                           data, settings, con, ctx.map)
        return {"theta": v, "history": np.vstack([state["history"], row[None, :]])}

    return run_batched(Path(folder), config=_train_config(variant, sizes, records_sha),
                       seed=seed, n_batches=sizes["n_epochs"], init=init, step=step,
                       workers=workers, scheduler=scheduler, progress=progress,
                       desc=f"learner {variant}")


def trained_theta(folder, variant, sizes, seed, records_sha, epoch=None) -> np.ndarray:
    """A variant's weights after ``epoch`` epochs (default: the last) from its run folder."""
    with CheckpointStore(Path(folder), {"config": _train_config(variant, sizes, records_sha),
                                        "seed": seed}) as store:
        ck = store.latest() if epoch is None else store.load(completed=epoch)
    if ck is None:
        raise ValueError(f"no checkpoint in {folder}")
    return ck.arrays["theta"]
