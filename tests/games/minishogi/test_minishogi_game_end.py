"""Game endings (mate, stalemate, fourth repetition, perpetual check, the ply cap) vs pyffish.

pyffish's ``is_optional_game_end`` and ``game_result`` are adapted as the issue says (see
``minishogi_oracle.ffish_outcome``): no legal move (pawn-drop mates removed) loses, the n-fold
rule is read from the side to move's point of view.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import gamelib.games.minishogi as ms
from gamelib.games.minishogi.ffish import ffish_outcome, sfen_to_fen, usi_to_ffish
from gamelib.games.minishogi import core

# Repetition sequences: (start SFEN, moves, expected result at the end). Each prefix is also
# compared with pyffish. A rook checks a bare king back and forth (perpetual check), or the
# kings shuffle (no check), or both in turn.
ROOK_SENTE = "4k/5/3R1/5/K4 b - 1"
ROOK_GOTE = "4k/5/1r3/5/K4 w - 1"
SENTE_CHECKS = ["2c1c", "1a2a", "1c2c", "2a1a"]
GOTE_CHECKS = ["4c5c", "5e4e", "5c4c", "4e5e"]
GOTE_QUIET = ["1a1b", "5e5d", "1b1a", "5d5e"]
SHUFFLE = ["5e4d", "1a2b", "4d5e", "2b1a"]
REPETITIONS = {
    "kings shuffle: sente loses": (ms.START_SFEN, SHUFFLE * 3, "gote"),
    "shuffle, shifted by a ply": (ms.START_SFEN, SHUFFLE * 3 + SHUFFLE[:1], "gote"),
    "sente checks perpetually: sente loses": (ROOK_SENTE, SENTE_CHECKS * 3, "gote"),
    "same, ending on gote's turn": (ROOK_SENTE, SENTE_CHECKS[:1] + (SENTE_CHECKS[1:] + SENTE_CHECKS[:1]) * 3, "gote"),
    "gote checks perpetually: gote loses": (ROOK_GOTE, GOTE_CHECKS * 3, "sente"),
    "same, ending on sente's turn": (ROOK_GOTE, GOTE_CHECKS[:1] + (GOTE_CHECKS[1:] + GOTE_CHECKS[:1]) * 3, "sente"),
    "gote checks, but not on every move: sente loses": (ROOK_GOTE, GOTE_CHECKS + GOTE_QUIET + GOTE_CHECKS, "gote"),
    "quiet moves before the window do not count": (ROOK_GOTE, GOTE_QUIET + GOTE_CHECKS * 3, "sente"),
    "fifth occurrence": (ms.START_SFEN, SHUFFLE * 4, "gote"),
}


@pytest.mark.parametrize("name", sorted(REPETITIONS))
def test_repetition_sequences_match_pyffish(name):
    sfen, moves, expected = REPETITIONS[name]
    fen = sfen_to_fen(sfen)
    ff = [usi_to_ffish(m) for m in moves]
    results = [ms.outcome(sfen, moves[:i], max_plies=None) for i in range(len(moves) + 1)]
    assert results[-1] == expected
    assert all(r is None for r in results[:12]), "a repetition needs 4 occurrences"
    for i, ours in enumerate(results):
        assert ours == ffish_outcome(fen, ff[:i]), (name, i)


def test_mutual_perpetual_check_is_a_draw():
    """Both sides checking through the repetition: a draw (the rule's third branch).

    No real position with mutual perpetual check was found (a search of 1.5 million random
    sparse positions for cycles of at most 8 checking plies found none), so the history of a
    state is written by hand: the same hash at plies 0, 4, 8, 12, every position in check.
    """
    s = ms.Position(ms.START_SFEN).state.copy()
    s = np.concatenate([s, np.zeros(core.HIST_STRIDE * 16, dtype=np.int64)])
    for p in range(13):
        s[core.HIST + core.HIST_STRIDE * p] = 1234 if p % 4 == 0 else 1000 + p
        s[core.HIST + core.HIST_STRIDE * p + 1] = 1
    s[core.PLY] = 12
    assert core.repetition_result(s) == core.RESULT_DRAW
    # sente is to move at even plies: positions at odd plies are in check because sente checked
    s[core.HIST + core.HIST_STRIDE * 5 + 1] = 0  # one sente move without check
    assert core.repetition_result(s) == core.RESULT_SENTE_WINS  # gote checked throughout: gote loses
    s[core.HIST + core.HIST_STRIDE * 6 + 1] = 0  # and one gote move without check
    assert core.repetition_result(s) == core.RESULT_GOTE_WINS  # nobody did: sente loses
    s[core.HIST + core.HIST_STRIDE * 5 + 1] = 1
    assert core.repetition_result(s) == core.RESULT_GOTE_WINS  # sente checked throughout: sente loses
    s[core.PLY] = 11
    assert core.repetition_result(s) == core.RESULT_NONE


def _repetition_game(rng: random.Random, start: str, max_plies: int = 80) -> list[str]:
    """A random game that likes to repeat (replays its moves of 4 plies ago, or takes a move
    back) and to check, so that repetitions with and without perpetual check are common."""
    pos = ms.Position(start, max_plies=None)
    while pos.ply < max_plies and pos.outcome() is None:
        legal, stack = pos.legal_moves, pos.move_stack
        u = rng.random()
        back = stack[-2][2:4] + stack[-2][0:2] if len(stack) >= 2 and "*" not in stack[-2] else None
        if u < 0.5 and len(stack) >= 4 and stack[-4] in legal:
            move = stack[-4]
        elif u < 0.85 and back in legal:
            move = back
        else:
            checks = [m for m in legal if pos.gives_check(m)]
            move = rng.choice(checks if checks and rng.random() < 0.6 else legal)
        pos.push_usi(move)
    return pos.move_stack


def test_repetition_heavy_random_games_match_pyffish(games):
    rng = random.Random(31)
    starts = [p.sfen for g in games for p in g.plies[4:30] if p.n_legal and not p.in_check]
    seen = {"gote": 0, "sente": 0, None: 0}
    for _ in range(40):
        start = rng.choice(starts)
        moves = _repetition_game(rng, start)
        fen = sfen_to_fen(start)
        ff = [usi_to_ffish(m) for m in moves]
        for i in {len(moves), len(moves) - 1, rng.randrange(len(moves) + 1)}:
            ours = ms.outcome(start, moves[:i], max_plies=None)
            assert ours == ffish_outcome(fen, ff[:i]), (start, moves[:i])
        seen[ms.outcome(start, moves, max_plies=None)] += 1
    assert seen["gote"] >= 10 and seen["sente"] >= 3, seen


def test_rule_result_is_game_result_when_a_move_exists(games):
    """rule_result (the repetition rule and the ply cap, without the move generation) at every
    position of the random games and of repetition-heavy ones, under a cap that some reach; and
    has_legal_move (which stops at the first kind of moves that has one) = any legal move."""
    rng = random.Random(8)
    buf = np.empty(core.MAX_MOVES, dtype=np.int32)
    starts = [p.sfen for g in games for p in g.plies[4:30] if p.n_legal and not p.in_check]
    lines = [(ms.START_SFEN, list(g.moves)) for g in games]
    lines += [(start, _repetition_game(rng, start)) for start in rng.sample(starts, 20)]
    ends = set()
    mates = 0
    for start, moves in lines:
        pos = ms.Position(start)
        for usi in [None] + moves:
            if usi is not None:
                pos.push_usi(usi)
            s = pos.state
            assert core.has_legal_move(s, buf, 0) == (core.gen_moves(s, buf, 0, False) > 0)
            mates += not core.has_legal_move(s, buf, 0)
            for cap in (0, 40):
                r = int(core.game_result(s, buf, 0, cap))
                if core.gen_moves(s, buf, 0, False):
                    assert core.rule_result(s, cap) == r
                ends.add(r)
    assert ends == {core.RESULT_NONE, core.RESULT_SENTE_WINS, core.RESULT_GOTE_WINS, core.RESULT_DRAW}
    assert mates >= 50


def test_game_ends_of_random_games_match_pyffish(games):
    """Every random game's end (mate, stalemate, repetition) and some middle positions."""
    rng = random.Random(5)
    fen = sfen_to_fen(ms.START_SFEN)
    kinds = {"checkmate": 0, "stalemate": 0}
    for g in games:
        ff = [usi_to_ffish(m) for m in g.moves]
        final = g.plies[-1]
        assert ms.outcome(ms.START_SFEN, list(g.moves), max_plies=None) == g.result
        assert g.result == ffish_outcome(fen, ff)
        if final.n_legal == 0:
            kinds["checkmate" if final.in_check else "stalemate"] += 1
        i = rng.randrange(len(g.moves))
        assert ms.outcome(ms.START_SFEN, list(g.moves[:i]), max_plies=None) == ffish_outcome(fen, ff[:i])
    assert kinds["checkmate"] >= 50 and kinds["stalemate"] >= 1, kinds


def test_stalemate_loses():
    # sente has only its king on 5e, not in check; the golds on 4c and 3d cover 5d, 4d and 4e
    sfen = "4k/5/1g3/2g2/K4 b - 1"
    pos = ms.Position(sfen)
    assert not pos.is_check() and pos.legal_moves == []
    assert pos.is_stalemate() and pos.outcome() == "gote"
    assert ffish_outcome(sfen_to_fen(sfen), []) == "gote"


def test_checkmate():
    sfen = "4k/5/1s3/g4/K4 b - 1"  # gold on 5d, protected by the silver on 4c
    pos = ms.Position(sfen)
    assert pos.is_check() and pos.is_checkmate() and pos.outcome() == "gote"
    assert ffish_outcome(sfen_to_fen(sfen), []) == "gote"


def test_ply_cap_scores_a_draw(games):
    long_game = next(g for g in games if len(g.moves) > 300)
    moves = list(long_game.moves[:300])
    fen = sfen_to_fen(ms.START_SFEN)
    assert ffish_outcome(fen, [usi_to_ffish(m) for m in moves]) is None  # no rule ends it
    assert ms.outcome(ms.START_SFEN, moves) == "draw"  # our cap: DEFAULT_MAX_PLIES = 300
    assert ms.outcome(ms.START_SFEN, moves[:299]) is None
    assert ms.outcome(ms.START_SFEN, moves, max_plies=None) is None
    assert ms.outcome(ms.START_SFEN, moves[:100], max_plies=100) == "draw"
    # the cap counts plies of the game, through the SFEN move number
    pos = ms.Position(ms.START_SFEN)
    for m in moves[:250]:
        pos.push_usi(m)
    assert pos.sfen().endswith(" 251")
    assert ms.outcome(pos.sfen(), moves[250:300]) == "draw"
    assert ms.outcome(pos.sfen(), moves[250:299]) is None


@pytest.mark.parametrize("bad", [0, -1, 2.5, "300", True])
def test_bad_ply_cap(bad):
    with pytest.raises(ValueError, match="max_plies"):
        ms.outcome(ms.START_SFEN, [], max_plies=bad)


def test_outcome_names_the_illegal_move_and_its_index():
    with pytest.raises(ValueError, match=r"illegal move '5e5d'.*usi_moves\[1\]"):
        ms.outcome(ms.START_SFEN, ["5e4d", "5e5d"])
    with pytest.raises(ValueError, match=r"bad USI move 'xx'.*usi_moves\[2\]"):
        ms.outcome(ms.START_SFEN, ["5e4d", "1a2b", "xx"])
    with pytest.raises(ValueError, match=r"illegal move '5a5b'.*usi_moves\[0\]"):
        ms.outcome(ms.START_SFEN, ["5a5b"])  # a gote piece moved on sente's turn
    with pytest.raises(ValueError, match="list of USI moves"):
        ms.outcome(ms.START_SFEN, "5e4d")


def test_outcome_start_and_position_methods():
    assert ms.outcome(ms.START_SFEN, []) is None
    pos = ms.Position()
    assert not pos.is_game_over() and not pos.is_checkmate() and not pos.is_stalemate()
