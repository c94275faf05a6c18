"""REINFORCE / PGLeaf math (eqs. 1-7): softmax policy, its log-gradient, baseline, estimator."""

import itertools
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from gamelib.play.games import softmax_policy
from gamelib.learn import policy_gradient as pg


def _csr(rows):
    ptr = np.cumsum([0] + [len(r[0]) for r in rows])
    idx = np.concatenate([np.asarray(r[0], dtype=np.int64) for r in rows]) if ptr[-1] else \
        np.zeros(0, np.int64)
    val = np.concatenate([np.asarray(r[1], dtype=float) for r in rows]) if ptr[-1] else \
        np.zeros(0)
    return ptr, idx, val


def test_softmax_matches_the_formula_and_survives_mate_scores():
    s = np.array([0.1, -0.02, 0.3, 0.0])
    t = 0.05
    e = np.exp(s / t)
    np.testing.assert_allclose(softmax_policy(s, t), e / e.sum(), rtol=1e-12)
    np.testing.assert_allclose(pg.log_policy(s, t), np.log(e / e.sum()), rtol=1e-12)
    p = softmax_policy([1e4, 0.0, -1e4], 0.03)     # a mate score: no overflow, no NaN
    assert p.tolist() == [1.0, 0.0, 0.0]
    assert softmax_policy([0.2, 0.2], 0.05).tolist() == [0.5, 0.5]


def test_eq7_equals_finite_differences_of_log_pi(numeric_gradient, rel_error):
    rng = np.random.default_rng(1)
    n_features = 9
    rows = []
    for k in range(5):
        nnz = rng.integers(1, 6)
        rows.append((rng.integers(0, n_features, nnz), rng.normal(size=nnz)))   # repeats too
    rows.append(([], []))                                 # a terminal leaf: constant score
    ptr, idx, val = _csr(rows)
    const = np.zeros(len(rows))
    const[-1] = 0.07

    def scores(theta):
        return np.array([theta[idx[ptr[k]:ptr[k + 1]]] @ val[ptr[k]:ptr[k + 1]]
                         for k in range(len(rows))]) + const

    theta = rng.normal(size=n_features) * 0.05
    for t in (0.05, 0.3):
        for chosen in range(len(rows)):
            analytic = pg.log_policy_gradient(chosen, scores(theta), ptr, idx, val, t, n_features)
            numeric = numeric_gradient(lambda th: pg.log_policy(scores(th), t)[chosen], theta,
                                       1e-6)
            assert rel_error(analytic, numeric) < 1e-7


def test_eq7_by_hand_on_a_two_move_bandit():
    # phi_0 = e0, phi_1 = e1, theta = 0, T = 0.5: pi = (1/2, 1/2), grad log pi(a_0) = 2 (e0/2 - e1/2)
    g = pg.log_policy_gradient(0, [0.0, 0.0], [0, 1, 2], [0, 1], [1.0, 1.0], 0.5, 2)
    assert g.tolist() == [1.0, -1.0]


def test_returns_baselines_and_estimator_by_hand():
    G = np.array([[1.0, -1.0], [2.0, 0.5]])
    rewards, lengths = np.array([1.0, -1.0]), np.array([1, 2])
    R = pg.episode_returns(rewards, lengths, gamma=0.5)
    assert R.tolist() == [1.0, -0.5]                      # gamma^(T_m - 1) r_m
    # b_i = sum R g_i^2 / sum g_i^2: (1 - 0.5*4)/5 and (1 - 0.5*0.25)/1.25
    np.testing.assert_allclose(pg.optimal_baseline(G, R, "component"), [-0.2, 0.7], rtol=1e-14)
    np.testing.assert_allclose(pg.optimal_baseline(G, R, "norm"), [-0.02, -0.02], rtol=1e-13)
    np.testing.assert_allclose(pg.optimal_baseline(G, R, "mean"), [0.25, 0.25])
    # (1/M) sum (R - b) g
    np.testing.assert_allclose(pg.policy_gradient_estimate(G, R, "component"), [0.3, -0.45],
                               rtol=1e-14)
    np.testing.assert_allclose(pg.policy_gradient_estimate(G, R, "norm"), [0.03, -0.63],
                               rtol=1e-12)
    np.testing.assert_allclose(pg.policy_gradient_estimate(G, R, "none"), [0.0, -0.625])
    theta = pg.reinforce_step([1.0, 1.0], G, rewards, lengths, alpha=0.1, gamma=0.5)
    np.testing.assert_allclose(theta, [1.03, 0.955], rtol=1e-14)
    # two agents sharing theta: both steps add up
    both = pg.self_play_update([1.0, 1.0], [(G, rewards, lengths), (-G, rewards, lengths)],
                               alpha=0.1, gamma=0.5)
    np.testing.assert_allclose(both, [1.0, 1.0], atol=1e-15)


