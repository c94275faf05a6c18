"""elmo's teacher data from game records (gamelib.learn.elmo_positions): the deep scores are the
book's search, whatever the chunks and workers; the shallow side is the position's features;
results turn to the side to move's view, passes included."""

import numpy as np
import pytest

from gamelib.algorithms.alphabeta import LEAF_STATIC, MATE_BOUND
from gamelib.games.othello import features as F
from gamelib.games import registry
from gamelib.learn import elmo_positions as EP
from gamelib.learn.bonanza_positions import ExpertPositions
from gamelib.play.games import SearchPlayer
from gamelib.runtime.executor import Executor

GAME = registry.get("othello")
PASS = GAME.PASS


def _random_games(n, seed):
    """``n`` random Othello games played to their end (passes included)."""
    rng = np.random.default_rng(seed)
    buf = np.zeros(GAME.MAX_MOVES, dtype=np.int32)
    games = []
    for _ in range(n):
        s, moves = GAME.start(200), []
        while (k := GAME.gen_moves(s, buf, 0)) > 0:
            moves.append(int(buf[rng.integers(k)]))
            GAME.make_move(s, np.int64(moves[-1]))
        games.append(moves)
    return games


@pytest.fixture(scope="module")
def positions():
    return ExpertPositions("othello", _random_games(12, 5), skip_forced=False)


@pytest.fixture(scope="module")
def ids(positions):
    """Every fifth position, with the last ones of some games (the search proves their end)."""
    return np.unique(np.concatenate([np.arange(0, len(positions), 5),
                                     np.flatnonzero(positions.ply >= 54)[::3]]))


def test_deep_scores_are_those_of_a_direct_search_call(positions, ids):
    theta = F.initial_theta()
    settings = EP.DeepSettings(node_budget=400)
    deep = EP.deep_scores(theta, positions, ids, settings)
    player = SearchPlayer(theta, node_budget=400, max_depth=settings.max_depth, qdepth=0,
                          noise_std=0.0)
    ends = 0
    for k, i in enumerate(ids):
        found = player.search(GAME, positions.state(int(i)), 0, 0)
        assert (deep.score[k], deep.depth[k], deep.leaf_kind[k]) == \
            (found.score, found.depth, found.leaf_kind), f"position {i}"
        assert found.nodes <= deep.nodes[k] <= 400
        ends += abs(found.score) > MATE_BOUND
    assert 0 < ends < ids.size                     # both kinds of score are checked
    assert np.array_equal(EP.static_positions(deep.score), np.abs(deep.score) <= MATE_BOUND)
    static = EP.static_positions(deep.score)       # a static leaf, or a proven draw (0)
    assert np.all((deep.leaf_kind[static] == LEAF_STATIC) | (deep.score[static] == 0))
    assert np.all(deep.leaf_kind[~static] != LEAF_STATIC)


def test_another_evaluation_gives_other_scores_the_search_agrees_with(positions, ids):
    theta = GAME.initial_theta(3, 0.05)
    deep = EP.deep_scores(theta, positions, ids[:20], EP.DeepSettings(node_budget=150))
    classic = EP.deep_scores(F.initial_theta(), positions, ids[:20],
                             EP.DeepSettings(node_budget=150))
    assert not np.array_equal(deep.score, classic.score)
    player = SearchPlayer(theta, node_budget=150, max_depth=32, qdepth=0)
    assert [player.search(GAME, positions.state(int(i)), 0, 0).score for i in ids[:20]] == \
        list(deep.score)


def test_the_numbers_do_not_depend_on_chunks_or_workers(positions, ids):
    theta = F.initial_theta()
    settings = EP.DeepSettings(node_budget=300)
    one = EP.deep_scores(theta, positions, ids, settings, chunk_size=1000)
    for chunk in (1, 7):
        other = EP.deep_scores(theta, positions, ids, settings, chunk_size=chunk)
        for k, v in one.arrays().items():
            assert np.array_equal(v, other.arrays()[k]), (chunk, k)
    with Executor(2) as ex:
        par = EP.deep_scores(theta, positions, ids, settings, chunk_size=9, map_fn=ex.map)
    for k, v in one.arrays().items():
        assert np.array_equal(v, par.arrays()[k]), k
    # a position's score does not depend on the positions searched before it
    alone = EP.deep_scores(theta, positions, ids[-3:], settings)
    assert np.array_equal(alone.score, one.score[-3:])


def test_the_shallow_side_is_the_positions_own_features(positions, ids):
    theta = GAME.initial_theta(1, 0.1)
    feats, side = EP.position_features(positions, ids)
    assert feats.n_rows == ids.size and feats.n_features == GAME.N_FEATURES
    states = [positions.state(int(i)) for i in ids]
    assert np.allclose(feats.dot(theta), [GAME.evaluate(s, theta) for s in states],
                       rtol=0, atol=1e-12)
    assert list(side) == [int(GAME.side_to_move(s)) for s in states]


def test_results_turn_to_the_side_to_move_passes_included():
    # a hand case: black wins game 0, white wins game 1, game 2 is drawn
    t = EP.results_for_side_to_move([1, -1, 0], [0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 0, 1])
    assert list(t) == [1.0, 0.0, 0.0, 1.0, 0.5, 0.5]
    # a record with one pass: after it, the same colour has played twice in a row, so the side
    # to move is not the parity of the discs played (what a WTHOR record, without its passes,
    # counts)
    games = _random_games(60, 11)
    g = next(k for k, moves in enumerate(games) if moves[:-1].count(PASS) == 1)
    pos = ExpertPositions("othello", [games[g]], skip_forced=False)
    _, side = EP.position_features(pos, np.arange(len(pos)))
    after = pos.ply > games[g].index(PASS)
    discs_played = pos.ply - after
    assert after.any() and np.all(side[after] != discs_played[after] % 2)
    assert np.all(side[~after] == discs_played[~after] % 2)
    t = EP.results_for_side_to_move([1], pos.game, side)   # black (first mover) won
    assert np.array_equal(t, np.where(side == 0, 1.0, 0.0))


def test_bad_input_is_refused_with_a_message(positions):
    theta = F.initial_theta()
    with pytest.raises(ValueError, match="increasing position ids"):
        EP.deep_scores(theta, positions, [3, 2])
    with pytest.raises(ValueError, match="increasing position ids"):
        EP.position_features(positions, [len(positions)])
    with pytest.raises(ValueError, match="ExpertPositions"):
        EP.deep_scores(theta, "positions", [0])
    with pytest.raises(ValueError, match="settings must be a DeepSettings"):
        EP.deep_scores(theta, positions, [0], {"node_budget": 10})
    with pytest.raises(ValueError, match="node_budget must be a positive integer"):
        EP.DeepSettings(node_budget=0)
    with pytest.raises(ValueError, match="max_depth must be below"):
        EP.DeepSettings(max_depth=500)
    with pytest.raises(ValueError, match=r"\+1 \(win\), 0 \(draw\) or -1"):
        EP.results_for_side_to_move([2], [0], [0])
    with pytest.raises(ValueError, match="side must be 0"):
        EP.results_for_side_to_move([1], [0], [2])
