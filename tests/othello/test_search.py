"""αβ search with pluggable evaluations against a plain minimax oracle."""

import numpy as np
import pytest

from gamelib.othello import Board, core
from gamelib.othello.mlp import MLP, mlp_value
from gamelib.othello.players import random_opening
from gamelib.othello.search import CLASSIC_WEIGHTS, Evaluator, evaluate, search
from gamelib.othello.value_table import ValueTable, decompose_games


def legal(p, o):
    mask = int(core.move_mask(np.uint64(p), np.uint64(o)))
    return [sq for sq in range(64) if mask >> sq & 1]


def play(b, w, btm, sq):
    p, o = (b, w) if btm else (w, b)
    p2, o2 = core.make_move(np.uint64(p), np.uint64(o), sq)
    return (int(p2), int(o2)) if btm else (int(o2), int(p2))


def minimax(b, w, btm, depth, ev):
    """Plain negamax without pruning: passes cost no depth, finished games score exactly."""
    p, o = (b, w) if btm else (w, b)
    moves = legal(p, o)
    if not moves:
        if not legal(o, p):
            return evaluate(b, w, btm, ev)
        return -minimax(b, w, not btm, depth, ev)
    if depth == 0:
        return evaluate(b, w, btm, ev)
    return max(-minimax(*play(b, w, btm, sq), not btm, depth - 1, ev) for sq in moves)


def positions(n, seed, plies_range=(4, 50)):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        moves = random_opening(int(rng.integers(*plies_range)), rng)
        board = Board()
        board.play(list(moves))
        if board.must_pass():
            board.push("pass")
        if not board.is_game_over():
            out.append((board.black, board.white, board.turn == "X"))
    return out


@pytest.fixture(scope="module")
def evaluators():
    table_games = ["".join(f"{'abcdefgh'[s % 8]}{s // 8 + 1}" for s in
                           random_opening(60, np.random.default_rng(i))) for i in range(30)]
    table = ValueTable.from_decomposition(decompose_games(table_games, np.full(30, 40)))
    net = MLP.init((64, 16, 8, 1), seed=3)
    return {"discs": Evaluator.discs(), "positional": Evaluator.positional(),
            "mlp": Evaluator.from_mlp(net), "table": Evaluator.from_table(table, fallback=net)}


@pytest.mark.parametrize("kind", ["discs", "positional", "mlp", "table"])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_alphabeta_equals_minimax(evaluators, kind, depth):
    ev = evaluators[kind]
    for b, w, btm in positions(6, seed=depth):
        p, o = (b, w) if btm else (w, b)
        root = {sq: -minimax(*play(b, w, btm, sq), not btm, depth - 1, ev) for sq in legal(p, o)}
        best = max(root.values())
        res = search(b, w, btm, ev, depth)
        assert res.score == pytest.approx(best, abs=1e-9)
        assert root[res.move] == pytest.approx(best, abs=1e-9)
        assert res.depth == depth and res.nodes > 0


def test_leaf_scores():
    board = Board()
    board.play("f5f6e6")  # black: d5 e5 f5 e6 e4 -> white to move
    b, w = board.black, board.white
    assert evaluate(b, w, True, Evaluator.discs()) == pytest.approx((5 - 2) / 64)
    assert evaluate(b, w, False, Evaluator.discs()) == pytest.approx(-(5 - 2) / 64)
    wts = CLASSIC_WEIGHTS / np.abs(CLASSIC_WEIGHTS).sum()
    mine = sum(wts[i] for i in range(64) if b >> i & 1) - sum(wts[i] for i in range(64) if w >> i & 1)
    assert evaluate(b, w, True, Evaluator.positional()) == pytest.approx(mine)
    net = MLP.init((64, 8, 1), seed=1)
    v = mlp_value(*net.kernel_args(), np.uint64(b), np.uint64(w))
    assert evaluate(b, w, True, Evaluator.from_mlp(net)) == pytest.approx(2 * v - 1)
    assert evaluate(b, w, False, Evaluator.from_mlp(net)) == pytest.approx(2 * (1 - v) - 1)  # eq. 3
    # a finished game: 2 + |d| / 64 beats any evaluation
    full_black = (1 << 64) - 1 - 1
    assert evaluate(full_black, 0, True, Evaluator.discs()) == pytest.approx(2 + 63 / 64)
    assert evaluate(full_black, 0, False, Evaluator.from_mlp(net)) \
        == pytest.approx(-(2 + 63 / 64))


