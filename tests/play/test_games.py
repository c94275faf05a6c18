"""Players, games, openings and tournaments written once over the game protocol
(gamelib.play.games), on every registered game: games are legal, end where the rules end them
and follow their seeds; the search player is the generic search's move; the softmax player draws
from eq. (6); paired openings are shared by the two games of a pair; bad input is refused by
name. 5×5 shogi's front end (gamelib.play.shogi) is this module with its notation: its exactness
is tests/play/test_play_shogi.py's and tests/perf_exact's.
"""

from __future__ import annotations

import numpy as np
import pytest

from gamelib.algorithms import alphabeta as ab
from gamelib.algorithms import deepening as dp
from gamelib.algorithms import leaves as lv
from gamelib.games import registry
from gamelib.games.othello.features import initial_theta
from gamelib.games.protocol import DRAW, EVAL_LINEAR, ONGOING
from gamelib.play import games as G
from gamelib.runtime.seeds import derive_rng

GAMES = registry.names()


def _theta(game, seed):
    return np.random.default_rng(seed).normal(0.0, 0.05, game.N_FEATURES)


def _replay(game, moves, max_plies):
    s = game.start(max_plies)
    buf = np.empty(game.MAX_MOVES, dtype=np.int32)
    for m in moves:
        assert G.game_result(game, s, buf, max_plies) == ONGOING, "a move after the game's end"
        n = int(game.gen_moves(s, buf, 0))
        assert m in buf[:n].tolist(), "an illegal move"
        game.make_move(s, m)
    return s, G.game_result(game, s, buf, max_plies)


@pytest.mark.parametrize("name", GAMES)
def test_random_games_are_legal_end_by_the_rules_and_follow_their_seeds(name):
    game = registry.get(name)
    outcomes = set()
    for seed in range(12):
        played = G.play_game(game, G.RandomPlayer(), G.RandomPlayer(), seed, max_plies=120)
        s, result = _replay(game, played.moves, 120)
        assert result != ONGOING and result == played.result
        assert np.array_equal(s[:int(game.live_length(s))], played.final[:int(game.live_length(s))])
        if result == DRAW:
            assert played.outcome == 0
        else:   # the side to move at the end is the first mover after an even number of moves
            first_to_move = len(played.moves) % 2 == 0
            assert played.outcome == (1 if (result == 1) == first_to_move else -1)
        outcomes.add(played.outcome)
        again = G.play_game(game, G.RandomPlayer(), G.RandomPlayer(), seed, max_plies=120)
        assert again.moves == played.moves
    assert len(outcomes) >= 2


@pytest.mark.parametrize("name", GAMES)
def test_the_search_player_plays_the_generic_search(name):
    game = registry.get(name)
    theta = _theta(game, 2)
    player = G.SearchPlayer(theta, node_budget=400, max_depth=8, qdepth=2, noise_std=0.01)
    s = game.start(200)
    G.play_random_plies(game, s, derive_rng(3, "x"), 8, 0, np.empty(game.MAX_MOVES, dtype=np.int32))
    live = int(game.live_length(s))
    before = s[:live].copy()
    move = player.choose(game, s, np.random.default_rng(9), 0)
    assert np.array_equal(s[:live], before)
    seed = int(np.random.default_rng(9).integers(0, 2**63 - 1))
    w = np.empty(game.N_WEIGHTS)
    w[:game.N_FEATURES] = theta
    game.prepare_weights(w)
    want = dp.deepen(game, game.with_room(s, ab.MAX_PLY + 2), w, EVAL_LINEAR, 8, 400, 2, 0.01,
                     np.int64(seed), 0, True, True, True, ab.new_workspace(game, G.DEFAULT_TT_BITS))
    assert move == want.move


def test_the_softmax_player_draws_from_eq_6_on_othello():
    game = registry.get("othello")
    theta = initial_theta() * 5.0
    player = G.SoftmaxPlayer(theta, temperature=0.5, qdepth=0)
    s = game.start(60)
    moves, scores = player.scores(game, s, 0)
    p = G.softmax_policy(scores, 0.5)
    rng = np.random.default_rng(4)
    first = [player.choose(game, s, rng, 0) for _ in range(2000)]
    counts = np.array([first.count(int(m)) for m in moves])
    chi2 = float(np.sum((counts - 2000 * p) ** 2 / (2000 * p)))
    assert chi2 < 16.3, (counts, 2000 * p)        # 99.9 % quantile, 3 degrees of freedom
    out = lv.new_leaves_buffers(game)
    n = int(lv.kernels(game).root_scores_into(s, theta, EVAL_LINEAR, 1, 0, 0, ab.new_workspace(game, 0), out))
    assert np.array_equal(out[1][:n], scores)


