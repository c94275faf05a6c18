"""Exact endgame solver against the FFO-style test positions and a brute-force reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gamelib
import gamelib.games.othello as oth
from gamelib.games.othello import Board

from . import reference as ref

FFO_DIR = Path(gamelib.__file__).resolve().parents[1].parent / "shared" / "data" / "othello" / "ffo"
needs_ffo = pytest.mark.skipif(
    not FFO_DIR.is_dir(), reason=f"FFO endgame positions not found at {FFO_DIR} (../shared is absent)"
)


def read_ffo(name: str):
    """Lines ``board side move score`` (score: black - white, empties not credited)."""
    out = []
    for line in (FFO_DIR / name).read_text().splitlines():
        board, side, move, score = line.split()
        out.append((board, "X" if side == "Black" else "O", int(move), int(score)))
    return out


def check_ffo(positions, check_move: bool):
    for board, side, _, score in positions:
        value, move = oth.solve(board, side, empties_to_winner=False)
        black_view = value if side == "X" else -value
        assert black_view == score, (board, side, value)
        if check_move:
            assert move in oth.legal_moves(board, side)
            b = Board(board, side)
            b.push(move)
            if b.must_pass():
                b.push("pass")
                child = b.solve(empties_to_winner=False)[0]
            else:
                child = -b.solve(empties_to_winner=False)[0]
            assert child == value, (board, side, move)


@needs_ffo
def test_ffo_13_14_scores_and_moves():
    check_ffo(read_ffo("13_14.txt"), check_move=True)


@needs_ffo
def test_ffo_15_16_scores():
    check_ffo(read_ffo("15_16.txt"), check_move=False)


@needs_ffo
@pytest.mark.slow
def test_ffo_17_18_scores():
    check_ffo(read_ffo("17_18.txt"), check_move=False)


@pytest.fixture(scope="module")
def small_endgames():
    """Positions with 1..7 empties from random games (passes and early ends included)."""
    positions = ref.random_game_positions(np.random.default_rng(11), 60)
    return [(b, s) for b, s in positions if 1 <= b.count("-") <= 7]


def test_solve_matches_brute_force(small_endgames):
    """Both score conventions against plain minimax; the best move achieves the value."""
    rng = np.random.default_rng(5)
    n_differ = 0
    for i in rng.choice(len(small_endgames), 120, replace=False):
        board, side = small_endgames[i]
        grid = ref.grid_from_string(board)
        values = {}
        for wof in (False, True):
            value, move = oth.solve(board, side, wof)
            assert value == ref.minimax(grid, side, wof), (board, side, wof)
            legal = ref.legal(grid, side)
            if legal:
                after = ref.play(grid, side, oth.parse_square(move))
                assert -ref.minimax(after, ref.other(side), wof) == value
            else:
                assert move is None
            values[wof] = value
        n_differ += values[False] != values[True]
    assert n_differ > 0  # the sample has games that end with empty squares


def test_solve_pass_and_game_over():
    # White must pass; black then plays h8 and wins 64-0.
    assert oth.solve("X" * 62 + "O-", "O") == (-64, None)
    assert oth.solve("X" * 62 + "O-", "X") == (64, "h8")
    # Finished game 33-30 with one empty square no one can take.
    full = "X" * 33 + "O" * 30 + "-"
    if not oth.legal_moves(full, "X") and not oth.legal_moves(full, "O"):
        assert oth.solve(full, "X", empties_to_winner=False) == (3, None)
        assert oth.solve(full, "X") == (4, None)
        assert oth.solve(full, "O") == (-4, None)


def test_solve_rejects_bad_input():
    with pytest.raises(ValueError, match="bad side"):
        oth.solve(oth.START_BOARD, "Q")
    with pytest.raises(ValueError, match="squares"):
        oth.solve("X" * 10, "X")


def test_last_empties_with_passes_match_brute_force():
    """Many positions with 1-4 empties (the dedicated last-squares routines), passes included."""
    positions = ref.random_game_positions(np.random.default_rng(99), 200)
    seen = n_pass = 0
    for board, side in positions:
        if not 1 <= board.count("-") <= 4:
            continue
        grid = ref.grid_from_string(board)
        n_pass += not ref.legal(grid, side)
        for wof in (False, True):
            assert oth.solve(board, side, wof)[0] == ref.minimax(grid, side, wof), (board, side, wof)
        seen += 1
    assert seen > 500 and n_pass > 5
