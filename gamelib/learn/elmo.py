"""elmo's loss and Apery's squared win-rate error, for a linear evaluation.

Equation numbers refer to the chapter *elmo's loss* (``notebooks/elmo_derivation``; its MyST
labels in brackets). For a training position i with feature vector x_i, shallow evaluation
``s_i = w·x_i + b_i`` (the value of a shallow search whose PV leaf has features x_i; b_i a part
that does not depend on w), deep evaluation y_i (a deeper search, the teacher) and game result
t_i ∈ [0, 1] (1 win, 0 loss, ½ draw; all from the side to move at i):

* (1) [elmo-win-rate] win rates ``p_i = σ(s_i / K)``, ``q_i = σ(y_i / K)``, σ the logistic
  function, K = 600;
* (2) [elmo-result-loss] the result term ``L = Σ_i −[t_i log p_i + (1 − t_i) log(1 − p_i)]``;
* (3) [elmo-sigmoid-derivative] ``σ'(a) = σ(a)(1 − σ(a))``;
* (4) [elmo-result-gradient] ``∂L/∂w = Σ_i (x_i / K)(p_i − t_i)``;
* (5) [elmo-loss] elmo's loss ``L' = L + λ H``,
  ``H = Σ_i −[q_i log p_i + (1 − q_i) log(1 − p_i)]`` (the cross-entropy of the shallow win rate
  against the deep one);
* (6) [elmo-regulariser-gradient] ``∂H/∂w = Σ_i (x_i / K)(p_i − q_i)``;
* (7) [elmo-gradient] ``∂L'/∂w = Σ_i (x_i / K) dsig_i`` with
  ``dsig_i = (p_i − t_i) + λ(p_i − q_i)`` — elmo's ``dsig``; its implementation leaves the 1/K
  to the learning rate;
* (8) [apery-loss] Apery's loss ``E = Σ_i (p_i − q_i)²``;
* (9) [apery-gradient] ``∂E/∂w = Σ_i (x_i / K) 2σ'(s_i/K)(p_i − q_i)``.

:func:`loss_and_gradient` returns the exact gradients (with the 1/K) for a batch;
:func:`elmo_dsig` and :func:`apery_dsig` are the per-position factors, for callers that get the
shallow value from their own search.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from gamelib import exactmath as xm
from gamelib.learn import FeatureRows, FitResult, check_weights

__all__ = [
    "ELMO_SCALE", "ELMO_LAMBDA", "LOSSES",
    "win_rate", "cross_entropy", "elmo_loss_terms", "elmo_dsig", "apery_loss_terms", "apery_dsig",
    "ElmoBatch", "batch_loss", "loss_and_gradient", "fit", "synthetic_batch",
]

#: K of eq. (1): elmo maps an evaluation to a win rate by σ(eval / 600).
ELMO_SCALE = 600.0
#: λ of eq. (5) in elmo's learning code.
ELMO_LAMBDA = 0.5
#: Loss names accepted by :func:`loss_and_gradient` and :func:`fit`.
LOSSES = ("elmo", "apery")


def _check_scale(scale) -> float:
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a positive number, got {scale!r}")
    return float(scale)


def _check_lambda(lam) -> float:
    if not (np.isfinite(lam) and lam >= 0):
        raise ValueError(f"lambda must be a non-negative number, got {lam!r}")
    return float(lam)


def _check_result(result) -> np.ndarray:
    t = np.asarray(result, dtype=np.float64)
    bad = ~((t >= 0.0) & (t <= 1.0))
    if bad.any():
        k = np.flatnonzero(bad.ravel())[0]
        raise ValueError(f"result must lie in [0, 1] (1 win, 0 loss, 0.5 draw); entry {k} is "
                         f"{t.ravel()[k].item()!r}")
    return t


def _sig(a):
    return xm.sigmoid_array(a)


def _out(x):
    return float(x) if np.ndim(x) == 0 else x


def win_rate(evaluation, scale: float = ELMO_SCALE):
    """The win rate σ(evaluation / scale) of eq. (1)."""
    return _out(_sig(np.asarray(evaluation, dtype=np.float64) / _check_scale(scale)))


def cross_entropy(target, evaluation, scale: float = ELMO_SCALE):
    """``−[t log p + (1 − t) log(1 − p)]`` with ``p = σ(evaluation/scale)``, computed stably.

    Equal to ``softplus(a) − t a`` with ``a = evaluation/scale``; a term of eq. (2) (t the
    result) or of H in eq. (5) (t the deep win rate q).
    """
    a = np.asarray(evaluation, dtype=np.float64) / _check_scale(scale)
    t = _check_result(target)
    return _out(xm.softplus_array(a) - t * a)


def elmo_loss_terms(shallow, deep, result, lam: float = ELMO_LAMBDA, scale: float = ELMO_SCALE):
    """Per-position elmo loss ``CE(t, p) + λ CE(q, p)`` (the terms of eq. 5)."""
    q = win_rate(deep, scale)
    return _out(cross_entropy(result, shallow, scale) + _check_lambda(lam)
                * cross_entropy(q, shallow, scale))


def elmo_dsig(shallow, deep, result, lam: float = ELMO_LAMBDA, scale: float = ELMO_SCALE):
    """elmo's ``dsig = (p − t) + λ(p − q)`` of eq. (7): the derivative of a term of eq. (5) with
    respect to the scaled evaluation ``a = shallow / scale`` (divide by ``scale`` for the
    derivative in ``shallow``)."""
    p, q = win_rate(shallow, scale), win_rate(deep, scale)
    return _out((p - _check_result(result)) + _check_lambda(lam) * (p - q))


def apery_loss_terms(shallow, deep, scale: float = ELMO_SCALE):
    """Per-position squared win-rate error ``(p − q)²`` (the terms of eq. 8)."""
    return _out((win_rate(shallow, scale) - win_rate(deep, scale)) ** 2)


def apery_dsig(shallow, deep, scale: float = ELMO_SCALE):
    """``2σ'(a)(σ(a) − σ(b))``, a = shallow/scale, b = deep/scale: the derivative of a term of
    eq. (8) with respect to a (eq. 9 without the x/K)."""
    p, q = win_rate(shallow, scale), win_rate(deep, scale)
    return _out(2.0 * p * (1.0 - p) * (p - q))


# --- batches -------------------------------------------------------------------------------------

class ElmoBatch:
    """Training positions: features, deep evaluation and result (the data of eq. 5).

    Parameters
    ----------
    features : FeatureRows
        One row x_i per position (the features of the shallow search's PV leaf).
    deep_eval : array of float, shape (n_positions,)
        y_i, the deep search's evaluation (eval units, side to move's view).
    result : array of float, shape (n_positions,)
        t_i ∈ [0, 1] for the side to move (1 win, 0 loss, ½ draw).
    shallow_bias : array of float, shape (n_positions,), optional
        b_i, the part of the shallow evaluation that does not depend on w (default 0).
    """

    def __init__(self, features: FeatureRows, deep_eval, result, shallow_bias=None):
        if not isinstance(features, FeatureRows):
            raise ValueError(f"features must be FeatureRows, got {type(features).__name__}")
        n = features.n_rows
        if n < 1:
            raise ValueError("an ElmoBatch needs at least one position")
        deep = np.asarray(deep_eval, dtype=np.float64)
        if deep.shape != (n,) or not np.all(np.isfinite(deep)):
            raise ValueError(f"deep_eval must be {n} finite numbers, got shape {deep.shape}")
        t = _check_result(result)
        if t.shape != (n,):
            raise ValueError(f"result must have one entry per position ({n}), got {t.shape}")
        bias = np.zeros(n) if shallow_bias is None else np.asarray(shallow_bias, np.float64)
        if bias.shape != (n,) or not np.all(np.isfinite(bias)):
            raise ValueError(f"shallow_bias must be {n} finite numbers, got shape {bias.shape}")
        self.features, self.deep_eval, self.result, self.shallow_bias = features, deep, t, bias

    @classmethod
    def from_dense(cls, features, deep_eval, result, shallow_bias=None) -> "ElmoBatch":
        """Build from a dense ``(n_positions, n_features)`` feature array."""
        return cls(FeatureRows.from_dense(features), deep_eval, result, shallow_bias)

    @property
    def n_positions(self) -> int:
        return self.features.n_rows

    @property
    def n_features(self) -> int:
        return self.features.n_features

    def __len__(self) -> int:
        return self.n_positions

    def __repr__(self) -> str:
        return f"ElmoBatch(n_positions={self.n_positions}, n_features={self.n_features})"

    def subset(self, positions) -> "ElmoBatch":
        """The positions ``positions`` (integer array), e.g. a mini-batch."""
        positions = np.asarray(positions, dtype=np.int64).ravel()
        rows = self.features.take(positions)      # validates the indices
        return ElmoBatch(rows, self.deep_eval[positions], self.result[positions],
                         self.shallow_bias[positions])

    def shallow_eval(self, weights) -> np.ndarray:
        """``s_i = w·x_i + b_i`` for every position."""
        return self.features.dot(weights) + self.shallow_bias


@njit(cache=True)
def _loss_kernel(w, indptr, indices, values, bias, deep, result, lam, scale, mode, grad):
    total = 0.0
    for i in range(indptr.shape[0] - 1):
        s = bias[i]
        for k in range(indptr[i], indptr[i + 1]):
            s += values[k] * w[indices[k]]
        a = s / scale
        b = deep[i] / scale
        sp = xm.softplus(a)                                 # softplus(a) = −log(1 − p)
        p = xm.sigmoid(a)
        q = xm.sigmoid(b)
        if mode == 0:
            total += (sp - result[i] * a) + lam * (sp - q * a)     # eq. (5)
            dsig = (p - result[i]) + lam * (p - q)                 # eq. (7)
        else:
            total += (p - q) * (p - q)                             # eq. (8)
            dsig = 2.0 * p * (1.0 - p) * (p - q)                   # eq. (9)
        c = dsig / scale
        for k in range(indptr[i], indptr[i + 1]):
            grad[indices[k]] += c * values[k]
    return total


def loss_and_gradient(weights, batch: ElmoBatch, *, loss: str = "elmo", lam: float = ELMO_LAMBDA,
                      scale: float = ELMO_SCALE) -> tuple[float, np.ndarray]:
    """The batch loss (a sum over positions) and its exact gradient in w.

    Parameters
    ----------
    weights : array_like, shape (n_features,)
        w.
    batch : ElmoBatch
    loss : {"elmo", "apery"}
        ``"elmo"``: L' of eq. (5), gradient eq. (7). ``"apery"``: E of eq. (8), gradient eq. (9)
        (``lam`` unused).
    lam : float
        λ ≥ 0 (λ = 0 is plain logistic regression on the results, eqs. 2 and 4).
    scale : float
        K of eq. (1).
    """
    if not isinstance(batch, ElmoBatch):
        raise ValueError(f"batch must be an ElmoBatch, got {type(batch).__name__}")
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}; use one of {', '.join(LOSSES)}")
    w = check_weights(weights, batch.n_features)
    grad = np.zeros(batch.n_features)
    f = batch.features
    total = _loss_kernel(w, f.indptr, f.indices, f.values, batch.shallow_bias, batch.deep_eval,
                         batch.result, _check_lambda(lam), _check_scale(scale),
                         0 if loss == "elmo" else 1, grad)
    return total, grad


def batch_loss(weights, batch: ElmoBatch, *, loss: str = "elmo", lam: float = ELMO_LAMBDA,
               scale: float = ELMO_SCALE) -> float:
    """The batch loss of :func:`loss_and_gradient` without the gradient."""
    return loss_and_gradient(weights, batch, loss=loss, lam=lam, scale=scale)[0]


def _metrics(w, batch: ElmoBatch, scale: float) -> tuple[float, float]:
    s = batch.shallow_eval(w)
    xent = float(np.mean(cross_entropy(batch.result, s, scale)))
    mse = float(np.mean(apery_loss_terms(s, batch.deep_eval, scale)))
    return xent, mse


def fit(weights, batch: ElmoBatch, *, loss: str = "elmo", lam: float = ELMO_LAMBDA,
        scale: float = ELMO_SCALE, learning_rate: float, n_epochs: int,
        batch_size: int | None = None, seed: int = 0, test: ElmoBatch | None = None) -> FitResult:
    """Gradient descent on elmo's loss (eq. 5) or Apery's (eq. 8), in batches.

    Every epoch visits the positions once in a seeded random order; a step on batch B is
    ``w ← w − (η / |B|) ∂loss_B/∂w`` (the mean gradient over the batch).

    Parameters
    ----------
    weights : array_like
        Initial w.
    batch : ElmoBatch
        Training positions.
    loss, lam, scale
        As in :func:`loss_and_gradient`.
    learning_rate : float
        η > 0.
    n_epochs : int
        ≥ 0.
    batch_size : int or None
        ``None``: full batch.
    seed : int
        Seeds the order of the positions.
    test : ElmoBatch, optional
        Held-out positions to score every epoch.

    Returns
    -------
    FitResult
        ``history`` columns: ``epoch``, ``steps``, ``loss`` (the training loss per position),
        ``result_xent`` (mean cross-entropy against the results, eq. 2 / N), ``teacher_mse``
        (mean ``(p − q)²``, eq. 8 / N), and ``test_result_xent``, ``test_teacher_mse`` with
        ``test``.
    """
    w = check_weights(weights, batch.n_features, "initial weights").copy()
    if not (np.isfinite(learning_rate) and learning_rate > 0):
        raise ValueError(f"learning_rate must be positive, got {learning_rate!r}")
    if isinstance(n_epochs, bool) or not isinstance(n_epochs, (int, np.integer)) or n_epochs < 0:
        raise ValueError(f"n_epochs must be a non-negative integer, got {n_epochs!r}")
    n = batch.n_positions
    batch_size = n if batch_size is None else batch_size
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) \
            or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer or None, got {batch_size!r}")
    if test is not None and test.n_features != batch.n_features:
        raise ValueError(f"test positions have {test.n_features} features, training positions "
                         f"{batch.n_features}")
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}; use one of {', '.join(LOSSES)}")
    kw = dict(loss=loss, lam=_check_lambda(lam), scale=_check_scale(scale))
    rng = np.random.default_rng(seed)
    rows = []

    def record(epoch, steps):
        row = {"epoch": epoch, "steps": steps,
               "loss": loss_and_gradient(w, batch, **kw)[0] / n}
        row["result_xent"], row["teacher_mse"] = _metrics(w, batch, scale)
        if test is not None:
            row["test_result_xent"], row["test_teacher_mse"] = _metrics(w, test, scale)
        rows.append(row)

    steps = 0
    record(0, 0)
    for epoch in range(1, n_epochs + 1):
        order = rng.permutation(n) if batch_size < n else None
        for start in range(0, n, batch_size):
            part = batch if order is None else batch.subset(order[start:start + batch_size])
            _, g = loss_and_gradient(w, part, **kw)
            w -= (learning_rate / part.n_positions) * g
            steps += 1
        record(epoch, steps)
    return FitResult(weights=w, history=pd.DataFrame(rows))


def synthetic_batch(n_positions: int, *, n_features: int = 32, density: float = 0.25,
                    weight_scale: float = 200.0, deep_noise: float = 100.0, draw_rate: float = 0.0,
                    seed: int = 0) -> tuple[ElmoBatch, np.ndarray]:
    """Positions whose results follow a hidden true evaluation.

    Features are −1/0/+1 with ``density`` non-zeros (material-like balances); the true weights
    are ``N(0, weight_scale²)``; the true evaluation s* = w*·x gives the win probability
    σ(s*/600) from which the result is drawn (a draw with ``draw_rate``); the deep evaluation is
    s* plus ``N(0, deep_noise²)`` (a deeper search sees nearly, not exactly, the truth).

    Returns
    -------
    batch : ElmoBatch
    true_weights : numpy.ndarray
    """
    if isinstance(n_positions, bool) or not isinstance(n_positions, (int, np.integer)) \
            or n_positions < 1:
        raise ValueError(f"n_positions must be a positive integer, got {n_positions!r}")
    if not (0 < density <= 1) or not (0 <= draw_rate < 1):
        raise ValueError("density must lie in (0, 1] and draw_rate in [0, 1)")
    if weight_scale <= 0 or deep_noise < 0:
        raise ValueError("weight_scale must be positive and deep_noise non-negative")
    rng = np.random.default_rng(seed)
    true_w = rng.normal(0.0, weight_scale, n_features)
    x = np.where(rng.random((n_positions, n_features)) < density,
                 rng.choice(np.array([-1.0, 1.0]), (n_positions, n_features)), 0.0)
    s_true = x @ true_w
    wins = (rng.random(n_positions) < win_rate(s_true)).astype(float)
    result = np.where(rng.random(n_positions) < draw_rate, 0.5, wins)
    deep = s_true + rng.normal(0.0, deep_noise, n_positions)
    return ElmoBatch.from_dense(x, deep, result), true_w
