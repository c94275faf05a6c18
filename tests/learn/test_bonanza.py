"""The Bonanza method: hand-computed objectives, gradients against finite differences, the
constraint, the L1 term and a learner that must reduce J."""

import math

import numpy as np
import pytest

from gamelib.learn import FeatureRows
from gamelib.learn import bonanza as bz

A = 7.0 / 256.0
C = math.log(3.0) / A          # T(C) = 3/4, T(-C) = 1/4, T(2C) = 9/10


# --- the loss T ----------------------------------------------------------------------------------

def test_slope_is_window_over_seven():
    assert bz.BONANZA_SLOPE == 7.0 / 256.0
    assert abs(bz.BONANZA_SLOPE - 0.0273) < 5e-5      # the 0.0273 of the seeds


def test_t_loss_known_values():
    assert bz.t_loss(0.0) == 0.5
    assert bz.t_loss(C) == pytest.approx(0.75, abs=1e-15)
    assert bz.t_loss(-C) == pytest.approx(0.25, abs=1e-15)
    assert bz.t_loss(2 * C) == pytest.approx(0.9, abs=1e-15)
    assert bz.t_loss(-1e6) == 0.0 and bz.t_loss(1e6) == 1.0


def test_t_loss_derivative_matches_finite_differences():
    x = np.linspace(-600, 600, 97)
    h = 1e-2
    fd = (bz.t_loss(x + h) - bz.t_loss(x - h)) / (2 * h)
    np.testing.assert_allclose(bz.t_loss_derivative(x), fd, rtol=1e-7, atol=1e-13)
    assert bz.t_loss_derivative(0.0) == pytest.approx(A / 4)


def test_window_clips_loss_and_zeroes_derivative():
    assert bz.t_loss(1000.0, window=256) == bz.t_loss(256.0)
    assert bz.t_loss(-1000.0, window=256) == bz.t_loss(-256.0)
    assert bz.t_loss_derivative(300.0, window=256) == 0.0
    assert bz.t_loss_derivative(100.0, window=256) == bz.t_loss_derivative(100.0)
    with pytest.raises(ValueError, match="window"):
        bz.t_loss(1.0, window=0)
    with pytest.raises(ValueError, match="slope"):
        bz.t_loss(1.0, slope=-1)


# --- J on hand-computed cases ------------------------------------------------------------------

def _one_position(side, expert=0):
    # ξ = v·φ with φ = 1, 3, 0 for the three moves; v = C gives ξ = C, 3C, 0.
    return bz.ComparisonSet.from_dense([np.array([[1.0], [3.0], [0.0]])], [expert], [side])


def test_objective_hand_computed_max_to_move():
    data = _one_position(+1)
    # x = ξ_m − ξ_1: 2C → 9/10, −C → 1/4
    j, g = bz.objective_and_gradient([C], data)
    assert j == pytest.approx(0.9 + 0.25, abs=1e-14)
    # Σ T'(x)(φ_m − φ_1): T'(2C)·2 + T'(−C)·(−1) = a(0.09·2 − 0.1875)
    assert g[0] == pytest.approx(A * (0.18 - 0.1875), abs=1e-15)


def test_objective_hand_computed_min_to_move():
    data = _one_position(-1)
    # x = −(ξ_m − ξ_1): −2C → 1/10, C → 3/4
    j, g = bz.objective_and_gradient([C], data)
    assert j == pytest.approx(0.1 + 0.75, abs=1e-14)
    assert g[0] == pytest.approx(-A * (0.18 - 0.1875), abs=1e-15)


def test_objective_counts_only_non_expert_moves_and_uses_bias():
    # All moves equal: every non-expert move costs T(0) = 1/2; a single-move position costs 0.
    data = bz.ComparisonSet.from_dense([np.zeros((4, 2)), np.zeros((1, 2))], [2, 0], [1, -1])
    assert bz.objective([5.0, -3.0], data) == pytest.approx(1.5)
    # A terminal leaf: its constant value enters ξ but not the gradient.
    rows = FeatureRows.from_dense(np.array([[1.0], [0.0]]))
    data = bz.ComparisonSet(rows, [0, 2], [0], [1], leaf_bias=[0.0, C])
    j, g = bz.objective_and_gradient([0.0], data)
    assert j == pytest.approx(0.75)
    assert g[0] == pytest.approx(-A * 0.75 * 0.25)


def test_subsets_add_up():
    trees, _ = bz.synthetic_minimax_trees(30, seed=3)
    v = np.random.default_rng(0).normal(0, 100, trees.n_features)
    a, b = np.arange(0, 30, 2), np.arange(1, 30, 2)
    ja, ga = bz.objective_and_gradient(v, trees.subset(a))
    jb, gb = bz.objective_and_gradient(v, trees.subset(b))
    j, g = bz.objective_and_gradient(v, trees)
    assert ja + jb == pytest.approx(j, rel=1e-12)
    np.testing.assert_allclose(ga + gb, g, rtol=1e-10, atol=1e-12)


