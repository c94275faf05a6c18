"""The Pythonic Board: push/pop, passes, move sequences, errors, text."""

from __future__ import annotations

import pytest

from gamelib.games.othello import START_BOARD, Board


def test_start_position():
    b = Board()
    assert b.board_string() == START_BOARD
    assert b.turn == "X"
    assert b.legal_moves == ["d3", "c4", "f5", "e6"]
    assert b.count() == (2, 2)
    assert b.empties == 60
    assert not b.is_game_over()


def test_push_pop_round_trip():
    b = Board()
    b.push("f5")
    assert b.turn == "O"
    assert b.count() == (4, 1)
    assert b.legal_moves == ["f4", "d6", "f6"]
    assert b.flips("d6") == ["d5"]
    b.push("d6")
    assert b.move_stack == ["f5", "d6"]
    assert b.pop() == "d6"
    assert b.pop() == "f5"
    assert b == Board()
    with pytest.raises(IndexError):
        b.pop()


def test_illegal_moves_are_rejected_with_reason():
    b = Board()
    with pytest.raises(ValueError, match="illegal move 'a1' for black.*legal moves: d3, c4, f5, e6"):
        b.push("a1")
    with pytest.raises(ValueError, match="bad square 'z9'"):
        b.push("z9")
    with pytest.raises(ValueError, match="illegal pass"):
        b.push("pass")
    assert b == Board()  # nothing half-done


def test_pass_handling():
    b = Board("X" * 62 + "O-", "O")
    assert b.must_pass() and b.legal_moves == []
    with pytest.raises(ValueError, match="must pass"):
        b.push("h8")
    b.push("pass")
    assert b.turn == "X"
    b.push("h8")
    assert b.is_game_over()
    assert b.score() == 64 and b.winner() == "X"
    with pytest.raises(ValueError, match="game is over"):
        b.push("pass")


def test_play_sequence_and_shortest_wipeout():
    # The shortest possible game: black wipes out white in 9 moves, 13-0 (64-0 under WOF).
    b = Board()
    b.play("e6f4e3f6g5d6e7f5c5")
    assert b.is_game_over()
    assert b.count() == (13, 0)
    assert b.score(empties_to_winner=False) == 13
    assert b.score() == 64
    assert b.winner() == "X"
    with pytest.raises(ValueError, match="move 2"):
        Board().play("f5a1")


def test_play_inserts_implied_passes():
    b = Board("X" * 62 + "O-", "O")
    b.play("h8")  # white must pass first
    assert b.move_stack == ["pass", "h8"]
    assert b.is_game_over()


def test_copy_is_independent():
    b = Board()
    b.play("f5d6")
    c = b.copy()
    c.pop()
    assert len(c.move_stack) == 1 and len(b.move_stack) == 2
    assert b != c and hash(b) == hash(b.copy())


def test_text_forms():
    b = Board()
    assert repr(b) == f"Board({START_BOARD!r}, 'X')"
    text = str(b)
    assert text.splitlines()[0] == "  a b c d e f g h"
    assert text.splitlines()[4] == "4 - - - O X - - -"


def test_perft_and_solve_from_board():
    b = Board("X" * 62 + "O-", "O")
    assert b.perft(2) == 1
    assert b.solve() == (-64, None)
