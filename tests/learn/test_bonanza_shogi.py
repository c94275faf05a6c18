"""The Bonanza learner on 5×5 shogi: searched PV leaves, the gradient through the search, the
batch/mini-batch steps with PV refreshes, the constraint and L1."""

import math

import numpy as np
import pytest

from gamelib.games.minishogi import features as E
from gamelib.learn import bonanza as bz
from gamelib.learn import bonanza_shogi as bs
from gamelib.learn import central_difference_gradient, gradient_relative_error
from gamelib.games.minishogi.records import replay
from gamelib.play.expert_games import ExpertSettings, expert_game, expert_games
from gamelib.search import root_leaves


@pytest.fixture(scope="module")
def positions():
    games = expert_games(5, 11, ExpertSettings(node_budget=300, opening_plies=2))
    return bs.RecordPositions(games)


@pytest.fixture(scope="module")
def theta():
    return E.initial_theta(3, 0.002)


def test_units():
    # a pawn (0.02 here, 100 in Bonanza's units) gives Bonanza's T(100) = sigmoid(2.734)
    assert math.isclose(bs.SLOPE * 0.02, bz.BONANZA_SLOPE * 100, rel_tol=1e-12)
    assert math.isclose(bs.WINDOW, 0.0512)
    assert math.isclose(bz.t_loss(0.02, slope=bs.SLOPE), 1 / (1 + math.exp(-0.02734375 * 100)))


def test_expert_game_records_start_after_the_opening():
    st = ExpertSettings(node_budget=200, opening_plies=3)
    g = expert_game(st, 7)
    assert g == expert_game(st, 7)
    full_moves = int(g.start_sfen.split()[3]) - 1
    assert full_moves == 3
    replay(g.start_sfen, g.moves)       # legal
    assert "node budget 200" in st.describe()
    with pytest.raises(ValueError, match="node_budget"):
        ExpertSettings(node_budget=0)


def test_record_positions(positions):
    assert len(positions) > 40
    buf = np.empty(256, dtype=np.int32)
    from gamelib.games.minishogi import core
    for i in range(0, len(positions), 7):
        g, p = positions.game[i], positions.ply[i]
        rec = positions.games[g]
        s, _ = replay(rec.start_sfen, rec.moves[:p])
        assert core.gen_moves(s, buf, 0, False) > 1        # forced positions are left out
        assert int(s[core.HASH]) == positions.key[i]
    assert np.all(np.diff(positions.game * 1000 + positions.ply) > 0)


