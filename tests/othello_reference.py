"""An independent Othello reference for the tests: leaf scores by their formulas and a plain
negamax in Python over the bitboard move generator (:mod:`gamelib.games.othello.core`), with none of
the search's machinery (no pruning, ordering, table or protocol state).

* :func:`positional` -- :math:`\\sum_i w_i (p_i - o_i) / \\sum_i |w_i|` for the side to move
  (the classic square weights by default);
* :func:`negamax` -- the minimax value of the tree ``depth`` plies deep, ``leaf(p, o,
  black_to_move)`` scoring its leaves for their side to move; a pass is a ply, and a finished
  game scores ``end(p, o, plies_left)`` for its side to move (by default the sign of the disc
  difference; a caller that compares with the search's ``±(MATE - ply)`` makes a sooner end
  worth more).
"""

from __future__ import annotations

import numpy as np

from gamelib.games.othello.features import CLASSIC_WEIGHTS
from gamelib.games.othello import core

U64 = np.uint64


def legal_squares(p: int, o: int) -> list[int]:
    mask = int(core.move_mask(U64(p), U64(o)))
    return [sq for sq in range(64) if mask >> sq & 1]


def after(p: int, o: int, sq: int) -> tuple[int, int]:
    """The pair ``(p, o)`` of the side to move after ``sq`` (the old side's discs second)."""
    q, r = (int(x) for x in core.make_move(U64(p), U64(o), sq))
    return r, q


def positional(black: int, white: int, black_to_move: bool, weights=CLASSIC_WEIGHTS) -> float:
    w = np.asarray(weights, dtype=np.float64)
    p, o = (black, white) if black_to_move else (white, black)
    mine = sum(w[sq] for sq in range(64) if p >> sq & 1)
    theirs = sum(w[sq] for sq in range(64) if o >> sq & 1)
    return (mine - theirs) / np.abs(w).sum()


def disc_end(p: int, o: int, plies_left: int = 0) -> float:
    """A finished game for the side to move: +1, 0 or -1 by the disc count."""
    d = bin(p).count("1") - bin(o).count("1")
    return float(np.sign(d))


def negamax(p: int, o: int, black_to_move: bool, depth: int, leaf, end=disc_end) -> float:
    """The minimax value for the side to move (``p``) of the tree ``depth`` plies deep."""
    moves = legal_squares(p, o)
    if not moves:
        if not legal_squares(o, p):
            return end(p, o, depth)
        if depth == 0:
            return leaf(p, o, black_to_move)
        return -negamax(o, p, not black_to_move, depth - 1, leaf, end)
    if depth == 0:
        return leaf(p, o, black_to_move)
    return max(-negamax(*after(p, o, sq), not black_to_move, depth - 1, leaf, end) for sq in moves)
