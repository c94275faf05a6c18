"""Self-play games: replaying a recorded game through the Python API gives the same g(m), the
same TD update and the same rewards; the moves follow the softmax policy; seeds decide games."""

import numpy as np
import pytest

from gamelib.play.games import softmax_policy
from gamelib.games.minishogi import features as ev
from gamelib.learn import learners, selfplay as sp
from gamelib.learn import pg_selfplay as pg, td_selfplay as tds
from gamelib.games.minishogi import core
from gamelib.search import root_leaves

from replayed import check_pg_record, expected_td_update


@pytest.fixture(scope="module")
def theta():
    return ev.initial_theta(5, 0.01)          # larger noise: every feature matters


def _replay(theta, settings, moves):
    """Walk a recorded game with root_leaves; per side the chosen rows and the policies."""
    s = sp.start_state(settings.max_plies, settings.qdepth)
    buf = np.empty(core.MAX_MOVES, dtype=np.int32)
    steps = []
    for m in moves:
        assert core.game_result(s, buf, 0, settings.max_plies) == core.RESULT_NONE
        rl = root_leaves(s, theta, ev.EVAL_LINEAR, 1, settings.qdepth,
                         max_plies=settings.max_plies)
        k = int(np.flatnonzero(rl.moves == m)[0])
        steps.append((int(s[core.STM]), k, rl.scores, rl.leaf_ptr, rl.leaf_idx, rl.leaf_val))
        core.make_move(s, int(m))
    result = core.game_result(s, buf, 0, settings.max_plies)
    assert result != core.RESULT_NONE
    return s, result, steps


@pytest.mark.parametrize("algorithm, reward", [("pgleaf", "non_mdp"), ("reinforce", "mdp")])
def test_policy_gradient_game_replays_to_the_same_scores(theta, algorithm, reward):
    settings = learners.settings(algorithm, reward, max_plies=80)
    for seed in (11, 12):
        rec = pg.play_pg_games(theta, settings, [seed])[0]
        s, result, steps = _replay(theta, settings, rec.moves)
        assert result == rec.result and rec.plies == len(rec.moves)
        assert rec.rewards.tolist() == list(sp.game_rewards(s, result, reward))
        check_pg_record(rec, steps, settings.temperature, ev.N_FEATURES)


@pytest.mark.parametrize("algorithm, reward", [("tdleaf", "mdp"), ("td", "non_mdp")])
def test_td_game_replays_to_the_same_update(theta, algorithm, reward):
    settings = learners.settings(algorithm, reward, max_plies=80)
    new, (rec,) = tds.play_td_games(theta, settings, [21])
    s, result, steps = _replay(theta, settings, rec.moves)
    assert result == rec.result
    rewards = sp.game_rewards(s, result, reward)
    assert rec.rewards.tolist() == list(rewards)
    expected = expected_td_update(theta, steps, rewards, settings)
    np.testing.assert_allclose(new, expected, rtol=1e-12, atol=1e-15)
    assert np.abs(new - theta).max() > 0


def test_first_moves_follow_the_softmax_policy(theta):
    settings = learners.settings("pgleaf", max_plies=1)          # games end after one ply
    recs = pg.play_pg_games(theta, settings, np.arange(3000))
    rl = root_leaves(sp.start_state(1, 4), theta, ev.EVAL_LINEAR, 1, 4, max_plies=1)
    probs = softmax_policy(rl.scores, settings.temperature)
    first = np.array([r.moves[0] for r in recs])
    counts = np.array([(first == m).sum() for m in rl.moves])
    assert counts.sum() == 3000 and all(r.result == core.RESULT_DRAW for r in recs)
    expected = 3000 * probs
    chi2 = np.sum((counts - expected) ** 2 / expected)
    assert chi2 < 36.1, (counts, expected)              # 99.9% quantile, 13 degrees of freedom


def test_seeds_decide_the_games(theta):
    settings = learners.settings("reinforce", max_plies=60)
    a = pg.play_pg_games(theta, settings, [1, 2, 3])
    b = pg.play_pg_games(theta, settings, [3, 1])
    assert np.array_equal(a[2].moves, b[0].moves) and np.array_equal(a[0].moves, b[1].moves)
    assert not np.array_equal(a[0].moves, a[1].moves)
    with pytest.raises(ValueError, match="seeds must be"):
        pg.play_pg_games(theta, settings, [2 ** 32])
    with pytest.raises(ValueError, match="theta"):
        pg.play_pg_games(theta[:5], settings, [1])


def test_settings_defaults_and_bad_values():
    s = learners.settings("tdleaf")
    assert (s.alpha, s.gamma, s.temperature, s.lam, s.beta, s.qdepth) == (0.001, 1.0, 0.03, 0.7, 1.0, 4)
    s = learners.settings("pgleaf")
    assert (s.temperature, s.qdepth, s.M, s.baseline) == (0.05, 4, 100, "component") and s.searches
    assert isinstance(s, pg.Settings) and isinstance(learners.settings("td"), tds.Settings)
    assert learners.settings("reinforce").temperature == 0.05
    assert learners.settings("td").qdepth == 0 and not learners.settings("td").searches
    for kw, msg in [({"algorithm": "sarsa"}, "unknown algorithm"),
                    ({"algorithm": "td", "reward": "dense"}, "unknown reward"),
                    ({"algorithm": "td", "alpha": 0}, "alpha"),
                    ({"algorithm": "td", "alpha": float("inf")}, "alpha"),
                    ({"algorithm": "td", "lam": 1.5}, "lam"),
                    ({"algorithm": "td", "M": 5}, "unknown setting.*M of TD"),
                    ({"algorithm": "pgleaf", "lam": 0.5}, "unknown setting.*lam of PGLeaf"),
                    ({"algorithm": "pgleaf", "baseline": "best"}, "unknown baseline"),
                    ({"algorithm": "pgleaf", "M": 0}, "M must be")]:
        with pytest.raises(ValueError, match=msg):
            learners.settings(**kw)
    with pytest.raises(ValueError, match="unknown algorithm 'td' for gamelib.learn.pg_selfplay"):
        pg.Settings("td")                   # a family's settings know their learners
    with pytest.raises(ValueError, match="policy-gradient learner's settings"):
        pg.play_pg_games(ev.initial_theta(0), learners.settings("td"), [1])


