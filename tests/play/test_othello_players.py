"""Othello's protocol players (gamelib.play.othello_players) and BestMovePlayer (gamelib.play.games).

* The candidates of a BestMovePlayer are exactly the moves whose minimax value (a plain negamax
  in Python, ``tests/othello_reference.py``) is within 1e-9 of the best: greedy against the disc
  count, positional against the classic square weights, the network against eq. (3), with
  passes in the tree; every tied move is drawn, one seed gives one move.
* The records' orientation: a game from c4, d3 or e6 is played move for move as the image of
  the game from f5; the first move is read from the state's history.
* Games: legal, scored by the rules; the match table does not depend on the workers; positional
  play beats random play significantly; the table player follows a recorded winning line.
"""

from __future__ import annotations

import numpy as np
import pytest

from gamelib.games.othello import game as R
from gamelib.games import registry
from gamelib.games.othello import Board
from gamelib.games.othello.mlp import MLP
from gamelib.games.othello.symmetry import FLIP_A1H8, FLIP_A8H1, IDENTITY, ROTATE_180, transform_squares
from gamelib.games.othello.value_table import ValueTable, decompose_games
from gamelib.play import othello_players as op
from gamelib.play import othello_value_matches as ovm
from gamelib.play.othello_match import protocol_state
from gamelib.play.games import BestMovePlayer, RandomPlayer, play_game, play_random_plies
from othello_reference import after, disc_end, legal_squares, negamax, positional

GAME = registry.get("othello")
F5 = 37
#: A finished game in the reference: beyond any evaluation, and worth more the sooner it ends,
#: as the search's ±(MATE - ply).
BIG = 1000.0


def _positions(n: int, seed: int, plies=(4, 56)):
    """Ongoing states after random plies (some with a pass in the next plies)."""
    rng = np.random.default_rng(seed)
    buf = np.empty(GAME.MAX_MOVES, dtype=np.int32)
    out = []
    while len(out) < n:
        s = GAME.with_room(GAME.start(), 130)
        play_random_plies(GAME, s, rng, int(rng.integers(*plies)), 300, buf)
        if int(GAME.gen_moves(s, buf, 0)) > 0:
            out.append(s)
    return out


def _reference_best(s, depth: int, leaf) -> set[int]:
    black, white, btm = R.position(s)
    p, o = (black, white) if btm else (white, black)
    moves = legal_squares(p, o) or [R.PASS]
    values = {}
    for m in moves:
        child = (o, p) if m == R.PASS else after(p, o, m)
        values[m] = -negamax(*child, not btm, depth - 1, leaf,
                             lambda a, b, left: (BIG + left) * disc_end(a, b))
    best = max(values.values())
    return {m for m, v in values.items() if v > best - 1e-9}


def _discs(p, o, btm):
    return (bin(p).count("1") - bin(o).count("1")) / 64


def _classic(p, o, btm):
    return positional(*((p, o) if btm else (o, p)), btm)


@pytest.mark.parametrize("name, make, depth, leaf", [
    ("greedy", op.greedy_player, 1, _discs),
    ("positional-1", lambda: op.positional_player(1), 1, _classic),
    ("positional-2", lambda: op.positional_player(2), 2, _classic),
    ("positional-3", lambda: op.positional_player(3), 3, _classic),
])
def test_the_candidates_are_the_moves_of_the_best_minimax_value(name, make, depth, leaf):
    player = make()
    ties = 0
    for s in _positions(40, seed=depth + len(name)):
        got = set(player.candidates(GAME, s, 300).tolist())
        assert got == _reference_best(s, depth, leaf), name
        ties += len(got) > 1
    assert ties >= 3


def test_the_network_player_is_eq_3_minimax():
    net = MLP.init((64, 16, 1), seed=2)

    def leaf(p, o, btm):
        black, white = (p, o) if btm else (o, p)
        v = float(net.predict(np.array([black], np.uint64), np.array([white], np.uint64))[0])
        return 2.0 * (v if btm else 1.0 - v) - 1.0

    player = op.mlp_player(net, 2, orient=False)
    for s in _positions(12, seed=7, plies=(4, 40)):
        assert set(player.candidates(GAME, s, 300).tolist()) == _reference_best(s, 2, leaf)


def test_every_tied_move_is_drawn_and_one_seed_gives_one_move():
    start = GAME.start()
    greedy = op.greedy_player()
    assert sorted(greedy.candidates(GAME, start, 300).tolist()) == [19, 26, 37, 44]
    picks = [greedy.choose(GAME, start, np.random.default_rng(k), 300) for k in range(40)]
    assert set(picks) == {19, 26, 37, 44}
    assert picks == [greedy.choose(GAME, start, np.random.default_rng(k), 300) for k in range(40)]


def test_a_side_that_must_pass_passes():
    found = 0
    for s in _positions(400, seed=3, plies=(30, 60)):
        buf = np.empty(GAME.MAX_MOVES, dtype=np.int32)
        if int(GAME.gen_moves(s, buf, 0)) == 1 and buf[0] == R.PASS:
            found += 1
            assert op.positional_player(2).choose(GAME, s, np.random.default_rng(0), 300) == R.PASS
    assert found >= 2


