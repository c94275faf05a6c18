"""The Bonanza learner on Othello over the game protocol: the searched PV leaves, the gradient
through the search, the scale constraint, a learner that makes the expert's moves best, and θ
independent of the chunks and the workers."""

import math

import numpy as np
import pytest

from gamelib.algorithms import leaves as lv
from gamelib.algorithms.alphabeta import new_workspace
from gamelib.games.othello import features as F
from gamelib.games import registry
from gamelib.learn import bonanza as bz
from gamelib.learn import bonanza_othello as bo
from gamelib.learn import bonanza_search as bsr
from gamelib.learn import bonanza_steps as bst
from gamelib.learn import central_difference_gradient, gradient_relative_error
from gamelib.learn.bonanza_positions import ExpertPositions
from gamelib.games.othello.features import CLASSIC_WEIGHTS
from gamelib.runtime.executor import Executor


G = registry.get("othello")
DEPTH1 = bsr.SearchSettings(depth=1, qdepth=0)


@pytest.fixture(scope="module")
def positions(random_games):
    return ExpertPositions("othello", random_games(4, 7))


@pytest.fixture(scope="module")
def theta():
    return G.initial_theta(2, 0.005)


def family_slices():
    ends = list(F._WEIGHT_OFF) + [F.N_PATTERN_WEIGHTS]
    return {name: slice(ends[f], ends[f + 1]) for f, name in enumerate(F.FAMILIES)}


def test_units():
    # a disc on an average square of the classic weights is Bonanza's pawn (100 units)
    assert bo.SLOPE == 175.0 and math.isclose(bo.WINDOW, 0.04)
    assert math.isclose(bo.SLOPE * bo.DISC, bz.BONANZA_SLOPE * 100, rel_tol=1e-15)
    w = np.abs(CLASSIC_WEIGHTS)
    assert math.isclose(w.mean() / w.sum(), bo.DISC)


