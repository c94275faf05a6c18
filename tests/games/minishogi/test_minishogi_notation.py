"""SFEN and USI: clear errors on malformed input, exact round trips (property tests)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gamelib.games.minishogi as ms

BAD_SFENS = [
    ("rbsgk/4p/5/P4 b - 1", "the board has 4 ranks, expected 5"),
    ("rbsgk/4p/5/P4/KGSBR/5 b - 1", "the board has 6 ranks"),
    ("rbsgk/4p/5/P5/KGSBR b - 1", "rank d has 6 squares, expected 5"),
    ("rbsgk/4p/5/P3/KGSBR b - 1", "rank d has 4 squares"),
    ("rbsgk/4p/5/P4/KGSBX b - 1", "rank e: unknown piece 'X'"),
    ("rbsgk/4p/5/P4/KGSNR b - 1", "unknown piece 'N'"),
    ("rbsgk/4p/5/P04/KGSBR b - 1", "empty-square count 0"),
    ("rbsgk/4p/5/P13/KGSBR b - 1", "two digits in a row"),
    ("rbsgk/4p/5/P4/KGSB+ b - 1", "'+' at the end of the rank"),
    ("r+gsgk/4p/5/P4/KGSB1 b - 1", "'g' cannot be promoted"),
    ("rbsg+k/4p/5/P4/KGSBR b - 1", "'k' cannot be promoted"),
    ("rbsgk/4p/5/P4/KKSBR b - 1", "sente has 2 kings, expected 1"),
    ("rbsgg/4p/5/P4/KGSBR b - 1", "gote has 0 kings"),
    ("Pbsgk/4p/5/5/KGSBR b - 1", "unpromoted sente P on 5a, the last rank"),
    ("rbsgk/5/5/P4/KGSBp b - 1", "unpromoted gote P on 1e, the last rank"),
    ("rbsgk/5/P4/P4/KGSBR b - 1", "two unpromoted sente pawns on file 5"),
    ("rbsgk/4p/5/P4/KGSBR b 3P 1", "5 pieces of type P on the board and in hand; the game has 2"),
    ("rbsgk/4p/5/P4/KGSBR b G 1", "3 pieces of type G"),
    ("rbsgk/4p/5/+P4/KGSBR b p 1", "3 pieces of type P"),
    ("rbsgk/4p/5/P4/KGSBR b K 1", "a king cannot be in hand"),
    ("rbs1k/4p/5/P4/KGSBR b GG 1", "'G' is listed twice"),
    ("rbsgk/4p/5/P4/KGSBR b 2 1", "expected a piece letter"),
    ("rbsgk/4p/5/P4/KGSBR b +P 1", "expected a piece letter after '+'"),
    ("rbsgk/4p/5/P4/KGSBR b X 1", "hand 'X': unknown piece 'X'"),
    ("rbsgk/4p/5/P4/KGSBR x - 1", "side to move 'x' is not 'b' (sente) or 'w' (gote)"),
    ("rbsgk/4p/5/P4/KGSBR b - 0", "move number '0' must be an integer in [1, 2147483647]"),
    ("rbsgk/4p/5/P4/KGSBR b - x", "move number 'x'"),
    ("rbsgk/4p/5/P4/KGSBR b", "expected 3 or 4 fields"),
    ("rbsgk/4p/5/P4/KGSBR b - 1 5", "got 5"),
    ("", "got 0"),
    ("4k/5/5/5/K3R b - 1", "gote is in check but sente is to move"),
    (None, "expected a string"),
]


@pytest.mark.parametrize("sfen, message", BAD_SFENS)
def test_malformed_sfen_is_rejected_with_a_clear_message(sfen, message):
    with pytest.raises(ValueError) as err:
        ms.Position(sfen)
    assert message in str(err.value)
    assert "bad SFEN" in str(err.value)
    for api in (lambda: ms.legal_moves(sfen), lambda: ms.perft(sfen, 1), lambda: ms.outcome(sfen, [])):
        with pytest.raises(ValueError):
            api()


BAD_USI = [
    ("", "expected e.g."),
    ("5e", "expected e.g."),
    ("5e4", "expected e.g."),
    ("6e4d", "'6e' is not a square"),
    ("5e4f", "'4f' is not a square"),
    ("5e5e", "origin and destination are the same square"),
    ("5e4d=", "expected e.g."),
    ("5e4d++", "expected e.g."),
    ("K*3c", "a king cannot be dropped"),
    ("p*3c", "a drop is an uppercase P, S, G, B or R"),
    ("P*3f", "a drop is an uppercase"),
    ("P*", "a drop is an uppercase"),
    (None, "expected a string"),
]


@pytest.mark.parametrize("usi, message", BAD_USI)
def test_malformed_usi_is_rejected_with_a_clear_message(usi, message):
    with pytest.raises(ValueError) as err:
        ms.Position().push_usi(usi)
    assert message in str(err.value) and "bad USI move" in str(err.value)


@pytest.mark.parametrize("usi", ["5e5d", "1a1b", "P*3c", "5d5c+", "2e1d+", "1e1a"])
def test_illegal_usi_is_rejected(usi):
    pos = ms.Position()
    with pytest.raises(ValueError) as err:
        pos.push_usi(usi)
    assert str(err.value) == f"illegal move '{usi}' in position 'rbsgk/4p/5/P4/KGSBR b - 1'"
    assert pos.sfen() == ms.START_SFEN and pos.ply == 0  # nothing half-done


def test_square_names_round_trip():
    assert ms.square_name(0) == "5a" and ms.square_name(24) == "1e" and ms.parse_square("3c") == 12
    assert all(ms.parse_square(ms.square_name(i)) == i for i in range(25))
    for bad in ("6a", "1f", "a1", "", "11"):
        with pytest.raises(ValueError, match="bad square"):
            ms.parse_square(bad)


@pytest.mark.parametrize(
    "given_sfen, canonical",
    [
        ("sfen rbsgk/4p/5/P4/KGSBR b - 1", "rbsgk/4p/5/P4/KGSBR b - 1"),
        ("rbsgk/4p/5/P4/KGSBR b -", "rbsgk/4p/5/P4/KGSBR b - 1"),
        ("  rbsgk/4p/5/P4/KGSBR   b  -  7 ", "rbsgk/4p/5/P4/KGSBR b - 7"),
        ("k4/5/5/5/4K w PsR2bS 3", "k4/5/5/5/4K w RSP2bs 3"),
        ("k4/5/5/5/4K b 1P1s 1", "k4/5/5/5/4K b Ps 1"),
    ],
)
def test_sfen_is_written_canonically(given_sfen, canonical):
    assert ms.Position(given_sfen).sfen() == canonical
    assert ms.Position(canonical).sfen() == canonical


def _positions_of_random_game(choices):
    pos = ms.Position(max_plies=None)
    seen = [(pos.sfen(), pos.zobrist_hash(), sorted(pos.legal_moves))]
    for c in choices:
        legal = pos.legal_moves
        if not legal or pos.outcome() is not None:
            break
        pos.push_usi(legal[c % len(legal)])
        seen.append((pos.sfen(), pos.zobrist_hash(), sorted(pos.legal_moves)))
    return pos, seen


@settings(max_examples=60, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=160))
def test_random_games_round_trip_through_sfen(choices):
    """Every position of a random legal game: SFEN out and in gives the same position, the same
    Zobrist hash (incremental = from scratch) and the same legal moves; popping every move
    restores the start exactly."""
    pos, seen = _positions_of_random_game(choices)
    for sfen, zobrist, legal in seen:
        again = ms.Position(sfen)
        assert again.sfen() == sfen
        assert again.zobrist_hash() == zobrist
        assert sorted(again.legal_moves) == legal
    history = list(seen)
    while pos.move_stack:
        assert (pos.sfen(), pos.zobrist_hash()) == history.pop()[:2]
        pos.pop()
    assert pos.sfen() == ms.START_SFEN and pos.zobrist_hash() == ms.Position().zobrist_hash()
    n = ms.core.HIST + ms.core.HIST_STRIDE
    assert (pos.state[:n] == ms.Position().state[:n]).all()


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=80))
def test_usi_moves_round_trip(choices):
    pos, _ = _positions_of_random_game(choices)
    for m in pos.legal_move_codes():
        usi = ms.format_usi(m)
        assert ms.parse_usi(usi) == int(m) & 0x7FF
        assert ms.usi_to_move(pos.state, usi) == int(m)


def test_board_text():
    text = str(ms.Position("rbs1k/4p/5/+P1+b2/K1S1R w Gg 9"))
    assert text.splitlines() == [
        "gote hand: G",
        "    5  4  3  2  1",
        "  +----------------+",
        "  |  r  b  s  .  k | a",
        "  |  .  .  .  .  p | b",
        "  |  .  .  .  .  . | c",
        "  | +P  . +b  .  . | d",
        "  |  K  .  S  .  R | e",
        "  +----------------+",
        "sente hand: G",
        "gote to move, move 9",
    ]
    assert repr(ms.Position()) == "Position('rbsgk/4p/5/P4/KGSBR b - 1')"
    assert str(ms.Position("4k/5/5/5/K3r b - 1")).endswith("sente to move, move 1, in check")
