"""Stage 3: every variant learns from the training positions, measured after every epoch
(:func:`gamelib.experiments.bonanza_common.run_learner`)."""

from __future__ import annotations

import numpy as np

from gamelib.games.minishogi import features as E
from gamelib.runtime.seeds import derive_seed
from gamelib.learn import bonanza_shogi as bs
from gamelib.experiments.bonanza_common import HISTORY_HEAD, checkpoint_theta, run_learner
from gamelib.experiments.bonanza_shogi.config import variant_settings
from gamelib.experiments.bonanza_shogi.data import (Split, initial_theta)


# ----------------------------------------------------------------------------- 3. training
HISTORY_COLUMNS = (*HISTORY_HEAD, "J_train", "agreement_train", "J_test", "agreement_test",
                   "piece_sum", "hand_sum", "nonzero_weights", "l1_norm")


def _measures(v, data: Split, settings, map_fn) -> list:
    kw = dict(settings=settings.search, chunk_size=settings.chunk_size, map_fn=map_fn)
    tr = bs.evaluate(v, data.positions, data.train_eval, **kw)
    te = bs.evaluate(v, data.positions, data.test, **kw)
    mat = bs.material_indices()
    rest = np.ones(v.size, dtype=bool)
    rest[mat] = False
    return [tr["J_per_position"], tr["agreement"], te["J_per_position"], te["agreement"],
            v[mat].sum(), v[bs.material_indices("hand")].sum(), np.count_nonzero(v[rest]),
            np.abs(v[rest]).sum()]


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
    batch_seed = derive_seed(seed, "batches")

    def learn(v, first, n_steps, run_seed, map_fn):
        con = bs.constraint_of(settings, initial_theta(run_seed))
        return bs.learn_steps(v, data.positions, data.train, settings, first, n_steps,
                              batch_seed, constraint=con, map_fn=map_fn)

    return run_learner(folder, config=_train_config(variant, sizes, records_sha), seed=seed,
                       n_epochs=sizes["n_epochs"], settings=settings, n_train=data.train.size,
                       initial=initial_theta, learn=learn,
                       measure=lambda v, map_fn: _measures(v, data, settings, map_fn),
                       desc=f"learner {variant}", workers=workers, scheduler=scheduler,
                       progress=progress)


def trained_theta(folder, variant, sizes, seed, records_sha, epoch=None) -> np.ndarray:
    """A variant's weights after ``epoch`` epochs (default: the last) from its run folder."""
    return checkpoint_theta(folder, _train_config(variant, sizes, records_sha), seed, epoch)
