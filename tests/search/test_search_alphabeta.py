"""The search against plain-Python oracles: minimax, brute-force quiescence, mate solver."""

from __future__ import annotations

import numpy as np
import pytest
import search_oracle as O

from gamelib.games.minishogi import features as ev
from gamelib.games.minishogi import Position, format_sfen, format_usi
from gamelib.games.minishogi import core as mc
from gamelib.search import (
    LEAF_CAP,
    LEAF_MATED,
    LEAF_REPETITION,
    LEAF_STATIC,
    MATE,
    principal_leaf,
    search,
)
from gamelib.search import core as sc

LIN = ev.EVAL_LINEAR
MAT = ev.EVAL_MATERIAL
BIG = 10**9


def check_leaf(s, res, theta, kind, noise_std=0.0, seed=0):
    """The root score is what the principal leaf says: its static evaluation (root side's view,
    sign included) or its game end at the PV's length."""
    leaf = principal_leaf(s, res)
    if res.leaf_kind == LEAF_STATIC:
        v = O.static(leaf, theta, kind, noise_std, seed)
        assert (v if leaf[mc.STM] == s[mc.STM] else -v) == pytest.approx(res.score, abs=1e-15)
    elif res.leaf_kind == LEAF_MATED:
        assert not O.moves_of(leaf)
        assert res.score == (MATE - len(res.pv) if len(res.pv) % 2 else -(MATE - len(res.pv)))
    else:
        assert res.leaf_kind in (LEAF_REPETITION, LEAF_CAP)
    return leaf


@pytest.mark.parametrize("depth,qdepth", [(1, 0), (1, 4), (2, 2), (3, 1)])
def test_alphabeta_equals_minimax(positions, theta, depth, qdepth):
    for s in positions[:6] if depth < 3 else positions[:2]:
        exact = O.root_values(s.copy(), theta, LIN, depth, qdepth)
        res = search(s, theta, LIN, depth, BIG, qdepth, use_tt=False)
        # iterative deepening stops early at a forced game end inside the full-width plies
        assert not res.partial
        assert res.depth == depth or (res.mate is not None and abs(res.mate) <= res.depth)
        assert res.score == max(exact.values())
        assert exact[res.move] == res.score
        # the PV replays to a leaf whose static evaluation is the score, sign included
        check_leaf(s, res, theta, LIN)


def test_search_does_not_modify_the_state(positions, theta):
    s = positions[3]
    before = s.copy()
    search(s, theta, LIN, 3, 20000, 4)
    assert np.array_equal(s, before)


def test_minimax_with_noise_and_cap(positions, theta):
    """Noise is a function of the position (and seed); the game-length cap scores a draw."""
    std = np.sqrt(0.001)
    for s in positions[:4]:
        exact = O.root_values(s.copy(), theta, LIN, 2, 2, noise_std=std, seed=11)
        res = search(s, theta, LIN, 2, BIG, 2, std, 11, use_tt=False)
        assert res.score == max(exact.values())
        check_leaf(s, res, theta, LIN, std, 11)
    s = positions[0]
    cap = int(s[mc.MOVE_NUMBER]) - 1 + int(s[mc.PLY]) + 2
    exact = O.root_values(s.copy(), theta, LIN, 3, 2, max_plies=cap)
    res = search(s, theta, LIN, 3, BIG, 2, max_plies=cap, use_tt=False)
    assert res.score == max(exact.values())


def test_tt_keeps_the_principal_leaf_exact(positions, theta):
    for s in positions:
        res = search(s, theta, LIN, 4, 60000, 6, np.sqrt(0.001), 5)
        check_leaf(s, res, theta, LIN, np.sqrt(0.001), 5)
        # the PV is a legal line
        st = Position(format_sfen(s))
        for m in res.pv:
            assert format_usi(int(m)) in st.legal_moves
            st.push_usi(format_usi(int(m)))


def test_tt_and_ordering_do_not_change_the_move_much(positions, theta):
    """With the TT off the result is minimax; with it on the score may differ (deeper table
    entries), but the orderings alone never change the value."""
    for s in positions[:4]:
        ref = search(s, theta, LIN, 3, BIG, 2, use_tt=False)
        for kw in ({"killers": False}, {"history": False}, {"killers": False, "history": False}):
            r = search(s, theta, LIN, 3, BIG, 2, use_tt=False, **kw)
            assert r.score == ref.score