def test_a_component_nobody_touched_gets_a_zero_step():
    G = np.array([[1.0, 0.0], [-1.0, 0.0]])
    R = np.array([1.0, 0.0])
    assert pg.optimal_baseline(G, R)[1] == 0.0
    assert pg.policy_gradient_estimate(G, R)[1] == 0.0


# --------------------------------------------------------------------------- the baseline
# A two-decision episode: in state 1 choose among 3 moves, then in state 2 among 3 moves, by
# the softmax policy; the reward depends on both choices. Every episode and its probability are
# enumerated, so the variance of one episode's estimate (R - b) g_i is known exactly.
PHI = [np.array([[1.0, 0.0, 0.5, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0]]),
       np.array([[0.0, 0.0, 0.0, 1.0], [1.0, -1.0, 0.0, 0.0], [0.5, 0.0, 0.0, 0.2]])]
THETA = np.array([0.03, -0.02, 0.05, 0.01])
TEMP = 0.05
REWARD = np.array([[1.0, -1.0, 0.3], [2.0, 0.0, -0.5], [-1.0, 1.5, 0.8]])


def _episodes():
    """All (probability, g, R) of the synthetic game."""
    out = []
    policies = [softmax_policy(phi @ THETA, TEMP) for phi in PHI]
    for a, b in itertools.product(range(3), range(3)):
        g = np.zeros(4)
        for phi, pi, k in zip(PHI, policies, (a, b)):
            g += (phi[k] - pi @ phi) / TEMP               # eq. (7), summed as eq. (3)
        out.append((policies[0][a] * policies[1][b], g, REWARD[a, b]))
    return out


def test_component_baseline_minimises_each_components_exact_variance():
    eps = _episodes()
    p = np.array([e[0] for e in eps])
    G = np.array([e[1] for e in eps])
    R = np.array([e[2] for e in eps])
    grad_j = (p * R) @ G                                   # exact policy gradient

    def variance(i, b):                                    # Var[(R - b) g_i]
        return p @ ((R - b) ** 2 * G[:, i] ** 2) - grad_j[i] ** 2

    # Weighting an episode by w in sum R g^2 / sum g^2 is scaling its g by sqrt(w): feed the
    # population to optimal_baseline that way.
    b_star = pg.optimal_baseline(np.sqrt(p)[:, None] * G, R, "component")
    for i in range(4):
        grid = np.linspace(-3, 3, 6001)
        best = grid[np.argmin([variance(i, b) for b in grid])]
        assert abs(best - b_star[i]) <= 1e-3
        assert variance(i, b_star[i]) <= min(variance(i, 0.0), variance(i, p @ R)) + 1e-15
    # the scalar form minimises the trace of the covariance instead
    b_norm = pg.optimal_baseline(np.sqrt(p)[:, None] * G, R, "norm")[0]
    trace = lambda b: sum(variance(i, b) for i in range(4))
    grid = np.linspace(-3, 3, 6001)
    assert abs(grid[np.argmin([trace(b) for b in grid])] - b_norm) <= 1e-3
    assert sum(variance(i, b_star[i]) for i in range(4)) <= trace(b_norm) + 1e-15


def test_batch_estimates_with_b_star_vary_least():
    eps = _episodes()
    p = np.array([e[0] for e in eps])
    G = np.array([e[1] for e in eps])
    R = np.array([e[2] for e in eps])
    rng = np.random.default_rng(7)
    estimates = {k: [] for k in pg.BASELINES}
    for _ in range(1500):
        pick = rng.choice(len(eps), size=100, p=p)
        for kind in pg.BASELINES:
            estimates[kind].append(pg.policy_gradient_estimate(G[pick], R[pick], kind))
    total = {k: np.var(np.array(v), axis=0).sum() for k, v in estimates.items()}
    assert total["component"] < total["none"] and total["component"] < total["mean"]
    assert total["component"] <= total["norm"] * 1.02
    truth = (p * R) @ G
    bias = np.linalg.norm(np.mean(estimates["component"], axis=0) - truth)
    assert bias < 0.05 * np.linalg.norm(truth)            # b* from the same batch: tiny bias


