"""Perft over the game protocol: the leaves of the legal-move tree, written once for every game.

.. math::  \\mathrm{perft}(s, 0) = 1, \\qquad
           \\mathrm{perft}(s, d) = \\sum_{m \\in M(s)} \\mathrm{perft}(s \\cdot m, d - 1)
           \\quad (M(s) \\neq \\emptyset), \\qquad
           \\mathrm{perft}(s, d) = \\mathtt{PERFT\\_END\\_LEAF} \\quad (M(s) = \\emptyset)

with :math:`M(s)` the moves of ``gen_moves`` (a forced pass included) and ``PERFT_END_LEAF`` the
game's convention for a position without moves (a finished Othello game is a leaf; in shogi
only move sequences count). The last ply is counted with ``count_moves`` without being played
(bulk counting). The plies above the last two are walked with an explicit stack, as
:func:`gamelib.games.minishogi.core.perft` does, with one buffer of ``MAX_MOVES`` moves per ply; the
last two in a loop of their own, whose counters stay in registers.
"""

from __future__ import annotations

import sys

import numpy as np

from .protocol import (MAX_MOVES, PERFT_END_LEAF, Game, count_moves, gen_moves, make_move,
                       unmake_move)
from .specialize import generic, specialize

__all__ = ["perft", "perft_kernel"]


@generic(_nrt=False, inline="always")
def _last_two(s, buf, base):
    """perft(s, 2): the moves into ``buf[base:]``, each played and its replies counted with
    ``count_moves`` (scratch after the moves)."""
    n = gen_moves(s, buf, base)
    if n == 0:
        return np.int64(PERFT_END_LEAF)
    total = np.int64(0)
    for i in range(base, base + n):
        make_move(s, np.int64(buf[i]))
        c = count_moves(s, buf, base + n)
        total += c if c > 0 else PERFT_END_LEAF
        unmake_move(s)
    return total


@generic(_nrt=False)
def perft_kernel(s, depth, buf, idx, cnt):
    """perft(s, depth) (``depth`` ≥ 2) with the buffers ``buf`` (int32, ``depth · MAX_MOVES``),
    ``idx`` and ``cnt`` (int64, ``depth``); ``s`` is restored. The plies above the last two go
    through an explicit stack (``idx``, ``cnt``), the last two through :func:`_last_two`'s loop."""
    if depth == 2:
        return _last_two(s, buf, 0)
    cnt[0] = gen_moves(s, buf, 0)
    if cnt[0] == 0:
        return np.int64(PERFT_END_LEAF)
    idx[0] = 0
    ply = 0
    total = np.int64(0)
    while True:
        if idx[ply] < cnt[ply]:
            m = np.int64(buf[ply * MAX_MOVES + idx[ply]])
            idx[ply] += 1
            make_move(s, m)
            if ply + 3 == depth:
                total += _last_two(s, buf, (ply + 1) * MAX_MOVES)
                unmake_move(s)
            else:
                ply += 1
                idx[ply] = 0
                cnt[ply] = gen_moves(s, buf, ply * MAX_MOVES)
                if cnt[ply] == 0:
                    total += PERFT_END_LEAF
        else:
            if ply == 0:
                break
            unmake_move(s)
            ply -= 1
    return total


def perft(game: Game, s: np.ndarray, depth: int) -> int:
    """The number of leaves of ``game``'s move tree ``depth`` plies deep from state ``s``
    (restored)."""
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or not 0 <= depth <= 64:
        raise ValueError(f"perft depth must be an integer in [0, 64], got {depth!r}")
    if depth == 0:
        return 1
    buf = np.empty(max(depth, 2) * game.MAX_MOVES, dtype=np.int32)
    if depth == 1:
        n = int(game.count_moves(s, buf, 0))
        return n if n > 0 else game.PERFT_END_LEAF
    idx = np.zeros(depth, dtype=np.int64)
    cnt = np.zeros(depth, dtype=np.int64)
    return int(specialize(game, sys.modules[__name__]).perft_kernel(s, np.int64(depth), buf, idx, cnt))

