"""Bad input to the public minishogi API: one ValueError naming the field and its range.

Integers are range-checked before they reach numba (where they used to fail as a numba
TypingError, an OverflowError or an IndexError, or wrap around); the fuzz tests feed garbage
to every entry point and accept only a result or a ValueError.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gamelib.games.minishogi as ms
from gamelib.games.minishogi import core

START = ms.START_SFEN
BOARD = "rbsgk/4p/5/P4/KGSBR"

BAD_CALLS = {
    "huge move number": (lambda: ms.Position(f"{BOARD} b - 99999999999999999999999999"),
                         "move number '99999999999999999999999999' must be an integer in [1, 2147483647]"),
    "move number near 2^63": (lambda: ms.Position(f"{BOARD} b - 9223372036854775807"), "move number"),
    "move number 2^31": (lambda: ms.Position(f"{BOARD} b - 2147483648"), "[1, 2147483647]"),
    "superscript move number": (lambda: ms.Position(f"{BOARD} b - \u00b2"), "move number"),
    "arabic-indic move number": (lambda: ms.Position(f"{BOARD} b - \u0661"), "move number"),
    "full-width board digit": (lambda: ms.Position("rbsgk/4p/\uff15/P4/KGSBR b - 1"), "unknown piece"),
    "arabic-indic hand count": (lambda: ms.Position(f"{BOARD} b \u0661P 1"), "unknown piece"),
    "huge max_plies": (lambda: ms.Position(max_plies=10**30).outcome(), "max_plies (or None) must be an integer in [1, 2147483647]"),
    "float max_plies": (lambda: ms.Position(max_plies=3.0), "max_plies"),
    "huge max_plies (outcome)": (lambda: ms.outcome(START, [], 10**30), "max_plies"),
    "push -1": (lambda: ms.Position().push(-1), "move must be an integer in [0, 32767], got -1"),
    "push 2^40": (lambda: ms.Position().push(2**40 + 753), "move must be an integer in [0, 32767]"),
    "push 10^30": (lambda: ms.Position().push(10**30), "move must be an integer"),
    "push float": (lambda: ms.Position().push(753.0), "move must be an integer"),
    "push None": (lambda: ms.Position().push(None), "move must be an integer"),
    "push text": (lambda: ms.Position().push("2e3d"), "move must be an integer"),
    "push destination 31": (lambda: ms.Position().push(0x7FF), "move 2047 is not a move code"),
    "push origin 31": (lambda: ms.Position().push(31 << 5), "is not a move code"),
    "push promoted drop": (lambda: ms.Position().push(12 | (25 << 5) | core.PROMOTION_FLAG), "is not a move code"),
    "format_usi -1": (lambda: ms.format_usi(-1), "move must be an integer in [0, 32767]"),
    "square_name -1": (lambda: ms.square_name(-1), "square index must be an integer in [0, 24], got -1"),
    "square_name 25": (lambda: ms.square_name(25), "square index must be an integer in [0, 24]"),
    "square_name float": (lambda: ms.square_name(1.0), "square index"),
    "parse_square list": (lambda: ms.parse_square([]), "bad square"),
    "perft depth 65": (lambda: ms.perft(START, 65), "perft depth must be an integer in [0, 64], got 65"),
    "perft depth 10^30": (lambda: ms.perft(START, 10**30), "perft depth"),
    "perft depth -1": (lambda: ms.perft(START, -1), "perft depth"),
    "outcome moves None": (lambda: ms.outcome(START, None), "usi_moves must be a list of USI moves"),
    "random_game seed None": (lambda: ms.random_game(None), "seed must be an integer"),
    "random_game index -1": (lambda: ms.random_game(0, -1), "index must be an integer"),
    "random_positions seed text": (lambda: ms.random_positions(1, "a"), "seed must be an integer"),
    "random_positions n float": (lambda: ms.random_positions(1.5, 0), "n must be an integer"),
    "new_state side 2": (lambda: core.new_state([0] * 25, [0] * 10, 2), "side must be an integer in [0, 1]"),
    "new_state move number 0": (lambda: core.new_state(ms.Position().state[:25], [0] * 10, 0, 0), "move_number"),
    "new_state capacity -1": (lambda: core.new_state(ms.Position().state[:25], [0] * 10, 0, 1, -1), "capacity"),
    "new_state short board": (lambda: core.new_state([0] * 24, [0] * 10, 0), "board must be 25 piece codes"),
    "new_state bad code": (lambda: core.new_state([11] + [0] * 24, [0] * 10, 0), "board must be 25 piece codes"),
    "new_state hand 3": (lambda: core.new_state(ms.Position().state[:25], [3] + [0] * 9, 0), "hands must be 10 counts"),
}


@pytest.mark.parametrize("case", list(BAD_CALLS))
def test_bad_input_raises_one_value_error_naming_the_field(case):
    call, message = BAD_CALLS[case]
    with pytest.raises(ValueError) as err:
        call()
    assert type(err.value) is ValueError
    assert message in str(err.value)


def test_largest_move_number_does_not_wrap():
    pos = ms.Position(f"{BOARD} b - 2147483647", max_plies=2147483647)
    pos.push_usi("2e3d")
    assert pos.move_number == 2147483648 and pos.sfen().endswith(" 2147483648")
    assert pos.outcome() == "draw"  # the cap is reached, not wrapped around


def test_a_failed_push_changes_nothing():
    pos = ms.Position()
    pos.push_usi("2e3d")
    before = pos.state.copy(), list(pos.move_stack)
    for bad in (-1, 2**40, 0x7FF, 1.5, None):
        with pytest.raises(ValueError):
            pos.push(bad)
    assert (pos.state == before[0]).all() and pos.move_stack == before[1]


SFEN_CHARS = "rbsgkpRBSGKP+/0123456789 -bw*\u00b2\u0661\uff15\x00"
SFEN_PIECES = st.text(alphabet=SFEN_CHARS, max_size=40)


def _sfen_like(draw):
    board = "/".join(draw(st.lists(st.text(alphabet="rbsgkpRBSGKP+12345", max_size=6), min_size=4, max_size=6)))
    side = draw(st.sampled_from(["b", "w", "x", ""]))
    hand = draw(st.sampled_from(["-", "P", "2P", "3p", "0S", "GgBb", "K", "1", "+R", "\u0661P", "99999999999999999999R"]))
    number = draw(st.one_of(st.integers(-5, 2**70).map(str), st.sampled_from(["", "x", "\u00b2", "1.5"])))
    return " ".join(x for x in (board, side, hand, number) if x)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.one_of(SFEN_PIECES, st.composite(_sfen_like)()))
def test_fuzzed_sfen_parses_or_raises_value_error(text):
    try:
        pos = ms.Position(text)
    except ValueError as err:
        assert type(err) is ValueError and "bad SFEN" in str(err)
        return
    again = ms.Position(pos.sfen())  # what parses writes back as a valid SFEN
    assert again.sfen() == pos.sfen() and again.legal_moves == pos.legal_moves


GARBAGE = st.one_of(
    st.integers(-(2**70), 2**70),
    st.integers(0, core.MAX_MOVE_CODE),
    st.floats(allow_nan=True),
    st.none(),
    st.text(max_size=6),
    st.booleans(),
    st.just(np.int64(-1)),
    st.just(np.float64(753.0)),
)


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(GARBAGE)
def test_fuzzed_integer_entries_give_a_result_or_value_error(value):
    pos = ms.Position()
    legal = set(pos.legal_moves)
    calls = [
        lambda: pos.copy().push(value),
        lambda: ms.format_usi(value),
        lambda: ms.square_name(value),
        lambda: ms.perft(START, value) if not isinstance(value, (int, np.integer)) or value <= 2 or value > 64 else 0,
        lambda: ms.Position(max_plies=value).outcome(),
        lambda: ms.random_game(value, max_plies=4),
        lambda: ms.random_positions(value, 0) if not isinstance(value, (int, np.integer)) or value <= 2 or value > 2**31 else [],
        lambda: ms.parse_square(value),
        lambda: ms.Position().is_legal(value),
        lambda: ms.outcome(START, [value]),
    ]
    for call in calls:
        try:
            call()
        except ValueError as err:
            assert type(err) is ValueError, err
            continue
        if call is calls[0]:
            assert ms.format_usi(value) in legal  # only legal moves are played
