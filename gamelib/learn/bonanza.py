"""The Bonanza method: comparison training of a linear evaluation from expert moves.

Equation numbers refer to the chapter *The Bonanza method* (``notebooks/bonanza_derivation``;
its MyST labels in brackets), after Hoki (2006) and Hoki & Kaneko (2014):

* (1) [bonanza-objective] ``J(P, v) = Σ_p Σ_{m≥2} T_p[ξ(p_m, v) − ξ(p_1, v)]``, where p_1 is the
  child the expert chose and p_m (m ≥ 2) every other legal child;
* (2) [bonanza-sigmoid] the loss ``T(x) = 1 / (1 + exp(−a x))`` with ``a = 7/256 ≈ 0.0273``;
* (3) [bonanza-side] the side-to-move sign ``T_p(x) = T(s_p x)``, ``s_p = +1`` (Max to move) or
  ``−1`` (Min);
* (4) [bonanza-sigmoid-derivative] ``T'(x) = a T(x) (1 − T(x))``;
* (5) [bonanza-gradient], (6) [bonanza-pv-leaf], (7) [bonanza-gradient-linear] the gradient,
  with ``∂ξ(p_m, v)/∂v`` replaced by the feature vector of the principal-variation (PV) leaf of
  p_m (exact for a linear evaluation wherever the PV is unique);
* (8) [bonanza-constraint], (9) [bonanza-lagrange], (10) [bonanza-sign-step] the piece-value-sum
  constraint ``g(v) = Σ_{i∈Π} v_i − C = 0`` with its Lagrange multiplier: the mean of the
  piece-value partial derivatives for a gradient step (an exact projection onto the constraint
  plane), their median for Bonanza's sign step (:class:`PieceValueConstraint`; with coefficients,
  ``g(v) = Σ_{i∈Π} c_i v_i − C``, for an evaluation without piece values:
  :class:`LinearConstraint`);
* (11) [bonanza-l1] the L1 term ``w₁ Σ_{i∈R} |v_i|`` and its subgradient (or its proximal step).

Conventions
-----------
All search values ξ are from one fixed point of view, Max's (the first player's). A training
position carries ``side = +1`` if Max is to move there and ``−1`` if Min is. A PV leaf's value is
``ξ = v · φ(leaf) + b(leaf)``: φ its feature vector (a row of :class:`~gamelib.learn.FeatureRows`)
and b a constant that does not depend on v (0 for an ordinary leaf, a fixed score for a terminal
one). Evaluations whose sign follows the side to move must be converted to Max's view first.

Data
----
:class:`ComparisonSet` holds, per training position, the PV leaf of every legal move (as a search
returned them). :class:`MinimaxTrees` holds a two-ply tree per position (every move and every
reply), so that the PV leaves and the minimax values ξ can be recomputed for any v — the
synthetic setting of the chapter, in which J is the true minimax objective. Both offer
``at(weights, positions=None)`` returning the :class:`ComparisonSet` of PV leaves under
``weights``; the learner only uses that method and ``subset``, so a search-backed data set can
take their place.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numba import njit

from gamelib import exactmath as xm
from gamelib.learn import FeatureRows, FitResult, check_weights

__all__ = [
    "BONANZA_SLOPE", "BONANZA_WINDOW", "PAPER_PIECE_VALUES",
    "t_loss", "t_loss_derivative",
    "ComparisonSet", "MinimaxTrees",
    "objective", "objective_and_gradient", "move_agreement",
    "PieceValueConstraint", "LinearConstraint", "l1_penalty", "l1_subgradient", "soft_threshold",
    "descent_step", "fit", "synthetic_minimax_trees",
]

#: Slope a of eq. (2): Bonanza's window of 256 divided by 7 is the sigmoid's unit, a = 7/256.
BONANZA_SLOPE = 7.0 / 256.0
#: Bonanza's window (eval units): T is flat, and T' zero, outside ±256.
BONANZA_WINDOW = 256.0
#: Piece values P, S, G, B, R of the PGLeaf paper's Table 1 (0.02 … 0.20) in pawn = 100 units.
PAPER_PIECE_VALUES = np.array([100.0, 400.0, 500.0, 800.0, 1000.0])


# --- the loss T (eqs. 2 and 4) -------------------------------------------------------------------

@njit(cache=True)
def _t(x, slope, window):
    if x > window:
        x = window
    elif x < -window:
        x = -window
    return xm.sigmoid(slope * x)


@njit(cache=True)
def _dt(x, slope, window):
    if x >= window or x <= -window:
        return 0.0
    s = xm.sigmoid(slope * x)
    return slope * s * (1.0 - s)


def _check_loss_params(slope, window) -> float:
    if not np.isfinite(slope) or slope <= 0:
        raise ValueError(f"slope must be a positive number, got {slope!r}")
    if window is None:
        return np.inf
    if not window > 0:
        raise ValueError(f"window must be positive or None, got {window!r}")
    return float(window)


def t_loss(x, slope: float = BONANZA_SLOPE, window: float | None = None):
    """The loss T(x) of eq. (2): ``1 / (1 + exp(−slope·x))``.

    Parameters
    ----------
    x : float or array_like
        Value difference ``ξ(p_m) − ξ(p_1)`` seen by the side to move (eq. 3 applies the sign).
    slope : float
        a in eq. (2); Bonanza's 7/256 ≈ 0.0273 per eval unit.
    window : float or None
        If given, x is clipped to ``[−window, window]`` (Bonanza's implementation uses 256).
    """
    w = _check_loss_params(slope, window)
    z = slope * np.clip(np.asarray(x, dtype=np.float64), -w, w)
    out = xm.sigmoid_array(z)
    return float(out) if out.ndim == 0 else out


def t_loss_derivative(x, slope: float = BONANZA_SLOPE, window: float | None = None):
    """T'(x) = a T(x)(1 − T(x)) of eq. (4); 0 outside an optional window."""
    w = _check_loss_params(slope, window)
    x = np.asarray(x, dtype=np.float64)
    t = xm.sigmoid_array(slope * x)
    out = np.where(np.abs(x) < w, slope * t * (1.0 - t), 0.0)
    return float(out) if out.ndim == 0 else out


# --- data ----------------------------------------------------------------------------------------

def _check_ptr(ptr, n_items: int, what: str, of: str) -> np.ndarray:
    ptr = np.asarray(ptr)
    if ptr.ndim != 1 or ptr.size < 1 or (ptr.size and not np.issubdtype(ptr.dtype, np.integer)):
        raise ValueError(f"{what} must be a 1-D integer array of length n + 1")
    if ptr[0] != 0 or ptr[-1] != n_items:
        raise ValueError(f"{what} must run from 0 to the number of {of} ({n_items}), "
                         f"runs from {ptr[0]} to {ptr[-1]}")
    counts = np.diff(ptr)
    if counts.size and counts.min() < 1:
        k = int(np.flatnonzero(counts < 1)[0])
        raise ValueError(f"{what}: entry {k} has no {of} (every entry needs at least one)")
    return ptr.astype(np.int64)


def _check_sides(side, n: int) -> np.ndarray:
    side = np.asarray(side)
    if side.shape != (n,):
        raise ValueError(f"side must have one entry per position ({n}), got shape {side.shape}")
    bad = ~np.isin(side, (-1, 1))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"side of position {k} is {side[k].item()!r}; "
                         "use +1 (Max to move) or -1 (Min)")
    return side.astype(np.int64)


