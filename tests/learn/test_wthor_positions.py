"""Othello's expert positions from WTHOR (gamelib.learn.wthor_positions): the professionals'
positions replay to legal states with the recorded move legal there, passes are played and
never an expert's choice, the split is seeded, and bad input gets one clear error."""

import struct

import numpy as np
import pytest

from gamelib.games import registry
from gamelib.learn import wthor_positions as wp
from gamelib.games.othello import wthor

G = registry.get("othello")
SHARED = wthor.default_dirs()[-2]
needs_wthor = pytest.mark.skipif(
    not (SHARED / "WTH_1980.wtb").is_file(),
    reason=f"the WTHOR records are not at {SHARED} (python -m gamelib.games.othello.download)")


@pytest.fixture(scope="module")
def split():
    return wp.wthor_split(1977, 1981, held_out_fraction=0.2, seed=3, path=SHARED)


@needs_wthor
def test_every_position_is_a_legal_state_with_the_experts_move_legal(split):
    pos = split.positions
    records = wp.wthor_records(1977, 1981, SHARED)
    assert pos.n_games == len(records) == 12 + 8 + 11 + 160 + 153
    # every recorded move is kept, the unwritten passes are added
    assert pos.codes.size == records["n_moves"].sum() + records["n_passes"].sum()
    assert np.count_nonzero(pos.codes == G.PASS) == records["n_passes"].sum() > 0
    buf = np.zeros(G.MAX_MOVES, dtype=np.int32)
    for i in range(len(pos)):
        s = pos.state(i)
        n = G.gen_moves(s, buf, 0)
        assert n > 1                                   # no forced move, no forced pass
        assert pos.expert_move(i) in buf[:n] and pos.expert_move(i) != G.PASS
        assert G.hash_key(s) == pos.key[i]
    # a record's squares, read again from its move string, are its moves without the passes
    g = 100
    moves = pos.record_moves(g)
    assert np.array_equal(moves[moves != G.PASS], wp.record_squares(records["moves"][g]))
    # each game's unforced positions: all of its plies but the forced ones
    assert len(pos) <= pos.codes.size - records["n_passes"].sum()


@needs_wthor
def test_the_split_is_by_game_and_seeded(split):
    pos = split.positions
    assert split.held_out_games.size == round(0.2 * pos.n_games)
    assert np.isin(pos.game[split.held_out], split.held_out_games).all()
    assert not np.isin(pos.game[split.train], split.held_out_games).any()
    assert not np.isin(pos.key[split.held_out], pos.key[split.train]).any()
    again = wp.wthor_split(1977, 1981, held_out_fraction=0.2, seed=3, path=SHARED)
    assert np.array_equal(again.train, split.train)
    assert np.array_equal(again.held_out, split.held_out)
    sample = wp.wthor_split(1980, 1981, held_out_fraction=0.0, seed=1, max_games=20, path=SHARED)
    assert sample.positions.n_games == 20 and sample.held_out.size == 0


# --- bad input -----------------------------------------------------------------------------------
def _wtb(path, games, year=2001):
    """A WTHOR game file of ``games`` (lists of squares such as ``"f5"``)."""
    head = bytes([20, 23, 4, 1]) + struct.pack("<IHH", len(games), 0, year) + bytes([8, 0, 22, 0])
    recs = b""
    for moves in games:
        codes = [10 * int(m[1]) + "abcdefgh".index(m[0]) + 1 for m in moves]
        recs += struct.pack("<HHHBB", 0, 1, 2, 0, 0) + bytes(codes + [0] * (60 - len(codes)))
    path.write_bytes(head + recs)
    return path


def test_a_good_synthetic_file_gives_its_positions(tmp_path):
    _wtb(tmp_path / "WTH_2001.wtb", [["f5", "d6", "c3"], ["f5", "f6"]])
    sp = wp.wthor_split(2001, 2001, held_out_fraction=0.0, path=tmp_path)
    # the start (4 moves), after f5 (3 moves), after f5 d6 (5 moves): expert moves kept
    assert [sp.positions.expert_move(i) for i in range(len(sp.positions))] == \
        [G.parse_move(G.start(0), "f5"), 43, 18, 37, 45]


@pytest.mark.parametrize("case", ["empty range", "no folder", "no year file", "corrupt"])
def test_bad_input_gets_one_clear_error(tmp_path, case):
    if case == "empty range":
        with pytest.raises(ValueError, match="empty year range 1990..1980"):
            wp.wthor_split(1990, 1980, path=tmp_path)
    elif case == "no folder":
        with pytest.raises(FileNotFoundError, match="no such folder of WTHOR records"):
            wp.wthor_split(1980, 1980, path=tmp_path / "absent")
    elif case == "no year file":
        _wtb(tmp_path / "WTH_2001.wtb", [["f5"]])
        with pytest.raises(ValueError, match=r"no WTHOR file for year\(s\) 2002, 2003"):
            wp.wthor_split(2001, 2003, path=tmp_path)
    else:
        _wtb(tmp_path / "WTH_2001.wtb", [["f5", "d6"], ["f5", "a1"]])
        with pytest.raises(wthor.WthorError, match="game 1, move 2: illegal move a1"):
            wp.wthor_split(2001, 2001, path=tmp_path)
    with pytest.raises(ValueError, match="first_year"):
        wp.wthor_records(-1, 1980, tmp_path)


def test_move_strings_are_checked():
    assert list(wp.record_squares("a1h8f5")) == [0, 63, 37]
    with pytest.raises(ValueError, match="two characters a move"):
        wp.record_squares("f5d")
    with pytest.raises(ValueError, match="squares a1-h8"):
        wp.record_squares("f5z9")