# --- gradients against finite differences and a dense reference --------------------------------

def _random_comparison_set(rng, n_positions=25, n_features=12):
    blocks, experts = [], []
    for _ in range(n_positions):
        m = int(rng.integers(1, 7))
        x = rng.normal(0, 1, (m, n_features)) * (rng.random((m, n_features)) < 0.4)
        blocks.append(x)
        experts.append(int(rng.integers(0, m)))
    sides = rng.choice([-1, 1], n_positions)
    n_moves = sum(b.shape[0] for b in blocks)
    return bz.ComparisonSet.from_dense(blocks, experts, sides, rng.normal(0, 50, n_moves)), blocks


def _dense_reference(v, blocks, experts, sides, bias, slope=A):
    """J and ∂J/∂v of eq. (7), written independently with dense numpy."""
    j, g, k = 0.0, np.zeros(v.size), 0
    for x, e, s in zip(blocks, experts, sides):
        xi = x @ v + bias[k:k + x.shape[0]]
        k += x.shape[0]
        others = np.arange(x.shape[0]) != e
        d = s * (xi[others] - xi[e])
        t = 1 / (1 + np.exp(-slope * d))
        j += t.sum()
        coef = s * slope * t * (1 - t)
        g += coef @ (x[others] - x[e])
    return j, g


