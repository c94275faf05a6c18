"""Learners for evaluation functions, and the pieces they share.

Submodules
----------
:mod:`gamelib.learn.bonanza`
    The Bonanza method (comparison training from expert moves): objective J(P, v), its gradient
    through the principal-variation leaves, the piece-value-sum constraint and the L1 term.
:mod:`gamelib.learn.bonanza_positions`, :mod:`gamelib.learn.bonanza_search`, :mod:`gamelib.learn.bonanza_steps`
    The Bonanza learner written once over the game protocol: positions of game records with
    the expert's move, every legal move searched to its PV leaf with the leaves' cache and the
    block sums of J and its gradient, batch and mini-batch steps with the PV recomputed every
    k steps.
:mod:`gamelib.learn.bonanza_shogi`
    The Bonanza method on 5×5 shogi: the positions of game records
    (:mod:`gamelib.games.minishogi.records`), its units, piece-value constraints and L1 mask over the
    shared learner.
:mod:`gamelib.learn.bonanza_othello`, :mod:`gamelib.learn.wthor_positions`
    The Bonanza method on Othello: the loss's slope in its evaluation's units and the
    constraint that fixes the evaluation's scale; the professionals' positions of WTHOR.
:mod:`gamelib.learn.bonanza_bench`
    Benchmark of the Bonanza learner (positions/s searched, with gradient, from cached leaves).
:mod:`gamelib.learn.elmo`
    elmo's loss (cross-entropy toward the game result plus λ × cross-entropy toward a deep
    search's win rate) and Apery's squared win-rate error.
:mod:`gamelib.learn.teacher`
    elmo's teacher data: self-play games scored by a deep search, the quiescence-search leaf of
    every position, results from the side to move's view (``.npz`` format, resumable).
:mod:`gamelib.learn.elmo_train`
    Fitting the win-rate scale by maximum likelihood and mini-batch AdaGrad on elmo's loss.
:mod:`gamelib.learn.elmo_bench`
    Benchmark of elmo's teacher generation and training (positions/s).
:mod:`gamelib.learn.policy_gradient`
    REINFORCE and PGLeaf (Morioka & Igarashi, eqs. 1-7): the softmax policy over principal-leaf
    values, its log-gradient, the baseline b*, the estimator and the update every M episodes.
:mod:`gamelib.learn.td`
    TD(λ) and TDLeaf(λ) (Baxter et al.): squashed values, temporal differences, the update.
:mod:`gamelib.learn.selfplay`
    Self-play games of any registered game with one shared evaluation for the four learners,
    the settings every learner has, and the paper's MDP and non-MDP (enclosure bonus) rewards.
:mod:`gamelib.learn.learners`
    The self-play learners, one registry line each (PGLeaf, REINFORCE, TDLeaf(λ), TD(λ)), and
    their typed settings; their families :mod:`gamelib.learn.pg_selfplay` (θ fixed over M
    games, then eqs. 1-4) and :mod:`gamelib.learn.td_selfplay` (θ updated after every game).
:mod:`gamelib.learn.selfplay_bench`
    Benchmark of the four learners' self-play (games/s, moves/s).

Shared here
-----------
:class:`FeatureRows`
    Rows of sparse feature vectors in compressed-sparse-row form (one row per evaluated position:
    a principal-variation leaf of a candidate move, or a training position). Linear evaluations
    ``e(x) = v · φ(x)`` take their feature vectors φ in this form; dense arrays are converted.
:class:`FitResult`
    What a learner returns: the final weights and a per-epoch history table.
:func:`central_difference_gradient`, :func:`gradient_relative_error`
    The numerical gradient check the chapters and tests use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np
from numba import njit

__all__ = ["FeatureRows", "FitResult", "central_difference_gradient", "gradient_relative_error"]


@njit(cache=True)
def _rows_dot(indptr, indices, values, w, out):
    for r in range(indptr.shape[0] - 1):
        acc = 0.0
        for k in range(indptr[r], indptr[r + 1]):
            acc += values[k] * w[indices[k]]
        out[r] = acc


class FeatureRows:
    """Rows of sparse feature vectors (compressed sparse rows).

    Row ``r`` holds the feature vector φ_r with entries ``values[indptr[r]:indptr[r+1]]`` at
    feature indices ``indices[indptr[r]:indptr[r+1]]``. An index may repeat within a row; its
    values then add up (what a linear evaluation does with it anyway).

    Parameters
    ----------
    indptr : array of int, shape (n_rows + 1,)
        Row boundaries: ``indptr[0] == 0``, non-decreasing, ``indptr[-1] == len(indices)``.
    indices : array of int, shape (nnz,)
        Feature indices, each in ``[0, n_features)``.
    values : array of float, shape (nnz,)
        Finite feature values.
    n_features : int
        Length of the weight vector the rows are dotted with.

    Raises
    ------
    ValueError
        On inconsistent arrays, naming what is wrong.
    """

    __slots__ = ("indptr", "indices", "values", "n_features")

    def __init__(self, indptr, indices, values, n_features: int):
        indptr = np.asarray(indptr)
        indices = np.asarray(indices)
        values = np.asarray(values)
        if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)) \
                or n_features < 1:
            raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
        if indptr.ndim != 1 or indptr.size < 1:
            raise ValueError(f"indptr must be a 1-D array of length n_rows + 1 >= 1, got shape "
                             f"{indptr.shape}")
        if indices.ndim != 1 or values.ndim != 1 or indices.size != values.size:
            raise ValueError(f"indices and values must be 1-D arrays of equal length, got shapes "
                             f"{indices.shape} and {values.shape}")
        for name, arr in (("indptr", indptr), ("indices", indices)):
            if arr.size and not np.issubdtype(arr.dtype, np.integer):
                raise ValueError(f"{name} must hold integers, got dtype {arr.dtype}")
        if values.size and not (np.issubdtype(values.dtype, np.floating)
                                or np.issubdtype(values.dtype, np.integer)):
            raise ValueError(f"values must be numeric, got dtype {values.dtype}")
        if indptr[0] != 0:
            raise ValueError(f"indptr must start at 0, starts at {indptr[0]}")
        steps = np.diff(indptr)
        if steps.size and steps.min() < 0:
            r = int(np.flatnonzero(steps < 0)[0])
            raise ValueError(f"indptr must be non-decreasing; row {r} ends before it starts "
                             f"({indptr[r]} > {indptr[r + 1]})")
        if indptr[-1] != indices.size:
            raise ValueError(f"indptr ends at {indptr[-1]} but there are {indices.size} entries")
        if indices.size:
            lo, hi = int(indices.min()), int(indices.max())
            if lo < 0 or hi >= n_features:
                bad = lo if lo < 0 else hi
                raise ValueError(f"feature index {bad} is outside [0, {n_features})")
        values = values.astype(np.float64)
        if not np.all(np.isfinite(values)):
            k = int(np.flatnonzero(~np.isfinite(values))[0])
            raise ValueError(f"feature value {values[k]} at entry {k} is not finite")
        self.indptr = indptr.astype(np.int64)
        self.indices = indices.astype(np.int64)
        self.values = values
        self.n_features = int(n_features)

    # -- constructors --------------------------------------------------------------------------
    @classmethod
    def from_dense(cls, matrix) -> "FeatureRows":
        """Rows from a dense ``(n_rows, n_features)`` array (zero entries are dropped)."""
        matrix = np.asarray(matrix, dtype=np.float64)
        if matrix.ndim != 2 or matrix.shape[1] < 1:
            raise ValueError(f"a dense feature matrix must be 2-D (n_rows, n_features >= 1), got "
                             f"shape {matrix.shape}")
        rows, cols = np.nonzero(matrix)
        indptr = np.zeros(matrix.shape[0] + 1, dtype=np.int64)
        np.add.at(indptr, rows + 1, 1)
        return cls(np.cumsum(indptr), cols, matrix[rows, cols], matrix.shape[1])

    @classmethod
    def from_lists(cls, rows: Sequence[tuple[Sequence[int], Sequence[float]]],
                   n_features: int) -> "FeatureRows":
        """Rows from a sequence of ``(indices, values)`` pairs, one pair per row."""
        idx_parts, val_parts, lengths = [], [], []
        for r, (idx, val) in enumerate(rows):
            idx = np.asarray(idx, dtype=np.int64).ravel()
            val = np.asarray(val, dtype=np.float64).ravel()
            if idx.size != val.size:
                raise ValueError(f"row {r} has {idx.size} indices but {val.size} values")
            idx_parts.append(idx)
            val_parts.append(val)
            lengths.append(idx.size)
        indptr = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
        cat = (lambda parts, dt: np.concatenate(parts) if parts else np.zeros(0, dt))
        return cls(indptr, cat(idx_parts, np.int64), cat(val_parts, np.float64), n_features)

    @classmethod
    def concatenate(cls, parts: Iterable["FeatureRows"]) -> "FeatureRows":
        """Stack several row sets (same ``n_features``) into one."""
        parts = list(parts)
        if not parts:
            raise ValueError("nothing to concatenate")
        n = {p.n_features for p in parts}
        if len(n) != 1:
            raise ValueError(f"cannot concatenate rows of different widths {sorted(n)}")
        offsets = np.cumsum([0] + [p.indices.size for p in parts[:-1]])
        indptr = np.concatenate([[0]] + [p.indptr[1:] + o for p, o in zip(parts, offsets)])
        return cls(indptr, np.concatenate([p.indices for p in parts]),
                   np.concatenate([p.values for p in parts]), n.pop())

    # -- access --------------------------------------------------------------------------------
    @property
    def n_rows(self) -> int:
        return self.indptr.size - 1

    def __len__(self) -> int:
        return self.n_rows

    def __repr__(self) -> str:
        return (f"FeatureRows(n_rows={self.n_rows}, n_features={self.n_features}, "
                f"nnz={self.indices.size})")

    def take(self, rows) -> "FeatureRows":
        """The rows ``rows`` (an integer array, in that order, repeats allowed)."""
        rows = np.asarray(rows, dtype=np.int64).ravel()
        if rows.size and (rows.min() < 0 or rows.max() >= self.n_rows):
            bad = int(rows.min() if rows.min() < 0 else rows.max())
            raise ValueError(f"row {bad} is outside [0, {self.n_rows})")
        starts = self.indptr[rows]
        lengths = self.indptr[rows + 1] - starts
        indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        gather = np.repeat(starts - indptr[:-1], lengths) + np.arange(indptr[-1])
        return FeatureRows(indptr, self.indices[gather], self.values[gather], self.n_features)

    def to_dense(self) -> np.ndarray:
        """The rows as a dense ``(n_rows, n_features)`` float64 array."""
        out = np.zeros((self.n_rows, self.n_features))
        row_of = np.repeat(np.arange(self.n_rows), np.diff(self.indptr))
        np.add.at(out, (row_of, self.indices), self.values)
        return out

    def dot(self, weights) -> np.ndarray:
        """``φ_r · weights`` for every row r (the linear evaluation of every row)."""
        w = check_weights(weights, self.n_features)
        out = np.empty(self.n_rows)
        _rows_dot(self.indptr, self.indices, self.values, w, out)
        return out


def check_weights(weights, n_features: int, name: str = "weights") -> np.ndarray:
    """A weight vector as a finite float64 array of length ``n_features`` (else ValueError)."""
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (n_features,):
        raise ValueError(f"{name} must have shape ({n_features},), got {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError(f"{name} contain a non-finite value at index "
                         f"{int(np.flatnonzero(~np.isfinite(w))[0])}")
    return np.ascontiguousarray(w)


@dataclass
class FitResult:
    """The outcome of a learner run.

    Attributes
    ----------
    weights : numpy.ndarray
        The final weights.
    history : pandas.DataFrame
        One row per recorded epoch (epoch 0 = the initial weights); the columns depend on the
        learner and are documented by it.
    """

    weights: np.ndarray
    history: "object"


def central_difference_gradient(f: Callable[[np.ndarray], float], x, step=1e-5) -> np.ndarray:
    """Central finite differences ``(f(x + h e_i) − f(x − h e_i)) / 2h`` for every coordinate.

    Parameters
    ----------
    f : callable
        Scalar function of a float64 vector.
    x : array_like
        Point of evaluation.
    step : float or array_like
        ``h`` (one per coordinate if an array).
    """
    x = np.asarray(x, dtype=np.float64)
    h = np.broadcast_to(np.asarray(step, dtype=np.float64), x.shape)
    if np.any(h <= 0):
        raise ValueError("finite-difference steps must be positive")
    grad = np.empty_like(x)
    for i in range(x.size):
        xp, xm = x.copy(), x.copy()
        xp[i] += h[i]
        xm[i] -= h[i]
        grad[i] = (f(xp) - f(xm)) / (xp[i] - xm[i])
    return grad


def gradient_relative_error(analytic, numeric) -> float:
    """Norm-wise relative error ``‖a − n‖ / max(‖a‖, ‖n‖)`` (0 if both are zero)."""
    a = np.asarray(analytic, dtype=np.float64)
    n = np.asarray(numeric, dtype=np.float64)
    scale = max(np.linalg.norm(a), np.linalg.norm(n))
    return 0.0 if scale == 0.0 else float(np.linalg.norm(a - n) / scale)
