"""root_leaves: evl(s, a) = θ·φ(leaf) (eq. 5), the values against minimax, terminal leaves."""

from __future__ import annotations

import numpy as np
import pytest
import search_oracle as O
from numba import njit

from gamelib.games.minishogi import features as ev
from gamelib.games.minishogi import Position, format_usi
from gamelib.games.minishogi import core as mc
from gamelib.search import (
    LEAF_MATED,
    LEAF_STATIC,
    MATE,
    new_leaves_buffers,
    new_workspace,
    root_leaves,
    root_leaves_into,
    search,
)

LIN = ev.EVAL_LINEAR


def check_identity(rl, theta):
    for k in range(len(rl)):
        a, b = rl.leaf_ptr[k], rl.leaf_ptr[k + 1]
        if rl.leaf_kind[k] == LEAF_STATIC:
            assert b > a
            assert float(theta[rl.leaf_idx[a:b]] @ rl.leaf_val[a:b]) == pytest.approx(rl.scores[k], abs=1e-12)
        else:
            assert a == b  # a game end has no features


@pytest.mark.parametrize("depth,qdepth", [(1, 4), (1, 0), (2, 2)])
def test_identity_and_minimax(positions, theta, depth, qdepth):
    for s in positions[:8] if depth == 1 else positions[:3]:
        before = s.copy()
        rl = root_leaves(s, theta, LIN, depth, qdepth)
        assert np.array_equal(s, before)
        check_identity(rl, theta)
        exact = O.root_values(s.copy(), theta, LIN, depth, qdepth)
        assert sorted(exact) == sorted(int(m) for m in rl.moves)
        for m, v in zip(rl.moves, rl.scores):
            assert v == exact[int(m)]
        # the best root leaf is the search's value
        res = search(s, theta, LIN, depth, 10**9, qdepth, use_tt=False)
        assert res.score == rl.scores.max()


def test_features_are_from_the_root_side(positions, theta):
    """Flip the root side's view by hand: φ of an odd-length line is minus the leaf's own φ."""
    s = positions[1]
    rl = root_leaves(s, theta, LIN, 1, 0)  # the leaf is the position right after the move
    dense = rl.dense(ev.N_FEATURES)
    for k, m in enumerate(rl.moves):
        st = np.concatenate([s, np.zeros(8, dtype=np.int64)])
        mc.make_move(st, int(m))
        if rl.leaf_kind[k] == LEAF_STATIC:
            idx = np.zeros(ev.MAX_ACTIVE, dtype=np.int32)
            val = np.zeros(ev.MAX_ACTIVE)
            nf = ev.features(st, idx, val)
            own = np.zeros(ev.N_FEATURES)
            np.add.at(own, idx[:nf], val[:nf])
            assert np.array_equal(dense[k], -own)
            assert rl.scores[k] == pytest.approx(-ev.evaluate(st, theta), abs=1e-12)


def test_terminal_leaves():
    theta = ev.table1_theta()
    pos = Position("4k/5/2G2/5/K4 b G 1")
    rl = root_leaves(pos, theta, ev.EVAL_MATERIAL, 1, 4)
    mate = [i for i in range(len(rl)) if rl.leaf_kind[i] == LEAF_MATED]
    assert len(mate) == 1
    i = mate[0]
    assert rl.scores[i] == MATE - 1 and rl.terminal[i]
    assert rl.leaf_ptr[i] == rl.leaf_ptr[i + 1]
    assert format_usi(int(rl.moves[i])) == "G*2b"
    # no legal move at all: nothing to return
    pos.push_usi("G*2b")
    assert len(root_leaves(pos, theta, ev.EVAL_MATERIAL, 1, 4)) == 0


@njit(cache=True)
def _greedy_game(s, theta, plies, ws, out):
    """A nopython loop that uses root_leaves_into: play the best-valued move each ply."""
    total = 0.0
    for _ in range(plies):
        n = root_leaves_into(s, theta, 1, 1, 4, 0, ws, out)
        if n == 0:
            break
        scores = out[1]
        best = 0
        for k in range(1, n):
            if scores[k] > scores[best]:
                best = k
        total += scores[best]
        mc.make_move(s, np.int64(out[0][best]))
    return total


def test_njit_core_matches_the_wrapper(theta):
    s = Position().state.copy()
    ws = new_workspace(0)
    out = new_leaves_buffers()
    s0 = s.copy()
    total = _greedy_game(s, theta, 6, ws, out)
    # replay with the Python wrapper
    ref = 0.0
    for p in range(6):
        rl = root_leaves(s0, theta, LIN, 1, 4)
        k = int(np.argmax(rl.scores))
        ref += rl.scores[k]
        mc.make_move(s0, int(rl.moves[k]))
    assert total == ref and np.array_equal(s0[: mc.HIST + 4 * 7], s[: mc.HIST + 4 * 7])