def test_search_matches_root_leaves_and_eq5(positions, theta):
    ids = np.arange(0, len(positions), 5)
    cache = bs.search_positions(theta, positions, ids, chunk_size=3)
    assert np.array_equal(cache.ids, ids)
    cs = cache.comparison_set()
    assert np.allclose(cs.values(theta), cache.scores, rtol=0, atol=1e-12)
    for r in (0, len(ids) // 2, len(ids) - 1):
        i = ids[r]
        rec = positions.games[positions.game[i]]
        s, codes = replay(rec.start_sfen, rec.moves[:positions.ply[i] + 1])
        from gamelib.games.minishogi import core
        core.unmake_move(s)
        rl = root_leaves(s, theta, E.EVAL_LINEAR, 1, 4)
        a, b = cache.move_ptr[r], cache.move_ptr[r + 1]
        assert np.array_equal(rl.scores, cache.scores[a:b])
        assert rl.moves[cache.expert[r]] == codes[-1]
        assert np.array_equal(rl.dense(E.N_FEATURES), cs.subset([r]).leaves.to_dense())


def test_gradient_through_the_search_matches_finite_differences(positions, theta):
    ids = np.arange(min(30, len(positions)))
    j, g, _, n = bs.chunk_sums(theta, positions, ids)
    assert n == ids.size
    coords = np.flatnonzero(g)[::max(1, np.count_nonzero(g) // 25)]

    def f(x):
        v = theta.copy()
        v[coords] = x
        return bs.chunk_sums(v, positions, ids, want_grad=False)[0]

    fd = central_difference_gradient(f, theta[coords], 1e-7)
    assert gradient_relative_error(g[coords], fd) < 1e-6


def test_sums_do_not_depend_on_chunks_or_map(positions, theta):
    ids = np.arange(len(positions))
    a = bs.chunk_sums(theta, positions, ids, chunk_size=10)
    b = bs.chunk_sums(theta, positions, ids, chunk_size=10,
                      map_fn=lambda f, xs: list(map(f, xs)))
    c = bs.chunk_sums(theta, positions, ids, chunk_size=1000)
    assert a[0] == b[0] and np.array_equal(a[1], b[1]) and a[2:] == b[2:]
    assert math.isclose(a[0], c[0], rel_tol=1e-12) and np.allclose(a[1], c[1], atol=1e-9)
    ev = bs.evaluate(theta, positions, ids)
    assert ev["n_positions"] == ids.size and math.isclose(ev["J_per_position"], a[0] / ids.size)
    assert ev["agreement"] == a[2] / ids.size
    cs = bs.search_positions(theta, positions, ids).comparison_set()
    assert math.isclose(bz.objective(theta, cs, slope=bs.SLOPE), a[0], rel_tol=1e-12)
    assert math.isclose(bz.move_agreement(theta, cs), ev["agreement"])


def test_step_batches_partition_each_epoch():
    st = bs.BonanzaSettings(batch_size=7)
    n = 30
    assert st.steps_per_epoch(n) == 5
    for epoch in range(2):
        parts = [bs.step_batch(epoch * 5 + j, n, st, 1) for j in range(5)]
        assert np.array_equal(np.sort(np.concatenate(parts)), np.arange(n))
    assert not np.array_equal(bs.step_batch(0, n, st, 1), bs.step_batch(5, n, st, 1))
    assert np.array_equal(bs.step_batch(3, n, bs.BonanzaSettings(), 1), np.arange(n))


def test_cached_refresh_equals_fresh_search_on_the_first_step(positions, theta):
    train = np.arange(len(positions))
    con = bs.constraint_of(bs.BonanzaSettings(), theta)
    fresh = bs.BonanzaSettings(learning_rate=1e-3, refresh_every=1)
    cached = bs.BonanzaSettings(learning_rate=1e-3, refresh_every=3)
    v1, c1 = bs.learn_steps(theta, positions, train, fresh, 0, 1, 0, constraint=con)
    v3, c3 = bs.learn_steps(theta, positions, train, cached, 0, 1, 0, constraint=con)
    assert np.allclose(v1, v3, rtol=0, atol=1e-15)
    assert c1["positions_searched"] == c3["positions_searched"] == train.size
    _, c = bs.learn_steps(theta, positions, train, cached, 0, 3, 0, constraint=con)
    assert c["positions_searched"] == train.size          # one refresh for three steps
    with pytest.raises(ValueError, match="multiple of refresh_every"):
        bs.learn_steps(theta, positions, train, cached, 1, 1, 0)


@pytest.mark.parametrize("constraint", ["hand", "material"])
def test_learning_lowers_j_and_keeps_the_constraint(positions, theta, constraint):
    train = np.arange(len(positions))
    st = bs.BonanzaSettings(batch_size=16, learning_rate=1e-4, constraint=constraint)
    con = bs.constraint_of(st, theta)
    before = bs.evaluate(theta, positions, train)
    v = theta
    spe = st.steps_per_epoch(train.size)
    for e in range(3):
        v, _ = bs.learn_steps(v, positions, train, st, e * spe, spe, 0, constraint=con)
    after = bs.evaluate(v, positions, train)
    assert after["J_per_position"] < 0.9 * before["J_per_position"]
    kept = bs.material_indices(constraint)
    assert math.isclose(v[kept].sum(), theta[kept].sum(), rel_tol=1e-12)
    mat = bs.material_indices()
    assert not np.allclose(v[mat], theta[mat])
    if constraint == "hand":     # the board piece values are free: the material sum moves
        assert not math.isclose(v[mat].sum(), theta[mat].sum(), rel_tol=1e-6)


def test_l1_zeroes_small_weights_and_hand_constraint(positions, theta):
    train = np.arange(len(positions))
    st = bs.BonanzaSettings(batch_size=16, learning_rate=1e-4, constraint="hand",
                            l1_weight=50.0, l1_step="proximal")
    con = bs.constraint_of(st, theta)
    assert np.array_equal(con.indices, bs.material_indices("hand"))
    v, _ = bs.learn_steps(theta, positions, train, st, 0, 2, 0, constraint=con)
    mat = bs.material_indices()
    rest = np.setdiff1d(np.arange(v.size), mat)     # R of eq. (11): the positional weights
    assert np.count_nonzero(v[rest]) < 0.5 * np.count_nonzero(theta[rest])
    assert np.count_nonzero(v[mat]) == mat.size      # board piece values: outside R, not zeroed
    assert np.all(np.abs(v[mat] - theta[mat]) < 0.05)
    assert math.isclose(v[con.indices].sum(), theta[con.indices].sum(), rel_tol=1e-12)
    assert bs.constraint_of(bs.BonanzaSettings(constraint="none"), theta) is None


@pytest.mark.parametrize("kwargs, message", [
    ({"batch_size": 0}, "batch_size"), ({"refresh_every": 0}, "refresh_every"),
    ({"learning_rate": 0}, "learning_rate"), ({"update": "adam"}, "unknown update"),
    ({"constraint": "pieces"}, "unknown constraint"), ({"l1_weight": -1}, "l1_weight"),
    ({"update": "sign", "l1_step": "proximal"}, "needs update='gradient'"),
    ({"search": {"depth": 1}}, "SearchSettings"),
])
def test_settings_are_checked(kwargs, message):
    with pytest.raises(ValueError, match=message):
        bs.BonanzaSettings(**kwargs)


def test_settings_round_trip():
    st = bs.BonanzaSettings(batch_size=8, search=bs.SearchSettings(2, 3, 100))
    assert bs.BonanzaSettings.from_dict(st.as_dict()) == st
    with pytest.raises(ValueError, match="qdepth"):
        bs.SearchSettings(qdepth=-1)


def test_material_table(theta):
    t = bs.material_table({"a": theta})
    assert list(t.index)[:2] == ["P on the board", "S on the board"] and len(t) == 14
    assert math.isclose(t.loc["R in hand", "a"], 10.0)
