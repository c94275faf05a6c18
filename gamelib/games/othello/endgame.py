"""Exact endgame solver: negamax alpha-beta to the end of the game.

The value of a position is the final disc difference (side to move minus opponent) under
perfect play by both sides, computed by fail-soft negamax

.. math::

   v(s) = \\max_{a} \\; -v(s \\cdot a), \\qquad v(s) = -v(\\bar s) \\text{ if } s \\text{ must pass},

with alpha-beta pruning and principal variation search (null windows for all moves but the
first, a re-search when a move beats alpha). A finished game is worth
:func:`gamelib.games.othello.core.final_score`, with or without the empty squares credited to the
winner. The root is searched first with the null window around 0 (does the side to move
win, draw or lose?), then with the window on the side that test found.

Speed comes from the usual endgame machinery:

* far from the end: a **transposition table** (exact positions as keys, lower and upper
  bounds as values; the number of empties is implied by the position, so every bound is
  exact), its move first, then **fastest first** (the move that leaves the opponent the
  fewest moves, corner replies counted twice; own corners and the opponent's potential
  mobility break ties), and an **enhanced transposition cutoff** (children's bounds are
  looked up before any child is searched);
* everywhere: a **stability cutoff** (the side to move cannot end above
  64 - 2 x the opponent's stable discs);
* near the end (:data:`SHALLOW_EMPTIES`): no table and no sorting, but **parity** (first the
  quadrants with an odd number of empties) and fixed square classes (corners first, the
  squares next to corners last); the last three empties are solved by dedicated routines.

This module works on bitboards only; :func:`gamelib.games.othello.solve` (in :mod:`gamelib.games.othello.board`)
is its entry for board strings.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .core import U0, U1, _cttz, final_score, flips, move_mask, popcount

__all__ = ["solve_bitboards", "TT_BITS"]

#: At or below this many empties the search uses parity ordering and no table.
SHALLOW_EMPTIES = 6
#: At or above this many empties, children are looked up in the table before any search.
ETC_EMPTIES = 10
#: log2 of the number of transposition-table entries.
TT_BITS = 20
_INF = 65

_QUADRANTS = np.array(
    [0x000000000F0F0F0F, 0x00000000F0F0F0F0, 0x0F0F0F0F00000000, 0xF0F0F0F000000000],
    dtype=np.uint64,
)
_CORNERS = np.uint64(0x8100000000000081)
#: Shallow-search square classes, tried in this order: corners, edges away from the corners,
#: inner squares, and last the squares next to the corners (C and X squares).
_SQUARE_CLASSES = np.array(
    [0x8100000000000081, 0x3C0081818181003C,
     ~(0x8100000000000081 | 0x3C0081818181003C | 0x42C300000000C342) & 0xFFFFFFFFFFFFFFFF,
     0x42C300000000C342],
    dtype=np.uint64,
)
_COL_A = np.uint64(0x0101010101010101)
_COL_H = np.uint64(0x8080808080808080)
_ROW_1 = np.uint64(0x00000000000000FF)
_ROW_8 = np.uint64(0xFF00000000000000)
_EDGES = _COL_A | _COL_H | _ROW_1 | _ROW_8


def _build_lines():
    """Masks of the 8 rows, 8 columns, 15 a1-h8 diagonals and 15 h1-a8 diagonals."""
    rows = [sum(1 << (8 * r + c) for c in range(8)) for r in range(8)]
    cols = [sum(1 << (8 * r + c) for r in range(8)) for c in range(8)]
    diag9 = [sum(1 << (8 * r + c) for r in range(8) for c in range(8) if c - r == k) for k in range(-7, 8)]
    diag7 = [sum(1 << (8 * r + c) for r in range(8) for c in range(8) if c + r == k) for k in range(15)]
    return tuple(np.array(x, dtype=np.uint64) for x in (rows, cols, diag9, diag7))


_LINES_H, _LINES_V, _LINES_D9, _LINES_D7 = _build_lines()
_HASH_MUL_P = np.uint64(0x9E3779B97F4A7C15)
_HASH_MUL_O = np.uint64(0xC2B2AE3D27D4EB4F)


@njit(cache=True)
def _last1(p, o, sq, empties_to_winner):
    """Exact value with one empty square ``sq`` (side ``p`` to move)."""
    diff = popcount(p) - popcount(o)
    f = flips(p, o, sq)
    if f != U0:
        return diff + 2 * popcount(f) + 1
    f = flips(o, p, sq)
    if f != U0:
        return diff - 2 * popcount(f) - 1
    if empties_to_winner:  # 63 discs: the difference is odd, never a draw
        return diff + 1 if diff > 0 else diff - 1
    return diff


@njit(cache=True)
def _last2(p, o, beta, sq1, sq2, empties_to_winner):
    """Exact value (fail-soft above ``beta``) with two empty squares, side ``p`` to move."""
    best = -_INF
    f = flips(p, o, sq1)
    if f != U0:
        best = -_last1(o & ~f, p | f | (U1 << sq1), sq2, empties_to_winner)
        if best >= beta:
            return best
    f = flips(p, o, sq2)
    if f != U0:
        v = -_last1(o & ~f, p | f | (U1 << sq2), sq1, empties_to_winner)
        if v > best:
            best = v
    if best > -_INF:
        return best
    # p passes: the opponent moves (or the game is over)
    worst = _INF
    f = flips(o, p, sq1)
    if f != U0:
        worst = _last1(p & ~f, o | f | (U1 << sq1), sq2, empties_to_winner)
    f = flips(o, p, sq2)
    if f != U0:
        v = _last1(p & ~f, o | f | (U1 << sq2), sq1, empties_to_winner)
        if v < worst:
            worst = v
    if worst < _INF:
        return worst
    return final_score(p, o, empties_to_winner)


@njit(cache=True, inline="always")
def _quadrant_id(sq):
    """Quadrant (0..3) of square ``sq`` (a uint64)."""
    return (sq >> np.uint64(2) & U1) | (sq >> np.uint64(4) & np.uint64(2))


@njit(cache=True)
def _last3(p, o, alpha, beta, a, b, c, empties_to_winner):
    """Exact value (fail-soft) with three empty squares, side ``p`` to move."""
    # parity: a square alone in its quadrant first
    qa, qb, qc = _quadrant_id(a), _quadrant_id(b), _quadrant_id(c)
    if qa == qb and qa != qc:
        a, c = c, a
    elif qa == qc and qa != qb:
        a, b = b, a
    best = -_INF
    for k in range(3):
        if k == 0:
            sq, x, y = a, b, c
        elif k == 1:
            sq, x, y = b, a, c
        else:
            sq, x, y = c, a, b
        f = flips(p, o, sq)
        if f != U0:
            v = -_last2(o & ~f, p | f | (U1 << sq), -alpha, x, y, empties_to_winner)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if v >= beta:
                        return v
    if best > -_INF:
        return best
    # p passes
    worst = _INF
    for k in range(3):
        if k == 0:
            sq, x, y = a, b, c
        elif k == 1:
            sq, x, y = b, a, c
        else:
            sq, x, y = c, a, b
        f = flips(o, p, sq)
        if f != U0:
            v = _last2(p & ~f, o | f | (U1 << sq), beta, x, y, empties_to_winner)
            if v < worst:
                worst = v
                if v <= alpha:
                    return v
    if worst < _INF:
        return worst
    return final_score(p, o, empties_to_winner)


@njit(cache=True)
def _shallow(p, o, alpha, beta, empties_to_winner, nodes):
    """Fail-soft alpha-beta near the end: parity and square-class ordering, no table."""
    nodes[0] += 1
    empty = ~(p | o)
    if empty == U0:
        return popcount(p) - popcount(o)
    rest = empty & (empty - U1)
    if rest == U0:
        return _last1(p, o, _cttz(empty), empties_to_winner)
    rest2 = rest & (rest - U1)
    if rest2 == U0:
        return _last2(p, o, beta, _cttz(empty), _cttz(rest), empties_to_winner)
    if rest2 & (rest2 - U1) == U0:
        return _last3(p, o, alpha, beta, _cttz(empty), _cttz(rest), _cttz(rest2), empties_to_winner)
    if alpha >= 64 - 2 * popcount(o):  # stability cutoff, as in _deep
        bound = 64 - 2 * popcount(stable_discs(o, p))
        if bound <= alpha:
            return bound
    odd = U0
    for q in range(4):
        if popcount(empty & _QUADRANTS[q]) & 1:
            odd |= _QUADRANTS[q]
    moves = move_mask(p, o)
    if moves == U0:  # pass, or the end of the game
        if move_mask(o, p) == U0:
            return final_score(p, o, empties_to_winner)
        return -_shallow(o, p, -beta, -alpha, empties_to_winner, nodes)
    best = -_INF
    for stage in range(8):
        region = odd if stage < 4 else ~odd
        sqs = moves & region & _SQUARE_CLASSES[stage & 3]
        while sqs:
            sq = _cttz(sqs)
            sqs &= sqs - U1
            f = flips(p, o, sq)
            v = -_shallow(o & ~f, p | f | (U1 << sq), -beta, -alpha, empties_to_winner, nodes)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if v >= beta:
                        return v
    return best


@njit(cache=True)
def stable_discs(p, o):
    """Discs of ``p`` that can never be flipped (a subset of the truly stable ones).

    Along each of the four axes a disc is safe when its line on that axis is full, when it
    touches the board edge on that axis, or when a neighbour on that axis is a stable disc of
    the same colour; a disc safe on all four axes is stable. Iterated to a fixed point.
    """
    occ = p | o
    full_h = U0
    full_v = U0
    full_9 = U0
    full_7 = U0
    for i in range(8):
        if occ & _LINES_H[i] == _LINES_H[i]:
            full_h |= _LINES_H[i]
        if occ & _LINES_V[i] == _LINES_V[i]:
            full_v |= _LINES_V[i]
    for i in range(15):
        if occ & _LINES_D9[i] == _LINES_D9[i]:
            full_9 |= _LINES_D9[i]
        if occ & _LINES_D7[i] == _LINES_D7[i]:
            full_7 |= _LINES_D7[i]
    base_h = full_h | _COL_A | _COL_H
    base_v = full_v | _ROW_1 | _ROW_8
    base_9 = full_9 | _EDGES
    base_7 = full_7 | _EDGES
    s1 = np.uint64(1)
    s7 = np.uint64(7)
    s8 = np.uint64(8)
    s9 = np.uint64(9)
    stable = U0
    while True:
        h = base_h | ((stable << s1) & ~_COL_A) | ((stable >> s1) & ~_COL_H)
        v = base_v | (stable << s8) | (stable >> s8)
        d9 = base_9 | ((stable << s9) & ~_COL_A) | ((stable >> s9) & ~_COL_H)
        d7 = base_7 | ((stable << s7) & ~_COL_H) | ((stable >> s7) & ~_COL_A)
        new = p & h & v & d9 & d7
        if new == stable:
            return stable
        stable = new


@njit(cache=True)
def _tt_index(p, o, mask):
    return ((p * _HASH_MUL_P) ^ (o * _HASH_MUL_O) ^ (p >> np.uint64(29))) & mask


@njit(cache=True, inline="always")
def _neighbours(x):
    """Squares adjacent (8 directions) to the discs of ``x``."""
    s1 = np.uint64(1)
    s7 = np.uint64(7)
    s8 = np.uint64(8)
    s9 = np.uint64(9)
    y = ((x << s1) & ~_COL_A) | ((x >> s1) & ~_COL_H)
    y |= x << s8 | x >> s8
    y |= ((x << s9) & ~_COL_A) | ((x >> s9) & ~_COL_H)
    y |= ((x << s7) & ~_COL_H) | ((x >> s7) & ~_COL_A)
    return y


@njit(cache=True)
def _own_corners(p):
    """Corners held by ``p``."""
    return p & _CORNERS


@njit(cache=True)
def _order_moves(p, o, moves, tt_move, sqs, keys):
    """Fill ``sqs``/``keys`` with the moves sorted best first; returns their number.

    Key (smaller first): 4 x the opponent's mobility after the move (fastest first; its
    corner moves count twice), minus 2 per corner the mover holds, plus the opponent's
    potential mobility (empty squares next to the mover's discs); the table move first.
    """
    n = 0
    while moves:
        sq = _cttz(moves)
        moves &= moves - U1
        f = flips(p, o, sq)
        np_ = p | f | (U1 << sq)
        no_ = o & ~f
        om = move_mask(no_, np_)
        key = 4 * (popcount(om) + popcount(om & _CORNERS)) - 2 * popcount(_own_corners(np_)) + popcount(_neighbours(np_) & ~(np_ | no_))
        if np.int64(sq) == tt_move:
            key = -1
        # insertion sort (at most ~30 moves)
        j = n
        while j > 0 and keys[j - 1] > key:
            keys[j] = keys[j - 1]
            sqs[j] = sqs[j - 1]
            j -= 1
        keys[j] = key
        sqs[j] = np.int64(sq)
        n += 1
    return n


@njit(cache=True)
def _deep(p, o, alpha, beta, empties_to_winner, tt_p, tt_o, tt_lo, tt_hi, tt_mv, sqbuf, keybuf, nodes):
    """Fail-soft PVS with transposition table and fastest-first ordering."""
    empties = 64 - popcount(p | o)
    if empties <= SHALLOW_EMPTIES:
        return _shallow(p, o, alpha, beta, empties_to_winner, nodes)
    nodes[0] += 1
    # stability cutoff: the side to move cannot end above 64 - 2 * (opponent's stable discs)
    if alpha >= 64 - 2 * popcount(o) and alpha > -_INF + 1:
        bound = 64 - 2 * popcount(stable_discs(o, p))
        if bound <= alpha:
            return bound
    mask = np.uint64(tt_p.shape[0] - 1)
    idx = _tt_index(p, o, mask)
    tt_move = np.int64(-1)
    if tt_p[idx] == p and tt_o[idx] == o:
        lo = np.int64(tt_lo[idx])
        hi = np.int64(tt_hi[idx])
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        if lo == hi:
            return lo
        if lo > alpha:
            alpha = lo
        if hi < beta:
            beta = hi
        tt_move = np.int64(tt_mv[idx])
    moves = move_mask(p, o)
    if moves == U0:
        if move_mask(o, p) == U0:
            return final_score(p, o, empties_to_winner)
        return -_deep(o, p, -beta, -alpha, empties_to_winner, tt_p, tt_o, tt_lo, tt_hi, tt_mv, sqbuf, keybuf, nodes)
    sqs = sqbuf[empties]
    n = _order_moves(p, o, moves, tt_move, sqs, keybuf[empties])
    if empties >= ETC_EMPTIES:  # enhanced transposition cutoff: a child's bound may suffice
        for i in range(n):
            sq = sqs[i]
            f = flips(p, o, sq)
            cp = o & ~f
            co = p | f | (U1 << np.uint64(sq))
            cidx = _tt_index(cp, co, mask)
            if tt_p[cidx] == cp and tt_o[cidx] == co and -np.int64(tt_hi[cidx]) >= beta:
                return -np.int64(tt_hi[cidx])
    alpha0 = alpha
    best = -_INF
    best_sq = np.int64(-1)
    for i in range(n):
        sq = sqs[i]
        f = flips(p, o, sq)
        cp = o & ~f
        co = p | f | (U1 << np.uint64(sq))
        if i == 0:
            v = -_deep(cp, co, -beta, -alpha, empties_to_winner, tt_p, tt_o, tt_lo, tt_hi, tt_mv, sqbuf, keybuf, nodes)
        else:
            v = -_deep(cp, co, -alpha - 1, -alpha, empties_to_winner, tt_p, tt_o, tt_lo, tt_hi, tt_mv, sqbuf, keybuf, nodes)
            if alpha < v < beta:
                v = -_deep(cp, co, -beta, -v, empties_to_winner, tt_p, tt_o, tt_lo, tt_hi, tt_mv, sqbuf, keybuf, nodes)
        if v > best:
            best = v
            best_sq = sq
            if v > alpha:
                alpha = v
                if v >= beta:
                    break
    # store the bound (merging with an entry of the same position)
    if not (tt_p[idx] == p and tt_o[idx] == o):
        tt_p[idx] = p
        tt_o[idx] = o
        tt_lo[idx] = -_INF
        tt_hi[idx] = _INF
    if best <= alpha0:
        if best < tt_hi[idx]:
            tt_hi[idx] = best
    elif best >= beta:
        if best > tt_lo[idx]:
            tt_lo[idx] = best
    else:
        tt_lo[idx] = best
        tt_hi[idx] = best
    tt_mv[idx] = best_sq
    return best


@njit(cache=True)
def solve_bitboards(p, o, empties_to_winner, tt_bits):
    """Exact value and best move of ``(p, o)`` with ``p`` to move.

    Parameters
    ----------
    p, o : np.uint64
        Discs of the side to move and of its opponent.
    empties_to_winner : bool
        Score finished games with the empty squares credited to the winner.
    tt_bits : int
        log2 of the transposition-table size.

    Returns
    -------
    (int, int, int)
        The value (side to move minus opponent), a best move's square (-1 when the side
        must pass or the game is over) and the number of nodes searched.
    """
    return _solve(np.uint64(p), np.uint64(o), bool(empties_to_winner), np.int64(tt_bits))


@njit(cache=True)
def _solve(p, o, empties_to_winner, tt_bits):
    """Body of :func:`solve_bitboards` with fixed argument types (literal arguments would
    compile second specialisations of the recursive search, which numba's cache cannot
    reload)."""
    nodes = np.zeros(1, dtype=np.int64)
    size = 1 << tt_bits
    tt_p = np.zeros(size, dtype=np.uint64)
    tt_o = np.zeros(size, dtype=np.uint64)
    tt_lo = np.zeros(size, dtype=np.int8)
    tt_hi = np.zeros(size, dtype=np.int8)
    tt_mv = np.zeros(size, dtype=np.int8)
    sqbuf = np.zeros((65, 40), dtype=np.int64)
    keybuf = np.zeros((65, 40), dtype=np.int64)
    moves = move_mask(p, o)
    if moves == U0:
        if move_mask(o, p) == U0:
            return final_score(p, o, empties_to_winner), np.int64(-1), np.int64(1)
        inf = np.int64(_INF)  # not a literal: a literal argument would compile (and cache) a separate recursive specialisation
        v = -_deep(o, p, -inf, inf, empties_to_winner, tt_p, tt_o, tt_lo, tt_hi, tt_mv, sqbuf, keybuf, nodes)
        return v, np.int64(-1), nodes[0]
    # a null window at 0 first (win, draw or loss?), then the exact value on the right side
    v, sq = _root(p, o, np.int64(-1), np.int64(1), empties_to_winner, tt_p, tt_o, tt_lo, tt_hi, tt_mv, sqbuf, keybuf, nodes)
    if v >= 1:
        v, sq = _root(p, o, v - 1, np.int64(_INF), empties_to_winner, tt_p, tt_o, tt_lo, tt_hi, tt_mv, sqbuf, keybuf, nodes)
    elif v <= -1:
        v, sq = _root(p, o, np.int64(-_INF), v + 1, empties_to_winner, tt_p, tt_o, tt_lo, tt_hi, tt_mv, sqbuf, keybuf, nodes)
    return v, sq, nodes[0]


@njit(cache=True)
def _root(p, o, alpha, beta, empties_to_winner, tt_p, tt_o, tt_lo, tt_hi, tt_mv, sqbuf, keybuf, nodes):
    """Fail-soft PVS at the root (the side to move has moves): value and best move."""
    moves = move_mask(p, o)
    mask = np.uint64(tt_p.shape[0] - 1)
    idx = _tt_index(p, o, mask)
    tt_move = np.int64(-1)
    if tt_p[idx] == p and tt_o[idx] == o:
        tt_move = np.int64(tt_mv[idx])
    sqs = np.zeros(40, dtype=np.int64)
    keys = np.zeros(40, dtype=np.int64)
    n = _order_moves(p, o, moves, tt_move, sqs, keys)
    best = np.int64(-_INF)
    best_sq = np.int64(-1)
    for i in range(n):
        sq = sqs[i]
        f = flips(p, o, sq)
        cp = o & ~f
        co = p | f | (U1 << np.uint64(sq))
        if i == 0:
            v = -_deep(cp, co, -beta, -alpha, empties_to_winner, tt_p, tt_o, tt_lo, tt_hi, tt_mv, sqbuf, keybuf, nodes)
        else:
            v = -_deep(cp, co, -alpha - 1, -alpha, empties_to_winner, tt_p, tt_o, tt_lo, tt_hi, tt_mv, sqbuf, keybuf, nodes)
            if alpha < v < beta:
                v = -_deep(cp, co, -beta, -v, empties_to_winner, tt_p, tt_o, tt_lo, tt_hi, tt_mv, sqbuf, keybuf, nodes)
        if v > best:
            best = v
            best_sq = sq
            if v > alpha:
                alpha = v
                if v >= beta:
                    break
    if not (tt_p[idx] == p and tt_o[idx] == o):
        tt_p[idx] = p
        tt_o[idx] = o
        tt_lo[idx] = -_INF
        tt_hi[idx] = _INF
    tt_mv[idx] = best_sq
    return best, best_sq
