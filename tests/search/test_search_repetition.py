"""Repetition in the search: exact at the game level, in-search cycles as documented."""

from __future__ import annotations

import random

import pytest
import search_oracle as O

from gamelib.games.minishogi import features as ev
from gamelib.games.minishogi import Position, format_usi
from gamelib.games.minishogi import core as mc
from gamelib.search import LEAF_REPETITION, MATE, root_leaves, search
from gamelib.search import core as sc

LIN = ev.EVAL_LINEAR
# few pieces, so that random games repeat positions often (and give checks with the golds)
SPARSE = ("2g1k/5/5/5/KG3 b - 1", "4k/1r3/5/3R1/K4 b - 1", "k4/5/2s2/5/4K w G 1")


def random_games(n_games, plies, seed):
    rng = random.Random(seed)
    for g in range(n_games):
        pos = Position(SPARSE[g % len(SPARSE)], max_plies=None)
        for _ in range(plies):
            if pos.outcome() is not None:
                break
            pos.push_usi(rng.choice(sorted(pos.legal_moves)[:3]))  # a narrow walk repeats often
            yield pos


def test_verdict_is_the_rule_without_in_search_cycles():
    """With the root after the current position, the verdict is core.repetition_result, and
    with any root it is the oracle's cycle rule."""
    rng = random.Random(3)
    seen = {mc.RESULT_SENTE_WINS: 0, mc.RESULT_GOTE_WINS: 0, mc.RESULT_DRAW: 0}
    cycles = 0
    for pos in random_games(30, 200, 1):
        s = pos.state
        p = int(s[mc.PLY])
        r = sc.repetition_verdict(s, p + 1)
        assert r == mc.repetition_result(s)
        if r != mc.RESULT_NONE:
            seen[r] += 1
        root = rng.randint(0, p)
        c = sc.repetition_verdict(s, root)
        assert c == O.cycle_verdict(s, root)
        cycles += c != mc.RESULT_NONE
    assert seen[mc.RESULT_GOTE_WINS] > 0
    assert cycles > 20


PERPETUAL = "4k/5/5/5/K3r b - 1"  # gote's rook on 1e checks sente's king on 5e
CHECKS = ["5e5d", "1e1d", "5d5e", "1d1e"]  # gote checks with every move


def test_perpetual_check_loses():
    theta = ev.table1_theta()
    pos = Position(PERPETUAL, max_plies=None)
    shuffle(pos, CHECKS * 3)
    s = pos.state
    assert mc.repetition_result(s) == mc.RESULT_SENTE_WINS
    assert sc.repetition_verdict(s, int(s[mc.PLY]) + 1) == mc.RESULT_SENTE_WINS
    assert O.cycle_verdict(s, int(s[mc.PLY]) + 1) == mc.RESULT_SENTE_WINS
    # before its last check, gote sees that 1d1e would lose and plays something else
    pos.pop()
    rl = root_leaves(pos, theta, ev.EVAL_MATERIAL, 1, 0)
    k = [format_usi(int(m)) for m in rl.moves].index("1d1e")
    assert rl.leaf_kind[k] == LEAF_REPETITION and rl.scores[k] == -(MATE - 1)
    res = search(pos, theta, ev.EVAL_MATERIAL, 3, 10**5, 2)
    assert res.usi != "1d1e"
    # inside a search, one checking cycle is enough to lose
    pos = Position(PERPETUAL, max_plies=None)
    shuffle(pos, CHECKS)
    assert sc.repetition_verdict(pos.state, 0) == mc.RESULT_SENTE_WINS


def shuffle(pos, moves):
    for m in moves:
        pos.push_usi(m)


KINGS = "4k/5/5/5/K4 b P 1"  # sente: K 5e and a pawn in hand; gote: K 1a
CYCLE = ["5e5d", "1a1b", "5d5e", "1b1a"]


def test_fourth_occurrence_is_exact():
    theta = ev.table1_theta()
    pos = Position(KINGS, max_plies=None)
    shuffle(pos, CYCLE * 2 + CYCLE[:3])  # the start position occurred 3 times; gote to move
    assert pos.turn == "gote"
    res = search(pos, theta, ev.EVAL_MATERIAL, 4, 10**6, 2)
    assert res.usi == "1b1a" and res.mate == 1 and res.leaf_kind == LEAF_REPETITION
    # one ply earlier sente sees that 5d5e loses (gote repeats) and avoids it
    pos.pop()
    rl = root_leaves(pos, theta, ev.EVAL_MATERIAL, 2, 0)
    k = [format_usi(int(m)) for m in rl.moves].index("5d5e")
    assert rl.leaf_kind[k] == LEAF_REPETITION and rl.scores[k] == -(MATE - 2)
    res = search(pos, theta, ev.EVAL_MATERIAL, 4, 10**6, 2)
    assert res.usi != "5d5e" and res.score > -1


def test_second_occurrence_before_the_root_is_not_a_game_end():
    """Game-level exactness: a position seen once before the root ends nothing."""
    theta = ev.table1_theta()
    pos = Position(KINGS, max_plies=None)
    shuffle(pos, CYCLE[:3])  # gote to move; 1b1a repeats the start position (2nd occurrence)
    rl = root_leaves(pos, theta, ev.EVAL_MATERIAL, 1, 0)
    k = [format_usi(int(m)) for m in rl.moves].index("1b1a")
    assert rl.leaf_kind[k] != LEAF_REPETITION and abs(rl.scores[k]) < 1


@pytest.mark.parametrize("sfen,history", [(KINGS, []), (KINGS, CYCLE), ("4k/5/2g2/5/KG3 b - 1", ["4e4d", "3c3d"])])
def test_search_equals_minimax_with_repetitions(sfen, history, monkeypatch):
    """Depth 4 from shuffling positions: in-search cycles and game-history repetitions scored
    exactly as the oracle's rule says."""
    theta = ev.initial_theta(3, scale=0.01)
    pos = Position(sfen, max_plies=None)
    shuffle(pos, history)
    s = pos.state
    verdicts = []
    rule = O.cycle_verdict

    def counting(st, root_ply):
        r = rule(st, root_ply)
        verdicts.append(r)
        return r

    monkeypatch.setattr(O, "cycle_verdict", counting)
    exact = O.root_values(s.copy(), theta, LIN, 4, 1)
    assert sum(r != mc.RESULT_NONE for r in verdicts) > 0  # the tree holds repetitions
    res = search(pos, theta, LIN, 4, 10**9, 1, use_tt=False)
    assert res.score == max(exact.values())
    rl = root_leaves(pos, theta, LIN, 4, 1)
    for m, v in zip(rl.moves, rl.scores):
        assert v == exact[int(m)]


def test_in_search_cycle():
    """Back at the root position after 4 plies: a cycle inside the search (sente loses it by
    the rule) although the game's rule needs two more repetitions."""
    pos = Position(KINGS, max_plies=None)
    shuffle(pos, CYCLE)
    s = pos.state
    assert sc.repetition_verdict(s, 0) == mc.RESULT_GOTE_WINS
    assert sc.repetition_verdict(s, 1) == mc.RESULT_NONE  # the root after the first occurrence
    assert mc.repetition_result(s) == mc.RESULT_NONE
