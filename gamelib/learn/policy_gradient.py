"""REINFORCE and PGLeaf: policy-gradient learning of a linear evaluation (Morioka & Igarashi).

Equation numbers are those of the paper and of the book's page ``notebooks/pgleaf_algorithms``:

* (5) ``evl(s, a; θ) = Σ_n θ_n φ_n(s̃; s, a)`` -- the value of move ``a`` in state ``s``: the
  linear evaluation of the principal-variation (PV) leaf ``s̃`` of a search after ``a``
  (PGLeaf: 1 ply full width + 4 plies of quiescence), or of the position right after ``a``
  (REINFORCE: no search). The features φ are those of the leaf *from the side to move at s*.
* (6) the Boltzmann (softmax) policy ``π(a|s; θ) = exp(evl(s,a)/T) / Σ_a' exp(evl(s,a')/T)``
  (:func:`gamelib.exactmath.softmax_into`; its Python front end is
  :func:`gamelib.play.games.softmax_policy`).
* (7) its log-gradient ``∇ log π(a|s; θ) = (φ(s,a) − Σ_a' π(a'|s; θ) φ(s,a')) / T``
  (T constant; the PV leaf held fixed, exact wherever the leaf does not change with θ -- the
  same convention as TDLeaf and the Bonanza method).
* (3) ``g(m) = Σ_{t=1}^{T_m} ∇ log π(a_{m,t} | s_{m,t}; θ)`` -- the score of episode m.
* (2) the baseline ``b* = Σ_m γ^{T_m−1} r_m g(m)² / Σ_m g(m)²``.
* (1) the estimator ``∇Ĵ(θ) = (1/M) Σ_m (γ^{T_m−1} r_m − b*) g(m)``.
* (4) the update ``θ ← θ + α ∇Ĵ(θ)`` once every M episodes.

The baseline (eq. 2)
--------------------
The paper writes ``g(m)²`` for a vector ``g(m)``. Read component by component,
``b*_i = Σ_m R_m g_i(m)² / Σ_m g_i(m)²`` (``R_m = γ^{T_m−1} r_m``) is the baseline that
minimises the variance of *each* component of the estimator, because for the i-th component
``Var[(R − b_i) g_i] = E[(R − b_i)² g_i²] − (∂J/∂θ_i)²`` (``E[b_i g_i] = 0``) is a parabola in
``b_i`` with its minimum at ``E[R g_i²] / E[g_i²]`` (Williams 1992; Peters & Schaal 2008). Read
as the squared norm, ``b* = Σ_m R_m ‖g(m)‖² / Σ_m ‖g(m)‖²`` is the best *single* number, the one
that minimises the trace of the estimator's covariance (the form of Zhao, Hachiya, Niu &
Sugiyama 2011). We use the per-component form by default (``baseline="component"``): it is
optimal in the larger class and is what the notation says if ``g(m)²`` is taken elementwise, as
the division by ``Σ g(m)²`` then must be; ``baseline="norm"`` gives the scalar form, and
``"mean"`` (the mean return) and ``"none"`` are there for comparison. As in the paper, b* is
computed from the same M episodes it is used with.

Self-play with one shared θ
---------------------------
Sente and gote are two agents with the same parameters. Each agent's M episodes (its own moves
in the M games, with its own reward) give an estimator (1) with its own baseline (2); the shared
θ takes both agents' steps: ``θ ← θ + α (∇Ĵ_sente + ∇Ĵ_gote)`` (:func:`self_play_update`).

Numba kernels (``@njit(cache=True)``; the per-move ones :func:`gamelib.runtime.kernels.kernel`)
do the per-move work on sparse feature rows in compressed-sparse-row form (``ptr``, ``idx``,
``val``: row k holds the features of move k's leaf); the Python functions validate their input and raise ``ValueError`` naming what is wrong.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from gamelib.exactmath import softmax_into
from gamelib.runtime.kernels import kernel

__all__ = [
    "BASELINES",
    "log_policy",
    "log_policy_gradient",
    "sample_index",
    "episode_returns",
    "optimal_baseline",
    "policy_gradient_estimate",
    "reinforce_step",
    "self_play_update",
    "EpisodeScores",
]

#: The baselines :func:`optimal_baseline` knows.
BASELINES = ("component", "norm", "mean", "none")


# ----------------------------------------------------------------------------- numba kernels
@kernel
def add_log_policy_gradient(g, chosen, probs, n, ptr, idx, val, temperature, scale):
    """Eq. (7): ``g += scale · (φ(s, a_chosen) − Σ_k π_k φ(s, a_k)) / T``.

    ``probs[:n]`` is the policy (6) at s; row k of the CSR triple ``(ptr, idx, val)`` holds the
    features of move k's leaf (a row may be empty: a terminal leaf with a constant score).
    Accumulating this over an episode's moves gives g(m) of eq. (3).
    """
    c = scale / temperature
    for k in range(n):
        w = gradient_weight(k, chosen, probs, c)
        if w == 0.0:
            continue
        for j in range(ptr[k], ptr[k + 1]):
            g[idx[j]] += w * val[j]


@njit(cache=True, inline="always")
def gradient_weight(k, chosen, probs, c):
    """The weight of move k's leaf features in eq. (7) with ``c = scale / T``:
    ``c (1[k = chosen] − π_k)``. A leaf whose weight is exactly 0 (a move of probability 0,
    e.g. one into a mate, or the chosen move of probability 1) adds nothing, so its features
    need not be computed."""
    w = -c * probs[k]
    if k == chosen:
        w += c
    return w


@kernel
def sample_from(probs, n, u):
    """Index k drawn from ``probs[:n]`` by inversion with a uniform ``u`` in [0, 1)."""
    acc = 0.0
    for k in range(n - 1):
        acc += probs[k]
        if u < acc:
            return k
    return n - 1


# The sums of eqs. (1)-(2) over the episodes' scores g(m), held as sparse rows (CSR: ``ptr``,
# ``idx`` ascending within a row, ``val``). Every sum runs over the episodes in order, and
# within an episode over its indices in ascending order, in a fixed loop (never a BLAS or SIMD
# kernel the CPU picks): the same bits on every machine. A zero entry of g(m) would add ±0.0 to
# a sum that is never -0.0, which changes nothing: the rows hold the non-zero entries only.
@njit(cache=True)
def _baseline_component(returns, ptr, idx, val, out):
    """``out[i] = Σ_m R_m g_i(m)² / Σ_m g_i(m)²`` (0.0 where every g_i(m) is 0)."""
    num = np.zeros(out.shape[0])
    den = np.zeros(out.shape[0])
    for e in range(ptr.shape[0] - 1):
        for j in range(ptr[e], ptr[e + 1]):
            g2 = val[j] * val[j]
            num[idx[j]] += returns[e] * g2
            den[idx[j]] += g2
    for i in range(out.shape[0]):
        out[i] = num[i] / den[i] if den[i] > 0.0 else 0.0


@njit(cache=True)
def _baseline_norm(returns, ptr, idx, val):
    """``Σ R_m ‖g(m)‖² / Σ ‖g(m)‖²`` (0.0 if every g(m) is 0)."""
    num = 0.0
    den = 0.0
    for e in range(ptr.shape[0] - 1):
        w = 0.0
        for j in range(ptr[e], ptr[e + 1]):
            w += val[j] * val[j]
        num += returns[e] * w
        den += w
    return num / den if den > 0.0 else 0.0


@njit(cache=True)
def _estimate(returns, ptr, idx, val, b, out):
    """Eq. (1): ``out[i] = (1/M) Σ_m (R_m − b_i) g_i(m)``."""
    m = ptr.shape[0] - 1
    acc = np.zeros(out.shape[0])
    for e in range(m):
        for j in range(ptr[e], ptr[e + 1]):
            i = idx[j]
            acc[i] += (returns[e] - b[i]) * val[j]
    for i in range(out.shape[0]):
        out[i] = acc[i] / m


# ----------------------------------------------------------------------------- checks
def _positive(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def _rows(ptr, idx, val, n_moves, n_features=None):
    ptr = np.ascontiguousarray(ptr, dtype=np.int64)
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    val = np.ascontiguousarray(val, dtype=np.float64)
    if ptr.shape != (n_moves + 1,):
        raise ValueError(f"leaf_ptr must have {n_moves + 1} entries (one more than the "
                         f"{n_moves} moves), got shape {ptr.shape}")
    if ptr[0] != 0 or np.any(np.diff(ptr) < 0) or ptr[-1] != idx.size or idx.size != val.size:
        raise ValueError("leaf_ptr/leaf_idx/leaf_val are not a valid CSR triple (ptr must start "
                         "at 0, not decrease, and end at the common length of idx and val)")
    if idx.size and (idx.min() < 0 or (n_features is not None and idx.max() >= n_features)):
        raise ValueError(f"leaf feature index outside [0, {n_features}): "
                         f"{int(idx.min() if idx.min() < 0 else idx.max())}")
    if not np.all(np.isfinite(val)):
        raise ValueError("leaf feature values must be finite")
    return ptr, idx, val


def _scores(scores):
    s = np.ascontiguousarray(scores, dtype=np.float64)
    if s.ndim != 1 or s.size == 0:
        raise ValueError(f"scores must be a non-empty 1-D array (one per legal move), got shape "
                         f"{s.shape}")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite")
    return s


# ----------------------------------------------------------------------------- policy (6), (7)
def log_policy(scores, temperature: float) -> np.ndarray:
    """``log π(a|s)`` of eq. (6) for every move (computed stably)."""
    s = _scores(scores)
    t = _positive(temperature, "temperature")
    out = np.empty_like(s)
    log_z = softmax_into(s, s.size, t, out)
    return (s - s.max()) / t - log_z


def log_policy_gradient(chosen: int, scores, leaf_ptr, leaf_idx, leaf_val, temperature: float,
                        n_features: int) -> np.ndarray:
    """Eq. (7): ``∇_θ log π(a_chosen | s; θ)`` as a dense vector.

    Parameters
    ----------
    chosen : int
        Index of the move played.
    scores : array of float, shape (n,)
        ``evl(s, a)`` for the n legal moves (eq. 5).
    leaf_ptr, leaf_idx, leaf_val : arrays
        The leaves' sparse features φ(s, a) in CSR form (row k = move k).
    temperature : float
    n_features : int
        Length of θ.
    """
    s = _scores(scores)
    n = s.size
    if isinstance(chosen, bool) or not isinstance(chosen, (int, np.integer)) or not 0 <= chosen < n:
        raise ValueError(f"chosen must be a move index in [0, {n}), got {chosen!r}")
    ptr, idx, val = _rows(leaf_ptr, leaf_idx, leaf_val, n, n_features)
    t = _positive(temperature, "temperature")
    probs = np.empty(n)
    softmax_into(s, n, t, probs)
    g = np.zeros(int(n_features))
    add_log_policy_gradient(g, int(chosen), probs, n, ptr, idx, val, t, 1.0)
    return g


def sample_index(probs, u: float) -> int:
    """The index drawn from ``probs`` by inversion with a uniform number ``u`` in [0, 1)."""
    p = np.ascontiguousarray(probs, dtype=np.float64)
    if p.ndim != 1 or p.size == 0 or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise ValueError("probs must be a non-empty 1-D probability vector")
    if not 0.0 <= u < 1.0:
        raise ValueError(f"u must be in [0, 1), got {u!r}")
    return int(sample_from(p, p.size, float(u)))


# ----------------------------------------------------------------------------- estimator (1)-(4)
@dataclass(frozen=True)
class EpisodeScores:
    """The scores g(m) (eq. 3) of M episodes as sparse rows: episode m's non-zero entries are
    ``idx[ptr[m]:ptr[m+1]]`` (ascending) and ``val[...]``, over ``n_features`` features. It
    stands for the dense M × n matrix G wherever the estimator takes one (:func:`from_dense`
    gives the same numbers, to the last bit); a learner's games give it directly
    (:func:`from_rows`), which spares building G (M × 15,773 for the PGLeaf features)."""

    ptr: np.ndarray
    idx: np.ndarray
    val: np.ndarray
    n_features: int

    @property
    def shape(self) -> tuple:
        return (self.ptr.size - 1, self.n_features)

    @classmethod
    def from_dense(cls, G) -> "EpisodeScores":
        """The rows of a dense G (episodes × features)."""
        G = np.ascontiguousarray(G, dtype=np.float64)
        if G.ndim != 2 or G.shape[0] == 0:
            raise ValueError(f"G must be a 2-D array (episodes, features) with at least one "
                             f"episode, got shape {G.shape}")
        rows, cols = np.nonzero(G)          # row-major: ascending columns within a row
        ptr = np.zeros(G.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=G.shape[0]), out=ptr[1:])
        return cls(ptr, cols.astype(np.int64), G[rows, cols], G.shape[1])

    @classmethod
    def from_rows(cls, rows, n_features: int) -> "EpisodeScores":
        """From one ``(indices, values)`` pair per episode (each row's indices distinct, in any
        order; zero values are dropped)."""
        rows = list(rows)
        if not rows:
            raise ValueError("need at least one episode")
        idx_rows, val_rows = [], []
        for m, (i, v) in enumerate(rows):
            i = np.asarray(i, dtype=np.int64)
            v = np.asarray(v, dtype=np.float64)
            if i.ndim != 1 or i.shape != v.shape:
                raise ValueError(f"episode {m}: indices and values must be 1-D arrays of one "
                                 f"length, got shapes {i.shape} and {v.shape}")
            idx_rows.append(i)
            val_rows.append(v)
        counts = np.array([i.size for i in idx_rows], dtype=np.int64)
        row_of = np.repeat(np.arange(len(rows)), counts)
        idx = np.concatenate(idx_rows)
        val = np.concatenate(val_rows)
        # rows not in ascending order (a learner's rows are): sort those rows
        unsorted = np.unique(row_of[1:][(np.diff(idx) <= 0) & (row_of[1:] == row_of[:-1])])
        starts = np.concatenate([[0], np.cumsum(counts)])
        for m in unsorted:
            lo, hi = starts[m], starts[m + 1]
            order = np.argsort(idx[lo:hi], kind="stable")
            idx[lo:hi] = idx[lo:hi][order]
            val[lo:hi] = val[lo:hi][order]
            if np.any(np.diff(idx[lo:hi]) == 0):
                raise ValueError(f"episode {m}: indices must be distinct and in [0, {n_features})")
        if idx.size and (idx.min() < 0 or idx.max() >= n_features):
            m = int(row_of[np.flatnonzero((idx < 0) | (idx >= n_features))[0]])
            raise ValueError(f"episode {m}: indices must be distinct and in [0, {n_features})")
        keep = val != 0.0
        ptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(np.bincount(row_of[keep], minlength=len(rows)), out=ptr[1:])
        return cls(ptr, idx[keep], val[keep], int(n_features))


def _episodes(G, rewards):
    if not isinstance(G, EpisodeScores):
        G = EpisodeScores.from_dense(G)
    m = G.shape[0]
    r = np.asarray(rewards, dtype=np.float64)
    if r.shape != (m,):
        raise ValueError(f"rewards must have one entry per episode ({m}), got shape {r.shape}")
    if not (np.all(np.isfinite(r)) and np.all(np.isfinite(G.val))):
        raise ValueError("rewards and G must be finite")
    return G, r


def episode_returns(rewards, lengths, gamma: float = 1.0) -> np.ndarray:
    """The discounted returns ``γ^{T_m − 1} r_m`` of eqs. (1)-(2) (reward at the episode's end).

    Parameters
    ----------
    rewards : array of float
        r_m, the reward at the end of episode m.
    lengths : array of int
        T_m, the agent's number of actions in episode m (≥ 1).
    gamma : float
        Discount rate, 0 < γ ≤ 1 (the paper: 1).
    """
    r = np.asarray(rewards, dtype=np.float64)
    t = np.asarray(lengths)
    if t.shape != r.shape or (t.size and (not np.issubdtype(t.dtype, np.integer) or t.min() < 1)):
        raise ValueError(f"lengths must be integers >= 1, one per reward ({r.shape}); got "
                         f"{t.dtype} of shape {t.shape}")
    if not (isinstance(gamma, (int, float, np.floating)) and 0.0 < gamma <= 1.0):
        raise ValueError(f"gamma must be in (0, 1], got {gamma!r}")
    if not np.all(np.isfinite(r)):
        raise ValueError("rewards must be finite")
    return r * float(gamma) ** (t.astype(np.float64) - 1.0)


def optimal_baseline(G, returns, kind: str = "component"):
    """The baseline of eq. (2) for episodes with scores ``G[m] = g(m)`` and returns ``R_m``.

    Parameters
    ----------
    G : array, shape (M, n_features), or EpisodeScores
        g(m) of eq. (3), one row per episode.
    returns : array, shape (M,)
        ``R_m = γ^{T_m−1} r_m`` (:func:`episode_returns`).
    kind : {"component", "norm", "mean", "none"}
        ``"component"``: ``b_i = Σ R_m g_i(m)² / Σ g_i(m)²`` per component (0 where every
        g_i(m) is 0: the component's estimate is 0 whatever b_i); ``"norm"``: the scalar
        ``Σ R_m ‖g(m)‖² / Σ ‖g(m)‖²``; ``"mean"``: the mean return; ``"none"``: 0.

    Returns
    -------
    numpy.ndarray
        Shape (n_features,) (a scalar baseline is broadcast).
    """
    G, r = _episodes(G, returns)
    n = G.shape[1]
    if kind == "component":
        b = np.empty(n)
        _baseline_component(r, G.ptr, G.idx, G.val, b)
        return b
    if kind == "norm":
        return np.full(n, _baseline_norm(r, G.ptr, G.idx, G.val))
    if kind == "mean":
        return np.full(n, float(r.mean()))
    if kind == "none":
        return np.zeros(n)
    raise ValueError(f"unknown baseline {kind!r}; valid: {', '.join(BASELINES)}")


def policy_gradient_estimate(G, returns, baseline: str = "component") -> np.ndarray:
    """Eq. (1): ``∇Ĵ(θ) = (1/M) Σ_m (R_m − b) g(m)`` with b from :func:`optimal_baseline`."""
    G, r = _episodes(G, returns)
    b = optimal_baseline(G, r, baseline)
    out = np.empty(G.shape[1])
    _estimate(r, G.ptr, G.idx, G.val, b, out)
    return out


def reinforce_step(theta, G, rewards, lengths, *, alpha: float, gamma: float = 1.0,
                   baseline: str = "component") -> np.ndarray:
    """Eqs. (1)-(4) for one agent: ``θ + α ∇Ĵ(θ)`` from its M episodes (a new array).

    Parameters
    ----------
    theta : array, shape (n_features,)
    G : array, shape (M, n_features), or EpisodeScores
        g(m) (eq. 3) of the agent's episodes.
    rewards : array, shape (M,)
        The agent's final rewards r_m.
    lengths : array of int, shape (M,)
        The agent's action counts T_m.
    alpha : float
        Learning rate (the paper: 0.001).
    gamma : float
        Discount rate (the paper: 1).
    baseline : str
        See :func:`optimal_baseline`.
    """
    theta = np.asarray(theta, dtype=np.float64)
    G, _ = _episodes(G, rewards)
    if theta.shape != (G.shape[1],):
        raise ValueError(f"theta must have shape ({G.shape[1]},) like the rows of G, got "
                         f"{theta.shape}")
    a = _positive(alpha, "alpha")
    return theta + a * policy_gradient_estimate(G, episode_returns(rewards, lengths, gamma),
                                                baseline)


def self_play_update(theta, agents, *, alpha: float, gamma: float = 1.0,
                     baseline: str = "component") -> np.ndarray:
    """One update of the shared θ after M self-play games: ``θ + α Σ_agents ∇Ĵ_agent``.

    Parameters
    ----------
    theta : array, shape (n_features,)
    agents : sequence of (G, rewards, lengths)
        One triple per agent (sente, gote): its episodes' scores g(m) (eq. 3, a dense array or
        :class:`EpisodeScores`), rewards and action counts; each gets its own baseline (eq. 2)
        and estimator (eq. 1).
    alpha, gamma, baseline
        As in :func:`reinforce_step`.
    """
    theta = np.asarray(theta, dtype=np.float64)
    step = np.zeros_like(theta)
    a = _positive(alpha, "alpha")
    for G, rewards, lengths in agents:
        G, _ = _episodes(G, rewards)
        if G.shape[1] != theta.size:
            raise ValueError(f"G has {G.shape[1]} features, theta {theta.size}")
        step += policy_gradient_estimate(G, episode_returns(rewards, lengths, gamma), baseline)
    return theta + a * step
