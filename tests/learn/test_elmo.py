"""elmo's loss and Apery's squared error: formulas, gradients against finite differences, limits,
and a learner that must improve."""

import math

import numpy as np
import pytest

from gamelib.learn import FeatureRows
from gamelib.learn import elmo

K = 600.0


def _sigma(a):
    return 1.0 / (1.0 + np.exp(-a))


def test_win_rate_scale():
    assert elmo.ELMO_SCALE == 600.0 and elmo.ELMO_LAMBDA == 0.5
    assert elmo.win_rate(0.0) == 0.5
    assert elmo.win_rate(K * math.log(3.0)) == pytest.approx(0.75, abs=1e-15)
    assert elmo.win_rate(-K * math.log(3.0)) == pytest.approx(0.25, abs=1e-15)


def test_hand_computed_terms():
    # s = y = 0, t = 1, λ = 1/2: L' = ln 2 + ½ ln 2, dsig = (½ − 1) + ½(½ − ½) = −½.
    assert elmo.elmo_loss_terms(0.0, 0.0, 1.0) == pytest.approx(1.5 * math.log(2.0))
    assert elmo.elmo_dsig(0.0, 0.0, 1.0) == pytest.approx(-0.5)
    # s = K ln 3 (p = ¾), y = 0 (q = ½), t = 0: dsig = ¾ + ½·¼ = 7/8.
    assert elmo.elmo_dsig(K * math.log(3), 0.0, 0.0) == pytest.approx(0.875)
    # Apery: (¾ − ½)² = 1/16 and 2·(3/16)·(1/4) = 3/32.
    assert elmo.apery_loss_terms(K * math.log(3), 0.0) == pytest.approx(1 / 16)
    assert elmo.apery_dsig(K * math.log(3), 0.0) == pytest.approx(3 / 32)


def _random_terms(seed, n=400):
    rng = np.random.default_rng(seed)
    shallow = rng.normal(0, 900, n)
    deep = shallow + rng.normal(0, 500, n)
    result = rng.choice([0.0, 0.5, 1.0], n)
    return shallow, deep, result


@pytest.mark.parametrize("lam", [0.0, 0.5, 2.0])
def test_dsig_is_the_derivative_of_the_elmo_term(lam):
    s, y, t = _random_terms(1)
    h = 1e-3                                        # in eval units
    fd = (elmo.elmo_loss_terms(s + h, y, t, lam) - elmo.elmo_loss_terms(s - h, y, t, lam)) / (2 * h)
    np.testing.assert_allclose(elmo.elmo_dsig(s, y, t, lam) / K, fd, rtol=1e-6, atol=1e-11)


def test_apery_dsig_is_the_derivative_of_the_squared_error():
    s, y, _ = _random_terms(2)
    h = 1e-3
    fd = (elmo.apery_loss_terms(s + h, y) - elmo.apery_loss_terms(s - h, y)) / (2 * h)
    np.testing.assert_allclose(elmo.apery_dsig(s, y) / K, fd, rtol=1e-6, atol=1e-11)
    a, b = s / K, y / K
    expected = 2 * _sigma(a) * (1 - _sigma(a)) * (_sigma(a) - _sigma(b))   # 2σ'(a)(σ(a) − σ(b))
    np.testing.assert_allclose(elmo.apery_dsig(s, y), expected, rtol=1e-9, atol=1e-15)


def test_lambda_zero_is_plain_cross_entropy():
    s, y, t = _random_terms(3)
    p = _sigma(s / K)
    naive = -(t * np.log(p) + (1 - t) * np.log(1 - p))
    np.testing.assert_allclose(elmo.elmo_loss_terms(s, y, t, lam=0.0), naive, rtol=1e-9)
    np.testing.assert_allclose(elmo.elmo_dsig(s, y, t, lam=0.0), p - t, rtol=1e-12, atol=1e-15)


def test_regulariser_vanishes_when_shallow_equals_deep():
    s = np.linspace(-3000, 3000, 13)
    np.testing.assert_allclose(elmo.elmo_dsig(s, s, 1.0, lam=3.0), elmo.elmo_dsig(s, s, 1.0, 0.0),
                               atol=1e-15)


def test_extreme_evaluations_stay_finite():
    s = np.array([-1e6, -5e4, 5e4, 1e6])
    terms = elmo.elmo_loss_terms(s, -s, np.array([1.0, 0.0, 1.0, 0.0]))
    assert np.all(np.isfinite(terms))
    assert terms[0] == pytest.approx(1e6 / K * 1.5, rel=1e-12)      # −log σ(a) ≈ −a for a ≪ 0
    batch = elmo.ElmoBatch.from_dense(np.ones((4, 1)), -s, [1.0, 0.0, 1.0, 0.0], shallow_bias=s)
    total, g = elmo.loss_and_gradient(np.zeros(1), batch)
    assert np.isfinite(total) and np.all(np.isfinite(g))