def test_gradient_matches_dense_reference():
    rng = np.random.default_rng(11)
    data, blocks = _random_comparison_set(rng)
    v = rng.normal(0, 60, data.n_features)
    j, g = bz.objective_and_gradient(v, data)
    jr, gr = _dense_reference(v, blocks, data.expert, data.side, data.leaf_bias)
    assert j == pytest.approx(jr, rel=1e-12)
    np.testing.assert_allclose(g, gr, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradient_matches_central_differences(seed, numeric_gradient, rel_error):
    rng = np.random.default_rng(seed)
    data, _ = _random_comparison_set(rng)
    v = rng.normal(0, 60, data.n_features)
    _, g = bz.objective_and_gradient(v, data)
    fd = numeric_gradient(lambda w: bz.objective(w, data), v, 1e-3)
    assert rel_error(g, fd) < 1e-6


def test_minimax_gradient_uses_pv_leaves(numeric_gradient, rel_error):
    """J of the true two-ply minimax values: the PV-leaf gradient (eq. 6) is its derivative."""
    trees, w_true = bz.synthetic_minimax_trees(60, seed=5)
    v = w_true + np.random.default_rng(1).normal(0, 30, w_true.size)
    _, g = bz.objective_and_gradient(v, trees)
    fd = numeric_gradient(lambda w: bz.objective(w, trees), v, 1e-3)
    assert rel_error(g, fd) < 1e-6


def test_windowed_gradient_matches_central_differences(numeric_gradient, rel_error):
    trees, w_true = bz.synthetic_minimax_trees(60, seed=6)
    v = w_true + np.random.default_rng(2).normal(0, 30, w_true.size)
    cs = trees.at(v)
    xi = cs.values(v)
    x = np.concatenate([s * (xi[a:b] - xi[a + e]) for s, e, a, b in
                        zip(cs.side, cs.expert, cs.move_ptr[:-1], cs.move_ptr[1:])])
    assert (np.abs(x) > 256).any() and (np.abs(x) < 256).any()      # both regimes occur
    assert np.min(np.abs(np.abs(x) - 256)) > 1e-2                   # no kink within the step
    _, g = bz.objective_and_gradient(v, trees, window=256)
    fd = numeric_gradient(lambda w: bz.objective(w, trees, window=256), v, 1e-3)
    assert rel_error(g, fd) < 1e-6


def test_minimax_values_are_brute_force_minimax():
    trees, _ = bz.synthetic_minimax_trees(20, seed=7)
    v = np.random.default_rng(3).normal(0, 200, trees.n_features)
    leaf_values = trees.leaves.to_dense() @ v + trees.leaf_bias
    xi = trees.values(v)
    for p in range(trees.n_positions):
        for m in range(trees.move_ptr[p], trees.move_ptr[p + 1]):
            replies = leaf_values[trees.reply_ptr[m]:trees.reply_ptr[m + 1]]
            expected = replies.min() if trees.side[p] == 1 else replies.max()
            assert xi[m] == pytest.approx(expected, rel=1e-12, abs=1e-9)


def test_move_agreement():
    data = _one_position(+1, expert=1)             # ξ = C, 3C, 0: move 1 is the best for Max
    assert bz.move_agreement([C], data) == 1.0
    assert bz.move_agreement([-C], data) == 0.0    # now move 2 (ξ = 0) is the best
    assert bz.move_agreement([0.0], data) == 0.0   # ties do not count


# --- the constraint and the L1 term ------------------------------------------------------------

def test_projection_is_nearest_point_on_the_plane():
    con = bz.PieceValueConstraint(np.array([0, 2, 3]), 10.0)
    v = np.array([1.0, 7.0, 2.0, 4.0, -1.0])
    w = con.project(v)
    assert w[[0, 2, 3]].sum() == pytest.approx(10.0)
    d = w - v
    assert d[1] == 0 and d[4] == 0 and np.ptp(d[[0, 2, 3]]) < 1e-15   # moved along 1_Π only
    assert con.violation(w) == pytest.approx(0.0, abs=1e-14)


def test_constrained_steps_keep_the_sum():
    con = bz.PieceValueConstraint.keeping([1, 2, 4, 5], np.arange(6.0))
    g = np.random.default_rng(4).normal(size=6)
    step = con.constrained_gradient(g, "gradient")
    assert step[[1, 2, 4, 5]].sum() == pytest.approx(0.0, abs=1e-14)
    assert con.multiplier(g, "gradient") == pytest.approx(g[[1, 2, 4, 5]].mean())
    signs = np.sign(con.constrained_gradient(g, "sign"))[[1, 2, 4, 5]]
    assert signs.sum() == 0 and np.all(signs != 0)                 # as many up as down
    con5 = bz.PieceValueConstraint.keeping(np.arange(5), np.arange(5.0))
    signs5 = np.sign(con5.constrained_gradient(np.arange(5.0) ** 2, "sign"))
    assert signs5.sum() == 0 and (signs5 == 0).sum() == 1          # 2n + 1: n up, n down, one 0


@pytest.mark.parametrize("update, lr, batch", [("gradient", 1e5, None), ("gradient", 2e4, 16),
                                               ("sign", 3.0, 16)])
def test_fit_keeps_the_piece_sum(update, lr, batch):
    trees, _ = bz.synthetic_minimax_trees(80, seed=8)
    v0 = np.zeros(trees.n_features)
    v0[:5] = [300.0, 350.0, 560.0, 690.0, 900.0]
    con = bz.PieceValueConstraint.keeping(np.arange(5), v0)
    res = bz.fit(v0, trees, learning_rate=lr, n_epochs=4, batch_size=batch, update=update,
                 constraint=con, l1_weight=0.5, seed=1)
    assert res.weights[:5].sum() == pytest.approx(2800.0, abs=1e-9)
    np.testing.assert_allclose(res.history.piece_sum, 2800.0, atol=1e-9)
    assert np.any(res.weights[:5] != v0[:5])                       # it did move them


def test_fit_rejects_weights_off_the_constraint():
    trees, _ = bz.synthetic_minimax_trees(5, seed=0)
    con = bz.PieceValueConstraint(np.arange(5), 2800.0)
    with pytest.raises(ValueError, match="break the constraint"):
        bz.fit(np.zeros(trees.n_features), trees, learning_rate=1.0, n_epochs=1, constraint=con)


def test_l1_penalty_and_subgradient(numeric_gradient):
    v = np.array([3.0, -2.0, 0.0, 0.5, -7.0])
    mask = np.array([False, True, True, True, True])
    assert bz.l1_penalty(v, 0.1, mask) == pytest.approx(0.1 * 9.5)
    assert bz.l1_penalty(v, 0.1) == pytest.approx(0.1 * 12.5)
    sub = bz.l1_subgradient(v, 0.1, mask)
    np.testing.assert_array_equal(sub, [0.0, -0.1, 0.0, 0.1, -0.1])
    # Away from 0 the subgradient is the derivative.
    away = np.array([0, 1, 3, 4])
    fd = numeric_gradient(lambda w: bz.l1_penalty(w, 0.1, mask), v, 1e-6)
    np.testing.assert_allclose(sub[away], fd[away], atol=1e-9)
    # At 0 it lies in [−w₁, w₁], and both one-sided slopes bound it.
    assert -0.1 <= sub[2] <= 0.1
    np.testing.assert_array_equal(bz.l1_subgradient(v, 0.1, [1, 2, 3, 4]), sub)   # index mask


def test_soft_threshold_is_the_l1_proximal_step():
    v = np.array([3.0, -2.0, 0.3, -0.2, 1.0])
    t = 0.5
    out = bz.soft_threshold(v, t)
    grid = np.linspace(-5, 5, 200001)
    for vi, oi in zip(v, out):
        best = grid[np.argmin(0.5 * (grid - vi) ** 2 + t * np.abs(grid))]
        assert oi == pytest.approx(best, abs=1e-4)
    np.testing.assert_array_equal(bz.soft_threshold(v, t, [0]), [2.5, -2.0, 0.3, -0.2, 1.0])


def test_proximal_l1_makes_exact_zeros_and_shrinks_with_its_weight():
    trees, _ = bz.synthetic_minimax_trees(300, seed=9, positional_density=0.4, positional_scale=80)
    v0 = np.zeros(trees.n_features)
    v0[:5] = 560.0
    con = bz.PieceValueConstraint.keeping(np.arange(5), v0)
    runs = [bz.fit(v0, trees, learning_rate=1e5, n_epochs=15, constraint=con, l1_weight=w1,
                   l1_step="proximal") for w1 in (0.0, 0.01, 0.04)]
    zeros = [int(np.sum(r.weights[5:] == 0.0)) for r in runs]
    norms = [np.abs(r.weights[5:]).sum() for r in runs]
    js = [r.history.J.iloc[-1] for r in runs]
    assert zeros[0] == 0 and 0 < zeros[1] < zeros[2]
    assert norms[0] > norms[1] > norms[2]
    assert js[0] < js[1] < js[2]                   # sparsity is paid for in J
    # The penalised objective is what the runs reduce.
    for r in runs[1:]:
        assert r.history.objective.iloc[-1] < r.history.objective.iloc[0]


# --- the learner ---------------------------------------------------------------------------------

@pytest.mark.parametrize("batch_size, lr", [(None, 1e5), (25, 3e4)])
def test_learner_reduces_j_and_learns_piece_order(batch_size, lr):
    trees, w_true = bz.synthetic_minimax_trees(300, seed=10)
    v0 = np.zeros(trees.n_features)
    v0[:5] = 560.0                                   # all pieces equal, the right total
    con = bz.PieceValueConstraint.keeping(np.arange(5), v0)
    res = bz.fit(v0, trees, learning_rate=lr, n_epochs=12, batch_size=batch_size,
                 constraint=con, seed=0)
    h = res.history
    assert h.J.iloc[-1] < 0.35 * h.J.iloc[0]
    assert h.agreement.iloc[-1] > h.agreement.iloc[0] + 0.3
    assert list(np.argsort(res.weights[:5])) == [0, 1, 2, 3, 4]     # P < S < G < B < R
    assert h.objective.iloc[-1] == pytest.approx(bz.objective(res.weights, trees))


def test_learner_is_deterministic():
    trees, _ = bz.synthetic_minimax_trees(40, seed=12)
    v0 = np.full(trees.n_features, 10.0)
    a = bz.fit(v0, trees, learning_rate=1e4, n_epochs=3, batch_size=7, seed=5)
    b = bz.fit(v0, trees, learning_rate=1e4, n_epochs=3, batch_size=7, seed=5)
    np.testing.assert_array_equal(a.weights, b.weights)
    c = bz.fit(v0, trees, learning_rate=1e4, n_epochs=3, batch_size=7, seed=6)
    assert np.any(a.weights != c.weights)


# --- bad input -----------------------------------------------------------------------------------

def test_bad_input_is_named():
    rows = FeatureRows.from_dense(np.eye(3))
    with pytest.raises(ValueError, match="expert move 3 of position 0"):
        bz.ComparisonSet(rows, [0, 3], [3], [1])
    with pytest.raises(ValueError, match="side of position 0 is 0"):
        bz.ComparisonSet(rows, [0, 3], [0], [0])
    with pytest.raises(ValueError, match="entry 1 has no moves"):
        bz.ComparisonSet(rows, [0, 3, 3], [0, 0], [1, 1])
    with pytest.raises(ValueError, match="number of moves"):
        bz.ComparisonSet(rows, [0, 2], [0], [1])
    data = bz.ComparisonSet(rows, [0, 3], [0], [1])
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        bz.objective(np.zeros(4), data)
    with pytest.raises(ValueError, match="non-finite"):
        bz.objective([0.0, np.nan, 0.0], data)
    with pytest.raises(ValueError, match="unknown update"):
        bz.fit(np.zeros(3), data, learning_rate=1.0, n_epochs=1, update="adam")
    with pytest.raises(ValueError, match="overlaps"):
        bz.fit(np.zeros(3), data, learning_rate=1.0, n_epochs=1, l1_weight=1.0, l1_mask=[0],
               constraint=bz.PieceValueConstraint(np.array([0, 1]), 0.0))
    with pytest.raises(ValueError, match="distinct"):
        bz.PieceValueConstraint(np.array([1, 1]), 0.0)
    with pytest.raises(ValueError, match="position 5"):
        data.subset([5])
