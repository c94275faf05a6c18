"""The constraint of eqs. (8)-(10) with coefficients (LinearConstraint): projection, the
multipliers of gradient and sign steps, and what it shares with the piece-value constraint."""

import math

import numpy as np
import pytest

from gamelib.learn import bonanza as bz


@pytest.fixture
def con():
    rng = np.random.default_rng(4)
    idx = np.array([0, 3, 4, 7, 9, 12])
    return bz.LinearConstraint(idx, rng.normal(0.0, 1.0, idx.size), 2.5)


def test_projection_is_the_nearest_point_on_the_plane(con):
    rng = np.random.default_rng(1)
    v = rng.normal(0.0, 3.0, 15)
    p = con.project(v)
    assert abs(con.violation(p)) < 1e-12
    moved = p - v
    assert np.all(moved[np.setdiff1d(np.arange(15), con.indices)] == 0.0)
    # the move is along c (the plane's normal): the nearest point
    along = moved[con.indices] / con.coefficients
    assert np.allclose(along, along[0], rtol=1e-12, atol=0.0)
    q = con.project(p + 1e-3 * rng.normal(size=15))
    assert np.linalg.norm(q - v) >= np.linalg.norm(p - v) - 1e-12


def test_gradient_multiplier_moves_along_the_plane(con):
    g = np.random.default_rng(2).normal(size=15)
    cg = con.constrained_gradient(g, "gradient")
    assert abs(math.fsum(con.coefficients * cg[con.indices])) < 1e-12
    # the orthogonal projection: what was removed is parallel to c
    removed = (g - cg)[con.indices] / con.coefficients
    assert np.allclose(removed, con.multiplier(g, "gradient"), rtol=1e-12, atol=0.0)


def test_sign_multiplier_is_the_weighted_median(con):
    rng = np.random.default_rng(3)
    c = con.coefficients
    for _ in range(20):
        g = rng.normal(size=15)
        lam = con.multiplier(g, "sign")
        ratio = g[con.indices] / c
        # Σ c_i sgn(G_i - λ c_i) = Σ |c_i| sgn(G_i/c_i - λ): at most one coefficient unbalanced
        assert abs(np.sum(np.abs(c) * np.sign(ratio - lam))) <= np.abs(c).max()
        # and λ minimises Σ |c_i| |G_i/c_i - λ| (a weighted median)
        cost = lambda x: np.sum(np.abs(c) * np.abs(ratio - x))   # noqa: E731
        assert cost(lam) <= min(cost(r) for r in ratio) + 1e-12


def test_unit_coefficients_give_the_piece_value_constraint():
    idx = np.array([1, 2, 4, 5, 8])
    w = np.arange(10.0)
    lin = bz.LinearConstraint.keeping(idx, np.ones(idx.size), w)
    piece = bz.PieceValueConstraint.keeping(idx, w)
    assert lin.total == piece.total
    g = np.random.default_rng(5).normal(size=10)
    for update in ("gradient", "sign"):
        assert math.isclose(lin.multiplier(g, update), piece.multiplier(g, update),
                            rel_tol=1e-12, abs_tol=1e-15)
    g6 = np.random.default_rng(6).normal(size=10)
    six = np.array([0, 1, 2, 3, 4, 5])
    assert math.isclose(bz.LinearConstraint(six, np.ones(6), 0.0).multiplier(g6, "sign"),
                        bz.PieceValueConstraint(six, 0.0).multiplier(g6, "sign"), rel_tol=1e-12)


@pytest.mark.parametrize("update, lr", [("gradient", 0.5), ("sign", 0.01)])
def test_descent_steps_keep_the_weighted_sum(con, update, lr):
    rng = np.random.default_rng(7)
    v = con.project(rng.normal(size=15))
    for _ in range(10):
        v = bz.descent_step(v, rng.normal(size=15), 3, learning_rate=lr, update=update,
                            constraint=con, l1_weight=0.1)
        assert abs(con.violation(v)) < 1e-12


def test_bad_constraints_are_named():
    with pytest.raises(ValueError, match="non-zero"):
        bz.LinearConstraint(np.array([0, 1]), np.array([1.0, 0.0]), 0.0)
    with pytest.raises(ValueError, match="one coefficient per index"):
        bz.LinearConstraint(np.array([0, 1]), np.array([1.0]), 0.0)
    with pytest.raises(ValueError, match="distinct"):
        bz.LinearConstraint(np.array([1, 1]), np.array([1.0, 2.0]), 0.0)
    with pytest.raises(ValueError, match="outside"):
        bz.LinearConstraint(np.array([3]), np.array([1.0]), 0.0).violation(np.zeros(2))
    with pytest.raises(ValueError, match="unknown update"):
        bz.LinearConstraint(np.array([0]), np.array([1.0]), 0.0).multiplier(np.zeros(2), "adam")
