"""The Othello evaluation's features (gamelib.games.othello.features) against a slow reference.

On the positions of seeded random playouts and of professional games (WTHOR, when the records
are there): φ is the plain-Python reference's, entry for entry and in order; evaluate is θ·φ
summed left to right, to the last bit; the evaluation is the same on the eight images of a
position under the board's symmetries for any θ; with antisymmetric weights it changes sign
when the colours are swapped; the initial weights give the book's positional evaluation.
"""

from __future__ import annotations

import numpy as np
import pytest

import othello_features_reference as ref
from gamelib.games.othello import game as gos
from gamelib.games.othello import features as of
from gamelib.games import registry
from gamelib.games.playout import random_playout
from othello_reference import positional as reference_positional
from gamelib.games.othello import wthor

WTHOR_DIR = wthor.default_dirs()[-2]   # the shared records, as tests/othello uses


def _bits(board, colour):
    return sum(1 << i for i, x in enumerate(board) if x == colour)


def _pair(board, side):
    """``(p, o)`` bitboards (np.uint64) of a grid, ``side`` to move."""
    return np.uint64(_bits(board, side)), np.uint64(_bits(board, ref.grid.other(side)))


def _playout_positions():
    game = registry.get("othello")
    out = []
    for seed in range(8):
        _, moves = random_playout(game, game.start(), seed, 200)
        board, side = list("-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27), "X"
        for m in moves:
            out.append((board, side))
            if m != gos.PASS:
                board = ref.grid.play(board, side, int(m))
            side = ref.grid.other(side)
        out.append((board, side))
    return out


def _wthor_positions(n_games=24):
    if not WTHOR_DIR.is_dir():
        return []
    records = wthor.load(WTHOR_DIR)
    out = []
    for moves in records["moves"].iloc[::len(records) // n_games][:n_games]:
        board, side = list("-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27), "X"
        for k in range(0, len(moves), 2):
            if not ref.grid.legal(board, side):
                side = ref.grid.other(side)
            out.append((board, side))
            board = ref.grid.play(board, side, ref.square(moves[k:k + 2]))
            side = ref.grid.other(side)
        out.append((board, side))
    return out


@pytest.fixture(scope="module")
def positions():
    return _playout_positions() + _wthor_positions()


def _phi(p, o):
    idx = np.empty(of.MAX_ACTIVE, dtype=np.int32)
    val = np.empty(of.MAX_ACTIVE, dtype=np.float64)
    n = of.board_features(p, o, idx, val)
    return [(int(i), float(v)) for i, v in zip(idx[:n], val[:n])]


def test_sizes_are_the_documented_ones():
    k = {f: len(pattern.split()) for f, pattern in of.FAMILIES.items()}
    # classes of a family whose own symmetry is one reflection: (3^k + fixed configurations) / 2
    fixed = {"edge_2x": 3 ** 5, "corner_3x3": 3 ** 6, "diag_7": 3 ** 4, "diag_5": 3 ** 3}
    for n, family in enumerate(of.FAMILIES):
        assert ref.n_weights(n) == (3 ** k[family] + fixed.get(family, 3 ** ((k[family] + 1) // 2))) // 2
        assert int(of.family_table(family).max()) + 1 == ref.n_weights(n)
        assert len(of.instances(family)) == len(ref.instance_readings(n)) == (2 if family == "diag_8" else 4)
    assert of.N_PATTERN_WEIGHTS == 54_828 and of.N_FEATURES == gos.N_FEATURES == 54_848
    assert of.MAX_ACTIVE == gos.MAX_ACTIVE == 43


def test_features_are_the_references_in_order(positions):
    assert len(positions) > 400
    idx = np.empty(gos.MAX_ACTIVE, dtype=np.int32)
    val = np.empty(gos.MAX_ACTIVE, dtype=np.float64)
    for board, side in positions:
        p, o = _pair(board, side)
        expected = ref.features(board, side)
        assert _phi(p, o) == expected, "".join(board)
        s = gos.new_state(_bits(board, "X"), _bits(board, "O"), side == "X")
        n = gos.features(s, idx, val)
        assert list(zip(idx[:n].tolist(), val[:n].tolist())) == expected


def test_evaluate_is_theta_dot_phi_to_the_last_bit(positions):
    theta = np.random.default_rng(1).normal(0.0, 1.0, of.N_FEATURES)
    for board, side in positions[::3]:
        p, o = _pair(board, side)
        value = of.board_evaluate(p, o, theta)
        assert value == ref.evaluate(board, side, theta)
        s = gos.new_state(_bits(board, "X"), _bits(board, "O"), side == "X")
        assert gos.evaluate(s, theta) == value


def _image(board, g):
    out = ["-"] * 64
    for sq in range(64):
        out[ref.symmetry(g, sq)] = board[sq]
    return out


def test_the_evaluation_is_the_same_on_the_eight_images_of_a_position(positions):
    # integers over a power of two: every sum is exact, so any order of the terms gives one value
    theta = np.random.default_rng(2).integers(-2**20, 2**20, of.N_FEATURES) / 2**10
    for board, side in positions[::5]:
        phi = sorted(_phi(*_pair(board, side)))
        value = of.board_evaluate(*_pair(board, side), theta)
        for g in range(1, 8):
            image = _image(board, g)
            assert sorted(_phi(*_pair(image, side))) == phi
            assert of.board_evaluate(*_pair(image, side), theta) == value


def _antisymmetric_theta(rng):
    """θ with θ[class of c] = -θ[class of c with the colours swapped], the own and the other
    side's counts of equal and opposite weight and parity weight 0 (integers over 2^10)."""
    r = rng.integers(-2**20, 2**20, of.N_FEATURES) / 2**10
    theta = np.zeros(of.N_FEATURES)
    offset = 0
    for family in of.FAMILIES:
        table = of.family_table(family)
        k = len(of.FAMILIES[family].split())
        codes = np.arange(table.size)
        digits = codes[:, None] // 3 ** np.arange(k) % 3
        swapped = ((3 - digits) % 3 * 3 ** np.arange(k)).sum(axis=1)
        theta[offset + table] = r[offset + table] - r[offset + table[swapped]]
        offset += int(table.max()) + 1
    for stage in range(of.N_STAGES):
        b = offset + of.N_COUNTS * stage
        theta[b], theta[b + 1] = r[b], -r[b]
        theta[b + 2], theta[b + 3] = r[b + 2], -r[b + 2]
    return theta


def test_antisymmetric_weights_give_an_antisymmetric_evaluation(positions):
    rng = np.random.default_rng(3)
    theta = _antisymmetric_theta(rng)
    general = rng.integers(-2**20, 2**20, of.N_FEATURES) / 2**10
    asymmetric = 0
    for board, side in positions[::4]:
        p, o = _pair(board, side)
        assert of.board_evaluate(o, p, theta) == -of.board_evaluate(p, o, theta)
        asymmetric += of.board_evaluate(o, p, general) != -of.board_evaluate(p, o, general)
    assert asymmetric > 0.9 * len(positions[::4])   # not so by construction: the weights make it


def test_the_initial_weights_are_the_positional_evaluation(positions):
    theta = of.initial_theta()
    assert np.count_nonzero(theta[of.N_PATTERN_WEIGHTS:]) == 0
    for board, side in positions[::3]:
        p, o = _pair(board, side)
        black, white = _bits(board, "X"), _bits(board, "O")
        positional = reference_positional(black, white, side == "X")
        assert abs(of.board_evaluate(p, o, theta) - positional) <= 1e-12
        assert abs(of.board_evaluate(o, p, theta) + positional) <= 1e-12


def test_initial_weights_refuse_square_weights_that_are_not_symmetric():
    w = of.CLASSIC_WEIGHTS.copy()
    w[1] += 1.0   # b1 no longer equals a2
    with pytest.raises(ValueError, match="same on the eight images"):
        of.initial_theta(w)
    with pytest.raises(ValueError, match="64 numbers"):
        of.initial_theta(np.ones(63))
