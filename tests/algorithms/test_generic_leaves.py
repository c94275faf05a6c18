"""Principal leaves of every root move written once over the game protocol
(gamelib.algorithms.leaves), on every registered game.

* eq. (5): every root move's leaf that does not end the game has features whose θ·φ is the
  move's score (the root side's view) to 1e-12, and playing the move and its principal line
  from the root reaches a position where the game is still on; a leaf that ends the game has no
  features; the root state is restored.
* the entry points agree exactly: ``child_scores_into`` is ``root_scores_into`` at ``depth=1,
  qdepth=0``; ``child_leaves_into`` adds the features of ``leaf_features_unsorted_into``;
  ``leaf_features_unsorted_into`` gives ``leaf_features_into``'s entries; the evaluation
  cache (new or kept generation) changes no score along a game.
* 5×5 shogi's kernels (gamelib.search) are this module's compiled for it (their exactness:
  tests/search and tests/perf_exact).
"""

from __future__ import annotations

import numpy as np
import pytest

from gamelib.algorithms import alphabeta as ab
from gamelib.algorithms import leaves as lv
from gamelib.games import registry
from gamelib.games.playout import random_playout
from gamelib.games.protocol import EVAL_LINEAR, ONGOING

GAMES = registry.names()


def _game_positions(game, seed, plies):
    """The positions of one seeded random game, each with room for a search."""
    _, moves = random_playout(game, game.start(400), seed, plies)
    s = game.start(400)
    out = [s.copy()]
    for m in moves:
        game.make_move(s, m)
        out.append(s.copy())
    return out


def _theta(game, seed):
    return np.random.default_rng(seed).normal(0.0, 0.05, game.N_FEATURES)


def _rows(out, n):
    ptr, idx, val = out[3], out[4], out[5]
    return [sorted(zip(idx[ptr[k]:ptr[k + 1]].tolist(), val[ptr[k]:ptr[k + 1]].tolist()))
            for k in range(n)]


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("depth, qdepth", [(1, 4), (2, 2)])
def test_leaf_features_reproduce_the_scores(name, depth, qdepth):
    game = registry.get(name)
    K = lv.kernels(game)
    theta = _theta(game, 3)
    ws, out = ab.new_workspace(game, 0), lv.new_leaves_buffers(game)
    buf = np.empty(game.MAX_MOVES, dtype=np.int32)
    static = ended = 0
    for s in _game_positions(game, 11, 40)[::3]:
        live = int(game.live_length(s))
        before = s[:live].copy()
        n = int(K.root_leaves_into(s, theta, EVAL_LINEAR, depth, qdepth, 0, ws, out))
        assert np.array_equal(s[:live], before), "root_leaves_into left the root changed"
        assert n == int(game.gen_moves(s, buf, 0))
        rows = _rows(out, n)
        for k in range(n):
            if out[2][k] != ab.LEAF_STATIC:
                assert rows[k] == [], f"{name}: a leaf that ends the game has features"
                ended += 1
                continue
            value = sum(theta[i] * v for i, v in rows[k])
            assert abs(value - out[1][k]) <= 1e-12 * (1.0 + abs(out[1][k])), \
                f"{name}: θ·φ {value} != score {out[1][k]}"
            leaf = s.copy()
            game.make_move(leaf, int(out[0][k]))
            for j in range(out[8][k, 0]):
                game.make_move(leaf, int(out[8][k, j + 1]))
            assert int(game.outcome(leaf, buf, 0)) == ONGOING
            static += 1
    assert static > 100


@pytest.mark.parametrize("name", GAMES)
def test_the_entry_points_agree_exactly(name):
    game = registry.get(name)
    K = lv.kernels(game)
    theta = _theta(game, 4)
    ws, out, ref = ab.new_workspace(game, 0), lv.new_leaves_buffers(game), lv.new_leaves_buffers(game)
    idx = np.empty(game.MAX_ACTIVE, dtype=np.int32)
    val = np.empty(game.MAX_ACTIVE, dtype=np.float64)
    for s in _game_positions(game, 12, 60):
        n = int(K.root_scores_into(s, theta, EVAL_LINEAR, 1, 0, 0, ws, ref, lv.EVAL_CACHE_OFF))
        assert int(K.child_scores_into(s, theta, EVAL_LINEAR, 0, ws, out)) == n
        assert np.array_equal(out[1][:n], ref[1][:n]) and np.array_equal(out[2][:n], ref[2][:n])
        assert int(K.child_leaves_into(s, theta, 0, ws, out)) == n
        assert np.array_equal(out[1][:n], ref[1][:n]) and np.array_equal(out[2][:n], ref[2][:n])
        rows = _rows(out, n)
        for k in range(n):
            f = int(K.leaf_features_unsorted_into(s, k, ref, idx, val, 0))
            assert sorted(zip(idx[:f].tolist(), val[:f].tolist())) == rows[k]
            g = int(K.leaf_features_into(s, k, ref, idx, val, 0))
            assert sorted(zip(idx[:g].tolist(), val[:g].tolist())) == rows[k]


@pytest.mark.parametrize("name", GAMES)
def test_the_evaluation_cache_changes_no_score(name):
    game = registry.get(name)
    K = lv.kernels(game)
    theta = _theta(game, 5)
    ws, out = ab.new_workspace(game, 0), lv.new_leaves_buffers(game)
    plain = ab.new_workspace(game, 0)
    for i, s in enumerate(_game_positions(game, 13, 50)):
        mode = lv.EVAL_CACHE_NEW if i == 0 else lv.EVAL_CACHE_KEEP
        n = int(K.root_scores_into(s, theta, EVAL_LINEAR, 1, 4, 0, ws, out, mode))
        scores, kinds = out[1][:n].copy(), out[2][:n].copy()
        assert int(K.root_scores_into(s, theta, EVAL_LINEAR, 1, 4, 0, plain, out)) == n
        assert np.array_equal(scores, out[1][:n]) and np.array_equal(kinds, out[2][:n])


@pytest.mark.parametrize("name", GAMES)
def test_searches_too_deep_for_the_state_or_the_search_are_refused(name):
    game = registry.get(name)
    K = lv.kernels(game)
    ws, out, theta = ab.new_workspace(game, 0), lv.new_leaves_buffers(game), _theta(game, 6)
    s = game.start(2)
    room = int(game.room(s))
    with pytest.raises(ValueError, match="history is too short"):
        K.root_scores_into(s, theta, EVAL_LINEAR, 1, room - 1, 0, ws, out)
    # the search needs room for depth + qdepth + 1 plies
    assert int(K.root_scores_into(s, theta, EVAL_LINEAR, 1, room - 2, 0, ws, out)) > 0
    with pytest.raises(ValueError, match="depth \\+ qdepth < MAX_PLY"):
        K.root_scores_into(game.start(400), theta, EVAL_LINEAR, 1, ab.MAX_PLY, 0, ws, out)


def test_shogi_search_kernels_are_the_generic_ones():
    from gamelib import search

    K = lv.kernels(registry.get("minishogi"))
    for name in ("root_scores_into", "root_leaves_into", "leaf_features_into",
                 "leaf_features_unsorted_into", "child_scores_into", "child_leaves_into"):
        assert getattr(search, name) is getattr(K, name)
