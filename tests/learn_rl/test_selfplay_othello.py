"""The self-play learners, written once over the game protocol, on Othello (the linear evaluation
of gamelib.games.othello.features): a recorded game replayed through the generic principal
leaves (gamelib.algorithms.leaves) gives the same g(m) of eq. (3), the same TD(λ) update and the
rules' result with the MDP rewards; the moves are legal and follow the seeds; the settings that
need what Othello's evaluation or rewards lack are refused by name.
"""

import numpy as np
import pytest

from gamelib.algorithms import alphabeta as ab
from gamelib.algorithms import leaves as lv
from gamelib.games import registry
from gamelib.games.othello.features import initial_theta
from gamelib.games.protocol import DRAW, EVAL_LINEAR, ONGOING, WIN
from gamelib.learn import learners, selfplay as sp
from gamelib.learn import pg_selfplay as pg, td_selfplay as tds

from replayed import check_pg_record, expected_td_update

GAME = registry.get("othello")


@pytest.fixture(scope="module")
def theta():
    # the classic square weights spread over the pattern tables, with noise: every feature matters
    return initial_theta() + np.random.default_rng(5).normal(0.0, 0.02, GAME.N_FEATURES)


def _replay(theta, settings, moves):
    """Walk a recorded game with the generic root leaves; per side the chosen rows."""
    K = lv.kernels(GAME)
    s = sp.start_state(settings.max_plies, settings.qdepth, GAME)
    ws, buf = ab.new_workspace(GAME, 0), np.empty(GAME.MAX_MOVES, dtype=np.int32)
    steps = []
    for m in moves:
        assert int(GAME.outcome(s, buf, 0)) == ONGOING
        out = lv.new_leaves_buffers(GAME)
        n = int(K.root_leaves_into(s, theta, EVAL_LINEAR, 1, settings.qdepth, settings.max_plies, ws, out))
        assert int(m) in out[0][:n].tolist(), "an illegal move in the record"
        k = int(np.flatnonzero(out[0][:n] == m)[0])
        steps.append((int(GAME.side_to_move(s)), k, out[1][:n].copy(), out[3][:n + 1].copy(),
                      out[4][:out[3][n]].copy(), out[5][:out[3][n]].copy()))
        GAME.make_move(s, int(m))
    r = int(GAME.outcome(s, buf, 0))
    assert r != ONGOING, "the record stops before the game ends"
    mover = int(GAME.side_to_move(s))
    result = (sp.RESULT_DRAW if r == DRAW else
              sp.RESULT_FIRST_WINS if (mover if r == WIN else 1 - mover) == 0 else sp.RESULT_SECOND_WINS)
    return result, steps


def _mdp(result):
    return {sp.RESULT_FIRST_WINS: [1.0, -1.0], sp.RESULT_SECOND_WINS: [-1.0, 1.0],
            sp.RESULT_DRAW: [0.0, 0.0]}[result]


@pytest.mark.parametrize("algorithm", ["pgleaf", "reinforce"])
def test_policy_gradient_game_replays_to_the_same_gradient(theta, algorithm):
    settings = learners.settings(algorithm)
    for seed in (11, 12):
        rec = pg.play_pg_games(theta, settings, [seed], GAME)[0]
        result, steps = _replay(theta, settings, rec.moves)
        assert result == rec.result and rec.plies == len(rec.moves) >= 58
        assert rec.rewards.tolist() == _mdp(result)
        check_pg_record(rec, steps, settings.temperature, GAME.N_FEATURES)


@pytest.mark.parametrize("algorithm", ["tdleaf", "td"])
def test_td_game_replays_to_the_same_update(theta, algorithm):
    settings = learners.settings(algorithm)
    new, (rec,) = tds.play_td_games(theta, settings, [21], GAME)
    result, steps = _replay(theta, settings, rec.moves)
    assert result == rec.result and rec.rewards.tolist() == _mdp(result)
    expected = expected_td_update(theta, steps, _mdp(result), settings)
    np.testing.assert_allclose(new, expected, rtol=1e-12, atol=1e-15)
    assert np.abs(new - theta).max() > 0


def test_seeds_decide_the_games_and_a_pass_is_a_move(theta):
    settings = learners.settings("reinforce", temperature=1.0)
    a = pg.play_pg_games(theta, settings, np.arange(40), GAME)
    b = pg.play_pg_games(theta, settings, [3, 1], GAME)
    assert np.array_equal(a[3].moves, b[0].moves) and np.array_equal(a[1].moves, b[1].moves)
    assert len({r.moves.tobytes() for r in a}) == 40
    assert any(64 in r.moves.tolist() for r in a), "no pass in 40 hot games"
    assert {r.result for r in a} <= {sp.RESULT_FIRST_WINS, sp.RESULT_SECOND_WINS, sp.RESULT_DRAW}


def test_policy_sharpness_runs_the_same_games(theta):
    settings = learners.settings("tdleaf")
    sharp = sp.policy_sharpness(theta, settings, [21], GAME)
    _, (rec,) = tds.play_td_games(theta, settings.__class__("tdleaf", alpha=1e-300), [21], GAME)
    assert sharp["moves"] == rec.plies and 0.0 < sharp["chosen_prob"] <= 1.0


@pytest.mark.parametrize("change, message", [
    ({"reward": "non_mdp"}, "othello has none"),
    ({"learn_tempo": False}, "no tempo feature"),
    ({"tie_sides": True}, "no side halves"),
])
def test_what_othello_lacks_is_refused_by_name(theta, change, message):
    settings = learners.settings("tdleaf", **change)
    with pytest.raises(ValueError, match=message):
        tds.play_td_games(theta, settings, [1], GAME)
    with pytest.raises(ValueError, match="vector of 54848 parameters"):
        pg.play_pg_games(theta[:10], learners.settings("pgleaf"), [1], GAME)
