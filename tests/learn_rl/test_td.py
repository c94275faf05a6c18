"""TD(λ) / TDLeaf(λ) (Baxter et al. 1998): squashing, temporal differences, the update."""

import math

import numpy as np
import pytest

from gamelib.learn import td


def test_knightcap_calibration():
    assert math.isclose(math.tanh(td.KNIGHTCAP_BETA * 0.02), 0.25, rel_tol=1e-12)


def test_update_by_hand_on_two_moves():
    # v = (0.1, -0.05), phi_1 = e0, phi_2 = 2 e1, reward 1, lambda 0.5, beta 2, gamma 1
    j1, j2 = math.tanh(0.2), math.tanh(-0.1)
    d1, d2 = j2 - j1, 1.0 - j2
    e1, e2 = d1 + 0.5 * d2, d2
    expected = np.array([2 * (1 - j1 ** 2) * e1, 2 * (1 - j2 ** 2) * e2 * 2.0, 0.0])
    got = td.td_lambda_direction([0.1, -0.05], [0, 1, 2], [0, 1], [1.0, 2.0], 1.0, 3, lam=0.5,
                                 beta=2.0)
    np.testing.assert_allclose(got, expected, rtol=1e-14)
    np.testing.assert_allclose(td.temporal_differences([0.1, -0.05], 1.0, beta=2.0), [d1, d2],
                               rtol=1e-14)
    theta = td.td_self_play_update(np.ones(3), [([0.1, -0.05], [0, 1, 2], [0, 1], [1.0, 2.0],
                                                 1.0)], alpha=0.01, lam=0.5, beta=2.0)
    np.testing.assert_allclose(theta, 1.0 + 0.01 * expected, rtol=1e-14)


def _random_game(rng, n_moves, n_features):
    values = rng.normal(size=n_moves) * 0.1
    lengths = rng.integers(0, 5, n_moves)
    lengths[rng.integers(n_moves)] = 0                  # a terminal leaf: no features
    ptr = np.concatenate([[0], np.cumsum(lengths)])
    idx = rng.integers(0, n_features, ptr[-1])
    val = rng.normal(size=ptr[-1])
    return values, ptr, idx, val


def _dense(ptr, idx, val, n_features):
    phi = np.zeros((ptr.size - 1, n_features))
    for t in range(ptr.size - 1):
        np.add.at(phi[t], idx[ptr[t]:ptr[t + 1]], val[ptr[t]:ptr[t + 1]])
    return phi


@pytest.mark.parametrize("lam, gamma", [(0.7, 1.0), (0.0, 1.0), (0.3, 0.9)])
def test_equals_the_eligibility_trace_form(lam, gamma):
    rng = np.random.default_rng(3)
    values, ptr, idx, val = _random_game(rng, 12, 7)
    phi = _dense(ptr, idx, val, 7)
    beta, reward = 5.0, -1.1
    j = np.tanh(beta * values)
    d = np.append(gamma * j[1:] - j[:-1], reward - j[-1])
    z = np.zeros(7)
    expected = np.zeros(7)
    for t in range(values.size):                        # forward view with traces
        z = gamma * lam * z + beta * (1 - j[t] ** 2) * phi[t]
        expected += d[t] * z
    got = td.td_lambda_direction(values, ptr, idx, val, reward, 7, lam=lam, gamma=gamma,
                                 beta=beta)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


def test_lambda_one_is_monte_carlo_and_zero_is_one_step(numeric_gradient, rel_error):
    rng = np.random.default_rng(4)
    values, ptr, idx, val = _random_game(rng, 9, 5)
    phi = _dense(ptr, idx, val, 5)
    beta, reward = 3.0, 1.0
    j = np.tanh(beta * values)
    grads = beta * (1 - j ** 2)[:, None] * phi
    mc = td.td_lambda_direction(values, ptr, idx, val, reward, 5, lam=1.0, beta=beta)
    np.testing.assert_allclose(mc, grads.T @ (reward - j), rtol=1e-12, atol=1e-15)
    one = td.td_lambda_direction(values, ptr, idx, val, reward, 5, lam=0.0, beta=beta)
    d = np.append(j[1:] - j[:-1], reward - j[-1])
    np.testing.assert_allclose(one, grads.T @ d, rtol=1e-12, atol=1e-15)
    # grad of the squashed linear value against finite differences
    theta = rng.normal(size=5) * 0.05
    t = int(np.argmax(np.diff(ptr)))
    numeric = numeric_gradient(lambda th: math.tanh(beta * th @ phi[t]), theta, 1e-6)
    analytic = td.squash_gradient_scale(theta @ phi[t], beta) * phi[t]
    assert rel_error(analytic, numeric) < 1e-8


def test_a_step_moves_the_squashed_values_toward_the_result():
    rng = np.random.default_rng(5)
    n_features = 6
    phi = rng.normal(size=(8, n_features))
    theta = rng.normal(size=n_features) * 0.02
    ptr = np.arange(0, 8 * n_features + 1, n_features)
    idx = np.tile(np.arange(n_features), 8)
    for reward in (1.0, -1.0):
        new = td.td_self_play_update(theta, [(phi @ theta, ptr, idx, phi.ravel(), reward)],
                                     alpha=1e-3, lam=1.0, beta=5.0)
        # lambda = 1: a gradient step on sum_t (r - J_t)^2 / 2, so that loss falls
        loss = lambda th: np.sum((reward - np.tanh(5.0 * phi @ th)) ** 2)
        assert loss(new) < loss(theta)


def test_empty_sequence_and_bad_input():
    assert not td.td_lambda_direction([], [0], [], [], 1.0, 3).any()
    with pytest.raises(ValueError, match="lam"):
        td.td_lambda_direction([0.1], [0, 1], [0], [1.0], 1.0, 3, lam=1.5)
    with pytest.raises(ValueError, match="beta"):
        td.td_lambda_direction([0.1], [0, 1], [0], [1.0], 1.0, 3, beta=0.0)
    with pytest.raises(ValueError, match="CSR"):
        td.td_lambda_direction([0.1, 0.2], [0, 1], [0], [1.0], 1.0, 3)
    with pytest.raises(ValueError, match="outside"):
        td.td_lambda_direction([0.1], [0, 1], [3], [1.0], 1.0, 3)
    with pytest.raises(ValueError, match="alpha"):
        td.td_self_play_update(np.zeros(3), [], alpha=0.0)


def test_default_slope_is_one():
    from gamelib.learn.learners import settings

    assert td.DEFAULT_BETA == 1.0 and settings("tdleaf").beta == 1.0