def test_mirror_replies_count_gote_copying_sente():
    from gamelib.games.minishogi import Position

    pos = Position()
    # 2e4c 4a2c (a mirror reply) 4e3d 2a3b (mirror) 3d2c 3b2c (a recapture, not a mirror)
    for usi in ("2e4c", "4a2c", "4e3d", "2a3b", "3d2c", "3b2c"):
        pos.push_usi(usi)
    moves = pos.state[core.HIST + 2:core.HIST + core.HIST_STRIDE * 6:core.HIST_STRIDE]
    assert sp.mirror_replies(moves) == 2
    assert sp.mirror_replies(moves[:3]) == 1
    assert sp.mirror_replies(moves[:1]) == 0 and sp.mirror_replies([]) == 0
    with pytest.raises(ValueError, match="max_plies"):
        sp.mirror_replies(moves, max_plies=3)


@pytest.mark.parametrize("algorithm", ["td", "pgleaf"])
def test_learn_tempo_false_keeps_the_tempo_weight(theta, algorithm):
    k = ev.TEMPO_INDEX
    start = theta.copy()
    start[k] = 0.0
    out = {}
    for learn in (True, False):
        settings = learners.settings(algorithm, max_plies=60, learn_tempo=learn)
        if isinstance(settings, pg.Settings):
            out[learn] = pg.pg_update(start, pg.play_pg_games(start, settings, [1, 2, 3]), settings)
        else:
            out[learn] = tds.play_td_games(start, settings, [1, 2, 3])[0]
    assert out[False][k] == 0.0 and out[True][k] != 0.0
    # the other weights move as if the tempo weight were learned (for TD, until it first moves)
    assert np.abs(out[False] - start).max() > 0
    if algorithm == "pgleaf":
        mask = np.arange(ev.N_FEATURES) != k
        np.testing.assert_array_equal(out[False][mask], out[True][mask])
    with pytest.raises(ValueError, match="learn_tempo"):
        learners.settings("td", learn_tempo="no")


@pytest.mark.parametrize("algorithm", ["tdleaf", "pgleaf"])
def test_tie_sides_keeps_the_evaluation_antisymmetric(algorithm):
    start = ev.initial_theta(4, 0.01)          # equal halves
    half = ev.OPP_OFFSET
    out = {}
    for tie in (False, True):
        settings = learners.settings(algorithm, max_plies=60, tie_sides=tie)
        if isinstance(settings, pg.Settings):     # seeds 1-8: sente wins one game (rewards must vary)
            out[tie] = pg.pg_update(start, pg.play_pg_games(start, settings, range(1, 9)), settings)
        else:
            out[tie] = tds.play_td_games(start, settings, [1, 2, 3])[0]
    assert np.array_equal(out[True][:half], out[True][half:2 * half])
    assert not np.array_equal(out[False][:half], out[False][half:2 * half])
    if algorithm == "pgleaf":
        # the tied weight takes the sum of the two halves' steps
        step = out[False] - start
        np.testing.assert_allclose(out[True][:half] - start[:half], step[:half] + step[half:2 * half],
                                   rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="equal halves"):
        tds.play_td_games(start + np.arange(ev.N_FEATURES) * 1e-9,
                         learners.settings("td", max_plies=60, tie_sides=True), [1])


@pytest.mark.parametrize("algorithm", ["tdleaf", "td"])
def test_policy_sharpness_is_the_softmax_of_the_games_played(theta, algorithm):
    """The measure, recomputed in numpy from a replay of the same games (the first game of a
    TD run is played with θ unchanged, so its moves are the ones policy_sharpness draws)."""
    settings = learners.settings(algorithm, max_plies=80, temperature=0.05)
    seeds = [31, 32, 33]
    chosen, fractions = [], []
    for seed in seeds:
        _, (rec,) = tds.play_td_games(theta, settings, [seed])
        _, _, steps = _replay(theta, settings, rec.moves)
        for _, k, scores, *_ in steps:
            z = (scores - scores.max()) / settings.temperature
            p = np.exp(z) / np.exp(z).sum()
            chosen.append(p[k])
            if p.size > 1:
                q = p[p > 0]
                fractions.append(-(q * np.log(q)).sum() / np.log(p.size))
    got = sp.policy_sharpness(theta, settings, seeds)
    assert got["moves"] == len(chosen) and got["positions"] == len(fractions)
    assert got["chosen_prob"] == pytest.approx(np.mean(chosen), rel=1e-12)
    assert got["entropy_fraction"] == pytest.approx(np.mean(fractions), rel=1e-12)
    assert 0.0 < got["entropy_fraction"] < 1.0


def test_policy_sharpness_of_a_hot_policy_is_uniform_and_of_a_cold_one_sharp(theta):
    hot = sp.policy_sharpness(theta, learners.settings("td", max_plies=80, temperature=1e6),
                              [1, 2])
    cold = sp.policy_sharpness(theta, learners.settings("td", max_plies=80, temperature=1e-4),
                               [1, 2])
    assert hot["entropy_fraction"] == pytest.approx(1.0, abs=1e-6) and hot["chosen_prob"] < 0.2
    assert cold["entropy_fraction"] < 0.05 and cold["chosen_prob"] > 0.95
