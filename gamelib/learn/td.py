"""TD(λ) and TDLeaf(λ) for a linear evaluation (Sutton 1988; Baxter, Tridgell & Weaver 1998).

An agent's game gives a sequence of values ``v_1 .. v_T`` -- one per move it made -- and, for
each, the sparse features ``φ_t`` with ``v_t = θ·φ_t``:

* **TD(λ)**: ``v_t`` is the static evaluation of the position right after the agent's t-th move
  (the paper, section 3.1: "the value of the position just after move a");
* **TDLeaf(λ)**: ``v_t`` is the evaluation of the principal-variation leaf of the search made
  after that move ("the PV leaf searched after playing it"), and φ_t that leaf's features, from
  the agent's point of view (for PGLeaf's setting: 1 ply full width + 4 plies of quiescence).

The learner follows Baxter et al.'s formulation of TDLeaf(λ):

* the value is squashed to the reward's scale, ``J̃_t = tanh(β v_t)`` (eq. [td-squash]);
* temporal differences ``d_t = γ J̃_{t+1} − J̃_t`` for ``t < T`` and ``d_T = r − J̃_T``: the
  game's final reward r (+1 win, −1 loss, 0 draw, plus the non-MDP bonus) takes the place of the
  value of the terminal position (eq. [td-difference]);
* after the game, ``θ ← θ + α Σ_{t=1}^{T} ∇J̃_t Σ_{j=t}^{T} (γλ)^{j−t} d_j`` with
  ``∇J̃_t = β (1 − J̃_t²) φ_t`` (eq. [td-update]).

The inner sum is computed backwards, ``e_T = d_T``, ``e_t = d_t + γλ e_{t+1}``; it equals the
eligibility-trace (forward) form ``z_t = γλ z_{t−1} + ∇J̃_t``, ``Δθ = α Σ_t d_t z_t``.

Why tanh, and which β
---------------------
KnightCap squashes with ``tanh(β v)`` because its range [−1, 1] is that of the game result
(+1 / 0 / −1), so the final temporal difference ``r − J̃_T`` compares like with like and a draw
is 0; a logistic squash would need the results recoded as 1 / ½ / 0. We do the same.

The slope β is a hidden learning rate: a TD step changes a value ``v = θ·φ`` by about
``α β² (1 − J̃²) e |φ|²``, and a minishogi position has 100-200 active features. KnightCap chose
β so that one pawn is a squashed value of 0.25; in the paper's units (a pawn is 0.02) that is
``β = atanh(0.25) / 0.02 ≈ 12.8`` (:data:`KNIGHTCAP_BETA`), and with the paper's α = 0.001 every
step then overshoots by an order of magnitude (``α β² |φ|² ≈ 25``): TDLeaf(λ) collapsed from 55 %
to about 5 % against the reference opponent within 100-1,000 self-play games in our runs, β = 3
stalled around 30 %, while β = 1 (``α |φ|² ≈ 0.15``) recovered from the first games' turbulence
and rose to 60 % by 1,000 games. The paper uses one α for all four learners, so we keep α and
take **β = 1** (:data:`DEFAULT_BETA`): ``J̃ = tanh(v)`` in the paper's own units, where a whole
side's material is about 0.6, so ordinary positions stay in tanh's linear range and learning
sets the scale. The moves themselves are chosen by the softmax policy over the *raw* values
(temperature 0.03 in the paper), as for PGLeaf.

Self-play with one shared θ
---------------------------
Sente and gote each make their own sequence; both updates are applied to the shared θ after
every game (:func:`td_self_play_update`).
"""

from __future__ import annotations

import math

import numpy as np

from gamelib import exactmath as xm
from gamelib.runtime.kernels import kernel

__all__ = ["DEFAULT_BETA", "KNIGHTCAP_BETA", "squash", "squash_gradient_scale", "temporal_differences",
           "td_lambda_direction", "td_self_play_update"]

#: β with ``tanh(β × 0.02) = 0.25``: one pawn (0.02 in the paper's units) is a squashed 0.25.
KNIGHTCAP_BETA = math.atanh(0.25) / 0.02
#: The squashing slope the learners use (see the module docstring).
DEFAULT_BETA = 1.0


@kernel
def add_td_lambda(delta, values, ptr, idx, val, n, reward, lam, gamma, beta, scale):
    """``delta += scale · Σ_t ∇J̃_t Σ_{j≥t} (γλ)^{j−t} d_j`` for one agent's game.

    ``values[:n]`` are the raw values ``v_t`` and row t of the CSR triple ``(ptr, idx, val)``
    the features φ_t (an empty row for a terminal leaf with a constant score). Returns the sum
    of the squared temporal differences (a diagnostic).
    """
    if n == 0:
        return 0.0
    e = 0.0
    sq = 0.0
    for t in range(n - 1, -1, -1):
        jt = xm.tanh(beta * values[t])
        if t == n - 1:
            d = reward - jt
        else:
            d = gamma * xm.tanh(beta * values[t + 1]) - jt
        sq += d * d
        e = d + gamma * lam * e
        w = scale * e * beta * (1.0 - jt * jt)
        if w == 0.0:
            continue
        for j in range(ptr[t], ptr[t + 1]):
            delta[idx[j]] += w * val[j]
    return sq


