"""Numba bitboard core of 8x8 Othello: move masks, flips, moves, passes, game end, score, perft.

A position is two ``uint64`` bitboards ``(p, o)``: the discs of the side to move (``p``) and of
its opponent (``o``). Bit ``i`` is square ``i``, with 0 = a1, 1 = b1, ..., 7 = h1, 8 = a2, ...,
63 = h8 (row by row from a1, the order of the FFO/Edax text boards). Rows are numbered 1..8 from
the top, columns a..h from the left: square ``"d3"`` is bit ``8 * (3 - 1) + 3 = 19``.

The functions know nothing about colours: the caller remembers whose turn it is. The rules, all
in one place:

* a move on an empty square is legal when it flanks, in at least one of the eight directions, a
  contiguous line of opponent discs ending at one of the mover's discs; every such line flips;
* a side with no legal move passes (the position is the same, the other side moves);
* the game ends when neither side can move;
* the final score is the disc difference; under the World Othello Federation rule the empty
  squares go to the winner (``empties_to_winner``), so a win 33-30 with one empty square
  scores 34-30 = +4.

All functions are ``@njit(cache=True)`` and take and return ``np.uint64`` values; integers that
are shifted or masked are ``uint64`` throughout (mixing ``int64`` and ``uint64`` in numba
promotes to ``float64``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gamelib.runtime.bits import ctlz as _ctlz, ctpop as _ctpop, cttz as _cttz

__all__ = [
    "EMPTY_BOARD_MASK",
    "START_BLACK",
    "START_WHITE",
    "popcount",
    "lowest_bit_index",
    "move_mask",
    "flips",
    "make_move",
    "pass_turn",
    "can_move",
    "must_pass",
    "is_game_over",
    "disc_counts",
    "disc_difference",
    "final_score",
    "perft",
    "perft_divide",
    "square_bit",
]

U0 = np.uint64(0)
U1 = np.uint64(1)
EMPTY_BOARD_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)
#: Columns b..g: the opponent discs that can be flanked horizontally or diagonally.
_INNER_COLUMNS = np.uint64(0x7E7E7E7E7E7E7E7E)
#: Standard start position: d5 and e4 black, d4 and e5 white (square d4 = index 27).
START_BLACK = np.uint64((1 << 28) | (1 << 35))
START_WHITE = np.uint64((1 << 27) | (1 << 36))

_S1 = np.uint64(1)
_S2 = np.uint64(2)
_S7 = np.uint64(7)
_S8 = np.uint64(8)
_S9 = np.uint64(9)
_S14 = np.uint64(14)
_S16 = np.uint64(16)
_S18 = np.uint64(18)
_S63 = np.uint64(63)


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of the uint64 ``x``."""
    return np.int64(_ctpop(x))


@njit(cache=True, inline="always")
def lowest_bit_index(x):
    """Index (0..63) of the lowest set bit of the non-zero uint64 ``x``."""
    return np.int64(_cttz(x))


@njit(cache=True, inline="always")
def square_bit(sq):
    """The uint64 with only bit ``sq`` set."""
    return U1 << np.uint64(sq)


def _build_rays():
    """Ray masks: ``RAYS[d, sq]`` = squares strictly beyond ``sq`` in direction ``d``.

    Directions 0..3 increase the square index (E, N... in index terms: +1, +7, +8, +9),
    directions 4..7 decrease it (-1, -7, -8, -9).
    """
    steps = [(1, 0), (-1, 1), (0, 1), (1, 1), (-1, 0), (1, -1), (0, -1), (-1, -1)]
    rays = np.zeros((8, 64), dtype=np.uint64)
    for d, (dc, dr) in enumerate(steps):
        for sq in range(64):
            c, r = sq % 8 + dc, sq // 8 + dr
            mask = 0
            while 0 <= c < 8 and 0 <= r < 8:
                mask |= 1 << (8 * r + c)
                c, r = c + dc, r + dr
            rays[d, sq] = np.uint64(mask)
    return rays


RAYS = _build_rays()


@njit(cache=True, inline="always")
def _moves_one_axis(p, mask, shift, shift2):
    """Kogge-Stone fill of one axis (both ways); returns the empty-or-not squares beyond runs."""
    fl = mask & (p << shift)
    fl |= mask & (fl << shift)
    ml = mask & (mask << shift)
    fl |= ml & (fl << shift2)
    fl |= ml & (fl << shift2)
    fr = mask & (p >> shift)
    fr |= mask & (fr >> shift)
    mr = mask & (mask >> shift)
    fr |= mr & (fr >> shift2)
    fr |= mr & (fr >> shift2)
    return (fl << shift) | (fr >> shift)


@njit(cache=True)
def move_mask(p, o):
    """Bitboard of the legal moves of the side with discs ``p`` against discs ``o``.

    Parameters
    ----------
    p, o : np.uint64
        Discs of the side to move and of its opponent (disjoint).

    Returns
    -------
    np.uint64
        One bit per empty square where a move flanks at least one line of ``o`` discs.
    """
    inner = o & _INNER_COLUMNS
    moves = _moves_one_axis(p, inner, _S1, _S2)
    moves |= _moves_one_axis(p, o, _S8, _S16)
    moves |= _moves_one_axis(p, inner, _S7, _S14)
    moves |= _moves_one_axis(p, inner, _S9, _S18)
    return moves & ~(p | o)