def test_table_evaluation_uses_the_table_then_the_fallback():
    dec = decompose_games(["f5d6", "f5f6"], [40, 20])  # one Black win, one White win via f5
    table = ValueTable.from_decomposition(dec)
    after_f5 = Board()
    after_f5.play("f5")
    b, w = after_f5.black, after_f5.white
    assert evaluate(b, w, False, Evaluator.from_table(table)) == pytest.approx(0.0)  # v = 1/2
    d6 = Board()
    d6.play("f5d6")  # v_b = 1: Black (to move) is sure to win
    assert evaluate(d6.black, d6.white, True, Evaluator.from_table(table)) == pytest.approx(1.0)
    assert evaluate(d6.black, d6.white, False, Evaluator.from_table(table)) == pytest.approx(-1.0)
    other = Board()
    other.play("d3")
    assert evaluate(other.black, other.white, False, Evaluator.from_table(table)) == 0.0
    net = MLP.init((64, 4, 1), seed=2)
    v = mlp_value(*net.kernel_args(), np.uint64(other.black), np.uint64(other.white))
    assert evaluate(other.black, other.white, True, Evaluator.from_table(table, net)) \
        == pytest.approx(2 * v - 1)


def test_pass_and_tie_break():
    # the start position: the four moves are symmetric, so greedy scores tie
    b, w = int(core.START_BLACK), int(core.START_WHITE)
    picks = {search(b, w, True, Evaluator.discs(), 1, tie_break=u).move
             for u in np.linspace(0, 0.99, 8)}
    assert picks == {19, 26, 37, 44}
    # positions where the side to move must pass, found in random games
    found = 0
    for seed in range(200):
        board = Board()
        for sq in random_opening(60, np.random.default_rng(seed)):
            board.play([f"{'abcdefgh'[sq % 8]}{sq // 8 + 1}"])
            if board.must_pass():
                found += 1
                res = search(board.black, board.white, board.turn == "X", Evaluator.discs(), 2)
                assert res.move == -1 and res.nodes == 0
                # the score of the other side's move counts the pass without spending depth
                after = board.copy()
                after.push("pass")
                side = after.turn == "X"
                assert search(after.black, after.white, side, Evaluator.discs(), 2).score \
                    == pytest.approx(minimax(after.black, after.white, side, 2, Evaluator.discs()))
        if found >= 3:
            break
    assert found >= 3


def test_node_budget_stops_iterative_deepening(evaluators):
    b, w, btm = positions(1, seed=11, plies_range=(10, 11))[0]
    ev = evaluators["positional"]
    full = search(b, w, btm, ev, 6)
    limited = search(b, w, btm, ev, 6, node_budget=300)
    assert 1 <= limited.depth < 6
    assert limited.score == pytest.approx(search(b, w, btm, ev, limited.depth).score)
    assert search(b, w, btm, ev, 6, node_budget=10**9).score == pytest.approx(full.score)
    again = search(b, w, btm, ev, 6, node_budget=300)
    assert again == limited  # node budgets are deterministic


def test_bad_input():
    b, w = int(core.START_BLACK), int(core.START_WHITE)
    with pytest.raises(ValueError, match=r"search depth must be an integer in \[1, 120\], got 0"):
        search(b, w, True, Evaluator.discs(), 0)
    with pytest.raises(ValueError, match="share squares"):
        search(b, b, True, Evaluator.discs(), 1)
    with pytest.raises(ValueError, match="game is over"):
        search((1 << 64) - 1, 0, True, Evaluator.discs(), 1)
    with pytest.raises(ValueError, match="unknown evaluation 'magic'"):
        Evaluator("magic")
    with pytest.raises(ValueError, match="needs a network"):
        Evaluator("mlp")
    with pytest.raises(ValueError, match="64 finite numbers"):
        Evaluator.positional(np.ones(10))