def test_bad_settings_are_refused_with_their_names():
    with pytest.raises(ValueError, match="depth must be a positive integer, got 0"):
        op.positional_player(0)
    with pytest.raises(ValueError, match="depth must be a positive integer, got 0"):
        BestMovePlayer(np.zeros(3), depth=0)
    with pytest.raises(ValueError, match="finite parameters"):
        BestMovePlayer(np.array([np.nan]))
    with pytest.raises(ValueError, match="same on the eight images"):
        op.positional_player(2, np.arange(64.0))
    with pytest.raises(ValueError, match="OrientedPlayer needs a gamelib.play.games Player"):
        op.OrientedPlayer("greedy")
    with pytest.raises(ValueError, match="game is over"):
        full = R.new_state((1 << 64) - 1, 0, True, 60)
        op.greedy_player().choose(GAME, full, np.random.default_rng(0), 300)


def test_the_first_move_and_the_position_are_read_from_the_state():
    s = GAME.with_room(GAME.start(), 10)
    assert R.first_move(s) is None and op.records_symmetry(s) == IDENTITY
    for m in (19, 26, 37, 44):
        t = GAME.with_room(GAME.start(), 10)
        GAME.make_move(t, m)
        GAME.make_move(t, int(legal_squares(*((lambda b, w, _: (w, b))(*R.position(t))))[0]))
        assert R.first_move(t) == m
    board = Board()
    board.play("f5d6c3")
    black, white, btm = R.position(op_state := protocol_state(board))
    assert (black, white, btm) == (board.black, board.white, board.turn == "X")
    assert R.first_move(op_state) == F5
    # a state made in the middle of a game does not know its first move
    assert R.first_move(R.new_state(board.black, board.white, False, 3)) is None


def _f5_table(n_games: int, opening) -> ValueTable:
    games = [play_game(GAME, op.greedy_player(), RandomPlayer(), g, opening=opening) for g in range(n_games)]
    moves = ["".join(R.move_text(m) for m in g.moves if m != R.PASS) for g in games]
    blacks = [bin(R.position(g.final)[0]).count("1") for g in games]
    return ValueTable.from_decomposition(decompose_games(moves, blacks))


F5_OPENING = (F5, 43, 34)  # f5 d6 c5 (f5 f6 e6 is its own image in the a1-h8 diagonal)


@pytest.mark.parametrize("sym", [ROTATE_180, FLIP_A1H8, FLIP_A8H1])
def test_a_game_from_another_first_move_is_played_as_its_image_from_f5(sym):
    table = _f5_table(40, F5_OPENING)
    net = MLP.init((64, 8, 1), seed=0)
    mirrored = transform_squares(sym, F5_OPENING)   # starts with c4, e6 or d3
    assert mirrored[0] != F5

    def game(opening, orient):
        return play_game(GAME, op.table_player(table, 2, orient=orient),
                         op.mlp_player(net, 1, orient=orient), 5, opening=opening)

    from_f5, from_other = game(F5_OPENING, True), game(mirrored, True)
    turned = tuple(m if m == R.PASS else transform_squares(sym, (m,))[0] for m in from_f5.moves)
    assert turned == from_other.moves and from_f5.outcome == from_other.outcome
    # without the orientation the mirrored game is another game
    assert game(mirrored, False).moves != from_other.moves


def test_the_table_player_plays_the_recorded_winning_line():
    played = play_game(GAME, op.greedy_player(), RandomPlayer(), 1, opening=(F5,))
    black, white, _ = R.position(played.final)
    black_won = bin(black).count("1") > bin(white).count("1")
    moves = [m for m in played.moves if m != R.PASS]
    table = ValueTable.from_decomposition(decompose_games(
        ["".join(R.move_text(m) for m in moves)], [64 if black_won else 0]))
    player = op.table_player(table, depth=1)
    s = GAME.start()
    for m in played.moves:
        if m != R.PASS and (int(GAME.side_to_move(s)) == 0) == black_won:
            chosen = player.choose(GAME, s, np.random.default_rng(0), 300)
            t = s.copy()
            GAME.make_move(t, chosen)
            b, w, _ = R.position(t)
            assert table.lookup([b], [w])["v_b"].iat[0] == (1.0 if black_won else 0.0)
        GAME.make_move(s, m)


def test_the_value_matches_do_not_depend_on_the_workers_and_positional_beats_random():
    net = MLP.init((64, 8, 1), seed=1)
    table = _f5_table(10, (F5,))
    named = ovm.players(net, table, 1)
    pairs = [("positional-d1", "random"), ("mlp-d1", "table-d1")]
    serial = ovm.play_pairings(named, pairs, 12, 4, 3, workers=1)
    pooled = ovm.play_pairings(named, pairs, 12, 4, 3, workers=2)
    assert serial.equals(pooled)
    assert list(serial.columns) == ovm.MATCH_COLUMNS and (serial.games == 24).all()
    pos = serial.iloc[0]
    assert pos.wins + pos.draws + pos.losses == 24 and pos.wilson_low > 0.5 and pos.p_two_sided < 0.01
