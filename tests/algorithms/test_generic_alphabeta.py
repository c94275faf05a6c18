"""The αβ search written once over the game protocol (gamelib.algorithms), on every registered game.

* Every game: iterative deepening under a node budget returns a legal principal variation
  (each move among ``gen_moves`` of its position) whose leaf reproduces the score: a static
  leaf's evaluation, and θ·φ of its features, are the score from the root side's view (the
  sign by the side to move at the leaf); a leaf that ends the game scores its result. The
  budget is never exceeded and the state is restored.
* 5×5 shogi: the generic search is what :func:`gamelib.search.search` runs (its exactness is
  tests/search and tests/perf_exact's); here the generic entry point gives the front end's
  result on a few positions, field for field.
* Othello with the adapter's linear evaluation at :func:`gamelib.games.othello.features.
  initial_theta` (the classic square weights spread over the pattern tables: the positional
  score to rounding): at a fixed depth whose horizon has no pass and no finished game, the
  root value is the minimax value of the positional score by a plain negamax in Python
  (``tests/othello_reference.py``) to 1e-12, and the move's value is within 1e-9 of it.
"""

from __future__ import annotations

import numpy as np
import pytest

from gamelib.algorithms import alphabeta as ab
from gamelib.algorithms import deepening as dp
from gamelib.games import registry
from gamelib.games.othello.game import PASS
from gamelib.games.othello.features import initial_theta
from gamelib.games.playout import random_playout
from gamelib.games.protocol import EVAL_LINEAR, ONGOING
from othello_reference import after, negamax, positional

GAMES = registry.names()


def _positions(game, n, seed):
    """Positions ``10 + 3k`` plies into seeded random games (ongoing, with room to search)."""
    out = []
    for k in range(n):
        s = game.start(400)
        r, moves = random_playout(game, s, seed + k, 10 + 3 * k)
        if r == ONGOING:
            s = game.start(400)
            for m in moves:
                game.make_move(s, m)
            out.append(s)
    return out


def _theta(game, seed):
    return np.random.default_rng(seed).normal(0.0, 0.05, game.N_FEATURES)


def _search(game, s, theta, depth, budget, qdepth=4, noise=0.0, seed=0):
    settings = dp.check_settings(depth, budget, qdepth, 0, 14, seed, noise)
    md, nb, q, mp, tb, seed64, ns = settings
    return dp.deepen(game, s, theta, EVAL_LINEAR, md, nb, q, ns, seed64, mp, True, True, True,
                     ab.new_workspace(game, tb))


@pytest.mark.parametrize("name", GAMES)
def test_principal_leaf_is_legal_and_reproduces_the_score(name):
    game = registry.get(name)
    theta = _theta(game, 1)
    idx = np.empty(game.MAX_ACTIVE, dtype=np.int32)
    val = np.empty(game.MAX_ACTIVE, dtype=np.float64)
    buf = np.empty(game.MAX_MOVES, dtype=np.int32)
    checked = 0
    for s in _positions(game, 12, 40):
        live = int(game.live_length(s))
        before = s[:live].copy()
        for depth, budget in ((2, 100_000), (5, 3_000)):
            r = _search(game, s, theta, depth, budget)
            assert np.array_equal(s[:live], before), "the search left the state changed"
            assert 0 < r.nodes <= budget and r.depth >= 1 and r.pv[0] == r.move
            leaf = s.copy()
            root_side = int(game.side_to_move(leaf))
            for m in r.pv:
                n = int(game.gen_moves(leaf, buf, 0))
                assert int(m) in buf[:n].tolist(), f"{name}: an illegal move in the PV"
                game.make_move(leaf, int(m))
            sign = 1.0 if int(game.side_to_move(leaf)) == root_side else -1.0
            if r.leaf_kind == ab.LEAF_STATIC:
                assert r.score == sign * float(game.evaluate(leaf, theta))
                k = int(game.features(leaf, idx, val))
                assert abs(r.score - sign * float(np.sum(theta[idx[:k]] * val[:k]))) <= 1e-12 * (1 + np.abs(theta).sum())
            elif r.leaf_kind == ab.LEAF_MATED:
                result = int(game.outcome(leaf, buf, 0))
                assert result != ONGOING
                assert r.score == sign * ab.result_score(result, len(r.pv))
            checked += 1
    assert checked >= 16