def _check_sequence(values, ptr, idx, val, n_features):
    v = np.ascontiguousarray(values, dtype=np.float64)
    if v.ndim != 1:
        raise ValueError(f"values must be 1-D (one per move of the agent), got shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ValueError("values must be finite")
    n = v.size
    ptr = np.ascontiguousarray(ptr, dtype=np.int64)
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    val = np.ascontiguousarray(val, dtype=np.float64)
    if ptr.shape != (n + 1,) or ptr[0] != 0 or np.any(np.diff(ptr) < 0) or ptr[-1] != idx.size \
            or idx.size != val.size:
        raise ValueError(f"features must be a CSR triple with {n} rows (ptr of length {n + 1} "
                         f"starting at 0, non-decreasing, ending at len(idx) == len(val))")
    if idx.size and (idx.min() < 0 or idx.max() >= n_features):
        raise ValueError(f"feature index outside [0, {n_features})")
    if not np.all(np.isfinite(val)):
        raise ValueError("feature values must be finite")
    return v, ptr, idx, val


def _check_params(lam, gamma, beta):
    if not (isinstance(lam, (int, float, np.floating)) and 0.0 <= lam <= 1.0):
        raise ValueError(f"lam (λ) must be in [0, 1], got {lam!r}")
    if not (isinstance(gamma, (int, float, np.floating)) and 0.0 < gamma <= 1.0):
        raise ValueError(f"gamma must be in (0, 1], got {gamma!r}")
    if not (isinstance(beta, (int, float, np.floating)) and math.isfinite(beta) and beta > 0):
        raise ValueError(f"beta must be a positive finite number, got {beta!r}")
    return float(lam), float(gamma), float(beta)


def squash(v, beta: float = DEFAULT_BETA):
    """``J̃ = tanh(β v)``: a raw evaluation as an expected result in [−1, 1]."""
    return xm.tanh_array(beta * np.asarray(v, dtype=np.float64))


def squash_gradient_scale(v, beta: float = DEFAULT_BETA):
    """``dJ̃/dv = β (1 − tanh²(β v))`` (times φ: the gradient of the squashed linear value)."""
    j = xm.tanh_array(beta * np.asarray(v, dtype=np.float64))
    return beta * (1.0 - j * j)


def temporal_differences(values, reward: float, *, gamma: float = 1.0,
                         beta: float = DEFAULT_BETA) -> np.ndarray:
    """``d_t = γ J̃_{t+1} − J̃_t`` (t < T) and ``d_T = r − J̃_T`` for an agent's values."""
    v = np.asarray(values, dtype=np.float64)
    _check_params(0.0, gamma, beta)
    j = xm.tanh_array(beta * v)
    d = np.empty_like(j)
    d[:-1] = gamma * j[1:] - j[:-1]
    if v.size:
        d[-1] = float(reward) - j[-1]
    return d


def td_lambda_direction(values, leaf_ptr, leaf_idx, leaf_val, reward: float, n_features: int, *,
                        lam: float = 0.7, gamma: float = 1.0,
                        beta: float = DEFAULT_BETA) -> np.ndarray:
    """``Σ_t ∇J̃_t Σ_{j≥t} (γλ)^{j−t} d_j`` for one agent's game (the update before α).

    Parameters
    ----------
    values : array, shape (T,)
        The agent's raw values v_t (after each of its moves: the static value for TD(λ), the PV
        leaf's for TDLeaf(λ)).
    leaf_ptr, leaf_idx, leaf_val : arrays
        Their features φ_t in CSR form (row t).
    reward : float
        The agent's final reward.
    n_features : int
        Length of θ.
    lam, gamma, beta : float
        λ (the paper: 0.7), γ (1) and the squashing slope β.
    """
    lam, gamma, beta = _check_params(lam, gamma, beta)
    v, ptr, idx, val = _check_sequence(values, leaf_ptr, leaf_idx, leaf_val, int(n_features))
    if not math.isfinite(reward):
        raise ValueError(f"reward must be finite, got {reward!r}")
    delta = np.zeros(int(n_features))
    add_td_lambda(delta, v, ptr, idx, val, v.size, float(reward), lam, gamma, beta, 1.0)
    return delta


def td_self_play_update(theta, agents, *, alpha: float, lam: float = 0.7, gamma: float = 1.0,
                        beta: float = DEFAULT_BETA) -> np.ndarray:
    """θ after one self-play game: ``θ + α Σ_agents td_lambda_direction(agent)`` (a new array).

    Parameters
    ----------
    theta : array, shape (n_features,)
    agents : sequence of (values, leaf_ptr, leaf_idx, leaf_val, reward)
        One entry per side.
    alpha : float
        Learning rate (the paper: 0.001).
    lam, gamma, beta
        As in :func:`td_lambda_direction`.
    """
    theta = np.asarray(theta, dtype=np.float64)
    if not (isinstance(alpha, (int, float, np.floating)) and math.isfinite(alpha) and alpha > 0):
        raise ValueError(f"alpha must be a positive finite number, got {alpha!r}")
    step = np.zeros_like(theta)
    for values, ptr, idx, val, reward in agents:
        step += td_lambda_direction(values, ptr, idx, val, reward, theta.size, lam=lam,
                                    gamma=gamma, beta=beta)
    return theta + alpha * step
