"""The start position's symmetries: bitboard transforms against a plain Python reference, which
symmetries keep the start position, which one takes each first move to f5, and the rules
commuting with them."""

import numpy as np
import pytest

from gamelib.games.othello import core
from gamelib.games.othello import symmetry as S
from gamelib.games.othello.squares import parse_square

#: All eight symmetries of the square as plain maps of (column, row), the reference.
SQUARE_MAPS = {
    "identity": lambda c, r: (c, r),
    "rotate 90": lambda c, r: (7 - r, c),
    "rotate 180": lambda c, r: (7 - c, 7 - r),
    "rotate 270": lambda c, r: (r, 7 - c),
    "mirror columns": lambda c, r: (7 - c, r),
    "mirror rows": lambda c, r: (c, 7 - r),
    "diagonal a1-h8": lambda c, r: (r, c),
    "diagonal a8-h1": lambda c, r: (7 - r, 7 - c),
}
CODES = {"identity": S.IDENTITY, "rotate 180": S.ROTATE_180, "diagonal a1-h8": S.FLIP_A1H8,
         "diagonal a8-h1": S.FLIP_A8H1}


def reference(name, x: int) -> int:
    out = 0
    for sq in range(64):
        if x >> sq & 1:
            c, r = SQUARE_MAPS[name](sq % 8, sq // 8)
            out |= 1 << (8 * r + c)
    return out


def random_boards(n, seed=0):
    rng = np.random.default_rng(seed)
    words = rng.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)
    return [np.uint64(0), np.uint64(2**64 - 1), np.uint64(1), np.uint64(1 << 63), *words]


@pytest.mark.parametrize("name", sorted(CODES))
def test_bitboard_transforms_match_the_reference_on_random_boards(name):
    code = CODES[name]
    for x in random_boards(500, seed=code):
        assert int(S.transform(code, x)) == reference(name, int(x))
        assert S.transform(code, np.uint64(S.transform(code, x))) == x  # its own inverse
    for sq in range(64):
        assert 1 << S.transform_square(code, sq) == reference(name, 1 << sq)


def test_exactly_four_symmetries_keep_the_start_position():
    start = (int(core.START_BLACK), int(core.START_WHITE))
    keep = {name for name in SQUARE_MAPS
            if (reference(name, start[0]), reference(name, start[1])) == start}
    assert keep == set(CODES)
    # the other four swap the colours of the centre discs
    for name in set(SQUARE_MAPS) - keep:
        assert (reference(name, start[0]), reference(name, start[1])) == start[::-1]


def test_the_symmetry_that_takes_each_first_move_to_f5():
    want = {"f5": S.IDENTITY, "c4": S.ROTATE_180, "e6": S.FLIP_A1H8, "d3": S.FLIP_A8H1}
    assert {m: S.symmetry_to_f5(m) for m in want} == want
    first_moves = {parse_square(m) for m in want}
    mask = int(core.move_mask(core.START_BLACK, core.START_WHITE))
    assert first_moves == {sq for sq in range(64) if mask >> sq & 1}
    for m in want:
        assert S.transform_square(S.symmetry_to_f5(m), parse_square(m)) == parse_square("f5")
        # only that one of the four does
        assert sum(S.transform_square(s, parse_square(m)) == parse_square("f5")
                   for s in S.START_SYMMETRIES) == 1


def test_rules_commute_with_the_symmetries():
    rng = np.random.default_rng(3)
    for _ in range(200):
        p, o = core.START_BLACK, core.START_WHITE
        for _ in range(int(rng.integers(0, 50))):  # a random game prefix
            mask = int(core.move_mask(p, o))
            if mask == 0:
                if core.is_game_over(p, o):
                    break
                p, o = o, p
                continue
            moves = [sq for sq in range(64) if mask >> sq & 1]
            p, o = (np.uint64(x) for x in core.make_move(p, o, moves[int(rng.integers(len(moves)))]))
            p, o = o, p
        for s in S.START_SYMMETRIES:
            tp, to = np.uint64(S.transform(s, p)), np.uint64(S.transform(s, o))
            mask = int(core.move_mask(p, o))
            assert int(core.move_mask(tp, to)) == int(S.transform(s, np.uint64(mask)))
            for sq in (sq for sq in range(64) if mask >> sq & 1):
                a, b = core.make_move(p, o, sq)
                ta, tb = core.make_move(tp, to, S.transform_square(s, sq))
                assert (ta, tb) == (S.transform(s, np.uint64(a)), S.transform(s, np.uint64(b)))


def test_bad_arguments():
    with pytest.raises(ValueError, match="not a first move"):
        S.symmetry_to_f5("a1")
    with pytest.raises(ValueError, match="unknown symmetry"):
        S.transform_square(4, 0)
    with pytest.raises(ValueError, match="bad square"):
        S.transform_square(S.IDENTITY, 64)
