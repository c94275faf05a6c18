"""Othello records: the transcript and GGF written and read back, and readers that name the
problem of a bad record."""

from __future__ import annotations

import re

import numpy as np
import pytest

from gamelib.games.othello import START_BOARD, Board
from gamelib.games.othello.records import GgfGame, format_ggf, format_transcript, ggf_result, parse_ggf, parse_transcript

#: A game with passes (black must pass after the first eight moves).
WITH_PASS = ("d3", "c3", "b3", "b2", "f5", "a3", "a1", "c1", "pass", "e3")


def _random_game(seed: int) -> tuple:
    rng = np.random.default_rng(seed)
    b = Board()
    while not b.is_game_over():
        legal = b.legal_moves
        b.push("pass" if not legal else legal[int(rng.integers(len(legal)))])
    return tuple(b.move_stack)


def test_transcript_leaves_passes_out_and_reads_them_back():
    assert format_transcript(WITH_PASS) == "d3c3b3b2f5a3a1c1e3"
    assert parse_transcript("d3c3b3b2f5a3a1c1e3") == list(WITH_PASS)
    for seed in range(20):
        moves = _random_game(seed)
        assert tuple(parse_transcript(format_transcript(moves))) == moves


@pytest.mark.parametrize("text, problem", [
    ("f5d6c3x9", "'x9' is not a square"),
    ("f5d6c", "odd number of characters"),
    ("f5f5", "move 2 ('f5')"),
])
def test_bad_transcript_names_the_problem(text, problem):
    with pytest.raises(ValueError, match="^bad transcript: .*" + re.escape(problem)):
        parse_transcript(text)


def test_ggf_round_trip_of_finished_games_with_passes():
    for seed in range(20):
        moves = _random_game(seed)
        final = Board()
        for m in moves:
            final.push(m)
        game = GgfGame("Black player", "White player", moves, ggf_result(final.score()), place="test")
        text = format_ggf(game)
        assert text.startswith("(;GM[Othello]PC[test]PB[Black player]PW[White player]TY[8]RE[")
        assert ("W[PA]" in text or "B[PA]" in text) == ("pass" in moves)
        (back,) = parse_ggf(text)
        assert back == game
        assert back.final_board() == final


def test_ggf_start_position_and_the_field_layout():
    text = format_ggf(GgfGame("a", "b", WITH_PASS, "+64.000:r"))
    assert "BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]" in text
    assert text.endswith("W[c1]B[PA]W[e3];)")


def test_ggf_reads_evaluations_times_other_cases_and_several_games():
    one = "(;GM[Othello]PB[x]PW[y]TY[8]RE[-2.00]B[F5//1.23]W[d6/0.5/3.1]B[C3];)"
    two = "(;GM[Othello]PB[u]PW[v]B[f5]W[PASS];)"  # not a legal pass: refused below
    (game,) = parse_ggf("junk before " + one + "\n")
    assert game.moves == ("f5", "d6", "c3") and game.result == "-2.00" and game.board == START_BOARD
    with pytest.raises(ValueError, match=r"^GGF game 2: move 2 W\[pass\]: illegal pass"):
        parse_ggf(one + two)


def test_ggf_from_another_position():
    b = Board()
    b.play("f5d6c3")
    game = GgfGame("p", "q", ("d3", "c4"), "", b.board_string(), b.turn)
    (back,) = parse_ggf(format_ggf(game))
    assert back == game


@pytest.mark.parametrize("text, problem", [
    ("(;GM[Chess]B[f5];)", r"GGF game 1: GM\[Chess\] is not GM\[Othello\]"),
    ("(;GM[Othello]TY[10]B[f5];)", r"TY\[10\] is not an 8x8 game"),
    ("(;GM[Othello]B[f5]B[d6];)", r"move 2 is B\[d6\] but white is to move"),
    ("(;GM[Othello]B[f5]W[a1];)", r"move 2 W\[a1\]: illegal move 'a1'"),
    ("(;GM[Othello]B[zz];)", r"move 1 B\[zz\]"),
    ("(;GM[Othello]RE[+70]B[f5];)", r"RE\[\+70\] is not black's disc margin"),
    ("(;GM[Othello]RE[win]B[f5];)", r"RE\[win\] is not black's disc margin"),
    ("(;GM[Othello]BO[8 -------- *];)", r"BO\[8 -------- \*\] is not '8', eight rows"),
    ("(;GM[Othello]BO[8 -------- -------- -------- ---Ox--- ---*O--- -------- -------- -------- *];)",
     r"square character\(s\) \['x'\]"),
    ("(;GM[Othello]B[f5] oops W[d6];)", r"cannot read a property KEY\[value\] at 'oops"),
    ("(;GM[Othello]B[f5]", r"no ';\)' closes"),
    ("nothing here", r"no GGF game"),
])
def test_bad_ggf_names_the_problem(text, problem):
    with pytest.raises(ValueError, match=problem):
        parse_ggf(text)


def test_ggf_result_contradicting_the_final_board_is_refused():
    moves = _random_game(3)
    final = Board()
    for m in moves:
        final.push(m)
    wrong = ggf_result(final.score() + 2 if final.score() < 62 else final.score() - 2)
    with pytest.raises(ValueError, match=rf"RE\[{re.escape(wrong)}\] but the final board scores"):
        parse_ggf(format_ggf(GgfGame("a", "b", moves, wrong)))
    assert parse_ggf(format_ggf(GgfGame("a", "b", moves, wrong + ":t")))[0].result == wrong + ":t"


def test_ggf_result_text_and_bad_names():
    assert [ggf_result(34), ggf_result(-2), ggf_result(0), ggf_result(64, "r")] == [
        "+34.000", "-2.000", "0.000", "+64.000:r"]
    with pytest.raises(ValueError, match="cannot hold"):
        format_ggf(GgfGame("a]b", "c", ()))
    with pytest.raises(ValueError, match="move 1 \\('a1'\\)"):
        format_ggf(GgfGame("a", "b", ("a1",)))
