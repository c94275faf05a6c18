"""Players and matches: legal games, colour alternation, reproducibility, statistics."""

import numpy as np
import pytest

from gamelib.othello import Board
from gamelib.othello.mlp import MLP
from gamelib.othello.players import (
    RandomPlayer,
    greedy_player,
    mlp_player,
    play_game,
    positional_player,
    random_opening,
    table_player,
)
from gamelib.othello.symmetry import FLIP_A1H8, FLIP_A8H1, ROTATE_180, transform_squares
from gamelib.othello.value_table import ValueTable, decompose_games
from gamelib.play.othello_pairs import play_match

F5 = 37  # the first move of every WTHOR record


def test_games_are_legal_and_scored_like_the_engine():
    a, b = greedy_player(), RandomPlayer()
    for seed in range(5):
        game = play_game(a, b, random_opening(3, np.random.default_rng(seed)),
                         np.random.default_rng(seed))
        board = Board()
        board.play(game.move_string())  # raises on an illegal move; passes implied
        assert board.is_game_over()
        assert board.count() == (game.black_discs, game.white_discs)
        assert game.score == board.score()
        assert game.nodes[0] > 0 and game.nodes[1] == 0  # only the searching player counts


def test_match_alternates_colours_on_shared_openings_and_is_reproducible():
    res = play_match(positional_player(1), RandomPlayer(), n_pairs=4, opening_plies=3, seed=5)
    assert res.record.games == 8
    for i in range(4):
        assert res.games[2 * i].moves[:3] == res.games[2 * i + 1].moves[:3]
    again = play_match(positional_player(1), RandomPlayer(), n_pairs=4, opening_plies=3, seed=5)
    assert [g.moves for g in again.games] == [g.moves for g in res.games]
    other = play_match(positional_player(1), RandomPlayer(), n_pairs=4, opening_plies=3, seed=6)
    assert [g.moves for g in other.games] != [g.moves for g in res.games]
    # outcomes from a's view: a is Black in even games, White in odd games
    wins = sum((g.black_discs > g.white_discs) if k % 2 == 0 else (g.white_discs > g.black_discs)
               for k, g in enumerate(res.games))
    assert res.record.wins == wins


def test_match_results_do_not_depend_on_workers():
    net = MLP.init((64, 8, 1), seed=0)
    serial = play_match(mlp_player(net, 1), greedy_player(), n_pairs=2, seed=3, workers=1)
    pooled = play_match(mlp_player(net, 1), greedy_player(), n_pairs=2, seed=3, workers=2)
    assert [g.moves for g in pooled.games] == [g.moves for g in serial.games]
    assert pooled.record == serial.record and pooled.nodes == serial.nodes


def test_positional_search_beats_random_play_significantly():
    res = play_match(positional_player(2), RandomPlayer(), n_pairs=20, seed=0)
    s = res.summary()
    assert s["games"] == 40 and s["wins"] + s["draws"] + s["losses"] == 40
    assert s["wilson_low"] > 0.5 and s["p_greater"] < 0.01 and s["significant"]
    assert s["score_low"] <= s["score"] <= s["score_high"]


def test_table_player_plays_the_recorded_winning_line():
    # one recorded game, won by Black: the table says its positions are wins for Black
    game = play_game(greedy_player(), RandomPlayer(), (F5,), np.random.default_rng(1))
    moves = game.move_string()
    black_won = game.black_discs > game.white_discs
    dec = decompose_games([moves], [64 if black_won else 0])
    table = ValueTable.from_decomposition(dec)
    player = table_player(table, depth=1)
    board = Board()
    # at every move of the winner, some move keeps the table's value at 1: the player finds one
    for k, sq in enumerate(game.moves):
        black_to_move = board.turn == "X"
        if black_to_move == black_won:
            chosen = player.choose(board.black, board.white, black_to_move,
                                   np.random.default_rng(0), first_move=F5)
            after = board.copy()
            after.push(chosen)
            assert table.lookup([after.black], [after.white])["v_b"].iat[0] \
                == (1.0 if black_won else 0.0)
        board.play([f"{'abcdefgh'[sq % 8]}{sq // 8 + 1}"])


def test_bad_match_arguments():
    with pytest.raises(ValueError, match="n_pairs must be a positive integer"):
        play_match(greedy_player(), RandomPlayer(), 0)
    with pytest.raises(ValueError, match="search depth"):
        positional_player(0)


def _f5_table(n_games=30, opening=(F5,)):
    """A value table of games that all start with f5, like the WTHOR records (and with
    ``opening``)."""
    games = [play_game(greedy_player(), RandomPlayer(), opening, np.random.default_rng(g))
             for g in range(n_games)]
    moves = [g.move_string() for g in games]
    return ValueTable.from_decomposition(decompose_games(moves, [g.black_discs for g in games]))


F5_OPENING = (F5, 43, 34)  # f5 d6 c5 (f5 f6 e6 is its own image in the a1-h8 diagonal)


@pytest.fixture(scope="module")
def opening_table():
    return _f5_table(40, F5_OPENING)


@pytest.mark.parametrize("sym", [ROTATE_180, FLIP_A1H8, FLIP_A8H1])
def test_a_game_from_another_first_move_is_played_as_its_image_from_f5(sym, opening_table):
    net = MLP.init((64, 8, 1), seed=0)
    mirrored = transform_squares(sym, F5_OPENING)  # starts with c4, e6 or d3
    assert mirrored[0] != F5

    def game(opening, orient):
        return play_game(table_player(opening_table, 2, orient=orient),
                         mlp_player(net, 1, orient=orient), opening, np.random.default_rng(5))

    from_f5, from_other = game(F5_OPENING, True), game(mirrored, True)
    # the same game move for move, the same look-ups and the same hits in the table
    assert transform_squares(sym, from_f5.moves) == from_other.moves
    assert from_other.table_probes == from_f5.table_probes
    assert from_other.table_hits == from_f5.table_hits
    assert from_f5.table_hits[0] >= 5 and from_f5.table_probes[1] == 0  # black: the table
    # without the orientation the table is blind in the mirrored game
    assert game(mirrored, False).table_hits[0] < from_other.table_hits[0] / 2


def test_match_counts_table_lookups_of_both_players(opening_table):
    res = play_match(greedy_player(), table_player(opening_table, 1), n_pairs=2,
                     opening_plies=0, seed=1)
    assert res.table_probes[0] == res.table_hits[0] == 0
    assert res.table_probes[1] == sum(g.table_probes[1 - k % 2] for k, g in enumerate(res.games))
    assert 0 < res.table_hits[1] <= res.table_probes[1]


def test_an_orienting_player_needs_the_first_move():
    board = Board()
    board.play("c4")
    player = table_player(_f5_table(2), 1)
    with pytest.raises(ValueError, match="needs the game's first move"):
        player.choose(board.black, board.white, False, np.random.default_rng(0))
    start = Board()  # the start position is the same in every orientation
    assert player.choose(start.black, start.white, True, np.random.default_rng(0)) in (19, 26, 37, 44)
