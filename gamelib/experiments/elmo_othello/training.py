"""Stage 3: the learners: the win-rate scale K, then AdaGrad on every loss from the classic
weights, measured on the held-out positions.

The positions become :class:`~gamelib.learn.elmo.ElmoBatch` es (:func:`teacher_batch`): per
position the features of the position itself (the shallow side: Othello has no quiescence
moves, so elmo's quiescence leaf is the position,
:func:`gamelib.learn.elmo_positions.position_features`), the teacher's deep score and the
game's result from the side to move's view
(:func:`gamelib.learn.elmo_positions.results_for_side_to_move`). K is fitted by maximum
likelihood to the training positions' deep scores and results
(:func:`gamelib.learn.elmo_train.fit_scale`) over the positions whose deep score is not a
forced win or loss (:func:`gamelib.learn.elmo_positions.static_positions`: such a score's win
rate is 0 or 1 at any K, and one the game's result contradicts would drag K by a thousand
units); the losses use every position, forced ends included, whose deep win rate is then 0 or
1.

Every loss of :func:`gamelib.experiments.elmo_shogi.loss_names` (elmo's ``L + λH`` for each λ,
Apery's squared error) starts from the classic square weights and takes ``n_epochs`` passes of
mini-batch AdaGrad (:func:`gamelib.learn.elmo_train.train`), the same mini-batches for all
(``derive_seed(seed, "order")``), with the held-out cross-entropy of the results recorded
``evals_per_epoch`` times an epoch. The stage is not checkpointed: it takes seconds to minutes
and is a function of the teacher's data, the sizes and the seed.
"""

from __future__ import annotations

import numpy as np

from gamelib.experiments.elmo_othello.data import ElmoData
from gamelib.experiments.elmo_shogi import loss_names
from gamelib.learn import elmo_positions as EP
from gamelib.learn import elmo_train as L
from gamelib.learn.elmo import ElmoBatch
from gamelib.runtime.seeds import derive_seed

__all__ = ["FINAL_COLUMNS", "teacher_batch", "fit_teacher_scale", "train_losses"]

#: The columns of ``final.csv``.
FINAL_COLUMNS = ["loss", "lambda", "test_result_xent", "best_test_result_xent", "best_epoch",
                 "test_teacher_xent", "test_teacher_mse", "train_result_xent"]


def teacher_batch(data: ElmoData, deep: EP.DeepScores, ids) -> ElmoBatch:
    """The :class:`~gamelib.learn.elmo.ElmoBatch` of positions ``ids`` (increasing, among
    ``deep.ids``): features of the position, deep score, result (module doc)."""
    ids = np.asarray(ids, dtype=np.int64)
    rows = np.searchsorted(deep.ids, ids)
    if ids.size and (rows.max() >= deep.ids.size or np.any(deep.ids[rows] != ids)):
        raise ValueError("a position without its deep score")
    feats, side = EP.position_features(data.positions, ids)
    t = EP.results_for_side_to_move(data.results, data.positions.game[ids], side)
    return ElmoBatch(feats, deep.score[rows], t)


def fit_teacher_scale(batch: ElmoBatch) -> float:
    """K fitted to ``batch``'s deep scores and results where the deep score is not a forced
    win or loss (module doc)."""
    keep = EP.static_positions(batch.deep_eval)
    return L.fit_scale(batch.deep_eval[keep], batch.result[keep])


def _final_row(name: str, loss: str, lam: float, h) -> dict:
    best = int(h.test_result_xent.idxmin())
    return {"loss": name, "lambda": lam if loss == "elmo" else np.nan,
            "test_result_xent": h.test_result_xent.iloc[-1],
            "best_test_result_xent": h.test_result_xent.iloc[best],
            "best_epoch": h.epoch.iloc[best], "test_teacher_xent": h.test_teacher_xent.iloc[-1],
            "test_teacher_mse": h.test_teacher_mse.iloc[-1],
            "train_result_xent": h.train_result_xent.iloc[-1]}


def train_losses(theta0, train: ElmoBatch, test: ElmoBatch, sizes, seed: int, scale: float):
    """``(thetas, curves, final)``: every loss's weights after training from ``theta0``, the
    learning curves (``loss`` and the columns of :func:`gamelib.learn.elmo_train.train`) and
    one row of :data:`FINAL_COLUMNS` per loss."""
    import pandas as pd

    # the same mini-batches for every loss: one order seed
    adagrad = {"scale": scale, "learning_rate": float(sizes["learning_rate"]),
               "n_epochs": sizes["n_epochs"], "batch_size": sizes["batch_size"],
               "evals_per_epoch": sizes["evals_per_epoch"], "seed": derive_seed(seed, "order")}
    thetas, frames, finals = {}, [], []
    for name, (loss, lam) in loss_names(sizes).items():
        fit = L.train(theta0, train, loss=loss, lam=lam, test=test, **adagrad)
        thetas[name] = fit.weights
        frames.append(fit.history.assign(loss=name)[["loss", *fit.history.columns]])
        finals.append(_final_row(name, loss, lam, fit.history))
    return thetas, pd.concat(frames, ignore_index=True), pd.DataFrame(finals,
                                                                      columns=FINAL_COLUMNS)