def test_search_gives_every_move_with_eq5(positions, theta):
    ids = np.arange(0, len(positions), 3)
    for settings in (DEPTH1, bsr.SearchSettings(depth=2, qdepth=0)):
        cache = bsr.search_positions(theta, positions, ids, settings, chunk_size=4)
        assert np.array_equal(cache.ids, ids) and cache.idx.dtype == np.int32
        cs = cache.comparison_set()
        assert np.allclose(cs.values(theta), cache.scores, rtol=0, atol=1e-12)   # ξ = v·φ + b
        ws, out = new_workspace(G, 0), lv.new_leaves_buffers(G)
        for r in (0, len(ids) // 2, len(ids) - 1):
            s = positions.state(ids[r])
            n = lv.kernels(G).root_leaves_into(s, theta, 1, settings.depth, 0, 0, ws, out)
            a, b = cache.move_ptr[r], cache.move_ptr[r + 1]
            assert b - a == n and np.array_equal(out[1][:n], cache.scores[a:b])
            assert out[0][cache.expert[r]] == positions.expert_move(ids[r])


def test_a_whole_table_shifted_changes_no_difference(positions, theta):
    """The flat directions of J the scale constraint must not touch (bonanza_othello's doc)."""
    ids = np.arange(len(positions))
    j0, g, _, _ = bsr.chunk_sums(theta, positions, ids, DEPTH1, slope=bo.SLOPE)
    idx, c = bo.classic_direction()
    dense_c = np.zeros(G.N_FEATURES)
    dense_c[idx] = c
    for name, part in family_slices().items():
        assert abs(g[part].sum()) < 1e-9 * np.abs(g).sum()          # ∂J along the shift: 0
        assert abs(dense_c[part].sum()) < 1e-12                      # c is orthogonal to it
        shifted = theta.copy()
        shifted[part] += 0.3
        j1 = bsr.chunk_sums(shifted, positions, ids, DEPTH1, slope=bo.SLOPE, want_grad=False)[0]
        assert math.isclose(j0, j1, rel_tol=1e-9), name


@pytest.mark.parametrize("settings", [DEPTH1, bsr.SearchSettings(depth=2, qdepth=0)])
def test_gradient_through_the_search_matches_finite_differences(positions, theta, settings):
    ids = np.arange(0, min(40, len(positions)))
    j, g, _, n = bsr.chunk_sums(theta, positions, ids, settings, slope=bo.SLOPE)
    assert n == ids.size
    coords = np.flatnonzero(g)[::max(1, np.count_nonzero(g) // 25)]

    def f(x):
        v = theta.copy()
        v[coords] = x
        return bsr.chunk_sums(v, positions, ids, settings, slope=bo.SLOPE, want_grad=False)[0]

    fd = central_difference_gradient(f, theta[coords], 1e-7)
    assert gradient_relative_error(g[coords], fd) < 1e-6


def worst_move_positions(random_games, theta, n_positions=6, seed=11):
    """Hand-made records: positions of random games, each with the move the evaluation ranks
    lowest as the expert's."""
    rng = np.random.default_rng(seed)
    starts, moves = [], []
    ws, out = new_workspace(G, 0), lv.new_leaves_buffers(G)
    for game in random_games(n_positions, seed):
        s = G.start(0)
        for m in game[:int(rng.integers(4, 30))]:
            G.make_move(s, np.int64(m))
        n = lv.kernels(G).root_leaves_into(s, theta, 1, 1, 0, 0, ws, out)
        if n < 2:
            continue
        starts.append(s.copy())
        moves.append([int(out[0][np.argmin(out[1][:n])])])
    return ExpertPositions("othello", moves, starts)


def test_learning_makes_the_experts_moves_best_and_keeps_the_scale(random_games, theta):
    pos = worst_move_positions(random_games, theta)
    train = np.arange(len(pos))
    con = bo.scale_constraint(theta)
    before = bsr.evaluate(theta, pos, train, DEPTH1, slope=bo.SLOPE)
    assert before["agreement"] == 0.0 and len(pos) >= 4
    st = bst.BonanzaSettings(learning_rate=1e-3, search=DEPTH1)
    v = theta
    for t in range(0, 20, 5):
        v, counts = bst.learn_steps(v, pos, train, st, t, 5, 0, slope=bo.SLOPE, constraint=con)
        assert abs(con.violation(v)) < 1e-9 and math.isclose(bo.classic_component(v), 1.0)
    after = bsr.evaluate(v, pos, train, DEPTH1, slope=bo.SLOPE)
    assert after["agreement"] == 1.0
    assert after["J_per_position"] < 0.5 * before["J_per_position"]
    assert counts["positions_searched"] == 5 * len(pos)


@pytest.mark.parametrize("update, lr", [("gradient", 1e-3), ("sign", 1e-4)])
def test_steps_keep_the_scale_constraint(positions, theta, update, lr):
    train = np.arange(len(positions))
    con = bo.constraint_of("classic", theta)
    st = bst.BonanzaSettings(batch_size=32, learning_rate=lr, update=update, search=DEPTH1,
                             l1_weight=1e-3 if update == "gradient" else 0.0,
                             l1_step="proximal" if update == "gradient" else "subgradient")
    v, _ = bst.learn_steps(theta, positions, train, st, 0, 6, 1, slope=bo.SLOPE, constraint=con)
    assert abs(con.violation(v)) < 1e-9 * con.total
    assert math.isclose(bo.classic_component(v), 1.0, rel_tol=1e-12)
    assert not np.array_equal(v, theta)
    free, _ = bst.learn_steps(theta, positions, train, st, 0, 6, 1, slope=bo.SLOPE)
    assert abs(bo.classic_component(free) - 1.0) > 1e-9      # without it the scale moves
    assert bo.constraint_of("none", theta) is None
    with pytest.raises(ValueError, match="unknown constraint"):
        bo.constraint_of("pieces", theta)


def test_theta_does_not_depend_on_chunks_or_workers(positions, theta):
    train = np.arange(len(positions))
    con = bo.scale_constraint(theta)
    runs = []
    for k in (1, 2):
        for chunk_size, map_fn in ((1, None), (7, None), (64, lambda f, xs: list(map(f, xs)))):
            st = bst.BonanzaSettings(batch_size=24, refresh_every=k, learning_rate=1e-3,
                                     search=DEPTH1, chunk_size=chunk_size)
            runs.append(bst.learn_steps(theta, positions, train, st, 0, 4, 5, slope=bo.SLOPE,
                                        constraint=con, map_fn=map_fn))
        st = bst.BonanzaSettings(batch_size=24, refresh_every=k, learning_rate=1e-3,
                                 search=DEPTH1, chunk_size=5)
        with Executor(2) as ex:
            runs.append(bst.learn_steps(theta, positions, train, st, 0, 4, 5, slope=bo.SLOPE,
                                        constraint=con, map_fn=ex.map))
        for v, counts in runs[-4:]:
            assert np.array_equal(v, runs[-4][0]) and counts == runs[-4][1]
    # a cached refresh's first step is the fresh search's step
    fresh = bst.BonanzaSettings(batch_size=24, learning_rate=1e-3, search=DEPTH1)
    cached = bst.BonanzaSettings(batch_size=24, refresh_every=3, learning_rate=1e-3, search=DEPTH1)
    a, _ = bst.learn_steps(theta, positions, train, fresh, 0, 1, 5, slope=bo.SLOPE, constraint=con)
    b, _ = bst.learn_steps(theta, positions, train, cached, 0, 1, 5, slope=bo.SLOPE, constraint=con)
    assert np.array_equal(a, b)
    other, _ = bst.learn_steps(theta, positions, train, fresh, 0, 1, 6, slope=bo.SLOPE,
                               constraint=con)
    assert not np.array_equal(a, other)                        # the seed chooses the batches


def test_bad_input_is_named(positions, theta):
    train = np.arange(len(positions))
    st = bst.BonanzaSettings(search=DEPTH1)
    with pytest.raises(ValueError, match="54848"):
        bst.learn_steps(theta[:-1], positions, train, st, 0, 1, 0, slope=bo.SLOPE)
    with pytest.raises(ValueError, match="slope"):
        bsr.chunk_sums(theta, positions, train, DEPTH1, slope=0.0)
    with pytest.raises(ValueError, match="position id outside"):
        bsr.chunk_sums(theta, positions, [len(positions)], DEPTH1, slope=bo.SLOPE)
    with pytest.raises(ValueError, match="unknown reduction"):
        bsr.chunk_sums(theta, positions, train, DEPTH1, slope=bo.SLOPE, reduction="tree")
    with pytest.raises(ValueError, match="ExpertPositions"):
        bsr.search_positions(theta, list(train))
    with pytest.raises(ValueError, match="no training positions"):
        bst.learn_steps(theta, positions, [], st, 0, 1, 0, slope=bo.SLOPE)
    with pytest.raises(ValueError, match="theta0 must have"):
        bo.scale_constraint(theta[:10])


@pytest.mark.parametrize("kwargs, message", [
    ({"batch_size": 0}, "batch_size"), ({"refresh_every": 0}, "refresh_every"),
    ({"learning_rate": 0}, "learning_rate"), ({"update": "adam"}, "unknown update"),
    ({"l1_weight": -1}, "l1_weight"), ({"window": 0.0}, "window"),
    ({"update": "sign", "l1_step": "proximal"}, "needs update='gradient'"),
    ({"search": {"depth": 1}}, "SearchSettings"),
])
def test_settings_are_checked(kwargs, message):
    with pytest.raises(ValueError, match=message):
        bst.BonanzaSettings(**kwargs)


def test_settings_round_trip():
    st = bst.BonanzaSettings(batch_size=8, search=bsr.SearchSettings(2, 0, 100))
    assert bst.BonanzaSettings.from_dict(st.as_dict()) == st
    assert st.steps_per_epoch(20) == 3 and bst.BonanzaSettings().steps_per_epoch(20) == 1
