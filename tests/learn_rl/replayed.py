"""What a replayed self-play game says the learners should have computed, for any game.

A replay is a list of steps ``(side, k, scores, ptr, idx, val)``: the side to move, the index of
the move played among the root moves, every root move's principal-leaf score, and the leaves'
sparse features in CSR form (``ptr``, ``idx``, ``val``), as
:func:`gamelib.algorithms.leaves.root_leaves_into` gives them.
"""

import numpy as np

from gamelib.learn import policy_gradient as pg
from gamelib.learn import td


def check_pg_record(rec, steps, temperature, n_features):
    """The record's g(m) (eq. 3) per side equals the sum of the log-policy gradients of the
    moves played, and its move counts are the replay's; returns the gradients."""
    g = np.zeros((2, n_features))
    for side, k, scores, ptr, idx, val in steps:
        g[side] += pg.log_policy_gradient(k, scores, ptr, idx, val, temperature, n_features)
    for side in range(2):
        dense = np.zeros(n_features)
        dense[rec.g_idx[side]] = rec.g_val[side]
        np.testing.assert_allclose(dense, g[side], rtol=1e-9, atol=1e-9)
        assert rec.n_moves[side] == sum(1 for st in steps if st[0] == side)
    assert np.abs(g).max() > 0
    return g


def expected_td_update(theta, steps, rewards, settings):
    """θ after the TD(λ) self-play update of :func:`gamelib.learn.td.td_self_play_update` over
    the replay: per side the values and leaf features of the moves it played and its reward."""
    agents = []
    for side in range(2):
        values, rows = [], []
        for sd, k, scores, ptr, idx, val in steps:
            if sd == side:
                values.append(scores[k])
                rows.append((idx[ptr[k]:ptr[k + 1]], val[ptr[k]:ptr[k + 1]]))
        offsets = np.cumsum([0] + [len(r[0]) for r in rows])
        agents.append((values, offsets, np.concatenate([r[0] for r in rows]),
                       np.concatenate([r[1] for r in rows]), rewards[side]))
    return td.td_self_play_update(theta, agents, alpha=settings.alpha, lam=settings.lam,
                                  beta=settings.beta)
