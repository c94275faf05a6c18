"""Rules of the bitboard core against published perft numbers and a slow reference."""

from __future__ import annotations

import numpy as np
import pytest

import gamelib.games.othello as oth
from gamelib.games.othello import core

from . import reference as ref

# Published perft of the standard start position (passes are plies; a finished game is one leaf).
PUBLISHED_PERFT = [4, 12, 56, 244, 1_396, 8_200, 55_092, 390_216, 3_005_288, 24_571_284, 212_258_800]


@pytest.fixture(scope="module")
def random_positions():
    """Every position of 150 random games (about 9,000 positions), from the reference."""
    return ref.random_game_positions(np.random.default_rng(20240501), 150)


@pytest.fixture(scope="module")
def random_boards():
    """2,000 arbitrary boards (not necessarily reachable): discs everywhere, edges included."""
    rng = np.random.default_rng(7)
    boards = []
    for _ in range(2000):
        fill = rng.uniform(0.2, 0.95)
        black_share = rng.uniform(0.1, 0.9)
        cells = rng.random(64)
        colour = rng.random(64)
        boards.append(
            "".join(
                "-" if c > fill else ("X" if k < black_share else "O") for c, k in zip(cells, colour)
            )
        )
    return boards


@pytest.mark.parametrize("depth", range(1, 10))
def test_perft_start_matches_published(depth):
    assert oth.perft(oth.START_BOARD, "X", depth) == PUBLISHED_PERFT[depth - 1]


@pytest.mark.slow
@pytest.mark.parametrize("depth", [10, 11])
def test_perft_start_deep(depth):
    assert oth.perft(oth.START_BOARD, "X", depth) == PUBLISHED_PERFT[depth - 1]


def test_perft_divide_sums_to_perft():
    p, o = core.START_BLACK, core.START_WHITE
    div = core.perft_divide(p, o, 5)
    assert sorted(np.flatnonzero(div >= 0)) == [19, 26, 37, 44]  # d3 c4 f5 e6
    assert div[div >= 0].sum() == 1_396
    assert len(set(div[div >= 0])) == 1  # the four openings are symmetric


def test_legal_moves_and_flips_match_reference(random_positions):
    for board, side in random_positions:
        grid = ref.grid_from_string(board)
        expected = ref.legal(grid, side)
        assert oth.legal_moves(board, side) == [oth.SQUARE_NAMES[s] for s in expected], board
        black, white = oth.parse_board(board)
        p, o = (black, white) if side == "X" else (white, black)
        p, o = np.uint64(p), np.uint64(o)
        for sq in expected:
            f = int(core.flips(p, o, sq))
            assert [i for i in range(64) if f >> i & 1] == ref.flipped(grid, side, sq), (board, side, sq)
            p2, o2 = core.make_move(p, o, sq)
            after = ref.play(grid, side, sq)
            mine = "".join(after).count(side)
            assert int(p2) == sum(1 << i for i in range(64) if after[i] == side)
            assert int(o2) == sum(1 << i for i in range(64) if after[i] == ref.other(side))
            assert core.popcount(np.uint64(p2)) == mine


def test_move_mask_on_arbitrary_boards(random_boards):
    """Wrap-around and edge cases: random fillings, both sides, every square's flips."""
    for board in random_boards:
        grid = ref.grid_from_string(board)
        black, white = oth.parse_board(board)
        for side, p, o in (("X", black, white), ("O", white, black)):
            p, o = np.uint64(p), np.uint64(o)
            expected = ref.legal(grid, side)
            mask = int(core.move_mask(p, o))
            assert [i for i in range(64) if mask >> i & 1] == expected, (board, side)
            for sq in range(64):
                if grid[sq] != "-":
                    continue
                f = int(core.flips(p, o, sq))
                assert [i for i in range(64) if f >> i & 1] == ref.flipped(grid, side, sq), (board, side, sq)