def test_quiescence_against_brute_force(positions, theta):
    mv, ordk, pv, ctl, tt, tts, ec, ecv = sc.new_workspace(0)
    checked = 0
    for s in positions:
        for qdepth in (1, 3, 6):
            st = s.copy()
            sc.setup(st, ctl, tt, BIG, qdepth, LIN, False, True, True, 0, 0)
            st = np.concatenate([st, np.zeros(mc.HIST_STRIDE * 16, dtype=np.int64)])
            v = sc.qsearch(st, theta, mv, ordk, pv, ctl, ec, ecv, 0.0, -sc.INF, sc.INF, 0, qdepth)
            ref, _ = O.qsearch(st.copy(), theta, LIN, 0, qdepth)
            assert v == ref
            # the quiescence PV ends at a leaf with that static value
            line = [int(m) for m in pv[0, : ctl[sc.C_PVLEN]]]
            for m in line:
                mc.make_move(st, m)
            if ctl[sc.C_LEAF] == LEAF_STATIC:
                lv = O.static(st, theta, LIN)
                assert (lv if len(line) % 2 == 0 else -lv) == v
            checked += len(line) > 0
    assert checked > 0  # some positions had a capture line


# ----------------------------------------------------------------------------- mates
MATE_IN_1 = "4k/5/2G2/5/K4 b G 1"  # G*2b is the only mate: the gold on 3c guards 2b
MATE_IN_1_ANSWER = "G*2b"


def after(s, m):
    """A copy of state ``s`` with move ``m`` played."""
    st = np.concatenate([s, np.zeros(4 * mc.HIST_STRIDE, dtype=np.int64)])
    mc.make_move(st, int(m))
    return st


def test_mate_in_one_hand_made():
    theta = ev.table1_theta()
    s = Position(MATE_IN_1).state
    assert O.forced_win(s.copy(), 1)
    res = search(Position(MATE_IN_1), theta, MAT, 5, 100000, 4)
    assert res.mate == 1 and res.score == MATE - 1
    assert res.usi == MATE_IN_1_ANSWER
    assert res.leaf_kind == LEAF_MATED
    leaf = principal_leaf(s, res)
    assert mc.gen_moves(leaf, np.empty(mc.MAX_MOVES, dtype=np.int32), 0, False) == 0


def test_pawn_drop_mate_is_not_a_mate():
    """Only a pawn drop (P*1b, illegal: uchifuzume) would mate here: no mate in 1."""
    theta = ev.table1_theta()
    pos = Position("3pk/5/3G1/5/K4 b P 1")
    assert "P*1b" not in pos.legal_moves
    assert not O.forced_win(pos.state.copy(), 1)
    res = search(pos, theta, MAT, 3, 100000, 2)
    assert res.mate != 1 and res.usi != "P*1b"


def _find_mates(positions, max_plies):
    found = []
    for s in positions:
        for k in range(1, max_plies + 1, 2):
            if O.forced_win(s.copy(), k):
                found.append((s, k))
                break
    return found


def test_mates_found_with_their_distance():
    """Positions with forced mates (from playouts of a drop-rich start): the search announces
    exactly the shortest mate; the oracle is a plain AND-OR solver."""
    from search_positions import playout_positions

    cands = playout_positions(99, 60, min_ply=20, max_ply=60, quiet=False)
    theta = ev.table1_theta()
    mates = _find_mates(cands, 3)
    assert len(mates) >= 3 and any(k == 3 for _, k in mates), "the playouts should hold mates in 1 and in 3 plies"
    for s, k in mates:
        res = search(s, theta, MAT, 5, 400000, 2)
        assert res.mate == k, (format_usi(res.move), res.score, k)
        st = s.copy()
        assert O.forced_win(st, k) and (k == 1 or not O.forced_win(st, k - 2))
    # and the defender sees being mated with the same distance
    for s, k in mates:
        if k >= 3:
            res = search(s, theta, MAT, 5, 400000, 2)
            r2 = search(after(s, res.move), theta, MAT, 5, 400000, 2)
            assert r2.mate == -(k - 1)


# ----------------------------------------------------------------------------- budget, determinism, noise
def test_node_budget_is_respected(positions, theta):
    s = positions[5]
    for budget in (1, 2, 3, 10, 57, 1000, 12345):
        res = search(s, theta, LIN, 30, budget, 6)
        assert res.nodes <= budget
        assert res.nodes == budget  # depth 30 never finishes: the whole budget is used
        legal = O.moves_of(s.copy())
        assert res.move in legal
    small = search(s, theta, LIN, 30, 3, 6)
    assert small.depth == 0
    big = search(s, theta, LIN, 30, 50000, 6)
    assert big.depth >= 2