def test_bad_arguments(positions, theta):
    s = positions[0]
    for kw, word in (({"depth": 0}, "depth"), ({"qdepth": -1}, "qdepth"), ({"depth": 100, "qdepth": 100}, "depth"), ({"max_plies": -3}, "max_plies")):
        with pytest.raises(ValueError, match=word):
            root_leaves(s, theta, LIN, **kw)
    with pytest.raises(ValueError, match="theta"):
        root_leaves(s, np.zeros(5), LIN)


def test_game_length_cap(positions, theta):
    """A root move that reaches the cap ends the game in a draw (unless it mates)."""
    from gamelib.search import LEAF_CAP

    s = positions[2]
    cap = int(s[mc.MOVE_NUMBER]) - 1 + int(s[mc.PLY]) + 1
    rl = root_leaves(s, theta, LIN, 2, 2, max_plies=cap)
    for k in range(len(rl)):
        assert rl.leaf_kind[k] in (LEAF_CAP, LEAF_MATED)
        assert rl.scores[k] == (0.0 if rl.leaf_kind[k] == LEAF_CAP else MATE - 1)
    exact = O.root_values(s.copy(), theta, LIN, 2, 2, max_plies=cap)
    assert [exact[int(m)] for m in rl.moves] == list(rl.scores)


def test_scores_then_one_leaf_equal_root_leaves():
    from gamelib.search import (leaf_features_into, leaf_features_unsorted_into, new_leaves_buffers,
                                new_workspace, root_scores_into)

    theta = ev.initial_theta(2, 0.01)
    pos = Position()
    for usi in ("2e4c", "4a2c", "4e3d"):
        pos.push_usi(usi)
    full = root_leaves(pos, theta, ev.EVAL_LINEAR, 1, 4)
    s = pos.state.copy()
    before = s.copy()
    out = new_leaves_buffers()
    n = root_scores_into(s, theta, ev.EVAL_LINEAR, 1, 4, 0, new_workspace(0), out)
    assert n == len(full) and np.array_equal(out[1][:n], full.scores)
    idx = np.zeros(ev.MAX_ACTIVE, dtype=np.int64)
    val = np.zeros(ev.MAX_ACTIVE)
    for k in range(n):
        m = leaf_features_into(s, k, out, idx, val, 0)
        a, b = full.leaf_ptr[k], full.leaf_ptr[k + 1]
        assert np.array_equal(idx[:m], full.leaf_idx[a:b]) and np.array_equal(val[:m], full.leaf_val[a:b])
        # the learners' version: the same entries in scan order
        m = leaf_features_unsorted_into(s, k, out, idx, val, 0)
        order = np.argsort(idx[:m])
        assert np.array_equal(idx[:m][order], full.leaf_idx[a:b]) and np.array_equal(val[:m][order], full.leaf_val[a:b])
    assert not out[9].any()
    used = mc.HIST + mc.HIST_STRIDE * (int(before[mc.PLY]) + 1)  # beyond: the search's scratch
    assert np.array_equal(s[:used], before[:used])


def _random_game_position(rng, low, high):
    """The position after a random number in [low, high) of uniformly random moves (fewer if
    the game ends first)."""
    pos = Position()
    for _ in range(int(rng.integers(low, high))):
        moves = pos.legal_move_codes()
        if len(moves) == 0 or pos.outcome() is not None:
            break
        pos.push(int(moves[int(rng.integers(len(moves)))]))
    return pos


def _leaves_two_ways(s, theta, max_plies):
    """``child_leaves_into`` against ``root_scores_into(depth 1, qdepth 0)`` and
    ``leaf_features_unsorted_into`` of every root move: everything must be equal."""
    from gamelib.search import (LEAF_STATIC, child_leaves_into, leaf_features_unsorted_into,
                                new_leaves_buffers, new_workspace, root_scores_into)

    a, b = new_leaves_buffers(), new_leaves_buffers()
    sa, sb = s.copy(), s.copy()
    n = root_scores_into(sa, theta, ev.EVAL_LINEAR, 1, 0, max_plies, new_workspace(0), a)
    assert child_leaves_into(sb, theta, max_plies, new_workspace(0), b) == n
    for i in (0, 1, 2):
        assert np.array_equal(a[i][:n], b[i][:n]), i
    assert np.array_equal(a[8][:n, 0], b[8][:n, 0])
    idx = np.zeros(ev.MAX_ACTIVE, dtype=np.int32)
    val = np.zeros(ev.MAX_ACTIVE)
    for k in range(n):
        m = leaf_features_unsorted_into(sa, k, a, idx, val, 0)
        lo, hi = b[3][k], b[3][k + 1]
        assert hi - lo == m and np.array_equal(idx[:m], b[4][lo:hi]) and np.array_equal(val[:m], b[5][lo:hi])
        assert (m > 0) == (b[2][k] == LEAF_STATIC)
    assert np.array_equal(sa, sb) and not b[9].any()
    # TD(λ)'s pass without the search's machinery: the same scores and kinds (either evaluation)
    from gamelib.search import child_scores_into
    from gamelib.search import core as sc

    for kind in (ev.EVAL_LINEAR, ev.EVAL_MATERIAL):
        ref = new_leaves_buffers()
        n_ref = root_scores_into(s.copy(), theta, kind, 1, 0, max_plies, new_workspace(0), ref)
        c, ws, sc_ = new_leaves_buffers(), new_workspace(0), s.copy()
        assert child_scores_into(sc_, theta, kind, max_plies, ws, c) == n_ref
        for i in (0, 1, 2):
            assert np.array_equal(ref[i][:n_ref], c[i][:n_ref]), (kind, i)
        assert np.array_equal(ref[8][:n_ref, 0], c[8][:n_ref, 0])
        assert np.array_equal(sc_, sb)
        ctl = ws[3]   # the hash-count table is left all zeros
        assert ctl[sc.C_REP_CLEAN] == 1 and not ctl[sc.C_REP:sc.C_REP + (1 << sc.REP_BITS)].any()
    return set(int(x) for x in b[2][:n])