def test_minishogi_generic_entry_is_the_front_ends_search():
    from gamelib.search import search
    from gamelib.search.core import MAX_PLY
    from gamelib.search.state import as_search_state
    game = registry.get("minishogi")
    theta = _theta(game, 2)
    for k, s in enumerate(_positions(game, 4, 7)):
        ours = search(s, theta, EVAL_LINEAR, 4, 4_000, 4, 0.01, k, tt_bits=14)
        generic = _search(game, as_search_state(s, MAX_PLY + 2), theta, 4, 4_000, 4, 0.01, k)
        assert (ours.move, ours.score, ours.pv.tolist(), ours.depth, ours.nodes, ours.leaf_kind,
                ours.seldepth) == (generic.move, generic.score, generic.pv.tolist(), generic.depth,
                                   generic.nodes, generic.leaf_kind, generic.seldepth)


def _quiet_horizon(s, depth, game):
    """No pass and no finished game within ``depth`` plies of ``s`` (every line)."""
    buf = np.empty(game.MAX_MOVES, dtype=np.int32)
    n = int(game.gen_moves(s, buf, 0))
    if n == 0 or PASS in buf[:n].tolist():
        return False
    if depth == 0:
        return True
    for m in buf[:n].tolist():
        game.make_move(s, m)
        ok = _quiet_horizon(s, depth - 1, game)
        game.unmake_move(s)
        if not ok:
            return False
    return True


def test_othello_generic_search_is_the_positional_minimax_on_quiet_horizons():
    game = registry.get("othello")
    theta = initial_theta()

    def leaf(p, o, black_to_move):
        return positional(*((p, o) if black_to_move else (o, p)), black_to_move)

    compared = 0
    for s in _positions(game, 16, 3):
        for depth in (1, 2, 3):
            if not _quiet_horizon(s, depth, game):
                continue
            top = 4 + 2 * int(s[0])
            p, o = (int(v) for v in s[top:top + 2].view(np.uint64))
            black_to_move = int(game.side_to_move(s)) == 0
            want = negamax(p, o, black_to_move, depth, leaf)
            ours = _search(game, s, theta, depth, 10**9, qdepth=0)
            assert ours.depth == depth and abs(ours.score - want) <= 1e-12, (depth, ours, want)
            # the move played is worth the root value (another move only in a tie to rounding)
            value = -negamax(*after(p, o, ours.move), not black_to_move, depth - 1, leaf)
            assert abs(value - want) <= 1e-9
            compared += 1
    assert compared >= 10


def test_thread_workspace_is_one_per_thread_game_and_table_size():
    """A thread keeps one workspace per (game, table size) and reuses it; another thread gets
    its own (two threads never search in one workspace)."""
    import threading

    first = {g: ab.thread_workspace(registry.get(g), 4) for g in GAMES}
    for g in GAMES:
        game = registry.get(g)
        assert ab.thread_workspace(game, 4) is first[g]
        assert ab.thread_workspace(game, 5) is not first[g]
        assert ab.thread_workspace(game, 5)[4].shape[0] == 32 and first[g][4].shape[0] == 16
        assert first[g][0].shape[0] == (ab.MAX_PLY + 2) * game.MAX_MOVES
    other = {}
    worker = threading.Thread(target=lambda: other.update(
        {g: ab.thread_workspace(registry.get(g), 4) for g in GAMES}))
    worker.start()
    worker.join()
    assert all(other[g] is not first[g] for g in GAMES)
    assert len({id(first[g]) for g in GAMES}) == len(GAMES)
