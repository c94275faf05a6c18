"""elmo's learner on teacher data: the win-rate scale, mini-batch AdaGrad, held-out curves.

Equation numbers are those of :mod:`gamelib.learn.elmo` (the chapter *elmo's loss*). The data are
:mod:`gamelib.learn.teacher` records turned into an :class:`~gamelib.learn.elmo.ElmoBatch`
(:func:`gamelib.learn.teacher.leaf_batch`): per position the features x_i of the principal leaf
of its quiescence search, the deep score y_i and the result t_i.

* :func:`fit_scale` -- the win-rate scale K of eq. (1) fitted to the data: the K that makes
  ``σ(y/K)`` the maximum-likelihood predictor of the results (a one-parameter logistic regression
  of t on the deep scores, without intercept, solved by Newton's method in 1/K). elmo's K = 600
  belongs to its evaluation units; ours (a pawn = 0.02) need their own.
* :func:`train` -- mini-batch gradient steps on elmo's loss (eq. 5, gradient eq. 7:
  ``x dsig / K`` with ``dsig = (p − t) + λ(p − q)``) or Apery's squared error (eq. 8, gradient
  eq. 9), with **AdaGrad**: ``G_j += g_j²``, ``w_j −= η g_j / (√G_j + ε)`` for every feature j
  that the mini-batch touches. Why AdaGrad rather than Adam: the features are sparse and of very
  different frequencies (material in every position, a given piece pair in few); AdaGrad gives
  each weight its own step that shrinks with the gradient it has seen, so rare features still
  move, and, having no momentum, a step changes only the weights of the mini-batch's features
  (O(non-zeros), not O(N_FEATURES) per step as Adam's moment updates would). Its
  decreasing steps also make the runs of different losses comparable without a schedule.
  The mini-batch gradient is the mean over the batch (the 1/K kept, as in eq. 7).
* The measure (:func:`metrics`): on held-out positions, the cross-entropy of the results
  (eq. 2 per position; 0.693 is a coin toss) -- the same yardstick for every λ and for the
  squared error -- with the cross-entropy and the squared error against the deep win rate.

The leaves are fixed at generation (the quiescence search of the evaluation that made the data);
elmo's learner re-searches every position with the current weights. With a linear evaluation and
a quiescence search the leaf changes only when the weights change which capture sequence is best.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from numba import njit

from gamelib import exactmath as xm
from gamelib.learn import FitResult, check_weights
from gamelib.learn.elmo import ElmoBatch, _check_lambda, _check_scale, cross_entropy, \
    apery_loss_terms, win_rate

__all__ = ["OPTIMIZER", "fit_scale", "metrics", "train"]

#: The optimiser :func:`train` uses.
OPTIMIZER = "adagrad"


def _check_batch(batch, name="batch") -> ElmoBatch:
    if not isinstance(batch, ElmoBatch):
        raise ValueError(f"{name} must be an ElmoBatch, got {type(batch).__name__}")
    return batch


def fit_scale(deep_eval, result, *, max_iter: int = 100, tol: float = 1e-12) -> float:
    """The K maximising ``Σ t log σ(y/K) + (1 − t) log(1 − σ(y/K))`` (results t ∈ [0, 1]).

    Newton's method on ``b = 1/K`` (the negative log-likelihood is convex in b). ``ValueError``
    if the scores do not predict the results at all (the optimum b ≤ 0: no positive K).
    """
    y = np.asarray(deep_eval, dtype=np.float64).ravel()
    t = np.asarray(result, dtype=np.float64).ravel()
    if y.shape != t.shape or y.size == 0 or not np.all(np.isfinite(y)):
        raise ValueError(f"need as many finite deep scores as results, got {y.shape} and {t.shape}")
    if np.any((t < 0) | (t > 1)):
        raise ValueError("results must lie in [0, 1]")
    # gradient at b = 0 is Σ y (1/2 − t): b > 0 pays only if it is negative
    if np.sum(y * (0.5 - t)) >= 0:
        raise ValueError("the deep scores do not predict the results (no positive scale fits)")
    b = 1.0 / max(np.std(y), 1e-12)
    for _ in range(max_iter):
        p = xm.sigmoid_array(b * y)
        g = np.sum(y * (p - t))
        h = np.sum(y * y * p * (1 - p))
        if h <= 0:
            break
        step = g / h
        nb = b - step
        while nb <= 0:          # keep b positive (halve the step)
            step /= 2
            nb = b - step
        b = nb
        if abs(step) <= tol * b:
            break
    return 1.0 / b


def metrics(weights, batch: ElmoBatch, scale: float) -> dict:
    """Mean per-position measures of ``weights`` on ``batch``.

    ``result_xent`` (eq. 2 / N: cross-entropy of the results), ``teacher_xent`` (H of eq. 5 / N:
    cross-entropy against the deep win rate q) and ``teacher_mse`` (eq. 8 / N).
    """
    batch = _check_batch(batch)
    s = batch.shallow_eval(weights)
    q = win_rate(batch.deep_eval, scale)
    return {"result_xent": float(np.mean(cross_entropy(batch.result, s, scale))),
            "teacher_xent": float(np.mean(cross_entropy(q, s, scale))),
            "teacher_mse": float(np.mean(apery_loss_terms(s, batch.deep_eval, scale)))}


@njit(cache=True)
def _adagrad_epoch(w, g2, indptr, indices, values, bias, deep, result, order, start, stop,
                   batch_size, lam, scale, mode, lr, eps, grad, mark, touched):
    """Mini-batches over ``order[start:stop]``; AdaGrad step after each. Returns the steps."""
    steps = 0
    for b0 in range(start, stop, batch_size):
        b1 = min(stop, b0 + batch_size)
        inv = 1.0 / ((b1 - b0) * scale)
        nt = 0
        for ii in range(b0, b1):
            i = order[ii]
            s = bias[i]
            for k in range(indptr[i], indptr[i + 1]):
                s += values[k] * w[indices[k]]
            a = s / scale
            bb = deep[i] / scale
            p = xm.sigmoid(a)
            q = xm.sigmoid(bb)
            if mode == 0:
                dsig = (p - result[i]) + lam * (p - q)          # eq. (7)
            else:
                dsig = 2.0 * p * (1.0 - p) * (p - q)            # eq. (9)
            c = dsig * inv
            for k in range(indptr[i], indptr[i + 1]):
                j = indices[k]
                if mark[j] == 0:
                    mark[j] = 1
                    touched[nt] = j
                    nt += 1
                grad[j] += c * values[k]
        for u in range(nt):
            j = touched[u]
            gj = grad[j]
            g2[j] += gj * gj
            w[j] -= lr * gj / (np.sqrt(g2[j]) + eps)
            grad[j] = 0.0
            mark[j] = 0
        steps += 1
    return steps


def train(weights, batch: ElmoBatch, *, loss: str = "elmo", lam: float = 0.5, scale: float,
          learning_rate: float, n_epochs: int, batch_size: int = 256, seed: int = 0,
          test: ElmoBatch | None = None, evals_per_epoch: int = 1, eps: float = 1e-8) -> FitResult:
    """Mini-batch AdaGrad on elmo's loss (eq. 5) or Apery's squared error (eq. 8).

    Parameters
    ----------
    weights : array_like
        Initial weights (not modified).
    batch : ElmoBatch
        Training positions.
    loss : {"elmo", "apery"}
    lam : float
        λ of eq. (5) (unused for ``"apery"``).
    scale : float
        K of eq. (1) (e.g. :func:`fit_scale`).
    learning_rate : float
        AdaGrad's η.
    n_epochs : int
        Passes over the training positions, each in a fresh order drawn from ``seed``.
    batch_size : int
        Positions per step.
    seed : int
        Seeds the orders (the same for every loss, so the runs see the same mini-batches).
    test : ElmoBatch, optional
        Held-out positions, scored at every evaluation point.
    evals_per_epoch : int
        Evaluation points per epoch (besides the start).
    eps : float
        AdaGrad's ε.

    Returns
    -------
    FitResult
        ``history``: one row per evaluation point: ``epoch`` (fractional), ``positions``
        (training positions seen), ``steps``, ``train_result_xent``, ``train_teacher_xent``,
        ``train_teacher_mse`` and, with ``test``, the same with ``test_``.
    """
    batch = _check_batch(batch)
    if loss not in ("elmo", "apery"):
        raise ValueError(f"unknown loss {loss!r}; use 'elmo' or 'apery'")
    lam, scale = _check_lambda(lam), _check_scale(scale)
    w = check_weights(weights, batch.n_features, "initial weights").copy()
    if not (math.isfinite(learning_rate) and learning_rate > 0):
        raise ValueError(f"learning_rate must be positive, got {learning_rate!r}")
    for name, v, low in (("n_epochs", n_epochs, 0), ("batch_size", batch_size, 1),
                         ("evals_per_epoch", evals_per_epoch, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {v!r}")
    if test is not None and _check_batch(test, "test").n_features != batch.n_features:
        raise ValueError(f"test positions have {test.n_features} features, training positions "
                         f"{batch.n_features}")
    n = batch.n_positions
    f = batch.features
    g2 = np.zeros_like(w)
    grad = np.zeros_like(w)
    mark = np.zeros(w.size, dtype=np.int8)
    touched = np.zeros(w.size, dtype=np.int64)
    rng = np.random.default_rng(seed)
    rows = []
    steps = 0

    def record(epoch, seen):
        row = {"epoch": epoch, "positions": seen, "steps": steps}
        row.update({f"train_{k}": v for k, v in metrics(w, batch, scale).items()})
        if test is not None:
            row.update({f"test_{k}": v for k, v in metrics(w, test, scale).items()})
        rows.append(row)

    record(0.0, 0)
    bounds = np.linspace(0, n, evals_per_epoch + 1).round().astype(np.int64)
    for epoch in range(n_epochs):
        order = rng.permutation(n).astype(np.int64)
        for k in range(evals_per_epoch):
            steps += _adagrad_epoch(w, g2, f.indptr, f.indices, f.values, batch.shallow_bias,
                                    batch.deep_eval, batch.result, order, bounds[k],
                                    bounds[k + 1], int(batch_size), lam, scale,
                                    0 if loss == "elmo" else 1, float(learning_rate),
                                    float(eps), grad, mark, touched)
            record(epoch + (k + 1) / evals_per_epoch, epoch * n + int(bounds[k + 1]))
    return FitResult(weights=w, history=pd.DataFrame(rows))