def test_a_search_player_beats_a_random_one_at_othello():
    game = registry.get("othello")
    engine = G.SearchPlayer(initial_theta(), node_budget=300, max_depth=4, qdepth=0)
    result = G.play_games(game, {"engine": engine, "random": G.RandomPlayer()}, [("engine", "random")],
                          16, seed=5, workers=1, opening_plies=2, paired_openings=True)
    record = result.records[("engine", "random")]
    assert record.wins >= 12, record


@pytest.mark.parametrize("name", GAMES)
def test_paired_openings_are_shared_and_redrawn_while_they_end_the_game(name):
    game = registry.get(name)
    start = game.start(100)
    a = G.random_opening(game, derive_rng(1, "opening", 0), 6, start, max_plies=100, redraw=True)
    b = G.random_opening(game, derive_rng(1, "opening", 0), 6, start, max_plies=100, redraw=True)
    assert a == b and len(a) == 6
    s, result = _replay(game, a, 100)
    assert result == ONGOING
    with pytest.raises(ValueError, match="reaches the cap of 6 plies"):
        G.random_opening(game, derive_rng(1, "opening", 0), 6, start, max_plies=6, redraw=True)


class _Recorder(G.RandomPlayer):
    """A random player that records the position it first moves from after the opening."""

    seen: list = []

    def choose(self, game, s, rng, max_plies):
        if int(game.game_ply(s)) == 2:
            _Recorder.seen.append(bytes(np.asarray(s).tobytes()))
        return super().choose(game, s, rng, max_plies)


def _positions_after_the_openings(game, seed, **kwargs):
    _Recorder.seen = []
    G.play_games(game, {"a": _Recorder(), "b": _Recorder()}, [("a", "b")], 8, seed, workers=1,
                 opening_plies=2, paired_openings=True, max_plies=60, **kwargs)
    return list(_Recorder.seen)


def test_an_opening_seed_shares_the_paired_openings_between_tournaments():
    game = registry.get("othello")
    one = _positions_after_the_openings(game, 1, opening_seed=7)
    two = _positions_after_the_openings(game, 2, opening_seed=7)
    own = _positions_after_the_openings(game, 1)
    assert len(one) == 8 and one == two            # the same opening for game i of both
    assert one[0::2] == one[1::2]                  # a pair shares its opening
    assert own != one                              # by default the tournament's seed draws them
    assert own == _positions_after_the_openings(game, 1, opening_seed=1)
    with pytest.raises(ValueError, match="opening_seed is the seed of the paired openings"):
        G.play_games(game, {"a": G.RandomPlayer(), "b": G.RandomPlayer()}, [("a", "b")], 2, 1,
                     opening_plies=2, opening_seed=3)


@pytest.mark.parametrize("call, message", [
    (lambda g: G.play_game(g, G.RandomPlayer(), "me", 1), "second must be a gamelib.play.games Player"),
    (lambda g: G.play_game(g, G.RandomPlayer(), G.RandomPlayer(), 1.5), "seed must be an integer"),
    (lambda g: G.play_game(g, G.RandomPlayer(), G.RandomPlayer(), 1, max_plies=0), "max_plies"),
    (lambda g: G.play_game(g, G.RandomPlayer(), G.RandomPlayer(), 1, opening=[0], opening_plies=2),
     "either opening moves or opening_plies"),
    (lambda g: G.play_game(g, G.RandomPlayer(), G.RandomPlayer(), 1, opening=[63]), "opening move 1"),
    (lambda g: G.SearchPlayer(np.zeros(3), node_budget=0), "node_budget"),
    (lambda g: G.SearchPlayer(np.zeros(3)).choose(g, g.start(10), np.random.default_rng(0), 0),
     "vector of 54848 parameters"),
    (lambda g: G.SoftmaxPlayer(np.zeros(3), temperature=0), "temperature"),
    (lambda g: G.play_games(g, {"a": G.RandomPlayer()}, [("a", "b")], 2, 1), "not in players"),
    (lambda g: G.play_games(g, {"a": G.RandomPlayer(), "b": G.RandomPlayer()}, [("a", "b")], 3, 1,
                            opening_plies=2, paired_openings=True), "must be even"),
])
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call(registry.get("othello"))
