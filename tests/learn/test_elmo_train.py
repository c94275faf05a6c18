"""elmo's learner: the fitted scale, AdaGrad steps against the exact gradients, learning."""

import numpy as np
import pytest

from gamelib.learn import elmo
from gamelib.learn import elmo_train as L


def test_fit_scale_recovers_the_scale():
    rng = np.random.default_rng(0)
    y = rng.normal(0, 0.3, 20000)
    t = (rng.random(y.size) < 1 / (1 + np.exp(-y / 0.15))).astype(float)
    assert L.fit_scale(y, t) == pytest.approx(0.15, rel=0.05)
    # the optimum: d/dK of the mean cross-entropy vanishes there
    k = L.fit_scale(y, t)
    f = lambda K: np.mean(elmo.cross_entropy(t, y, K))
    assert f(k) <= min(f(0.98 * k), f(1.02 * k))
    with pytest.raises(ValueError, match="do not predict"):
        L.fit_scale(y, 1 - (y > 0))


@pytest.mark.parametrize("loss,lam", [("elmo", 0.0), ("elmo", 0.5), ("elmo", 1.0), ("apery", 0.0)])
def test_one_adagrad_step_matches_the_exact_gradient(loss, lam):
    batch, _ = elmo.synthetic_batch(50, n_features=12, seed=1, draw_rate=0.1)
    w0 = np.random.default_rng(2).normal(0, 300, 12)
    lr, eps = 7.0, 1e-8
    fit = L.train(w0, batch, loss=loss, lam=lam, scale=600.0, learning_rate=lr, n_epochs=1,
                  batch_size=50, eps=eps)
    g = elmo.loss_and_gradient(w0, batch, loss=loss, lam=lam, scale=600.0)[1] / 50
    expected = w0 - lr * g / (np.abs(g) + eps)
    assert np.allclose(fit.weights, expected, rtol=1e-10, atol=1e-10)
    # a second step divides by the root of the summed squares
    fit2 = L.train(w0, batch, loss=loss, lam=lam, scale=600.0, learning_rate=lr, n_epochs=2,
                   batch_size=50, eps=eps)
    g2 = elmo.loss_and_gradient(expected, batch, loss=loss, lam=lam, scale=600.0)[1] / 50
    assert np.allclose(fit2.weights, expected - lr * g2 / (np.sqrt(g * g + g2 * g2) + eps),
                       rtol=1e-10, atol=1e-10)


def test_training_lowers_the_heldout_cross_entropy_and_is_deterministic():
    data, w_true = elmo.synthetic_batch(3000, n_features=24, seed=3)
    train, test = data.subset(np.arange(2400)), data.subset(np.arange(2400, 3000))
    kw = dict(loss="elmo", lam=0.5, scale=600.0, learning_rate=50.0, n_epochs=5, batch_size=32,
              seed=4, test=test, evals_per_epoch=2)
    fit = L.train(np.zeros(24), train, **kw)
    h = fit.history
    assert list(h.columns[:3]) == ["epoch", "positions", "steps"]
    assert len(h) == 11 and h.epoch.iloc[-1] == 5 and h.positions.iloc[-1] == 5 * 2400
    assert h.test_result_xent.iloc[-1] < h.test_result_xent.iloc[0] - 0.05
    true_xent = L.metrics(w_true, test, 600.0)["result_xent"]
    assert h.test_result_xent.iloc[-1] < true_xent + 0.02
    again = L.train(np.zeros(24), train, **kw)
    assert np.array_equal(again.weights, fit.weights)
    assert np.allclose(L.train(np.zeros(24), train, **{**kw, "n_epochs": 0}).weights, 0)


def test_bad_arguments():
    batch, _ = elmo.synthetic_batch(10, n_features=4)
    with pytest.raises(ValueError, match="loss"):
        L.train(np.zeros(4), batch, loss="hinge", scale=1.0, learning_rate=1.0, n_epochs=1)
    with pytest.raises(ValueError, match="scale"):
        L.train(np.zeros(4), batch, scale=-1.0, learning_rate=1.0, n_epochs=1)
    with pytest.raises(ValueError, match="learning_rate"):
        L.train(np.zeros(4), batch, scale=1.0, learning_rate=0.0, n_epochs=1)
    with pytest.raises(ValueError, match="initial weights"):
        L.train(np.zeros(5), batch, scale=1.0, learning_rate=1.0, n_epochs=1)