def test_partial_iteration_is_reported(positions, theta):
    s = positions[2]
    full = search(s, theta, LIN, 3, BIG, 4)
    d = full.depth
    # a budget that ends inside iteration d
    prev = search(s, theta, LIN, d - 1, BIG, 4)
    res = search(s, theta, LIN, d, (prev.nodes + full.nodes) // 2, 4)
    assert res.depth == d - 1
    if res.partial:
        assert res.move in O.moves_of(s.copy())


def test_deterministic(positions, theta):
    std = np.sqrt(0.001)
    for s in positions[:5]:
        a = search(s, theta, LIN, 20, 30000, 6, std, 123)
        search(positions[-1], theta, MAT, 4, 5000, 2, std, 9)  # dirty the workspace
        b = search(s, theta, LIN, 20, 30000, 6, std, 123)
        assert (a.move, a.score, a.nodes, a.depth) == (b.move, b.score, b.nodes, b.depth)
        assert np.array_equal(a.pv, b.pv)


def test_noise_changes_moves_across_seeds_only():
    """Opening positions (no capture in sight): with the paper's noise the chosen move depends
    on the seed, and only on it."""
    from search_positions import playout_positions

    theta = ev.table1_theta()
    std = np.sqrt(0.001)
    differ = 0
    opening = [Position().state] + playout_positions(5, 5, min_ply=1, max_ply=4)
    for s in opening:
        moves = {search(s, theta, MAT, 20, 3000, 4, std, seed).move for seed in range(8)}
        again = {search(s, theta, MAT, 20, 3000, 4, std, 3).move for _ in range(2)}
        assert len(again) == 1
        differ += len(moves) > 1
    assert differ >= 4
    quiet = {search(opening[0], theta, MAT, 20, 3000, 4, 0.0, seed).move for seed in range(4)}
    assert len(quiet) == 1  # without noise the seed does not matter


def test_gauss_noise_is_standard_normal():
    keys = sc.mix_seed(5)
    z = np.array([sc.gauss_noise(h * 0x9E3779B1 + 17, keys) for h in range(20000)])
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1) < 0.03
    assert abs(np.mean(z**4) - 3) < 0.2
    assert sc.mix_seed(5) != sc.mix_seed(6) and sc.mix_seed(2**32 + 5) != sc.mix_seed(5)


# ----------------------------------------------------------------------------- input checks
def test_bad_input(positions, theta):
    s = positions[0]
    with pytest.raises(ValueError, match="kind"):
        search(s, theta, 7, 2, 100)
    with pytest.raises(ValueError, match="theta"):
        search(s, theta[:-1], LIN, 2, 100)
    with pytest.raises(ValueError, match="node_budget"):
        search(s, theta, LIN, 2, 0)
    with pytest.raises(ValueError, match="max_depth"):
        search(s, theta, LIN, 0, 100)
    with pytest.raises(ValueError, match="noise_std"):
        search(s, theta, LIN, 2, 100, 2, float("nan"))
    with pytest.raises(ValueError, match="minishogi state"):
        search(np.zeros(10), theta, LIN, 2, 100)
    bad = theta.copy()
    bad[3] = np.inf
    with pytest.raises(ValueError, match="non-finite"):
        search(s, bad, LIN, 2, 100)


def test_no_legal_move():
    theta = ev.table1_theta()
    pos = Position(MATE_IN_1)
    pos.push_usi(MATE_IN_1_ANSWER)
    res = search(pos, theta, MAT, 3, 1000, 2)
    assert res.move == -1 and res.usi is None and len(res.pv) == 0
    assert res.score == -MATE and res.mate == 0 and res.leaf_kind == LEAF_MATED



def test_explicit_workspace(positions, theta):
    from gamelib.search import new_workspace

    s = positions[4]
    ws = new_workspace(12)
    a = search(s, theta, LIN, 20, 20000, 6, workspace=ws)
    b = search(s, theta, LIN, 20, 20000, 6, tt_bits=12)
    assert (a.move, a.score, a.nodes) == (b.move, b.score, b.nodes)
    with pytest.raises(ValueError, match="workspace"):
        search(s, theta, LIN, 2, 100, workspace=ws[:3])
    with pytest.raises(ValueError, match="workspace"):
        search(s, theta, LIN, 2, 100, workspace=(ws[0].astype(np.int64),) + ws[1:])