@pytest.mark.parametrize("call, message", [
    (lambda: softmax_policy([], 0.05), "non-empty"),
    (lambda: softmax_policy([0.1, np.nan], 0.05), "finite"),
    (lambda: softmax_policy([0.1], 0.0), "temperature"),
    (lambda: pg.log_policy_gradient(2, [0.0, 0.0], [0, 1, 2], [0, 1], [1.0, 1.0], 0.5, 2),
     "chosen"),
    (lambda: pg.log_policy_gradient(0, [0.0, 0.0], [0, 1], [0], [1.0], 0.5, 2), "leaf_ptr"),
    (lambda: pg.log_policy_gradient(0, [0.0, 0.0], [0, 1, 2], [0, 5], [1.0, 1.0], 0.5, 2),
     "outside"),
    (lambda: pg.optimal_baseline(np.eye(2), [1.0, 0.0], "best"), "unknown baseline"),
    (lambda: pg.optimal_baseline(np.eye(2), [1.0], "component"), "one entry per episode"),
    (lambda: pg.episode_returns([1.0], [0]), "lengths"),
    (lambda: pg.episode_returns([1.0], [1], gamma=1.5), "gamma"),
    (lambda: pg.reinforce_step(np.zeros(3), np.eye(2), [1, 0], [1, 1], alpha=0.1), "theta"),
    (lambda: pg.reinforce_step(np.zeros(2), np.eye(2), [1, 0], [1, 1], alpha=-1), "alpha"),
])
def test_bad_input_is_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_sampling_by_inversion():
    probs = np.array([0.2, 0.5, 0.3])
    assert [pg.sample_index(probs, u) for u in (0.0, 0.19, 0.2, 0.69, 0.7, 0.999)] == \
        [0, 0, 1, 1, 2, 2]
    rng = np.random.default_rng(0)
    counts = np.bincount([pg.sample_index(probs, u) for u in rng.random(20000)], minlength=3)
    assert np.all(np.abs(counts / 20000 - probs) < 0.015)
    assert not math.isnan(softmax_policy([0.0], 1.0)[0])


_NORM_PROBE = """
import numpy as np
from gamelib.learn import policy_gradient as pg
rng = np.random.default_rng(7)
G = rng.normal(size=(100, 300)) * (rng.random((100, 300)) < 0.2) * 10 ** rng.uniform(-3, 2, (100, 1))
R = rng.normal(size=100)
print(pg.optimal_baseline(G, R, "norm")[0].hex())
"""


def test_norm_baseline_is_summed_in_index_order_the_same_on_every_blas_kernel():
    """The "norm" baseline's sums are taken in index order (a Python loop gives the same bits),
    not by BLAS or SIMD kernels that the CPU picks: OpenBLAS's dot product gives other last bits
    with its Nehalem, Sandybridge or Haswell kernels, the baseline must not."""
    rng = np.random.default_rng(7)
    G = rng.normal(size=(100, 300)) * (rng.random((100, 300)) < 0.2) * 10 ** rng.uniform(-3, 2, (100, 1))
    R = rng.normal(size=100)
    num = den = 0.0
    for e in range(100):
        w = 0.0
        for i in range(300):
            w += float(G[e, i]) * float(G[e, i])
        num += float(R[e]) * w
        den += w
    assert pg.optimal_baseline(G, R, "norm")[0] == num / den
    outputs = set()
    for core in ("Nehalem", "Sandybridge", "Haswell"):
        proc = subprocess.run([sys.executable, "-c", _NORM_PROBE], capture_output=True, text=True,
                              env={**os.environ, "OPENBLAS_CORETYPE": core})
        assert proc.returncode == 0, proc.stderr
        outputs.add(proc.stdout.strip())
    assert outputs == {(num / den).hex()}


def test_sparse_rows_give_the_dense_sums_to_the_last_bit():
    """Eqs. (1)-(2) over EpisodeScores (the non-zero entries only) give, bit for bit, the sums
    of a dense loop over every feature and episode in order -- zeros (+0.0 and -0.0) included,
    negative returns too -- whether the rows come from a dense G or from (indices, values)
    pairs in any order; bad rows are refused."""
    rng = np.random.default_rng(3)
    m, n = 12, 40
    G = rng.normal(size=(m, n)) * (rng.random((m, n)) < 0.3)
    G[2, 5] = -0.0
    G[4] = 0.0                                            # an episode without any score
    R = rng.normal(size=m)

    def dense(G, R):
        b = []
        for i in range(n):
            num = den = 0.0
            for e in range(m):
                g2 = float(G[e, i]) * float(G[e, i])
                num += float(R[e]) * g2
                den += g2
            b.append(num / den if den > 0.0 else 0.0)
        est = []
        for i in range(n):
            acc = 0.0
            for e in range(m):
                acc += (float(R[e]) - b[i]) * float(G[e, i])
            est.append(acc / m)
        return np.array(b), np.array(est)

    b_ref, est_ref = dense(G, R)
    rows = []
    for e in range(m):
        cols = np.flatnonzero(G[e])[::-1]                 # descending: from_rows sorts
        rows.append((cols, G[e, cols]))
    for scores in (G, pg.EpisodeScores.from_dense(G), pg.EpisodeScores.from_rows(rows, n)):
        assert pg.optimal_baseline(scores, R, "component").tobytes() == b_ref.tobytes()
        assert pg.policy_gradient_estimate(scores, R).tobytes() == est_ref.tobytes()
    with pytest.raises(ValueError, match="distinct"):
        pg.EpisodeScores.from_rows([(np.array([3, 3]), np.array([1.0, 2.0]))], n)
    with pytest.raises(ValueError, match=r"in \[0, 40\)"):
        pg.EpisodeScores.from_rows([(np.array([40]), np.array([1.0]))], n)
    with pytest.raises(ValueError, match="one length"):
        pg.EpisodeScores.from_rows([(np.array([1, 2]), np.array([1.0]))], n)