@njit(cache=True)
def flips(p, o, sq):
    """Bitboard of the ``o`` discs flipped when the side ``p`` plays on square ``sq``.

    Zero means the move is illegal (or ``sq`` is occupied: the caller must check emptiness).
    Each direction's run of opponent discs is closed by the first square that is not an
    opponent disc; it flips when that square holds a ``p`` disc.
    """
    f = U0
    not_o = ~o
    for d in range(4):  # directions that increase the index: nearest square = lowest bit
        ray = RAYS[d, sq]
        stop = ray & not_o
        first = stop & (~stop + U1)
        if first & p:
            f |= ray & (first - U1)
    for d in range(4, 8):  # directions that decrease the index: nearest square = highest bit
        ray = RAYS[d, sq]
        stop = ray & not_o
        if stop:
            first = U1 << (_S63 - _ctlz(stop))
            if first & p:
                f |= ray & ~(first | (first - U1))
    return f


@njit(cache=True)
def make_move(p, o, sq):
    """Play ``sq`` for the side ``p``; returns ``(p_after, o_after)`` without swapping sides.

    The move must be legal (see :func:`move_mask`); no check is made here. The next position,
    with the opponent to move, is ``(o_after, p_after)``.
    """
    f = flips(p, o, sq)
    return p | f | (U1 << np.uint64(sq)), o & ~f


@njit(cache=True)
def pass_turn(p, o):
    """The position after a pass: the same discs, the other side to move, ``(o, p)``."""
    return o, p


@njit(cache=True)
def can_move(p, o):
    """True when the side ``p`` has at least one legal move."""
    return move_mask(p, o) != U0


@njit(cache=True)
def must_pass(p, o):
    """True when the side ``p`` has no legal move but its opponent has one."""
    return move_mask(p, o) == U0 and move_mask(o, p) != U0


@njit(cache=True)
def is_game_over(p, o):
    """True when neither side has a legal move."""
    return move_mask(p, o) == U0 and move_mask(o, p) == U0


@njit(cache=True)
def disc_counts(p, o):
    """Disc counts ``(popcount(p), popcount(o))``."""
    return popcount(p), popcount(o)


@njit(cache=True)
def disc_difference(p, o):
    """Discs of ``p`` minus discs of ``o``."""
    return popcount(p) - popcount(o)


@njit(cache=True)
def final_score(p, o, empties_to_winner):
    """Final score of a finished game from the side ``p``'s view.

    ``popcount(p) - popcount(o)``; with ``empties_to_winner`` (the World Othello Federation
    rule) the empty squares are added to the winner's count (nothing changes in a draw).
    """
    diff = popcount(p) - popcount(o)
    if empties_to_winner:
        empties = 64 - popcount(p | o)
        if diff > 0:
            diff += empties
        elif diff < 0:
            diff -= empties
    return diff


@njit(cache=True)
def _perft(p, o, depth):
    """Recursive body of :func:`perft` (uint64, uint64, int64 arguments only)."""
    if depth <= 0:
        return np.int64(1)
    moves = move_mask(p, o)
    if moves == U0:
        if move_mask(o, p) == U0:
            return np.int64(1)
        return _perft(o, p, depth - 1)
    if depth == 1:
        return popcount(moves)
    total = np.int64(0)
    if depth == 2:  # each child: its moves, or one leaf (a pass, or the end of the game)
        while moves:
            sq = _cttz(moves)
            moves &= moves - U1
            f = flips(p, o, sq)
            child_moves = move_mask(o & ~f, p | f | (U1 << sq))
            total += popcount(child_moves) if child_moves != U0 else 1
        return total
    while moves:
        sq = _cttz(moves)
        moves &= moves - U1
        f = flips(p, o, sq)
        total += _perft(o & ~f, p | f | (U1 << sq), depth - 1)
    return total


@njit(cache=True)
def perft(p, o, depth):
    """Number of leaves of the game tree of ``depth`` plies from ``(p, o)``.

    Standard convention: a pass is one ply; a finished game is one leaf at any remaining
    depth. The last ply is counted with a population count (bulk counting), the last two
    without recursive calls.
    """
    # Fixed argument types for the recursive part: a literal argument (``perft(p, o, 5)`` in
    # jitted code) would otherwise compile a second recursive specialisation, which numba's
    # cache cannot reload.
    return _perft(np.uint64(p), np.uint64(o), np.int64(depth))


@njit(cache=True)
def perft_divide(p, o, depth):
    """Per-move leaf counts at the root (``depth`` >= 1): 64 counts, index = square, -1 = not legal.

    A forced pass at the root is reported in no square; use :func:`perft` for the total.
    """
    out = np.full(64, -1, dtype=np.int64)
    moves = move_mask(p, o)
    while moves:
        sq = _cttz(moves)
        moves &= moves - U1
        f = flips(p, o, sq)
        out[sq] = _perft(o & ~f, p | f | (U1 << sq), np.int64(depth - 1))
    return out
