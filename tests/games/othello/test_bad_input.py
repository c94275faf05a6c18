"""Bad input to the public Othello API: one ValueError naming the field and its range.

Integers are range-checked before they reach numba (a huge perft or search depth used to fail
as a numba TypingError, a float square index was truncated silently, a bitboard beyond 64 bits
was cut or overflowed).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamelib.games import othello as O
from gamelib.games.othello import board as B
from gamelib.games.othello import game as R
from gamelib.play import othello_players as op

S = O.START_BOARD
BLACK, WHITE = O.parse_board(S)

BAD_CALLS = {
    "perft depth 10^30": (lambda: O.perft(S, "X", 10**30), "perft depth must be an integer in [0, 120], got 10"),
    "perft depth 121": (lambda: O.perft(S, "X", 121), "perft depth must be an integer in [0, 120]"),
    "Board.perft depth 10^30": (lambda: O.Board().perft(10**30), "perft depth"),
    "perft depth float": (lambda: O.perft(S, "X", 2.0), "perft depth"),
    "square_name None": (lambda: O.square_name(None), "square index must be an integer in [0, 63], got None"),
    "square_name float": (lambda: O.square_name(1.5), "square index must be an integer in [0, 63]"),
    "square_name 64": (lambda: O.square_name(64), "square index must be an integer in [0, 63]"),
    "format_board 2^70": (lambda: O.format_board(2**70, 0), "black bitboard must be an integer in [0, 18446744073709551615]"),
    "format_board -1": (lambda: O.format_board(0, -1), "white bitboard must be an integer"),
    "format_board None": (lambda: O.format_board(None, 0), "black bitboard"),
    "moves_to_list None": (lambda: B.moves_to_list(None), "bad move string None"),
    "play None": (lambda: O.Board().play(None), "bad moves None"),
    "play int": (lambda: O.Board().play(37), "bad moves 37"),
    "positional depth 10^30": (lambda: op.positional_player(10**30), "depth + qdepth must be < 128"),
    "state bitboard 2^64": (lambda: R.new_state(2**64, WHITE, True), "bad Othello position"),
    "state bitboards overlap": (lambda: R.new_state(BLACK, BLACK, True), "bad Othello position"),
}


@pytest.mark.parametrize("case", list(BAD_CALLS))
def test_bad_input_raises_one_value_error_naming_the_field(case):
    call, message = BAD_CALLS[case]
    with pytest.raises(ValueError) as err:
        call()
    assert type(err.value) is ValueError
    assert message in str(err.value)


def test_deepest_perft_is_the_whole_game_tree():
    # near the end every depth from the game length on counts the same leaves
    board = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXO---"
    assert O.perft(board, "X", 120) == O.perft(board, "X", 10) > 0


GARBAGE = st.one_of(
    st.integers(-(2**70), 2**70),
    st.integers(-2, 130),
    st.floats(allow_nan=True),
    st.none(),
    st.text(max_size=4),
    st.booleans(),
    st.just(np.int64(-1)),
    st.just(np.uint64(2**63)),
)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(GARBAGE)
def test_fuzzed_entries_give_a_result_or_value_error(value):
    small = isinstance(value, (int, np.integer)) and not isinstance(value, bool) and int(value) <= 3
    calls = [
        lambda: O.Board().push(value),
        lambda: O.Board().is_legal(value),
        lambda: O.Board().play([value]),
        lambda: O.square_name(value),
        lambda: O.parse_square(value),
        lambda: O.perft(S, "X", value) if small or not isinstance(value, (int, np.integer)) or int(value) > 120 else 0,
        lambda: O.format_board(value, 0),
        lambda: O.legal_moves(S, value),
        lambda: O.solve(value, "X"),
        lambda: O.Board(value),
        lambda: op.positional_player(value) if small or not isinstance(value, (int, np.integer)) or int(value) > 3 else 0,
    ]
    for call in calls:
        try:
            call()
        except ValueError as err:
            assert type(err) is ValueError, err