def test_pass_and_game_over_match_reference(random_positions, random_boards):
    n_pass = n_over = 0
    for board, side in random_positions + [(b, "X") for b in random_boards[:500]]:
        grid = ref.grid_from_string(board)
        black, white = oth.parse_board(board)
        p, o = (black, white) if side == "X" else (white, black)
        p, o = np.uint64(p), np.uint64(o)
        mine, theirs = ref.legal(grid, side), ref.legal(grid, ref.other(side))
        assert core.must_pass(p, o) == (not mine and bool(theirs))
        assert core.is_game_over(p, o) == (not mine and not theirs)
        n_pass += core.must_pass(p, o)
        n_over += core.is_game_over(p, o)
        for wof in (False, True):
            assert core.final_score(p, o, wof) == ref.score(grid, side, wof)
    assert n_pass > 10 and n_over > 100  # the sample does exercise both cases


def test_perft_with_passes_matches_reference(random_positions):
    """Positions late in random games (passes and game ends inside the tree)."""
    rng = np.random.default_rng(3)
    late = [(b, s) for b, s in random_positions if b.count("-") <= 9]
    for i in rng.choice(len(late), 40, replace=False):
        board, side = late[i]
        for depth in (1, 2, 3, 4):
            assert oth.perft(board, side, depth) == ref.perft(ref.grid_from_string(board), side, depth)


def test_game_over_counts_as_one_leaf():
    full = "X" * 63 + "O"
    assert oth.perft(full, "X", 0) == 1
    assert oth.perft(full, "X", 5) == 1
    assert oth.legal_moves(full, "O") == []


def test_pass_is_a_ply():
    # White has no move; black has exactly one (h8 flips g8): pass, then one leaf per black move.
    board = "X" * 62 + "O-"
    assert oth.legal_moves(board, "O") == []
    assert oth.legal_moves(board, "X") == ["h8"]
    assert oth.perft(board, "O", 1) == 1
    assert oth.perft(board, "O", 2) == 1
    assert oth.perft(board, "O", 3) == 1  # after h8 the board is full: the game is over


def test_final_score_conventions():
    # 33 black, 30 white, 1 empty: plain +3, WOF rule +4 (the empty square goes to black).
    p = np.uint64((1 << 33) - 1)
    o = np.uint64(((1 << 63) - 1) ^ ((1 << 33) - 1))
    assert core.popcount(p) == 33 and core.popcount(o) == 30
    assert core.final_score(p, o, False) == 3
    assert core.final_score(p, o, True) == 4
    assert core.final_score(o, p, True) == -4
    # a draw keeps 0 either way
    p = np.uint64((1 << 31) - 1)
    o = np.uint64(((1 << 62) - 1) ^ ((1 << 31) - 1))
    assert core.final_score(p, o, True) == 0


@pytest.mark.parametrize(
    "board, side, match",
    [
        ("X" * 63, "X", "63 squares"),
        ("X" * 63 + "Z", "X", "character 'Z' at square h8"),
        (oth.START_BOARD, "Y", "bad side to move"),
        (12, "X", "expected a 64-character string"),
    ],
)
def test_bad_input_is_rejected(board, side, match):
    with pytest.raises(ValueError, match=match):
        oth.legal_moves(board, side)


def test_bad_perft_depth():
    with pytest.raises(ValueError, match=r"perft depth must be an integer in \[0, 120\], got -1"):
        oth.perft(oth.START_BOARD, "X", -1)


def test_side_and_board_aliases():
    multiline = "\n".join(oth.START_BOARD[i : i + 8].replace("-", ".") for i in range(0, 64, 8))
    assert oth.legal_moves(multiline, "black") == oth.legal_moves(oth.START_BOARD, "X")
    assert oth.legal_moves(oth.START_BOARD, "White") == ["e3", "f4", "c5", "d6"]


def test_pass_turn_and_disc_counts():
    p, o = core.START_BLACK, core.START_WHITE
    assert core.pass_turn(p, o) == (int(o), int(p))
    assert core.disc_counts(p, o) == (2, 2)
    p2, o2 = core.make_move(p, o, 37)  # f5
    assert core.disc_counts(np.uint64(p2), np.uint64(o2)) == (4, 1)
    assert core.disc_difference(np.uint64(p2), np.uint64(o2)) == 3


def test_core_callable_from_jitted_code_with_literals():
    from numba import njit

    @njit
    def from_jit():
        return core.perft(core.START_BLACK, core.START_WHITE, 4), core.perft_divide(core.START_BLACK, core.START_WHITE, 2)

    total, divide = from_jit()
    assert total == 244 and divide[19] == 3