def test_child_leaves_are_root_scores_and_leaf_features_in_one_pass():
    """REINFORCE's fused pass gives exactly the scores, leaf kinds and features of the two-step
    one, on positions of random games (checks and mates among them), at a game-length cap, and
    where a root move repeats a position for the fourth time."""
    from gamelib.search import LEAF_CAP, LEAF_REPETITION

    theta = ev.initial_theta(5, 0.01)
    rng = np.random.default_rng(11)
    kinds = set()
    for g in range(12):
        pos = _random_game_position(rng, 0, 60)
        if pos.outcome() is not None:
            continue
        s = pos.state
        kinds |= _leaves_two_ways(s, theta, 0)
        cap = int(s[mc.MOVE_NUMBER]) - 1 + int(s[mc.PLY]) + 1
        kinds |= _leaves_two_ways(s, theta, cap)
    pos = Position()
    for usi in ["5e4d", "1a2b", "4d5e", "2b1a"] * 2 + ["5e4d", "1a2b", "4d5e"]:
        pos.push_usi(usi)
    kinds |= _leaves_two_ways(pos.state, theta, 0)
    assert {LEAF_CAP, LEAF_REPETITION} <= kinds, kinds


def test_a_reused_workspace_gives_the_results_of_fresh_ones():
    """Root passes leave the hash-count table all zeros (``release_repetition``) and skip the
    history table at depth 1, so the next setup clears less: passes of depth 1 and 2 (the
    latter with killers, history and repetitions inside the search) and TD(λ)'s pass, in turn
    on one workspace, give exactly what fresh workspaces give, on positions of random games
    and on one where root moves repeat a position; a table left dirty (a pass that raised) is
    cleared by the next setup."""
    from gamelib.search import child_scores_into, root_scores_into
    from gamelib.search import core as sc

    theta = ev.initial_theta(3, 0.01)
    rng = np.random.default_rng(5)
    states = []
    for g in range(6):
        pos = _random_game_position(rng, 4, 40)
        if pos.outcome() is None:
            states.append(pos.state)
    pos = Position()
    for usi in ["5e4d", "1a2b", "4d5e", "2b1a"] * 2 + ["5e4d", "1a2b", "4d5e"]:
        pos.push_usi(usi)
    states.append(pos.state)

    def passes(s, ws):
        got = []
        for depth, qdepth in ((1, 4), (2, 1), (1, 0)):
            out = new_leaves_buffers()
            n = root_scores_into(s.copy(), theta, ev.EVAL_LINEAR, depth, qdepth, 0, ws, out)
            got.append((out[0][:n].copy(), out[1][:n].copy(), out[2][:n].copy(), out[8][:n].copy()))
        out = new_leaves_buffers()
        n = child_scores_into(s.copy(), theta, ev.EVAL_LINEAR, 0, ws, out)
        got.append((out[0][:n].copy(), out[1][:n].copy(), out[2][:n].copy()))
        return got

    shared = new_workspace(0)
    ctl = shared[3]
    for i, s in enumerate(states * 2):
        if i == len(states):   # as if a pass had raised: counts left behind, the flag not set
            ctl[sc.C_REP:sc.C_REP + (1 << sc.REP_BITS)] = -7
            ctl[sc.C_REP_CLEAN] = 0
        for a, b in zip(passes(s, shared), passes(s, new_workspace(0))):
            assert all(np.array_equal(x, y) for x, y in zip(a, b))
        assert ctl[sc.C_REP_CLEAN] == 1 and not ctl[sc.C_REP:sc.C_REP + (1 << sc.REP_BITS)].any()
