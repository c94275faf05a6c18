"""The search's evaluation cache returns exactly the evaluation, at every node of random games."""

from __future__ import annotations

import random

import numpy as np
from numba import njit
from search_positions import playout_positions

from gamelib.games.minishogi import features as ev
from gamelib.games.minishogi import core as mc
from gamelib.search import core as sc
from gamelib.search import new_leaves_buffers, new_workspace, root_scores_into

LIN = ev.EVAL_LINEAR
NOISE = 0.001 ** 0.5


@njit(cache=True)
def _walk(s, theta, ctl, ec, ecv, noise, moves, out):
    """Play ``moves`` from ``s``; before each move and at the end, the cached and the direct
    static evaluation (twice the cached one: a miss, then a hit) into ``out[:, 0:3]``."""
    for i in range(moves.shape[0] + 1):
        out[i, 0] = sc.cached_static(s, theta, ctl, ec, ecv, noise)
        out[i, 1] = sc.cached_static(s, theta, ctl, ec, ecv, noise)
        out[i, 2] = sc.noisy_static(s, theta, ctl, noise)
        if i < moves.shape[0]:
            mc.make_move(s, np.int64(moves[i]))


def _random_games(seed, n_games, plies):
    rng = random.Random(seed)
    games = []
    for start in playout_positions(seed, n_games, min_ply=0, max_ply=6, quiet=False):
        s = np.concatenate([start, np.zeros(mc.HIST_STRIDE * (plies + 2), dtype=np.int64)])
        t = s.copy()
        buf = np.empty(mc.MAX_MOVES, dtype=np.int32)
        moves = []
        for _ in range(plies):
            if mc.game_result(t, buf, 0, 0) != mc.RESULT_NONE:
                break
            k = mc.gen_moves(t, buf, 0, False)
            m = int(buf[rng.randrange(k)])
            moves.append(m)
            mc.make_move(t, m)
        games.append((s, np.array(moves, dtype=np.int32)))
    return games


def test_cached_evaluation_is_the_evaluation_at_every_node():
    """Thousands of positions through one 4,096-entry cache (so slots are shared and the full
    position check decides), three searches' generations with other parameters and noise."""
    mv, ordk, pv, ctl, tt, tts, ec, ecv = sc.new_workspace(0)
    games = _random_games(5, 120, 80)
    nodes = 0
    for gen, (theta, kind, noise, seed) in enumerate([(ev.initial_theta(1, 0.01), LIN, 0.0, 0),
                                                      (ev.initial_theta(2, 0.01), LIN, NOISE, 9),
                                                      (ev.table1_theta(), ev.EVAL_MATERIAL, NOISE, 4)]):
        sc.setup(games[0][0].copy(), ctl, tt, 1 << 40, 4, kind, True, True, True, seed, 0)
        for s, moves in games:  # one generation: the positions of all games share the slots
            out = np.zeros((len(moves) + 1, 3))
            _walk(s.copy(), theta, ctl, ec, ecv, noise, moves, out)
            assert np.array_equal(out[:, 0], out[:, 2]) and np.array_equal(out[:, 1], out[:, 2])
            nodes += len(out)
        # the table is full of this generation's positions
        assert np.count_nonzero(ec[:, 2] >> 26 == ctl[sc.C_EVAL_GEN]) > 0.8 * len(ec)
    assert nodes > 5 * len(ec)


def test_no_evaluation_cache_without_the_table():
    """``use_tt=False`` (the single pass of root_leaves): the cache is neither read nor written."""
    mv, ordk, pv, ctl, tt, tts, ec, ecv = sc.new_workspace(0)
    theta = ev.initial_theta(3, 0.01)
    for s, moves in _random_games(6, 5, 30):
        sc.setup(s, ctl, tt, 1 << 40, 4, LIN, False, True, True, 0, 0)
        out = np.zeros((len(moves) + 1, 3))
        _walk(s, theta, ctl, ec, ecv, 0.0, moves, out)
        assert np.array_equal(out[:, 0], out[:, 2])
    assert not ec.any() and not ecv.any()


def _scores(s, theta, ws, out, eval_cache):
    n = root_scores_into(s, theta, LIN, 1, 4, 0, ws, out, eval_cache)
    lines = out[8][:n]
    return (n, out[0][:n].copy(), out[1][:n].copy(), out[2][:n].copy(),
            [tuple(lines[k, 1:1 + lines[k, 0]]) for k in range(n)])


def test_cache_kept_across_a_games_roots_gives_the_uncached_results():
    """A learner's 1-ply + quiescence pass at every position of random games: the evaluations
    kept across the game's roots (``eval_cache=1`` at its first position, then 2) give exactly
    the moves, scores, leaf kinds and principal lines of the uncached pass; and they are used:
    a root searched with other parameters under the kept generation gets the old values."""
    theta = ev.initial_theta(4, 0.01)
    other = ev.initial_theta(5, 0.01)
    cached, plain = new_workspace(0), new_workspace(0)
    out_c, out_p = new_leaves_buffers(), new_leaves_buffers()
    roots = stale = 0
    for s, moves in _random_games(8, 40, 60):
        s = np.concatenate([s, np.zeros(mc.HIST_STRIDE * 8, dtype=np.int64)])
        for i in range(len(moves) + 1):
            want = _scores(s, theta, plain, out_p, 0)
            got = _scores(s, theta, cached, out_c, 1 if i == 0 else 2)
            assert got[0] == want[0] and got[4] == want[4]
            for a, b in zip(got[1:4], want[1:4]):
                assert np.array_equal(a, b)
            roots += 1
            if i == len(moves) // 2 and want[0]:  # other θ, same generation: stale values
                wrong = _scores(s.copy(), other, cached, out_c, 2)
                fresh = _scores(s.copy(), other, plain, out_p, 0)
                stale += not np.array_equal(wrong[2], fresh[2])
                _scores(s, theta, cached, out_c, 1)  # back to θ: a new generation
            if i < len(moves):
                mc.make_move(s, np.int64(moves[i]))
    assert roots > 1000 and stale > 30