def _check_bias(bias, n_rows: int) -> np.ndarray:
    if bias is None:
        return np.zeros(n_rows)
    bias = np.asarray(bias, dtype=np.float64)
    if bias.shape != (n_rows,):
        raise ValueError(f"leaf_bias must have one entry per leaf ({n_rows}), got {bias.shape}")
    if not np.all(np.isfinite(bias)):
        k = int(np.flatnonzero(~np.isfinite(bias))[0])
        raise ValueError(f"leaf_bias is not finite at leaf {k}")
    return bias


def _expand(ptr: np.ndarray, sel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Items of the groups ``sel`` of a pointer array, and the new pointer array."""
    starts, lengths = ptr[sel], ptr[sel + 1] - ptr[sel]
    new_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    items = np.repeat(starts - new_ptr[:-1], lengths) + np.arange(new_ptr[-1])
    return items, new_ptr


def _check_positions(positions, n: int) -> np.ndarray:
    positions = np.asarray(positions, dtype=np.int64).ravel()
    if positions.size and (positions.min() < 0 or positions.max() >= n):
        bad = int(positions.min() if positions.min() < 0 else positions.max())
        raise ValueError(f"position {bad} is outside [0, {n})")
    return positions


class _PositionSet:
    """What the two position sets share: ``move_ptr`` (moves per position) and ``leaves``."""

    @property
    def n_positions(self) -> int:
        return self.move_ptr.size - 1

    @property
    def n_features(self) -> int:
        return self.leaves.n_features

    def __len__(self) -> int:
        return self.n_positions


class ComparisonSet(_PositionSet):
    """Training positions with the PV leaf of every legal move (the input of eq. 1).

    Parameters
    ----------
    leaves : FeatureRows
        One row per (position, move): the feature vector φ of the PV leaf reached by that move.
        The rows of position p are ``move_ptr[p]:move_ptr[p+1]``.
    move_ptr : array of int, shape (n_positions + 1,)
        Move boundaries; every position needs at least one move.
    expert : array of int, shape (n_positions,)
        Index of the expert's move among the position's moves (0-based, local).
    side : array of int, shape (n_positions,)
        +1 if Max is to move in the position, −1 if Min is (eq. 3).
    leaf_bias : array of float, shape (n_moves,), optional
        Constant part b of each PV value ``ξ = v·φ + b`` (default 0).
    """

    def __init__(self, leaves: FeatureRows, move_ptr, expert, side, leaf_bias=None):
        if not isinstance(leaves, FeatureRows):
            raise ValueError(f"leaves must be FeatureRows, got {type(leaves).__name__}")
        self.leaves = leaves
        self.move_ptr = _check_ptr(move_ptr, leaves.n_rows, "move_ptr", "moves")
        n = self.move_ptr.size - 1
        expert = np.asarray(expert)
        if expert.shape != (n,) or (n and not np.issubdtype(expert.dtype, np.integer)):
            raise ValueError(f"expert must be {n} integer move indices, got shape {expert.shape}")
        n_moves = np.diff(self.move_ptr)
        bad = (expert < 0) | (expert >= n_moves)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(f"expert move {expert[k].item()} of position {k} is outside its "
                             f"{n_moves[k]} moves")
        self.expert = expert.astype(np.int64)
        self.side = _check_sides(side, n)
        self.leaf_bias = _check_bias(leaf_bias, leaves.n_rows)

    @classmethod
    def from_dense(cls, leaf_features, expert, side, leaf_bias=None) -> "ComparisonSet":
        """Build from dense leaf features.

        Parameters
        ----------
        leaf_features : sequence of ``(M_p, n_features)`` arrays, or a 3-D array
            The PV-leaf feature vectors of every move of every position (one
            ``(n_positions, M, n_features)`` array if every position has M moves).
        expert, side, leaf_bias
            As in the class.
        """
        if isinstance(leaf_features, np.ndarray) and leaf_features.ndim == 3:
            blocks = list(leaf_features)
        else:
            blocks = [np.asarray(b, dtype=np.float64) for b in leaf_features]
        if not blocks:
            raise ValueError("no positions given")
        widths = {b.shape[1] if b.ndim == 2 else -1 for b in blocks}
        if len(widths) != 1 or -1 in widths:
            raise ValueError("every position's leaf features must be a 2-D (moves, n_features) "
                             "array of the same width")
        move_ptr = np.concatenate([[0], np.cumsum([b.shape[0] for b in blocks])])
        rows = FeatureRows.from_dense(np.concatenate(blocks, axis=0))
        return cls(rows, move_ptr, expert, side, leaf_bias)

    def __repr__(self) -> str:
        return (f"ComparisonSet(n_positions={self.n_positions}, n_moves={self.leaves.n_rows}, "
                f"n_features={self.n_features})")

    def subset(self, positions) -> "ComparisonSet":
        """The positions ``positions`` (integer array), e.g. a mini-batch."""
        positions = _check_positions(positions, self.n_positions)
        moves, move_ptr = _expand(self.move_ptr, positions)
        return ComparisonSet(self.leaves.take(moves), move_ptr, self.expert[positions],
                             self.side[positions], self.leaf_bias[moves])

    def at(self, weights, positions=None) -> "ComparisonSet":
        """The PV leaves under ``weights``: fixed here (they came from a search), so ``self``."""
        return self if positions is None else self.subset(positions)

    def values(self, weights) -> np.ndarray:
        """ξ of every move, ``v·φ + b`` (Max's view)."""
        return self.leaves.dot(weights) + self.leaf_bias


@njit(cache=True)
def _pv_leaves(v, indptr, indices, values, bias, move_ptr, reply_ptr, side, out):
    """For each move, the reply leaf the opponent picks: min of Max's value after Max moved."""
    for p in range(move_ptr.shape[0] - 1):
        s = side[p]
        for m in range(move_ptr[p], move_ptr[p + 1]):
            best = np.inf
            pick = reply_ptr[m]
            for r in range(reply_ptr[m], reply_ptr[m + 1]):
                acc = bias[r]
                for k in range(indptr[r], indptr[r + 1]):
                    acc += values[k] * v[indices[k]]
                # The replier is the opponent of the side s that moved: it minimises s·value.
                if s * acc < best:
                    best = s * acc
                    pick = r
            out[m] = pick


class MinimaxTrees(_PositionSet):
    """Two-ply game trees: every legal move of each training position and every reply to it.

    ξ(p_m, v) is the minimax value of the child p_m: the opponent of the side to move picks the
    reply that is worst for it, so ``ξ(p_m) = min_r v·φ_r + b_r`` when Max moved at p and ``max``
    when Min did. The PV leaf of p_m is that reply (the first one on ties). A move that ends the
    game is given a single "reply": the final position itself.

    Parameters
    ----------
    leaves : FeatureRows
        One row per (position, move, reply) leaf.
    move_ptr : array of int, shape (n_positions + 1,)
        Move boundaries per position (into ``reply_ptr``).
    reply_ptr : array of int, shape (n_moves + 1,)
        Leaf boundaries per move (into ``leaves``); every move needs at least one leaf.
    expert, side, leaf_bias
        As in :class:`ComparisonSet` (``leaf_bias`` per leaf).
    """

    def __init__(self, leaves: FeatureRows, move_ptr, reply_ptr, expert, side, leaf_bias=None):
        if not isinstance(leaves, FeatureRows):
            raise ValueError(f"leaves must be FeatureRows, got {type(leaves).__name__}")
        self.leaves = leaves
        self.reply_ptr = _check_ptr(reply_ptr, leaves.n_rows, "reply_ptr", "replies")
        self.move_ptr = _check_ptr(move_ptr, self.reply_ptr.size - 1, "move_ptr", "moves")
        # Validates expert and side against the move counts.
        dummy = FeatureRows(np.zeros(self.reply_ptr.size, np.int64), np.zeros(0, np.int64),
                            np.zeros(0), leaves.n_features)
        checked = ComparisonSet(dummy, self.move_ptr, expert, side)
        self.expert, self.side = checked.expert, checked.side
        self.leaf_bias = _check_bias(leaf_bias, leaves.n_rows)

    def __repr__(self) -> str:
        return (f"MinimaxTrees(n_positions={self.n_positions}, n_moves={self.reply_ptr.size - 1},"
                f" n_leaves={self.leaves.n_rows}, n_features={self.n_features})")

    def subset(self, positions) -> "MinimaxTrees":
        """The positions ``positions`` (integer array), e.g. a mini-batch."""
        positions = _check_positions(positions, self.n_positions)
        moves, move_ptr = _expand(self.move_ptr, positions)
        leaves, reply_ptr = _expand(self.reply_ptr, moves)
        return MinimaxTrees(self.leaves.take(leaves), move_ptr, reply_ptr,
                            self.expert[positions], self.side[positions], self.leaf_bias[leaves])

    def pv_leaf_rows(self, weights) -> np.ndarray:
        """Index (into ``leaves``) of the PV leaf of every move under ``weights``."""
        v = check_weights(weights, self.n_features)
        out = np.empty(self.reply_ptr.size - 1, dtype=np.int64)
        _pv_leaves(v, self.leaves.indptr, self.leaves.indices, self.leaves.values,
                   self.leaf_bias, self.move_ptr, self.reply_ptr, self.side, out)
        return out

    def at(self, weights, positions=None) -> ComparisonSet:
        """The :class:`ComparisonSet` of PV leaves under ``weights`` (a fresh two-ply search)."""
        trees = self if positions is None else self.subset(positions)
        rows = trees.pv_leaf_rows(weights)
        return ComparisonSet(trees.leaves.take(rows), trees.move_ptr, trees.expert, trees.side,
                             trees.leaf_bias[rows])

    def values(self, weights) -> np.ndarray:
        """The minimax value ξ(p_m, v) of every move (Max's view)."""
        return self.at(weights).values(weights)


# --- objective and gradient (eqs. 1, 5–7) --------------------------------------------------------

@njit(cache=True)
def _objective_kernel(v, indptr, indices, values, bias, move_ptr, expert, side, slope, window,
                      grad, want_grad):
    total = 0.0
    for p in range(move_ptr.shape[0] - 1):
        s = side[p]
        e = move_ptr[p] + expert[p]
        xi_e = bias[e]
        for k in range(indptr[e], indptr[e + 1]):
            xi_e += values[k] * v[indices[k]]
        expert_coef = 0.0
        for m in range(move_ptr[p], move_ptr[p + 1]):
            if m == e:
                continue
            xi_m = bias[m]
            for k in range(indptr[m], indptr[m + 1]):
                xi_m += values[k] * v[indices[k]]
            x = s * (xi_m - xi_e)
            total += _t(x, slope, window)
            if want_grad:
                c = s * _dt(x, slope, window)          # dT_p/dx of eq. (5)
                if c != 0.0:
                    for k in range(indptr[m], indptr[m + 1]):
                        grad[indices[k]] += c * values[k]
                    expert_coef += c
        if want_grad and expert_coef != 0.0:
            for k in range(indptr[e], indptr[e + 1]):
                grad[indices[k]] -= expert_coef * values[k]
    return total


def _run_objective(weights, data, slope, window, want_grad, positions=None):
    if not hasattr(data, "at"):
        raise ValueError(f"data must be a ComparisonSet or MinimaxTrees, got {type(data).__name__}")
    w = _check_loss_params(slope, window)
    v = check_weights(weights, data.n_features)
    cs = data.at(v, positions)
    grad = np.zeros(cs.n_features)
    lv = cs.leaves
    j = _objective_kernel(v, lv.indptr, lv.indices, lv.values, cs.leaf_bias, cs.move_ptr,
                          cs.expert, cs.side, float(slope), w, grad, want_grad)
    return j, grad


def objective(weights, data, *, slope: float = BONANZA_SLOPE, window: float | None = None) -> float:
    """J(P, v) of eq. (1) (no constraint or L1 term).

    Parameters
    ----------
    weights : array_like, shape (n_features,)
        v.
    data : ComparisonSet or MinimaxTrees
        The training positions; for trees ξ is the true two-ply minimax value.
    slope, window
        Of the loss T (eq. 2); ``window=None`` is the plain sigmoid.
    """
    return _run_objective(weights, data, slope, window, False)[0]


def objective_and_gradient(weights, data, *, slope: float = BONANZA_SLOPE,
                           window: float | None = None) -> tuple[float, np.ndarray]:
    """J(P, v) of eq. (1) and its gradient, eq. (7).

    ``∂J/∂v = Σ_p Σ_{m≥2} s_p T'(x_pm) [φ(l_pm) − φ(l_p1)]`` with ``x_pm = s_p(ξ(p_m) − ξ(p_1))``
    and l_pm the PV leaf of the move (the substitution of eq. 6). Sparse rows, numba loop over
    positions. Arguments as in :func:`objective`.

    Returns
    -------
    J : float
    gradient : numpy.ndarray, shape (n_features,)
    """
    return _run_objective(weights, data, slope, window, True)


@njit(cache=True)
def _agreement_kernel(xi, move_ptr, expert, side):
    hits = 0
    for p in range(move_ptr.shape[0] - 1):
        e = move_ptr[p] + expert[p]
        ok = True
        for m in range(move_ptr[p], move_ptr[p + 1]):
            if m != e and side[p] * (xi[m] - xi[e]) >= 0.0:
                ok = False
                break
        hits += ok
    return hits


def move_agreement(weights, data) -> float:
    """Fraction of positions whose expert move is strictly the best under ``weights``.

    A position with a single legal move counts as agreeing.
    """
    v = check_weights(weights, data.n_features)
    cs = data.at(v)
    return _agreement_kernel(cs.values(v), cs.move_ptr, cs.expert, cs.side) / cs.n_positions


# --- the constraint (eqs. 8–10) and the L1 term (eq. 11) ----------------------------------------

@dataclass(frozen=True)
class PieceValueConstraint:
    """Keep the sum of the piece values fixed: ``g(v) = Σ_{i∈Π} v_i − C = 0`` (eq. 8).

    Parameters
    ----------
    indices : array of int
        Π, the indices of the piece-value weights (distinct, non-empty).
    total : float
        C.
    """

    indices: np.ndarray
    total: float

    def __post_init__(self):
        idx = np.asarray(self.indices)
        if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
            raise ValueError("constraint indices must be a non-empty 1-D integer array")
        if np.unique(idx).size != idx.size:
            raise ValueError("constraint indices must be distinct")
        if idx.min() < 0:
            raise ValueError(f"constraint index {int(idx.min())} is negative")
        if not np.isfinite(self.total):
            raise ValueError(f"constraint total must be finite, got {self.total!r}")
        object.__setattr__(self, "indices", idx.astype(np.int64))
        object.__setattr__(self, "total", float(self.total))

    @classmethod
    def keeping(cls, indices, weights) -> "PieceValueConstraint":
        """The constraint that keeps the current sum of ``weights[indices]``."""
        idx = np.asarray(indices)
        return cls(idx, float(np.sum(np.asarray(weights, dtype=np.float64)[idx])))

    def _check(self, n: int) -> None:
        if self.indices.max() >= n:
            raise ValueError(f"constraint index {int(self.indices.max())} is outside the "
                             f"{n} weights")

    def violation(self, weights) -> float:
        """g(v) of eq. (8)."""
        w = np.asarray(weights, dtype=np.float64)
        self._check(w.size)
        return float(np.sum(w[self.indices]) - self.total)

    def project(self, weights) -> np.ndarray:
        """The nearest point (Euclidean) on the plane g(v) = 0: shift every v_i, i ∈ Π, equally."""
        w = np.array(weights, dtype=np.float64)
        w[self.indices] -= self.violation(w) / self.indices.size
        return w

    def multiplier(self, gradient, update: str = "gradient") -> float:
        """The Lagrange multiplier λ₀ of eq. (9)/(10) that keeps g(v) unchanged by a step.

        ``"gradient"``: the mean of ``∂J/∂v_i`` over Π (the step then moves along the plane);
        ``"sign"``: their median (Bonanza's sign step then raises as many piece values as it
        lowers).
        """
        g = np.asarray(gradient, dtype=np.float64)
        self._check(g.size)
        if update == "gradient":
            return float(np.mean(g[self.indices]))
        if update == "sign":
            return float(np.median(g[self.indices]))
        raise ValueError(f"unknown update {update!r}; use 'gradient' or 'sign'")

    def constrained_gradient(self, gradient, update: str = "gradient") -> np.ndarray:
        """``∂(J − λ₀ g)/∂v``: the gradient with λ₀ subtracted on Π (eq. 9)."""
        g = np.array(gradient, dtype=np.float64)
        g[self.indices] -= self.multiplier(g, update)
        return g


@dataclass(frozen=True)
class LinearConstraint:
    """Keep a weighted sum of the weights fixed: ``g(v) = Σ_{i∈Π} c_i v_i − C = 0``.

    Eq. (8) with coefficients; :class:`PieceValueConstraint` is the case ``c_i = 1``. For an
    evaluation without piece values the scale can be fixed along any direction c of the weights
    (Othello's: :mod:`gamelib.learn.bonanza_othello`). A step keeps g unchanged as eqs. (9) and
    (10) do, with ``∂g/∂v_i = c_i`` in place of 1:

    * gradient step: ``λ₀ = Σ c_i G_i / Σ c_i²``, so that ``G − λ₀ c`` is the gradient's
      orthogonal projection onto the plane g = 0 (eq. 9);
    * sign step: λ₀ the median of ``G_i / c_i`` weighted by ``|c_i|``, so that
      ``Σ_i c_i sgn(G_i − λ₀ c_i) = Σ_i |c_i| sgn(G_i / c_i − λ₀)`` is as near 0 as the sign
      step allows: the weighted form of eq. (10)'s median (the plain median when every
      ``c_i = 1``).

    The sums of g and of ``Σ c_i²`` are correctly rounded (``math.fsum``), the same on every CPU.
    The class has :class:`PieceValueConstraint`'s methods, so :func:`descent_step` and the
    search-based learners (:func:`gamelib.learn.bonanza_steps.learn_steps`) take either.

    Parameters
    ----------
    indices : array of int
        Π (distinct, non-empty).
    coefficients : array of float
        c_i for i ∈ Π, finite and non-zero.
    total : float
        C.
    """

    indices: np.ndarray
    coefficients: np.ndarray
    total: float

    def __post_init__(self):
        idx = np.asarray(self.indices)
        c = np.asarray(self.coefficients, dtype=np.float64)
        if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
            raise ValueError("constraint indices must be a non-empty 1-D integer array")
        if np.unique(idx).size != idx.size:
            raise ValueError("constraint indices must be distinct")
        if idx.min() < 0:
            raise ValueError(f"constraint index {int(idx.min())} is negative")
        if c.shape != idx.shape:
            raise ValueError(f"one coefficient per index: {c.shape} for {idx.shape}")
        if not np.all(np.isfinite(c)) or np.any(c == 0.0):
            raise ValueError("constraint coefficients must be finite and non-zero")
        if not np.isfinite(self.total):
            raise ValueError(f"constraint total must be finite, got {self.total!r}")
        object.__setattr__(self, "indices", idx.astype(np.int64))
        object.__setattr__(self, "coefficients", c)
        object.__setattr__(self, "total", float(self.total))

    @classmethod
    def keeping(cls, indices, coefficients, weights) -> "LinearConstraint":
        """The constraint that keeps the current value of ``Σ c_i weights[i]``."""
        idx = np.asarray(indices)
        c = np.asarray(coefficients, dtype=np.float64)
        w = np.asarray(weights, dtype=np.float64)
        return cls(idx, c, math.fsum(c * w[idx]))

    def _check(self, n: int) -> None:
        if self.indices.max() >= n:
            raise ValueError(f"constraint index {int(self.indices.max())} is outside the "
                             f"{n} weights")

    def value(self, weights) -> float:
        """``Σ_{i∈Π} c_i v_i``."""
        w = np.asarray(weights, dtype=np.float64)
        self._check(w.size)
        return math.fsum(self.coefficients * w[self.indices])

    def violation(self, weights) -> float:
        """g(v) of eq. (8)."""
        return self.value(weights) - self.total

    def project(self, weights) -> np.ndarray:
        """The nearest point (Euclidean) on the plane g(v) = 0: ``v − g(v) c / Σ c_i²``."""
        w = np.array(weights, dtype=np.float64)
        c = self.coefficients
        w[self.indices] -= (self.violation(w) / math.fsum(c * c)) * c
        return w

    def multiplier(self, gradient, update: str = "gradient") -> float:
        """The Lagrange multiplier λ₀ that keeps g(v) unchanged by a step (class doc)."""
        g = np.asarray(gradient, dtype=np.float64)
        self._check(g.size)
        c = self.coefficients
        if update == "gradient":
            return math.fsum(c * g[self.indices]) / math.fsum(c * c)
        if update == "sign":
            ratio = g[self.indices] / c
            order = np.argsort(ratio, kind="stable")
            cum = np.cumsum(np.abs(c)[order])
            half = 0.5 * cum[-1]
            k = int(np.searchsorted(cum, half))
            if cum[k] == half and k + 1 < order.size:      # between two: their mean, as a median
                return float(0.5 * (ratio[order[k]] + ratio[order[k + 1]]))
            return float(ratio[order[k]])
        raise ValueError(f"unknown update {update!r}; use 'gradient' or 'sign'")

    def constrained_gradient(self, gradient, update: str = "gradient") -> np.ndarray:
        """``∂(J − λ₀ g)/∂v``: the gradient with ``λ₀ c_i`` subtracted on Π."""
        g = np.array(gradient, dtype=np.float64)
        g[self.indices] -= self.multiplier(g, update) * self.coefficients
        return g


def _mask(mask, n: int) -> np.ndarray:
    if mask is None:
        return np.ones(n, dtype=bool)
    m = np.asarray(mask)
    if m.dtype == bool:
        if m.shape != (n,):
            raise ValueError(f"a boolean L1 mask must have shape ({n},), got {m.shape}")
        return m
    if m.size and not np.issubdtype(m.dtype, np.integer):
        raise ValueError("the L1 mask must be a boolean array or an array of indices")
    out = np.zeros(n, dtype=bool)
    if m.size and (m.min() < 0 or m.max() >= n):
        raise ValueError(f"L1 mask index outside [0, {n})")
    out[m] = True
    return out


def _check_l1_weight(weight) -> float:
    if not np.isfinite(weight) or weight < 0:
        raise ValueError(f"the L1 weight must be a non-negative number, got {weight!r}")
    return float(weight)


def l1_penalty(weights, weight: float, mask=None) -> float:
    """The L1 term ``w₁ Σ_{i∈R} |v_i|`` of eq. (11).

    R is ``mask``: a boolean array or an array of indices (default: every weight).
    """
    v = np.asarray(weights, dtype=np.float64)
    return _check_l1_weight(weight) * float(np.abs(v[_mask(mask, v.size)]).sum())


def l1_subgradient(weights, weight: float, mask=None) -> np.ndarray:
    """``w₁ sgn(v_i)`` on R, 0 elsewhere (eq. 11); at v_i = 0 the subgradient 0 is chosen."""
    v = np.asarray(weights, dtype=np.float64)
    return np.where(_mask(mask, v.size), _check_l1_weight(weight) * np.sign(v), 0.0)


def soft_threshold(weights, threshold: float, mask=None) -> np.ndarray:
    """The proximal step of the L1 term: ``sgn(v_i) max(|v_i| − threshold, 0)`` on R."""
    v = np.asarray(weights, dtype=np.float64)
    t = _check_l1_weight(threshold)
    shrunk = np.sign(v) * np.maximum(np.abs(v) - t, 0.0)
    return np.where(_mask(mask, v.size), shrunk, v)


# --- the learner ---------------------------------------------------------------------------------

def descent_step(weights, gradient, n_positions: int, *, learning_rate: float,
                 update: str = "gradient", constraint: PieceValueConstraint | None = None,
                 l1_weight: float = 0.0, l1_mask=None, l1_step: str = "subgradient") -> np.ndarray:
    """One update of :func:`fit` from a gradient estimate; returns the new weights.

    Parameters
    ----------
    weights : array_like
        v (on the constraint plane if a constraint is given).
    gradient : array_like
        ``∂J/∂v`` of eq. (7) over all N training positions, or its unbiased estimate from a
        batch B (the batch's gradient times ``N/|B|``); without the L1 term.
    n_positions : int
        N.
    learning_rate, update, constraint, l1_weight, l1_step
        As in :func:`fit`: ``v − (η/N)(G − λ₀ 1_Π)`` with G the gradient plus the L1
        subgradient (or a soft threshold of η w₁ / N after the step), or ``v − η sgn(G − λ₀
        1_Π)`` for ``update="sign"``.
    l1_mask : boolean array or indices, optional
        R (default: every weight).
    """
    v = np.array(weights, dtype=np.float64)
    g = np.array(gradient, dtype=np.float64)
    mask = _mask(l1_mask, v.size)
    if l1_step == "subgradient" and l1_weight > 0:
        g += l1_subgradient(v, l1_weight, mask)
    if constraint is not None:
        g = constraint.constrained_gradient(g, update)
    if update == "gradient":
        v -= (learning_rate / n_positions) * g
        if l1_step == "proximal" and l1_weight > 0:
            v = soft_threshold(v, learning_rate * l1_weight / n_positions, mask)
    else:
        v -= learning_rate * np.sign(g)
    if constraint is not None:
        v = constraint.project(v)    # removes rounding drift only
    return v


def fit(weights, data, *, learning_rate: float, n_epochs: int, batch_size: int | None = None,
        update: str = "gradient", constraint: PieceValueConstraint | None = None,
        l1_weight: float = 0.0, l1_mask=None, l1_step: str = "subgradient",
        slope: float = BONANZA_SLOPE, window: float | None = None, seed: int = 0) -> FitResult:
    """Minimise ``J + w₁ Σ_R |v_i|`` subject to the piece-value constraint, in (mini-)batches.

    Every epoch visits the positions once, in a seeded random order, in batches of
    ``batch_size`` (``None``: one full batch, Bonanza's batch learning). For a batch B of the N
    positions, with G the gradient of eq. (7) over B scaled by ``N/|B|`` (an unbiased estimate of the
    full gradient) plus the L1 subgradient:

    * ``update="gradient"``: ``v ← v − (η/N) (G − λ₀ 1_Π)`` with λ₀ the mean of G over Π (eq. 9),
      i.e. the projected gradient step; ``l1_step="proximal"`` applies the L1 term as a
      soft-threshold of η w₁ / N instead of through its subgradient.
    * ``update="sign"``: ``v ← v − η sgn(G − λ₀ 1_Π)`` with λ₀ the median over Π (eq. 10), the
      fixed-size step of Bonanza; ``learning_rate`` is then the step h in eval units.

    PV leaves are recomputed under the current weights before every step (``data.at``).

    Parameters
    ----------
    weights : array_like
        Initial v; must satisfy the constraint if one is given.
    data : ComparisonSet or MinimaxTrees
    learning_rate : float
        η (or h for sign steps), > 0.
    n_epochs : int
        Passes over the data, ≥ 0.
    batch_size : int or None
    update : {"gradient", "sign"}
    constraint : PieceValueConstraint or None
    l1_weight : float
        w₁ ≥ 0.
    l1_mask : boolean array or indices, optional
        R. Default: every weight not in the constraint's Π (R and Π may not overlap).
    l1_step : {"subgradient", "proximal"}
    slope, window
        Of the loss T (eq. 2).
    seed : int
        Seeds the batch order.

    Returns
    -------
    FitResult
        ``history`` columns: ``epoch``, ``steps``, ``J`` (eq. 1, all positions), ``l1`` (the L1
        term), ``objective`` (their sum), ``agreement`` (:func:`move_agreement`) and
        ``piece_sum`` (Σ_Π v_i; NaN without a constraint).
    """
    v = check_weights(weights, data.n_features, "initial weights").copy()
    if not (np.isfinite(learning_rate) and learning_rate > 0):
        raise ValueError(f"learning_rate must be positive, got {learning_rate!r}")
    if isinstance(n_epochs, bool) or not isinstance(n_epochs, (int, np.integer)) or n_epochs < 0:
        raise ValueError(f"n_epochs must be a non-negative integer, got {n_epochs!r}")
    n = data.n_positions
    if batch_size is None:
        batch_size = n
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) \
            or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer or None, got {batch_size!r}")
    if update not in ("gradient", "sign"):
        raise ValueError(f"unknown update {update!r}; use 'gradient' or 'sign'")
    if l1_step not in ("subgradient", "proximal"):
        raise ValueError(f"unknown l1_step {l1_step!r}; use 'subgradient' or 'proximal'")
    if update == "sign" and l1_step == "proximal":
        raise ValueError("l1_step='proximal' needs update='gradient'")
    l1_weight = _check_l1_weight(l1_weight)
    _check_loss_params(slope, window)
    if l1_mask is None:
        mask = np.ones(v.size, dtype=bool)
        if constraint is not None:
            mask[constraint.indices[constraint.indices < v.size]] = False
    else:
        mask = _mask(l1_mask, v.size)
    if constraint is not None:
        constraint._check(v.size)
        if mask[constraint.indices].any() and l1_weight > 0:
            raise ValueError("the L1 mask overlaps the constrained piece values; keep them apart")
        gap = constraint.violation(v)
        if abs(gap) > 1e-9 * max(1.0, abs(constraint.total)):
            raise ValueError(f"initial weights break the constraint: piece sum "
                             f"{constraint.total + gap} != {constraint.total} "
                             f"(use constraint.project)")

    rng = np.random.default_rng(seed)
    rows = []

    def record(epoch, steps):
        j = objective(v, data, slope=slope, window=window)
        pen = l1_penalty(v, l1_weight, mask)
        rows.append({"epoch": epoch, "steps": steps, "J": j, "l1": pen, "objective": j + pen,
                     "agreement": move_agreement(v, data),
                     "piece_sum": float(v[constraint.indices].sum()) if constraint else np.nan})

    steps = 0
    record(0, 0)
    for epoch in range(1, n_epochs + 1):
        order = rng.permutation(n) if batch_size < n else np.arange(n)
        for start in range(0, n, batch_size):
            batch = order[start:start + batch_size]
            _, g = _run_objective(v, data, slope, window, True, None if batch.size == n else batch)
            g *= n / batch.size
            v = descent_step(v, g, n, learning_rate=learning_rate, update=update,
                             constraint=constraint, l1_weight=l1_weight, l1_mask=mask,
                             l1_step=l1_step)
            steps += 1
        record(epoch, steps)
    return FitResult(weights=v, history=pd.DataFrame(rows))


# --- a synthetic setting with the real structure ------------------------------------------------

def _count(value, what: str) -> tuple[int, int]:
    lo, hi = (value, value) if np.isscalar(value) else tuple(value)
    if not (isinstance(lo, (int, np.integer)) and isinstance(hi, (int, np.integer))
            and 1 <= lo <= hi):
        raise ValueError(f"{what} must be a positive integer or a (low, high) pair, got {value!r}")
    return int(lo), int(hi)


def synthetic_minimax_trees(n_positions: int, *, n_features: int = 24, n_moves=(3, 8),
                            n_replies=(2, 4), piece_values=PAPER_PIECE_VALUES,
                            positional_scale: float = 40.0, positional_density: float = 0.5,
                            capture_probability: float = 0.35, temperature: float = 40.0,
                            seed: int = 0) -> tuple[MinimaxTrees, np.ndarray]:
    """Random two-ply trees labelled by a noisy expert who knows the true evaluation.

    The first ``len(piece_values)`` features are material balances (Max's pieces minus Min's, by
    type); the rest are 0/1 positional features. A position has a random material balance and
    positional pattern; each move may capture a piece (with ``capture_probability``) and flips two
    positional features, each reply likewise. The true weights are ``piece_values`` followed by
    positional weights that are ``N(0, positional_scale²)`` with probability
    ``positional_density`` and 0 otherwise. The expert plays
    ``argmax_m s_p ξ*(p_m) + temperature · Gumbel`` (ξ* the true two-ply minimax value), so it
    errs the more often the closer its moves are.

    Returns
    -------
    trees : MinimaxTrees
    true_weights : numpy.ndarray, shape (n_features,)
    """
    piece_values = np.asarray(piece_values, dtype=np.float64)
    k = piece_values.size
    if isinstance(n_positions, bool) or not isinstance(n_positions, (int, np.integer)) \
            or n_positions < 1:
        raise ValueError(f"n_positions must be a positive integer, got {n_positions!r}")
    if k < 1 or n_features < k + 2:
        raise ValueError(f"need at least one piece value and n_features >= pieces + 2, got "
                         f"{k} pieces and n_features={n_features}")
    m_lo, m_hi = _count(n_moves, "n_moves")
    r_lo, r_hi = _count(n_replies, "n_replies")
    if not 0 <= capture_probability <= 1 or not 0 <= positional_density <= 1:
        raise ValueError("probabilities must lie in [0, 1]")
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature!r}")
    rng = np.random.default_rng(seed)
    n_pos_feat = n_features - k
    true_w = np.concatenate([
        piece_values,
        np.where(rng.random(n_pos_feat) < positional_density,
                 rng.normal(0.0, positional_scale, n_pos_feat), 0.0)])

    def change(n_rows, sign):
        d = np.zeros((n_rows, n_features))
        cap = rng.random(n_rows) < capture_probability
        d[np.flatnonzero(cap), rng.integers(0, k, n_rows)[cap]] = sign
        for _ in range(2):
            d[np.arange(n_rows), k + rng.integers(0, n_pos_feat, n_rows)] += 1.0
        return d

    blocks, move_counts, reply_counts = [], [], []
    side = rng.choice(np.array([-1, 1]), n_positions)
    for p in range(n_positions):
        base = np.concatenate([rng.integers(-1, 2, k).astype(float),
                               (rng.random(n_pos_feat) < 0.3).astype(float)])
        n_m = int(rng.integers(m_lo, m_hi + 1))
        replies = rng.integers(r_lo, r_hi + 1, n_m)
        move_d = change(n_m, side[p])
        reply_d = change(int(replies.sum()), -side[p])
        leaf = base + np.repeat(move_d, replies, axis=0) + reply_d
        leaf[:, k:] = leaf[:, k:] % 2        # positional features stay 0/1 (a flip)
        blocks.append(leaf)
        move_counts.append(n_m)
        reply_counts.append(replies)
    leaves = FeatureRows.from_dense(np.concatenate(blocks))
    move_ptr = np.concatenate([[0], np.cumsum(move_counts)])
    reply_ptr = np.concatenate([[0], np.cumsum(np.concatenate(reply_counts))])
    zeros = np.zeros(n_positions, dtype=np.int64)
    trees = MinimaxTrees(leaves, move_ptr, reply_ptr, zeros, side)
    xi = trees.values(true_w)
    gumbel = rng.gumbel(size=xi.size) * temperature
    expert = np.array([np.argmax(side[p] * xi[a:b] + gumbel[a:b])
                       for p, (a, b) in enumerate(zip(move_ptr[:-1], move_ptr[1:]))])
    return MinimaxTrees(leaves, move_ptr, reply_ptr, expert, side), true_w
