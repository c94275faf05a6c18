"""Stage 2: every variant learns from the training positions, measured after every epoch
(:func:`gamelib.experiments.bonanza_common.run_learner`, one checkpoint per epoch in
``train/<variant>/``).

Every variant starts from the classic square weights
(:func:`gamelib.games.othello.features.initial_theta`: the positional score as pattern weights,
every other weight 0), so its start is the matches' opponent, and takes the steps of
:func:`gamelib.learn.bonanza_steps.learn_steps` with the loss's slope
:data:`gamelib.learn.bonanza_othello.SLOPE`, its batches drawn from ``derive_seed(seed,
"batches")`` and its constraint the variant's
(:func:`~gamelib.experiments.bonanza_othello.config.variant_constraint`: the scale constraint
:func:`gamelib.learn.bonanza_othello.scale_constraint`, or none). After every epoch, with a fresh
search: J per position and move agreement on the held-out positions and on the fixed sample of
training positions, the classic component of the weights
(:func:`gamelib.learn.bonanza_othello.classic_component`: 1 under the constraint), the non-zero
weights and the weights' L1 norm (:data:`HISTORY_COLUMNS`).
"""

from __future__ import annotations

import numpy as np

from gamelib.experiments.bonanza_common import HISTORY_HEAD, checkpoint_theta, run_learner
from gamelib.experiments.bonanza_othello.config import (CHUNK_SIZE, REDUCTION, variant_constraint,
                                                        variant_settings)
from gamelib.experiments.bonanza_othello.data import OthelloData
from gamelib.games.othello import features as F
from gamelib.learn import bonanza_othello as bo
from gamelib.learn.bonanza_search import evaluate
from gamelib.learn.bonanza_steps import learn_steps
from gamelib.runtime.seeds import derive_seed

__all__ = ["HISTORY_COLUMNS", "initial_theta", "measure", "train_variant", "trained_theta"]

HISTORY_COLUMNS = (*HISTORY_HEAD, "J_train", "agreement_train", "J_test", "agreement_test",
                   "classic_component", "nonzero_weights", "l1_norm")


def initial_theta(seed: int = 0) -> np.ndarray:
    """The learners' start: the classic square weights, every other weight 0 (the same for every
    seed)."""
    return F.initial_theta()


def measure(theta, data: OthelloData, search, map_fn=None) -> tuple[dict, dict]:
    """``(on the training sample, on the held-out positions)``: the dicts of
    :func:`gamelib.learn.bonanza_search.evaluate` of ``theta`` searched with ``search``."""
    kw = dict(slope=bo.SLOPE, chunk_size=CHUNK_SIZE, map_fn=map_fn, reduction=REDUCTION)
    return (evaluate(theta, data.positions, data.train_eval, search, **kw),
            evaluate(theta, data.positions, data.test, search, **kw))


def _measures(v, data: OthelloData, settings, map_fn) -> list:
    tr, te = measure(v, data, settings.search, map_fn)
    return [tr["J_per_position"], tr["agreement"], te["J_per_position"], te["agreement"],
            bo.classic_component(v), np.count_nonzero(v), np.abs(v).sum()]


def _train_config(variant, sizes, data: OthelloData) -> dict:
    return {"experiment": "bonanza_othello", "stage": "train", "variant": variant,
            "learner": variant_settings(variant, sizes).as_dict(),
            "constraint": variant_constraint(variant), "slope": bo.SLOPE, "reduction": REDUCTION,
            "years": [sizes["first_year"], sizes["last_year"]],
            "test_fraction": sizes["test_fraction"], "n_train_eval": sizes["n_train_eval"],
            "data_sha256": data.sha256,
            "init": {"function": "gamelib.games.othello_features.initial_theta",
                     "n_features": F.N_FEATURES}}


def train_variant(folder, variant: str, data: OthelloData, sizes, seed: int, *, workers=None,
                  scheduler=None, progress=False):
    """Run (or resume) one learner; returns the :class:`~gamelib.runtime.driver.RunResult`
    (state: ``theta`` and ``history``, one row of :data:`HISTORY_COLUMNS` per epoch)."""
    settings = variant_settings(variant, sizes)
    batch_seed = derive_seed(seed, "batches")
    constraint = bo.constraint_of(variant_constraint(variant), initial_theta())

    def learn(v, first, n_steps, run_seed, map_fn):
        return learn_steps(v, data.positions, data.train, settings, first, n_steps, batch_seed,
                           slope=bo.SLOPE, constraint=constraint, map_fn=map_fn,
                           reduction=REDUCTION)

    return run_learner(folder, config=_train_config(variant, sizes, data), seed=seed,
                       n_epochs=sizes["n_epochs"], settings=settings, n_train=data.train.size,
                       initial=initial_theta, learn=learn,
                       measure=lambda v, map_fn: _measures(v, data, settings, map_fn),
                       desc=f"learner {variant}", workers=workers, scheduler=scheduler,
                       progress=progress)


def trained_theta(folder, variant: str, data: OthelloData, sizes, seed: int,
                  epoch: int | None = None) -> np.ndarray:
    """A variant's weights after ``epoch`` epochs (default: the last) from its run folder."""
    return checkpoint_theta(folder, _train_config(variant, sizes, data), seed, epoch)