def _random_batch(seed, n=60, n_features=10):
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 1, (n, n_features)) * (rng.random((n, n_features)) < 0.5)
    return elmo.ElmoBatch.from_dense(x, rng.normal(0, 800, n), rng.choice([0.0, 0.5, 1.0], n),
                                     shallow_bias=rng.normal(0, 100, n)), x


@pytest.mark.parametrize("loss, lam", [("elmo", 0.5), ("elmo", 0.0), ("elmo", 1.7), ("apery", 0)])
def test_batch_gradient_matches_central_differences(loss, lam, numeric_gradient, rel_error):
    batch, _ = _random_batch(4)
    w = np.random.default_rng(5).normal(0, 300, batch.n_features)
    _, g = elmo.loss_and_gradient(w, batch, loss=loss, lam=lam)
    fd = numeric_gradient(lambda v: elmo.batch_loss(v, batch, loss=loss, lam=lam), w, 1e-2)
    assert rel_error(g, fd) < 1e-6


def test_batch_gradient_is_x_dsig_over_k():
    batch, x = _random_batch(6)
    w = np.random.default_rng(7).normal(0, 300, batch.n_features)
    s = x @ w + batch.shallow_bias
    dsig = elmo.elmo_dsig(s, batch.deep_eval, batch.result, 0.5)
    total, g = elmo.loss_and_gradient(w, batch)
    np.testing.assert_allclose(g, x.T @ dsig / K, rtol=1e-10, atol=1e-14)
    assert total == pytest.approx(elmo.elmo_loss_terms(s, batch.deep_eval, batch.result).sum())
    e_total, e_g = elmo.loss_and_gradient(w, batch, loss="apery")
    np.testing.assert_allclose(e_g, x.T @ elmo.apery_dsig(s, batch.deep_eval) / K, rtol=1e-10,
                               atol=1e-14)
    assert e_total == pytest.approx(elmo.apery_loss_terms(s, batch.deep_eval).sum())


def test_cross_entropy_gradient_shrinks_more_gently():
    """The seed's remark: far from the teacher, the squared error's gradient dies out, the
    cross-entropy's does not; it decreases monotonically with the gap."""
    gap = np.linspace(0, 4000, 81)
    ce = elmo.elmo_dsig(gap, 0.0, 0.5, lam=1.0) - elmo.elmo_dsig(gap, 0.0, 0.5, lam=0.0)
    se = elmo.apery_dsig(gap, 0.0)
    assert np.all(np.diff(ce) > 0)                     # monotone in the gap
    assert ce[-1] > 0.49 and se[-1] < 0.01             # saturates at 1 − q; SE vanishes
    assert np.argmax(se) not in (0, gap.size - 1)      # SE rises then falls


def test_learner_improves_and_is_deterministic():
    data, w_true = elmo.synthetic_batch(1200, seed=3)
    train, test = data.subset(np.arange(800)), data.subset(np.arange(800, 1200))
    w0 = np.zeros(data.n_features)
    res = elmo.fit(w0, train, learning_rate=3e5, n_epochs=10, batch_size=50, test=test)
    h = res.history
    assert h.test_result_xent.iloc[-1] < h.test_result_xent.iloc[0] - 0.03
    assert h.teacher_mse.iloc[-1] < 0.3 * h.teacher_mse.iloc[0]
    assert np.corrcoef(res.weights, w_true)[0, 1] > 0.9
    again = elmo.fit(w0, train, learning_rate=3e5, n_epochs=10, batch_size=50, test=test)
    np.testing.assert_array_equal(res.weights, again.weights)


def test_squared_error_stalls_from_a_saturated_start():
    data, w_true = elmo.synthetic_batch(800, seed=4)
    w0 = np.random.default_rng(0).normal(0, 1500, data.n_features)
    runs = {name: elmo.fit(w0, data, loss=name, learning_rate=3e5, n_epochs=10, batch_size=50)
            for name in ("elmo", "apery")}
    mse = {k: r.history.teacher_mse.iloc[-1] for k, r in runs.items()}
    assert mse["elmo"] < 0.5 * mse["apery"]


def test_bad_input_is_named():
    rows = FeatureRows.from_dense(np.eye(2))
    with pytest.raises(ValueError, match=r"result must lie in \[0, 1\].*entry 1 is 2.0"):
        elmo.ElmoBatch(rows, [0.0, 0.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="deep_eval"):
        elmo.ElmoBatch(rows, [0.0, np.inf], [1.0, 0.0])
    batch = elmo.ElmoBatch(rows, [0.0, 0.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="unknown loss 'mse'"):
        elmo.loss_and_gradient(np.zeros(2), batch, loss="mse")
    with pytest.raises(ValueError, match="lambda"):
        elmo.loss_and_gradient(np.zeros(2), batch, lam=-1.0)
    with pytest.raises(ValueError, match="scale"):
        elmo.win_rate(1.0, scale=0.0)
    with pytest.raises(ValueError, match="unknown loss"):
        elmo.fit(np.zeros(2), batch, loss="x", learning_rate=1.0, n_epochs=1)
    with pytest.raises(ValueError, match="row 3"):
        batch.subset([3])
